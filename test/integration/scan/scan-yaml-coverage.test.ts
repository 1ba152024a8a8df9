/**
 * Holds our Scan surface to the newest Splice scan.yaml (issue #31): every operation it lists
 * (test/support/reference/scan-yaml-operations.ts, copied from the document, not from our code) is in
 * our OpenAPI document under /api/scan and is routed by the real server over a socket: its answer is
 * neither our unknown-route 404 nor a 405, and a 501 names why. An empty database: the point is the
 * route, not the data, which the per-operation tests assert.
 */
import { useTestDatabase } from '../../support/database/database';
import { startTestApi, type TestApi } from '../../support/http/http';
import { SCAN_YAML_OPERATIONS, type ScanYamlOperation } from '../../support/reference/scan-yaml-operations';

/**
 * Operations of the newest scan.yaml that we do not serve. Listed, not hidden: the test fails when one
 * of them becomes served (remove it here) or when anything else goes missing.
 */
const KNOWN_MISSING: readonly string[] = [];

/**
 * Operations that answer 500 to a minimal request on an empty database. Deliberate: Splice's Scan fails
 * the same way when no AmuletRules or AnsRules exist (src/api/scan/current-state.ts keeps its error), and
 * our document lists the 500. Listed so that the test fails when this changes or another 500 appears.
 */
const KNOWN_SERVER_ERRORS: readonly string[] = ['POST /v0/amulet-rules', 'POST /v0/ans-rules'];

const key = (op: ScanYamlOperation): string => `${op.method} ${op.path}`;

/** A plausible value for each path parameter of the document. */
const PARAM_VALUES: Record<string, string> = {
  domain_id: 'global-domain::1220aa',
  party_id: 'alice::1220aa',
  member_id: 'PAR::participant1::1220aa',
  update_id: '1220deadbeef',
  hash: 'deadbeef',
  party: 'alice::1220aa',
  name: 'alice.unverified.cns',
  provider_party_id: 'alice::1220aa',
  contract_id: '00deadbeef',
  vote_request_contract_id: '00deadbeef',
  round_number: '1',
  batch_hash: 'deadbeef',
};

function filled(path: string): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = PARAM_VALUES[name];
    if (value === undefined) throw new Error(`no value for path parameter ${name}`);
    return encodeURIComponent(value);
  });
}

async function send(api: TestApi, op: ScanYamlOperation, path: string) {
  const res = await fetch(`${api.url}${path}`, {
    method: op.method,
    ...(op.method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

describe('the newest scan.yaml against our surface', () => {
  const t = useTestDatabase();
  let api: TestApi;
  let unknownRoute: { status: number; text: string; json: unknown };
  let documented: Set<string>;

  beforeAll(async () => {
    api = await startTestApi(t);
    const doc = (await (await fetch(`${api.url}/docs/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    documented = new Set(Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`)));
    unknownRoute = await send(
      api,
      { method: 'GET', path: '', operationId: undefined, tags: [], deprecated: false },
      '/api/scan/v0/no-such-operation',
    );
  });
  afterAll(async () => {
    await api.close();
  });

  it('reads the reference list as the document has it', () => {
    expect(SCAN_YAML_OPERATIONS).toHaveLength(75);
    expect(new Set(SCAN_YAML_OPERATIONS.map(key)).size).toBe(75);
  });

  it('knows what our unknown-route answer looks like', () => {
    // The 404 that a route answers for a missing entity names the entity; this one does not.
    expect(unknownRoute).toEqual({
      status: 404,
      text: JSON.stringify({ error: 'The requested resource could not be found.' }),
      json: { error: 'The requested resource could not be found.' },
    });
  });

  it('answers the forced ACS snapshot with a 501 that says why', async () => {
    const error =
      'Forcing an ACS snapshot is not supported: this indexer does not take snapshots on request (Splice disables it in production too).';
    const res = await send(
      api,
      { method: 'POST', path: '', operationId: undefined, tags: [], deprecated: false },
      '/api/scan/v0/state/acs/force',
    );
    expect(res).toEqual({ status: 501, text: JSON.stringify({ error }), json: { error } });
  });

  it('documents and routes every operation, except the known missing ones', async () => {
    const notDocumented: string[] = [];
    const notRouted: string[] = [];
    const unexplained501: string[] = [];
    const serverErrors: string[] = [];
    for (const op of SCAN_YAML_OPERATIONS) {
      if (!documented.has(`${op.method} /api/scan${op.path}`)) notDocumented.push(key(op));
      const res = await send(api, op, `/api/scan${filled(op.path)}`);
      if (res.status >= 500 && res.status !== 501) serverErrors.push(key(op));
      if (res.status === 405 || (res.status === unknownRoute.status && res.text === unknownRoute.text)) notRouted.push(key(op));
      if (res.status === 501) {
        const error = (res.json as { error?: unknown } | undefined)?.error;
        if (typeof error !== 'string' || error.trim() === '') unexplained501.push(key(op));
      }
    }
    expect({ notDocumented, notRouted, unexplained501, serverErrors }).toEqual({
      notDocumented: [...KNOWN_MISSING],
      notRouted: [...KNOWN_MISSING],
      unexplained501: [],
      serverErrors: [...KNOWN_SERVER_ERRORS],
    });
  });
});
