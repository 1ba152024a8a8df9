/**
 * Fuzzed input on every operation of the OpenAPI document, against the built
 * server in a child process loaded with a simulated network. The requests are
 * drawn from a fixed seed (reproducible): wrong types, huge and negative
 * numbers, page sizes of 0, -1 and 2^63, invalid and edge timestamps, edited
 * and foreign page tokens, unicode with lone surrogates and NUL, SQL-looking
 * strings, 1 MB strings, 10 MB bodies, JSON nested 10,000 deep, bodies that
 * claim a compression they lack, wrong content types and wrong methods.
 *
 * Figures: 5xx answers (0), process crashes (0), error bodies not in the
 * documented shape (0), answers not as the served OpenAPI document describes
 * their operation and status (0, test/support/http/openapi-check.ts), the
 * slowest request (under the statement timeout), and whether a fixed set of
 * requests is answered byte for byte as before.
 */
import fc from 'fast-check';
import { useTestDatabase } from '../support/database/database';
import { ingestThroughWorker, simulatedItems } from '../support/items/simulated-network';
import { atScale, recordFigure, recordZero } from './figures';
import { responseChecker, ResponseMismatch, type OpenApiDocument } from '../support/http/openapi-check';
import { startServerProcess, type ServerProcess } from './server-process';

// Full-scale runs take minutes.
jest.setTimeout(1_800_000);

const PART = 'fuzzed input';
const REQUESTS = atScale(1_000, 10_000);
const SEED = 20261124;
const STATEMENT_TIMEOUT_MS = 30_000;

interface Operation {
  method: string;
  path: string;
  query: string[];
  body: string[] | null;
  /** The document declares a 501: what the indexer cannot answer (no bulk storage, state it does not ingest). */
  notImplemented: boolean;
}

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  what: string;
}

/** Percent-encodes the UTF-8 of any string, lone surrogates included (encodeURIComponent throws on those). */
function encode(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0').toUpperCase()}`,
    )
    .join('');
}

const NASTY_STRINGS = [
  '',
  'a\u0000b',
  '\uD800',
  'x\uDFFFy',
  "'; drop table updates; --",
  "1' or '1'='1",
  '%',
  '../../etc/passwd',
  'alice::1220ab',
  'DSO::1220' + 'f'.repeat(64),
  '00' + 'ab'.repeat(34),
  '2025-01-01T00:00:00Z',
  '0001-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999999Z',
  '2025-02-30T00:00:00Z',
  '2025-01-01T00:00:00+25:00',
  '-1',
  '0',
  '9223372036854775808',
  '-9223372036854775809',
  '1e400',
  'NaN',
  'compact_json',
  'protobuf_json',
];

const NASTY_NUMBERS = [0, -1, 1, 1000, 1001, 2 ** 31, 2 ** 63, -(2 ** 63), Number.MAX_SAFE_INTEGER + 2, 1e308, 0.5, -0.0];

const anyString = fc.oneof(fc.constantFrom(...NASTY_STRINGS), fc.string({ unit: 'binary', maxLength: 40 }));
const leaf = fc.oneof(anyString, fc.constantFrom(...NASTY_NUMBERS), fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
const anyValue = fc.oneof(
  { weight: 6, arbitrary: leaf },
  { weight: 1, arbitrary: fc.array(leaf, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 6 }), leaf, { maxKeys: 3 }) },
);

type Mutation = 'fields' | 'method' | 'content-type' | 'compressed' | 'huge-body' | 'deep' | 'megabyte-string' | 'token' | 'not-json';

/** Reads the operations of the served OpenAPI document. */
function operationsOf(doc: {
  paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: unknown; responses?: object }>>;
}): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post'].includes(method)) continue;
      const body = op.requestBody as { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } | undefined;
      const schema = body?.content?.['application/json']?.schema;
      out.push({
        method: method.toUpperCase(),
        path,
        query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        body: body ? Object.keys(schema?.properties ?? {}) : null,
        notImplemented: '501' in (op.responses ?? {}),
      });
    }
  }
  return out;
}

function nested(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

/** The fuzzed requests, drawn from the seed. `tokens` are real page tokens to edit or send to another operation. */
function fuzzRequests(operations: Operation[], tokens: string[], count: number): FuzzRequest[] {
  const mutation = fc.oneof(
    { weight: 70, arbitrary: fc.constant<Mutation>('fields') },
    { weight: 5, arbitrary: fc.constant<Mutation>('method') },
    { weight: 5, arbitrary: fc.constant<Mutation>('content-type') },
    { weight: 4, arbitrary: fc.constant<Mutation>('compressed') },
    { weight: 3, arbitrary: fc.constant<Mutation>('deep') },
    { weight: 3, arbitrary: fc.constant<Mutation>('megabyte-string') },
    { weight: 6, arbitrary: fc.constant<Mutation>('token') },
    { weight: 3, arbitrary: fc.constant<Mutation>('not-json') },
    { weight: 1, arbitrary: fc.constant<Mutation>('huge-body') },
  );
  const draw = fc.record({
    op: fc.constantFrom(...operations),
    mutation,
    params: fc.array(anyString, { minLength: 3, maxLength: 3 }),
    query: fc.array(fc.tuple(fc.nat(), anyValue), { maxLength: 4 }),
    fields: fc.array(fc.tuple(fc.nat(), anyValue), { maxLength: 6 }),
    token: fc.tuple(fc.nat(), fc.nat(), fc.constantFrom('flip', 'foreign', 'truncate', 'append')),
    wrongMethod: fc.constantFrom('PUT', 'DELETE', 'PATCH', 'GET', 'POST'),
    contentType: fc.constantFrom(
      'text/plain',
      'application/xml',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      '',
    ),
    encoding: fc.constantFrom('gzip', 'br', 'deflate', 'zstd', 'gzip, br'),
  });
  let hugeBodies = 0;
  // The first draws take the operations in turn, so that every one is fuzzed whatever the seed draws.
  return fc.sample(draw, { numRuns: count, seed: SEED }).map((sampled, n): FuzzRequest => {
    const d = n < operations.length ? { ...sampled, op: operations[n]! } : sampled;
    let i = 0;
    const path = d.op.path.replace(/\{[^}]+\}/g, () => encode(d.params[i++ % 3] ?? ''));
    const queryPairs = d.query.map(
      ([k, v]) =>
        [
          d.op.query.length > 0 && k % 4 !== 0 ? d.op.query[k % d.op.query.length]! : `x${k % 3}`,
          typeof v === 'string' ? v : JSON.stringify(v),
        ] as const,
    );
    const fields: Record<string, unknown> = {};
    for (const [k, v] of d.fields)
      fields[d.op.body && d.op.body.length > 0 && k % 5 !== 0 ? d.op.body[k % d.op.body.length]! : `x${k % 3}`] = v;
    const req: FuzzRequest = { method: d.op.method, path, headers: {}, what: `${d.op.method} ${d.op.path} (${d.mutation})` };
    const json = (body: string) => {
      req.body = body;
      req.headers['content-type'] = 'application/json';
    };
    if (d.op.body) json(JSON.stringify(fields));
    switch (d.mutation) {
      case 'fields':
        break;
      case 'method':
        req.method = d.wrongMethod === d.op.method ? 'DELETE' : d.wrongMethod;
        break;
      case 'content-type':
        req.body = JSON.stringify(fields);
        if (d.contentType === '') delete req.headers['content-type'];
        else req.headers['content-type'] = d.contentType;
        if (req.method === 'GET') req.method = 'POST';
        break;
      case 'compressed':
        json(JSON.stringify(fields));
        req.headers['content-encoding'] = d.encoding;
        if (req.method === 'GET') req.method = 'POST';
        break;
      case 'deep':
        json(nested(10_000));
        break;
      case 'megabyte-string':
        if (d.op.body) json(JSON.stringify({ ...fields, [d.op.body[0] ?? 'x']: 'a'.repeat(1 << 20) }));
        else queryPairs.push([d.op.query[0] ?? 'x', 'a'.repeat(1 << 20)]);
        break;
      case 'not-json':
        json('{"migration_id": 0,');
        break;
      case 'huge-body':
        // Ten megabytes, a few times per run (each is sent in full).
        if (hugeBodies++ < 5) json(`{"x":"${'a'.repeat(10 << 20)}"}`);
        break;
      case 'token': {
        const [a, b, how] = d.token;
        const token = tokens[a % Math.max(1, tokens.length)] ?? 'none';
        const edited =
          how === 'flip'
            ? token.slice(0, b % token.length) + (token[b % token.length] === 'A' ? 'B' : 'A') + token.slice((b % token.length) + 1)
            : how === 'truncate'
              ? token.slice(0, b % token.length)
              : how === 'append'
                ? `${token}AA`
                : token;
        if (d.op.body) json(JSON.stringify({ ...fields, after: edited, page_token: edited, next_page_token: edited }));
        queryPairs.push(['after', edited], ['page_token', edited]);
        break;
      }
    }
    if (queryPairs.length > 0) req.path += `?${queryPairs.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&')}`;
    return req;
  });
}

/** Whether a 4xx body has the documented shape: `{"error": text}` on Scan and the proxy, Canton's error (or its plain text) on /v2. */
function documentedError(path: string, status: number, type: string | null, text: string): boolean {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  // A URL and headers over 16 KB are refused by the HTTP layer, before any route: the Scan shape on every path.
  if (status === 431) return typeof (json as { error?: unknown } | undefined)?.error === 'string';
  if (path.startsWith('/v2/')) {
    if (type?.startsWith('text/plain')) return text.length > 0;
    const e = json as { code?: unknown; cause?: unknown } | undefined;
    return typeof e?.code === 'string' && typeof e.cause === 'string';
  }
  // GET /v0/migrations/schedule answers 404 with an empty body when nothing is scheduled (as the Scan app).
  if (status === 404 && text === '' && path.startsWith('/api/scan/v0/migrations/schedule')) return true;
  return typeof (json as { error?: unknown } | undefined)?.error === 'string';
}

async function send(base: string, r: FuzzRequest): Promise<{ status: number; type: string | null; text: string; ms: number }> {
  const started = performance.now();
  try {
    const res = await fetch(`${base}${r.path}`, {
      method: r.method,
      headers: r.headers,
      body: r.body,
      signal: AbortSignal.timeout(120_000),
    });
    const type = res.headers.get('content-type');
    // A live stream that was accepted does not end: its head is the answer (its first events are checked by its own tests).
    if (res.status === 200 && type?.startsWith('text/event-stream')) {
      await res.body?.cancel();
      return { status: res.status, type, text: '', ms: performance.now() - started };
    }
    const text = await res.text();
    return { status: res.status, type, text, ms: performance.now() - started };
  } catch (err) {
    // The server may close a connection on a body it refuses before reading it all (10 MB): not an answer, not a 5xx.
    return { status: 0, type: null, text: String((err as Error).cause ?? err), ms: performance.now() - started };
  }
}

describe('fuzzed input on every operation', () => {
  const t = useTestDatabase();
  let server: ServerProcess;
  // About five simulated hours per migration: snapshots at 03:00 (migration 0) and 06:00 (migration 1).
  const items = simulatedItems({ seed: 'fuzz', updates: 1200, migrations: 2, meanUpdateGapMs: 30_000 });

  beforeAll(async () => {
    await ingestThroughWorker(t, items);
    server = await startServerProcess('serve', {
      DATABASE_URL: t.url,
      LEDGER_AUTH_DISABLED: 'true',
      DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      API_CLOCK: 'ledger',
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it(`answers ${REQUESTS} fuzzed requests without a 5xx, a crash or an undocumented error body, and as before afterwards`, async () => {
    const doc = (await (await fetch(`${server.url}/docs/openapi.json`)).json()) as Parameters<typeof operationsOf>[0];
    const operations = operationsOf(doc);
    expect(operations.length).toBeGreaterThan(50);
    // Every answer, the fuzzed and the fixed ones, against the document this server serves.
    const checkAnswer = responseChecker(doc as unknown as OpenApiDocument);
    const notAsDocumented: string[] = [];
    const check = (r: FuzzRequest, a: { status: number; type: string | null; text: string }) => {
      // 0: the server closed the connection on a body it refused (see send()); there is no answer to check.
      if (a.status === 0) return;
      try {
        checkAnswer({ method: r.method, path: r.path, status: a.status, contentType: a.type, text: a.text });
      } catch (err) {
        if (!(err instanceof ResponseMismatch)) throw err;
        notAsDocumented.push(`${r.what}: ${err.message.slice(0, 1200)}`);
      }
    };

    // Real page tokens of several operations, to edit and to send where they do not belong.
    const tokens: string[] = [];
    for (const [path, body] of [
      ['/api/scan/v0/state/acs', { migration_id: 0, record_time: '2025-01-01T03:00:00Z', page_size: 2 }],
      ['/api/scan/v2/state/acs', { migration_id: 1, record_time: '2025-01-01T06:00:00Z', page_size: 2 }],
    ] as const) {
      const res = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const next = ((await res.json()) as { next_page_token?: unknown }).next_page_token;
      if (typeof next === 'string') tokens.push(next);
    }

    // A fixed set of requests, answered before and after.
    const probe = (path: string, body?: unknown): FuzzRequest =>
      body === undefined
        ? { method: 'GET', path, headers: {}, what: 'probe' }
        : { method: 'POST', path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), what: 'probe' };
    const probes = [
      probe('/api/scan/v0/dso-party-id'),
      probe('/api/scan/v2/updates', { page_size: 20 }),
      probe('/api/scan/v0/events', { page_size: 20 }),
      probe('/api/scan/v0/closed-rounds'),
      probe('/api/scan/v0/ans-entries?page_size=20'),
      probe('/api/scan/v0/state/acs', { migration_id: 0, record_time: '2025-01-01T03:00:00Z', page_size: 50 }),
      probe('/api/validator/v0/scan-proxy/open-and-issuing-mining-rounds'),
    ];
    const before = await Promise.all(probes.map((p) => send(server.url, p)));
    before.forEach((b, i) => check(probes[i]!, b));
    expect(before.map((b) => b.status)).toEqual(probes.map(() => 200));

    const requests = fuzzRequests(operations, tokens, REQUESTS);
    const notImplemented = new Set(operations.filter((o) => o.notImplemented).map((o) => `${o.method} ${o.path}`));
    const serverErrors: string[] = [];
    const undocumented: string[] = [];
    let slowest = { ms: 0, what: '' };
    const operationsHit = new Set<string>();
    // Four at a time, as a few careless clients would.
    for (let i = 0; i < requests.length; i += 4) {
      const batch = requests.slice(i, i + 4);
      const answers = await Promise.all(batch.map((r) => send(server.url, r)));
      answers.forEach((a, j) => {
        const r = batch[j]!;
        check(r, a);
        operationsHit.add(r.what.replace(/ \(.*$/, ''));
        if (a.ms > slowest.ms) slowest = { ms: a.ms, what: r.what };
        // A 501 the document declares for the operation (as the Scan app's when no bulk storage is configured, or
        // what this indexer does not ingest), in the error shape, is an answer, not a fault.
        const documented501 =
          a.status === 501 && notImplemented.has(r.what.replace(/ \(.*$/, '')) && documentedError(r.path, a.status, a.type, a.text);
        if (a.status >= 500 && !documented501) serverErrors.push(`${r.what} ${r.path.slice(0, 200)}: ${a.status} ${a.text.slice(0, 300)}`);
        else if (a.status >= 400 && !documentedError(r.path, a.status, a.type, a.text)) {
          undocumented.push(`${r.what} ${r.path.slice(0, 200)}: ${a.status} ${a.type} ${a.text.slice(0, 300)}`);
        }
      });
    }
    const after = await Promise.all(probes.map((p) => send(server.url, p)));
    const changed = probes.filter((_, i) => after[i]!.status !== before[i]!.status || after[i]!.text !== before[i]!.text).length;

    recordFigure({
      part: PART,
      figure: 'requests sent (operations covered)',
      value: `${requests.length} (${operationsHit.size} of ${operations.length})`,
      target: `≥ ${REQUESTS}, all`,
      ok: requests.length >= REQUESTS && operationsHit.size === operations.length,
    });
    recordZero(PART, '5xx answers', serverErrors.length);
    recordZero(PART, 'process crashes', server.exits.length);
    recordZero(PART, 'error bodies not in the documented shape', undocumented.length);
    recordZero(PART, 'answers not as the OpenAPI document describes', notAsDocumented.length);
    recordFigure({
      part: PART,
      figure: 'slowest request (ms)',
      value: Math.round(slowest.ms),
      target: `< ${STATEMENT_TIMEOUT_MS}`,
      ok: slowest.ms < STATEMENT_TIMEOUT_MS,
    });
    recordZero(PART, 'fixed requests answered differently afterwards', changed);

    expect({ serverErrors: serverErrors.slice(0, 10), undocumented: undocumented.slice(0, 20) }).toEqual({
      serverErrors: [],
      undocumented: [],
    });
    expect(notAsDocumented.slice(0, 10)).toEqual([]);
    expect(server.exits).toEqual([]);
    expect(changed).toBe(0);
    expect(operationsHit.size).toBe(operations.length);
  });
});
