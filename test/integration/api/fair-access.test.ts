/**
 * Fair access through the real server over a socket: per-client token buckets per route group (429 with
 * Retry-After and each interface's error body), refill on a clock the test moves, X-Forwarded-For only
 * from trusted proxies, API keys with their own rates, the bound on expensive requests (503 at once),
 * the refusal metrics, and buckets shared by two app instances over one database.
 */
import { observeQueries, createDb, createPool } from '../../../src/store/pool';
import { createMetrics, type Metrics } from '../../../src/internal/metrics';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type HttpResult, type TestApi } from '../../support/http/http';
import { hs256Token, SECRET, TRACE_ID } from '../ledger/support';

const NAMES = '/api/scan/v0/splice-instance-names';
const NAMES_BODY = {
  network_name: 'Canton Network',
  network_favicon_url: 'https://www.canton.network/hubfs/cn-favicon-05%201-1.png',
  amulet_name: 'Canton Coin',
  amulet_name_acronym: 'CC',
  name_service_name: 'Canton Name Service',
  name_service_name_acronym: 'CNS',
};
const TRACEPARENT = `00-${TRACE_ID}-b7ad6b7169203331-01`;

/** Status, Retry-After, content type and body: the whole answer but its incidental headers. */
function answer(res: HttpResult) {
  return { status: res.status, retryAfter: res.headers.get('retry-after'), type: res.headers.get('content-type'), body: res.json };
}

const scanRefusal = (message: string, retryAfter: number) => ({
  status: 429,
  retryAfter: String(retryAfter),
  type: 'application/json; charset=utf-8',
  body: { error: message },
});

/** A value of a series of the metrics registry (`name`, or a histogram's `name_count`), 0 when it has none. */
async function sample(metrics: Metrics, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = metrics.registry.getSingleMetric(name) ?? metrics.registry.getSingleMetric(name.replace(/_count$/, ''));
  if (!metric) throw new Error(`no metric ${name}`);
  const values = (await metric.get()).values as { labels: Record<string, unknown>; value: number; metricName?: string }[];
  const found = values.find(
    (v) => (v.metricName === undefined || v.metricName === name) && Object.entries(labels).every(([k, x]) => v.labels[k] === x),
  );
  return found?.value ?? 0;
}

/** A clock the test moves by hand, in milliseconds. */
function manualClock() {
  const clock = { now: 0, read: () => clock.now };
  return clock;
}

describe('fair access', () => {
  const t = useTestDatabase();
  const apis: TestApi[] = [];
  const start = async (...args: Parameters<typeof startTestApi>) => {
    const api = await startTestApi(...args);
    apis.push(api);
    return api;
  };
  afterAll(async () => {
    for (const api of apis) await api.close();
  });

  it('answers 429 with Retry-After and the Scan error body once a bucket is empty, and again as it refills', async () => {
    const clock = manualClock();
    const metrics = createMetrics();
    const api = await start(t, { env: { RATE_LIMIT_SCAN: '0.5,2' }, clock: clock.read, metrics });
    const get = async () => answer(await request(api.url, 'GET', NAMES));
    const served = { status: 200, retryAfter: null, type: 'application/json; charset=utf-8', body: NAMES_BODY };
    const refused = (seconds: number) =>
      scanRefusal(
        `Too many requests to /api/scan from this address: at most 0.5 a second, in bursts of 2. Retry after ${seconds} second${seconds === 1 ? '' : 's'}.`,
        seconds,
      );

    expect([await get(), await get(), await get()]).toEqual([served, served, refused(2)]);
    // Half a token a second: one second on, the token is half there; two seconds on, it is.
    clock.now = 1_000;
    expect(await get()).toEqual(refused(1));
    clock.now = 2_000;
    expect([await get(), await get()]).toEqual([served, refused(2)]);
    // A long pause refills the bucket to its burst, not beyond.
    clock.now = 3_600_000;
    expect([await get(), await get(), await get()]).toEqual([served, served, refused(2)]);

    // Health, readiness, metrics, status, the documents and the web UI are never limited; other groups have their own buckets.
    const unlimited = ['/livez', '/readyz', '/api/scan/livez', '/api/scan/readyz', '/metrics', '/status', '/docs/openapi.json', '/'];
    const statuses = await Promise.all(unlimited.map(async (path) => [path, (await request(api.url, 'GET', path)).status]));
    expect(statuses).toEqual(unlimited.map((path) => [path, 200]));
    expect((await request(api.url, 'GET', '/api/indexer/v0/acs-snapshots')).status).toBe(200);
    expect(await get()).toEqual(refused(2));

    expect(await sample(metrics, 'scan_indexer_api_requests_limited_total', { group: 'scan', reason: 'rate' })).toBe(5);
    const scraped = (await request(api.url, 'GET', '/metrics')).text;
    expect(scraped).toContain('scan_indexer_api_requests_limited_total{group="scan",reason="rate"} 5');
  });

  it('limits each route group with its own setting, the ledger API in its own error shape', async () => {
    const clock = manualClock();
    const api = await start(t, {
      env: {
        RATE_LIMIT_SCAN: '1,1',
        RATE_LIMIT_SCAN_PROXY: '1,2',
        RATE_LIMIT_REGISTRY: '1,3',
        RATE_LIMIT_INDEXER: 'off',
        RATE_LIMIT_STREAMING: '1,1',
        RATE_LIMIT_LEDGER: '1,1',
        LEDGER_AUTH_DISABLED: 'true',
      },
      clock: clock.read,
    });
    const statuses = async (path: string, n = 5) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await request(api.url, 'GET', path, undefined, { traceparent: TRACEPARENT })).status);
      return out;
    };
    expect(await statuses(NAMES)).toEqual([200, 429, 429, 429, 429]);
    // The registry is served under the proxy too, where it counts for the proxy's group.
    expect(await statuses('/api/validator/v0/scan-proxy/open-and-issuing-mining-rounds', 1)).toEqual([200]);
    expect(await statuses('/api/validator/v0/scan-proxy/registry/metadata/v1/instruments', 2)).toEqual([200, 429]);
    expect(await statuses('/registry/metadata/v1/instruments')).toEqual([200, 200, 200, 429, 429]);
    expect(await statuses('/api/indexer/v0/acs-snapshots', 8)).toEqual([200, 200, 200, 200, 200, 200, 200, 200]);
    // No stream is served yet: the unknown path is answered 404 while the group admits it.
    expect(await statuses('/api/indexer/v0/stream/updates', 3)).toEqual([404, 429, 429]);
    expect(await statuses('/v2/version', 2)).toEqual([200, 429]);

    const ledger = await request(api.url, 'GET', '/v2/version', undefined, { traceparent: TRACEPARENT });
    expect(answer(ledger)).toEqual({
      status: 429,
      retryAfter: '1',
      type: 'application/json; charset=utf-8',
      body: {
        code: 'PARTICIPANT_BACKPRESSURE',
        cause:
          'The participant is overloaded: Too many requests to /v2 from this address: at most 1 a second, in bursts of 1. Retry after 1 second.',
        correlationId: null,
        traceId: TRACE_ID,
        context: {
          reason: 'Too many requests to /v2 from this address: at most 1 a second, in bursts of 1. Retry after 1 second.',
          participant: "'scan-indexer'",
          category: '2',
          definite_answer: 'false',
          tid: TRACE_ID,
        },
        resources: [],
        errorCategory: 2,
        grpcCodeValue: 10,
        retryInfo: '1 second',
        definiteAnswer: null,
      },
    });
    const stream = await request(api.url, 'GET', '/api/indexer/v0/stream/updates');
    expect(answer(stream)).toEqual(
      scanRefusal(
        'Too many requests to /api/indexer/v0/stream from this address: at most 1 a second, in bursts of 1. Retry after 1 second.',
        1,
      ),
    );
  });

  it('reads the client from X-Forwarded-For only when the connection comes from a trusted proxy', async () => {
    const clock = manualClock();
    const direct = await start(t, { env: { RATE_LIMIT_SCAN: '1,1' }, clock: clock.read });
    const proxied = await start(t, { env: { RATE_LIMIT_SCAN: '1,1', TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8' }, clock: clock.read });
    const via = async (api: TestApi, forwardedFor?: string) =>
      (await request(api.url, 'GET', NAMES, undefined, forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor })).status;

    // Untrusted: the header is anyone's to write, so every request counts for the connection's address.
    expect([await via(direct, '198.51.100.1'), await via(direct, '198.51.100.2'), await via(direct)]).toEqual([200, 429, 429]);

    // Trusted: each forwarded client has its own bucket, and the proxy itself is a client too.
    expect([await via(proxied, '198.51.100.1'), await via(proxied, '198.51.100.1'), await via(proxied, '198.51.100.2')]).toEqual([
      200, 429, 200,
    ]);
    expect(await via(proxied)).toBe(200);
    // Through two trusted hops (10.0.0.0/8, then this connection) the client is the address before them.
    expect([await via(proxied, '203.0.113.9, 10.1.2.3'), await via(proxied, '203.0.113.9')]).toEqual([200, 429]);
    // An address a client wrote before the first untrusted one is not believed: the client is 203.0.113.50.
    expect([await via(proxied, '203.0.113.50'), await via(proxied, '192.0.2.77, 203.0.113.50')]).toEqual([200, 429]);
    // IPv6 clients count by their /64 network.
    expect([await via(proxied, '2001:db8:1:2::1'), await via(proxied, '2001:db8:1:2::99'), await via(proxied, '2001:db8:1:3::1')]).toEqual([
      200, 429, 200,
    ]);
  });

  it('gives configured API keys their own rate, in one bucket for all groups, and leaves other bearer tokens to authentication', async () => {
    const clock = manualClock();
    const keys = {
      'key-a-0123456789abcdef': { name: 'partner-a', per_second: 1, burst: 3 },
      'key-b-0123456789abcdef': { name: 'partner-b', per_second: 1, burst: 1 },
      'key-c-0123456789abcdef': { name: 'partner-c', per_second: 1, burst: 5 },
    };
    const api = await start(t, {
      env: {
        RATE_LIMIT_SCAN: '1,1',
        RATE_LIMIT_REGISTRY: '1,5',
        RATE_LIMIT_SCAN_PROXY: '1,1',
        RATE_LIMIT_API_KEYS: JSON.stringify(keys),
        LEDGER_AUTH_HS256_SECRET: SECRET,
      },
      clock: clock.read,
    });
    const get = async (path: string, headers: Record<string, string> = {}) =>
      answer(await request(api.url, 'GET', path, undefined, headers));
    const statuses = async (path: string, n: number, headers: Record<string, string> = {}) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await get(path, headers)).status);
      return out;
    };
    const keyRefusal = (burst: number) =>
      scanRefusal(`Too many requests with this API key: at most 1 a second, in bursts of ${burst}. Retry after 1 second.`, 1);

    expect(await statuses(NAMES, 2)).toEqual([200, 429]);
    expect(await statuses(NAMES, 3, { 'x-api-key': 'key-a-0123456789abcdef' })).toEqual([200, 200, 200]);
    expect(await get(NAMES, { 'x-api-key': 'key-a-0123456789abcdef' })).toEqual(keyRefusal(3));
    // The key's bucket is the same on the registry, whose own limit (5) is for clients without a key.
    expect(await get('/registry/metadata/v1/instruments', { 'x-api-key': 'key-a-0123456789abcdef' })).toEqual(keyRefusal(3));
    expect(await statuses('/registry/metadata/v1/instruments', 1)).toEqual([200]);
    expect(await statuses(NAMES, 2, { authorization: 'Bearer key-b-0123456789abcdef' })).toEqual([200, 429]);
    expect(await get(NAMES, { authorization: 'Bearer key-b-0123456789abcdef' })).toEqual(keyRefusal(1));
    // An unknown key is no key: the request counts for its address, whose bucket is empty.
    expect(await statuses(NAMES, 1, { 'x-api-key': 'key-z-0123456789abcdef' })).toEqual([429]);

    // The scan-proxy reads its JWT from Authorization as before: a token that is no key passes
    // authentication and counts for the address; a key rides in X-API-Key beside the token.
    const rounds = '/api/validator/v0/scan-proxy/open-and-issuing-mining-rounds';
    const jwt = { authorization: `Bearer ${await hs256Token('validator-user')}` };
    expect(await get(rounds, jwt)).toEqual({
      status: 200,
      retryAfter: null,
      type: 'application/json; charset=utf-8',
      body: { open_mining_rounds: [], issuing_mining_rounds: [] },
    });
    expect((await get(rounds, jwt)).status).toBe(429);
    expect(await statuses(rounds, 3, { ...jwt, 'x-api-key': 'key-c-0123456789abcdef' })).toEqual([200, 200, 200]);
    // A key without a token is limited as the key, then refused by authentication as before.
    const keyOnly = await request(api.url, 'GET', rounds, undefined, { 'x-api-key': 'key-c-0123456789abcdef' });
    expect([keyOnly.status, keyOnly.text]).toEqual([401, 'The resource requires authentication, which was not supplied with the request']);
  });

  it('answers expensive requests past the bound with 503 and Retry-After at once, and serves others meanwhile', async () => {
    const metrics = createMetrics();
    const api = await start(t, { env: { HEAVY_REQUEST_CONCURRENCY: '1', LEDGER_AUTH_DISABLED: 'true' }, metrics });
    const busy = {
      status: 503,
      retryAfter: '1',
      type: 'application/json; charset=utf-8',
      body: {
        error:
          'This server is serving as many large requests as it allows at once (pages of 500 or more, or 200 parties or more); retry in a moment, or ask for less.',
      },
    };
    const parties = Array.from({ length: 200 }, (_, i) => `party-${i}::1220${'0'.repeat(64)}`);
    const summary = { migration_id: 0, record_time: '2026-01-01T00:00:00Z', record_time_match: 'exact', owner_party_ids: parties };

    // Another session holds the updates table: the first large page waits inside the bound.
    const holder = await t.pool.connect();
    let first: Promise<HttpResult>;
    try {
      await holder.query('begin');
      await holder.query('lock table updates in access exclusive mode');
      first = request(api.url, 'POST', '/api/scan/v2/updates', { page_size: 1000 });
      await waitFor(async () => (await waitingSessions(t.pool, t.name)) > 0);
      expect(await sample(metrics, 'scan_indexer_api_heavy_requests_in_flight')).toBe(1);

      expect(answer(await request(api.url, 'POST', '/api/scan/v0/events', { page_size: 500 }))).toEqual(busy);
      expect(answer(await request(api.url, 'POST', '/api/scan/v1/holdings/summary', summary))).toEqual(busy);
      expect(answer(await request(api.url, 'POST', '/api/validator/v0/scan-proxy/holdings/summary', summary))).toEqual(busy);
      expect(
        answer(
          await request(api.url, 'POST', '/api/scan/v0/backfilling/import-updates', { migration_id: 0, after_update_id: '', limit: 1000 }),
        ),
      ).toEqual(busy);
      // Below the thresholds a request is not expensive: it is served (here, refused for its own reasons).
      const small = await request(api.url, 'POST', '/api/scan/v1/holdings/summary', { ...summary, owner_party_ids: parties.slice(0, 199) });
      expect(small.status).toBe(404);
      expect((await request(api.url, 'GET', NAMES)).status).toBe(200);
    } finally {
      await holder.query('rollback');
      holder.release();
    }
    expect(answer(await first)).toEqual({
      status: 200,
      retryAfter: null,
      type: 'application/json; charset=utf-8',
      body: { transactions: [] },
    });
    // The slot is free again once the answer is sent.
    expect((await request(api.url, 'POST', '/api/scan/v0/events', { page_size: 1000 })).status).toBe(200);
    expect(await sample(metrics, 'scan_indexer_api_heavy_requests_in_flight')).toBe(0);
    expect(await sample(metrics, 'scan_indexer_api_requests_limited_total', { group: 'scan', reason: 'concurrency' })).toBe(3);
    expect(await sample(metrics, 'scan_indexer_api_requests_limited_total', { group: 'scan-proxy', reason: 'concurrency' })).toBe(1);
  });

  it('shares buckets between two app instances over one database, reserving tokens in chunks', async () => {
    // Each instance has its own pool, as separate processes would, and counts its own queries.
    const instances = await Promise.all(
      ['a', 'b'].map(async () => {
        const pool = createPool({ connectionString: t.url, max: 3 });
        const db = createDb(pool);
        const metrics = createMetrics();
        observeQueries(db, metrics.observeQuery);
        const api = await start(
          { db, pool },
          {
            env: {
              RATE_LIMIT_STORE: 'postgres',
              RATE_LIMIT_SCAN: '0.001,6',
              RATE_LIMIT_REGISTRY: '0.001,100',
              RATE_LIMIT_LEDGER: '0.001,2',
              LEDGER_AUTH_DISABLED: 'true',
            },
            metrics,
          },
        );
        return { api, db, metrics };
      }),
    );
    const [a, b] = instances as [(typeof instances)[0], (typeof instances)[0]];
    try {
      const statuses = async (api: TestApi, path: string, n: number) => {
        const out: number[] = [];
        for (let i = 0; i < n; i++) out.push((await request(api.url, 'GET', path)).status);
        return out;
      };
      const reservations = (m: Metrics) =>
        sample(m, 'scan_indexer_db_query_duration_seconds_count', { operation: 'reserveRateTokens', outcome: 'ok' });

      // A burst of 6 reserved one token at a time: six requests in all, wherever they go.
      expect(await statuses(a.api, NAMES, 4)).toEqual([200, 200, 200, 200]);
      expect(await statuses(b.api, NAMES, 2)).toEqual([200, 200]);
      const refusedA = await request(a.api.url, 'GET', NAMES);
      const refusedB = await request(b.api.url, 'GET', NAMES);
      for (const refused of [refusedA, refusedB]) {
        expect(refused.status).toBe(429);
        // A thousand seconds per token, less the moments this test has taken.
        const seconds = Number(refused.headers.get('retry-after'));
        expect(seconds).toBeGreaterThan(900);
        expect(seconds).toBeLessThanOrEqual(1000);
        expect(refused.json).toEqual({
          error: `Too many requests to /api/scan from this address: at most 0.001 a second, in bursts of 6. Retry after ${seconds} seconds.`,
        });
      }

      // A burst of 100 is reserved ten tokens at a time: one query per ten requests, and a refused
      // reservation is remembered, so the refused requests after it cost no query.
      const registry = '/registry/metadata/v1/instruments';
      const [beforeA, beforeB] = [await reservations(a.metrics), await reservations(b.metrics)];
      expect(await statuses(a.api, registry, 25)).toEqual(Array(25).fill(200));
      expect((await reservations(a.metrics)) - beforeA).toBe(3);
      const fromB = await statuses(b.api, registry, 80);
      expect(fromB).toEqual([...Array(70).fill(200), ...Array(10).fill(429)]);
      expect((await reservations(b.metrics)) - beforeB).toBe(8);
      // A still holds the five tokens it reserved and did not use: a hundred in all, the burst.
      expect(await statuses(a.api, registry, 7)).toEqual([200, 200, 200, 200, 200, 429, 429]);
      expect((await reservations(a.metrics)) - beforeA).toBe(4);

      // Without the table, each instance limits on its own until it is back, and nothing fails.
      await t.pool.query('alter table rate_limit_buckets rename to rate_limit_buckets_away');
      try {
        expect(await statuses(a.api, '/v2/version', 3)).toEqual([200, 200, 429]);
        expect(await statuses(b.api, '/v2/version', 3)).toEqual([200, 200, 429]);
      } finally {
        await t.pool.query('alter table rate_limit_buckets_away rename to rate_limit_buckets');
      }
    } finally {
      for (const instance of [a, b]) {
        await instance.api.close();
        await instance.db.destroy();
      }
    }
  });
});

async function waitingSessions(pool: { query: (sql: string, values: unknown[]) => Promise<{ rows: { n: number }[] }> }, database: string) {
  const { rows } = await pool.query("select count(*)::int as n from pg_stat_activity where datname = $1 and wait_event_type = 'Lock'", [
    database,
  ]);
  return rows[0]!.n;
}

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1500; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the condition did not hold within 30 s');
}
