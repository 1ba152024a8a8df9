/**
 * The hot path (src/api/hot-path.ts) against the routers, through two real applications over one
 * database: one with the hot path, one without, sent the same requests in the same order. For every
 * hot operation, and for requests it leaves to Express, the whole answer (status, every header but
 * Date and a generated x-request-id, the body) is the same; so are the refusals (400, 401, 429), the
 * request log's lines and the request metrics. The hot path's counter shows which requests it took.
 */
import { createLogger } from '../../../src/internal/logger';
import { createMetrics, type Metrics } from '../../../src/internal/metrics';
import { useTestDatabase } from '../../support/database/database';
import { collectLogLines } from '../../support/logs/log-lines';
import { request, startTestApi, type HttpResult, type TestApi } from '../../support/http/http';
import { alice, bob, externalPartyNetwork } from '../../support/items/external-party-network';
import { load } from '../../support/items/network-items';
import { arg, ofTemplate, replay } from '../../support/replays/live-acs';
import { hs256Token, SECRET } from '../ledger/support';

const items = externalPartyNetwork();
const r = replay(items);
const rules = ofTemplate(r, 'Splice.AmuletRules:AmuletRules').at(-1)!;
const dso = arg(rules, 'dso') as string;
const openRounds = ofTemplate(r, 'Splice.Round:OpenMiningRound');

const factoryBody = (sender: string, receiver: string, excludeDebugFields?: boolean) => ({
  choiceArguments: {
    expectedAdmin: dso,
    transfer: {
      sender,
      receiver,
      amount: '12.5000000000',
      instrumentId: { admin: dso, id: 'Amulet' },
      requestedAt: '2025-01-01T00:00:00Z',
      executeBefore: '2030-01-01T00:00:00Z',
      inputHoldingCids: ['00abc'],
      meta: { values: {} },
    },
    extraArgs: { context: { values: {} }, meta: { values: {} } },
  },
  ...(excludeDebugFields === undefined ? {} : { excludeDebugFields }),
});

interface Ask {
  name: string;
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Whether the hot path takes it (else Express does). */
  hot: boolean;
}

const scan = '/api/scan/v0';
const proxy = '/api/validator/v0/scan-proxy';
const factory = '/registry/transfer-instruction/v1/transfer-factory';
const rounds = { cached_open_mining_round_contract_ids: [], cached_issuing_round_contract_ids: [] };

/** Every hot operation, in the forms clients ask for; `auth` is added to the proxy's. */
const HOT: Ask[] = [
  { name: 'amulet-rules', method: 'POST', path: `${scan}/amulet-rules`, body: {}, hot: true },
  {
    name: 'amulet-rules, cached',
    method: 'POST',
    path: `${scan}/amulet-rules`,
    body: { cached_amulet_rules_contract_id: rules.event.contract_id, cached_amulet_rules_domain_id: null },
    hot: true,
  },
  { name: 'external-party-amulet-rules', method: 'POST', path: `${scan}/external-party-amulet-rules`, body: {}, hot: true },
  { name: 'ans-rules', method: 'POST', path: `${scan}/ans-rules`, body: {}, hot: true },
  { name: 'rounds', method: 'POST', path: `${scan}/open-and-issuing-mining-rounds`, body: rounds, hot: true },
  {
    name: 'rounds, some cached',
    method: 'POST',
    path: `${scan}/open-and-issuing-mining-rounds`,
    body: { ...rounds, cached_open_mining_round_contract_ids: openRounds.slice(1).map((c) => c.event.contract_id) },
    hot: true,
  },
  { name: 'dso', method: 'GET', path: `${scan}/dso`, hot: true },
  { name: 'dso-party-id', method: 'GET', path: `${scan}/dso-party-id`, hot: true },
  {
    name: 'dso-party-id, the client names the request',
    method: 'GET',
    path: `${scan}/dso-party-id`,
    headers: { 'x-request-id': 'poll-1' },
    hot: true,
  },
  { name: 'transfer-factory', method: 'POST', path: factory, body: factoryBody(bob, alice), hot: true },
  { name: 'transfer-factory, short', method: 'POST', path: factory, body: factoryBody(alice, bob, true), hot: true },
  { name: 'proxy dso-party-id', method: 'GET', path: `${proxy}/dso-party-id`, hot: true },
  { name: 'proxy dso', method: 'GET', path: `${proxy}/dso`, hot: true },
  { name: 'proxy rounds', method: 'GET', path: `${proxy}/open-and-issuing-mining-rounds`, hot: true },
  { name: 'proxy amulet-rules', method: 'GET', path: `${proxy}/amulet-rules`, hot: true },
  { name: 'proxy ans-rules', method: 'POST', path: `${proxy}/ans-rules`, body: { cached_ans_rules_contract_id: 'x' }, hot: true },
  {
    name: 'proxy transfer-factory',
    method: 'POST',
    path: `${proxy}/registry/transfer-instruction/v1/transfer-factory`,
    body: factoryBody(bob, bob),
    hot: true,
  },
];

/** What the hot path leaves to Express, and mistakes it answers as the routers do. */
const OTHERS: Ask[] = [
  { name: 'a query string', method: 'GET', path: `${scan}/dso?x=1`, hot: false },
  { name: 'a trailing slash', method: 'GET', path: `${scan}/dso-party-id/`, hot: false },
  { name: 'HEAD', method: 'HEAD', path: `${scan}/dso`, hot: false },
  { name: 'another route', method: 'GET', path: `${scan}/closed-rounds`, hot: false },
  { name: 'malformed JSON', method: 'POST', path: `${scan}/amulet-rules`, body: '{"cached_amulet_rules_contract_id":', hot: true },
  { name: 'a wrong type', method: 'POST', path: `${scan}/amulet-rules`, body: { cached_amulet_rules_contract_id: 5 }, hot: true },
  { name: 'a missing field', method: 'POST', path: `${scan}/open-and-issuing-mining-rounds`, body: {}, hot: true },
  { name: 'a NUL character', method: 'POST', path: `${scan}/ans-rules`, body: { cached_ans_rules_contract_id: 'a\u0000b' }, hot: true },
  { name: 'a factory body without arguments', method: 'POST', path: factory, body: { excludeDebugFields: true }, hot: true },
  {
    name: 'not JSON',
    method: 'POST',
    path: `${scan}/amulet-rules`,
    body: 'cached',
    headers: { 'content-type': 'text/plain' },
    hot: true,
  },
  { name: 'proxy without a token', method: 'GET', path: `${proxy}/amulet-rules`, headers: { authorization: '' }, hot: true },
  { name: 'proxy with a forged token', method: 'GET', path: `${proxy}/dso`, headers: { authorization: 'Bearer abc.def.ghi' }, hot: true },
  {
    name: 'proxy factory without a token',
    method: 'POST',
    path: `${proxy}/registry/transfer-instruction/v1/transfer-factory`,
    body: factoryBody(bob, bob),
    headers: { authorization: '' },
    hot: true,
  },
];

/** An answer without what differs between any two requests: the date, and a generated request id. */
function comparable(res: HttpResult, asked: Ask) {
  const headers = Object.fromEntries([...res.headers].filter(([name]) => name !== 'date'));
  if (asked.headers?.['x-request-id'] === undefined) {
    expect(headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    headers['x-request-id'] = 'generated';
  }
  return { status: res.status, headers, text: res.text };
}

interface Served {
  api: TestApi;
  metrics: Metrics;
  lines: Record<string, unknown>[];
}

async function serve(
  t: Parameters<typeof startTestApi>[0],
  hotPath: boolean,
  env: Record<string, string> = {},
  clock?: () => number,
): Promise<Served> {
  const { lines, sink } = collectLogLines();
  const metrics = createMetrics();
  const api = await startTestApi(t, {
    env: { LEDGER_AUTH_HS256_SECRET: SECRET, ...env },
    hotPath,
    metrics,
    logger: createLogger('info', 'scan-indexer', sink),
    clock,
  });
  return { api, metrics, lines };
}

const hotTaken = async (s: Served) => (await s.metrics.hotPathRequests.get()).values[0]?.value ?? 0;

/** The request metrics' series, by labels. */
async function requestCounts(s: Served): Promise<Record<string, number>> {
  const { values } = await s.metrics.httpRequestsTotal.get();
  return Object.fromEntries(values.map((v) => [JSON.stringify(v.labels), v.value]));
}

/** A log line without what differs between two servers or two requests. */
function loggedLine(line: Record<string, unknown>) {
  const { time: _t, pid: _p, hostname: _h, responseTime: _r, ...rest } = line;
  const req = rest.req as Record<string, unknown> | undefined;
  const res = rest.res as Record<string, unknown> | undefined;
  return {
    ...rest,
    ...(req ? { req: { ...req, id: 'id', remotePort: 0, headers: { ...(req.headers as object), host: 'host' } } } : {}),
    ...(res ? { res: { ...res, headers: { ...(res.headers as object), date: 'date', 'x-request-id': 'id' } } } : {}),
  };
}

describe('the hot path answers as the routers do', () => {
  const t = useTestDatabase();
  let fast: Served;
  let routed: Served;
  let auth: Record<string, string>;

  beforeAll(async () => {
    await load(t.db, items);
    fast = await serve(t, true);
    routed = await serve(t, false);
    auth = { authorization: `Bearer ${await hs256Token('validator-user')}` };
  });
  afterAll(async () => {
    await fast?.api.close();
    await routed?.api.close();
  });

  const askBoth = async (asked: Ask) => {
    const headers = { ...(asked.path.startsWith('/api/validator') ? auth : {}), ...asked.headers };
    if (headers.authorization === '') delete headers.authorization;
    const answers = [];
    for (const server of [fast, routed]) {
      const before = await hotTaken(server);
      const res = await request(server.api.url, asked.method, asked.path, asked.body, headers);
      answers.push({ ...comparable(res, asked), hot: (await hotTaken(server)) - before });
    }
    return answers;
  };

  it.each(HOT.map((a) => [a.name, a] as const))('%s: the same answer, taken by the hot path', async (_name, asked) => {
    for (let round = 0; round < 2; round++) {
      const [viaHotPath, viaRouters] = await askBoth(asked);
      expect(viaHotPath!.status).toBe(200);
      expect(viaHotPath).toEqual({ ...viaRouters, hot: 1 });
    }
  });

  it.each(OTHERS.map((a) => [a.name, a] as const))('%s: the same answer', async (_name, asked) => {
    const [viaHotPath, viaRouters] = await askBoth(asked);
    expect(viaHotPath).toEqual({ ...viaRouters, hot: asked.hot ? 1 : 0 });
    if (asked.hot) expect(viaHotPath!.status).not.toBe(200);
  });

  it('writes the same request log lines and the same request metrics', async () => {
    // Every request above went to both servers in the same order.
    const requestLines = (s: Served) => s.lines.filter((l) => typeof l.req === 'object').map(loggedLine);
    expect(requestLines(fast).length).toBeGreaterThanOrEqual(HOT.length * 2 + OTHERS.length);
    expect(requestLines(fast)).toEqual(requestLines(routed));
    const counts = await requestCounts(fast);
    expect(counts).toEqual(await requestCounts(routed));
    // Labelled with the routes' templates, as Express matched them.
    expect(Object.keys(counts).map((k) => (JSON.parse(k) as { route: string }).route)).toEqual(
      expect.arrayContaining([
        '/api/scan/v0/amulet-rules',
        '/api/scan/v0/dso-party-id',
        '/api/validator/v0/scan-proxy/dso',
        '/registry/transfer-factory',
        '/api/validator/transfer-factory',
        'unmatched',
      ]),
    );
  });
});

describe('the hot path limits as the routers do', () => {
  const t = useTestDatabase();
  let fast: Served;
  let routed: Served;
  let auth: Record<string, string>;

  beforeAll(async () => {
    await load(t.db, items);
    auth = { authorization: `Bearer ${await hs256Token('validator-user')}` };
    // One request a second, in bursts of 2, on a clock that stands still: the third request is refused.
    const tight = { RATE_LIMIT_SCAN: '1,2', RATE_LIMIT_SCAN_PROXY: '1,2', RATE_LIMIT_REGISTRY: '1,2' };
    fast = await serve(t, true, tight, () => 1000);
    routed = await serve(t, false, tight, () => 1000);
  });
  afterAll(async () => {
    await fast?.api.close();
    await routed?.api.close();
  });

  it.each([
    ['scan', 'POST', `${scan}/amulet-rules`, {}],
    ['scan-proxy', 'GET', `${proxy}/dso-party-id`, undefined],
    ['registry', 'POST', factory, factoryBody(bob, alice)],
  ] as const)('%s: the same 429 with Retry-After, in the group shared with the routers', async (_group, method, path, body) => {
    const asked: Ask = { name: path, method, path, hot: true };
    const headers = path.startsWith('/api/validator') ? auth : {};
    const ask = async (s: Served, p: string) => comparable(await request(s.api.url, method, p, body, headers), asked);
    // Twice by the hot path, then by the routers (a query string) and the hot path: the same bucket refuses both.
    const statuses = async (s: Served) => {
      const before = await requestCounts(s);
      const answers = [];
      for (const p of [path, path, `${path}?by=routers`, path]) answers.push(await ask(s, p));
      const after = await requestCounts(s);
      const counted = Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - (before[k] ?? 0)]));
      return { answers, counted: Object.fromEntries(Object.entries(counted).filter(([, v]) => v > 0)) };
    };
    const viaHotPath = await statuses(fast);
    const viaRouters = await statuses(routed);
    expect(viaHotPath.answers.map((a) => a.status)).toEqual([200, 200, 429, 429]);
    expect(viaHotPath).toEqual(viaRouters);
    expect(viaHotPath.answers[3]!.headers['retry-after']).toBe('1');
    expect(viaHotPath.answers[3]!.text).toMatch(
      /^\{"error":"Too many requests to \/[a-z/]+ from this address: at most 1 a second, in bursts of 2\. Retry after 1 second\."\}$/,
    );
  });
});
