/**
 * The 500 of S1–S5 and S8: a failure of the server's own (here: its tables
 * are gone) is answered with the Scan app's generic message and no detail.
 */
import { sql } from 'kysely';
import { createLogger } from '../../../src/internal/logger';
import { createDb, createPool } from '../../../src/store/pool';
import { useTestDatabase } from '../../support/database/database';
import { collectLogLines } from '../../support/logs/log-lines';
import { request, startTestApi, type TestApi } from '../../support/http/http';

const GENERIC = { error: 'An unexpected error occurred.' };
const SNAPSHOT = { migration_id: 0, record_time: '2025-03-10T12:00:00Z' };

describe('server faults', () => {
  const t = useTestDatabase();
  let api: TestApi;
  /** The service's log lines, as an operator's collector receives them. */
  const { lines, sink: collector } = collectLogLines();
  beforeAll(async () => {
    api = await startTestApi(t, { env: { LEDGER_AUTH_DISABLED: 'true' }, logger: createLogger('info', 'scan-indexer', collector) });
    for (const table of ['acs_snapshots', 'updates', 'verdicts', 'contracts'])
      await sql`drop table ${sql.table(table)} cascade`.execute(t.db);
  });
  afterAll(async () => {
    await api.close();
  });

  it.each([
    ['POST', '/api/scan/v0/holdings/summary', { ...SNAPSHOT, owner_party_ids: ['alice::1220'], as_of_round: 1 }],
    ['POST', '/api/scan/v1/holdings/summary', { ...SNAPSHOT, owner_party_ids: ['alice::1220'] }],
    ['POST', '/api/scan/v2/holdings/state', { ...SNAPSHOT, page_size: 10, owner_party_ids: ['alice::1220'] }],
    ['GET', `/api/scan/v2/updates/hash/${'ab'.repeat(32)}`, undefined],
    ['GET', '/api/scan/v0/events/some-update', undefined],
    ['GET', '/api/scan/v0/state/acs/snapshot-timestamp-after?after=2025-01-01T00:00:00Z&migration_id=0', undefined],
  ])('%s %s answers 500 with the generic message', async (method, path, body) => {
    const res = await request(api.url, method, path, body);
    expect({ status: res.status, json: res.json }).toEqual({ status: 500, json: GENERIC });
  });

  it("logs a fault with what an operator needs: the request, the database's error and the storage function", async () => {
    const res = await request(api.url, 'GET', '/api/scan/v0/events/some-update', undefined, { 'x-request-id': 'fault-log-1' });
    expect(res.status).toBe(500);
    const logged = lines.filter((l) => l.msg === 'unexpected error' && (l.req as { id?: string } | undefined)?.id === 'fault-log-1');
    expect(logged).toHaveLength(1);
    const line = logged[0] as { level: number; req: { method: string; url: string }; err: Record<string, unknown> };
    expect({ level: line.level, method: line.req.method, url: line.req.url }).toEqual({
      level: 50,
      method: 'GET',
      url: '/api/scan/v0/events/some-update',
    });
    expect(line.err).toMatchObject({
      code: '42P01',
      operation: 'findEvent',
      message: expect.stringMatching(/relation "\w+" does not exist/),
    });
    expect(line.err.stack).toEqual(expect.stringContaining('at findEvent'));
  });
});

describe('an unreachable database', () => {
  // A pool whose server refuses every connection: what the API meets while PostgreSQL restarts.
  const pool = createPool({ connectionString: 'postgresql://postgres@127.0.0.1:1/postgres', max: 2 });
  const db = createDb(pool);
  let api: TestApi;
  const { lines, sink: collector } = collectLogLines();
  beforeAll(async () => {
    api = await startTestApi(
      { db, pool },
      { env: { LEDGER_AUTH_DISABLED: 'true' }, logger: createLogger('info', 'scan-indexer', collector) },
    );
  });
  afterAll(async () => {
    await api.close();
    await db.destroy();
  });

  it('answers 503 with a body to retry on, logged in one line without a stack', async () => {
    for (const [method, path, body] of [
      ['GET', '/api/scan/v0/dso-party-id', undefined],
      ['POST', '/api/scan/v2/updates', { page_size: 10 }],
      ['GET', '/api/validator/v0/scan-proxy/dso-party-id', undefined],
    ] as const) {
      const res = await request(api.url, method, path, body);
      expect({ path, status: res.status, json: res.json }).toEqual({
        path,
        status: 503,
        json: { error: 'The database is unavailable at the moment; try again shortly.' },
      });
    }
    // The ledger API answers as a Canton participant whose index database is away.
    const ledger = await request(api.url, 'POST', '/v2/updates/transaction-by-id', {
      updateId: `1220${'ab'.repeat(32)}`,
      requestingParties: ['alice::1220ab'],
    });
    const body = ledger.json as { code: string; errorCategory: number; grpcCodeValue: number; retryInfo: string; cause: string };
    expect({
      status: ledger.status,
      code: body.code,
      category: body.errorCategory,
      grpc: body.grpcCodeValue,
      retry: body.retryInfo,
    }).toEqual({
      status: 503,
      code: 'INDEX_DB_SQL_TRANSIENT_ERROR',
      category: 1,
      grpc: 14,
      retry: '1 second',
    });
    expect(body.cause).toMatch(/^Processing the request failed due to a transient database error: /);
    expect((await request(api.url, 'GET', '/readyz')).status).toBe(503);
    const outage = lines.filter((l) => l.msg === 'database unavailable');
    expect(outage).toHaveLength(4);
    expect(outage.every((l) => l.level === 40 && typeof l.error === 'string' && !('err' in l))).toBe(true);
    expect(lines.filter((l) => l.msg === 'unexpected error')).toEqual([]);
  });
});

describe('a connection the server ends while it is checked out', () => {
  const t = useTestDatabase();

  it('does not end the process: the pool drops it on release and the next query gets a new one', async () => {
    const pool = createPool({ connectionString: t.url, max: 2 });
    try {
      const client = await pool.connect();
      const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
      // What a server restart (fast shutdown) does to every session: FATAL 57P01, between two queries of its holder.
      await t.pool.query('select pg_terminate_backend($1)', [pid]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await expect(client.query('select 1')).rejects.toThrow();
      client.release();
      expect((await pool.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
      expect(pool.totalCount).toBe(1);
    } finally {
      await pool.end();
    }
  });
});

describe('a request the statement timeout stops', () => {
  const t = useTestDatabase();
  let api: TestApi;
  let pool: ReturnType<typeof createPool>;
  beforeAll(async () => {
    pool = createPool({ connectionString: t.url, max: 4, statementTimeoutMs: 300 });
    api = await startTestApi({ db: createDb(pool), pool }, { env: { LEDGER_AUTH_DISABLED: 'true' } });
  });
  afterAll(async () => {
    await api.close();
    await pool.end();
  });

  it('answers 503 saying so, while requests on other tables are served', async () => {
    // Another session holds the updates table, so a lookup there waits until the timeout stops it.
    const holder = await t.pool.connect();
    try {
      await holder.query('begin');
      await holder.query('lock table updates in access exclusive mode');
      const [slow, other] = await Promise.all([
        request(api.url, 'GET', `/api/scan/v2/updates/1220${'ab'.repeat(32)}`),
        request(api.url, 'GET', '/api/scan/v0/dso-party-id'),
      ]);
      expect({ status: slow.status, json: slow.json }).toEqual({
        status: 503,
        json: { error: 'The request took longer than this server allows and was stopped; narrow it or try again later.' },
      });
      expect(other.status).toBe(404);
    } finally {
      await holder.query('rollback');
      holder.release();
    }
    // Once the table is free, the same request is answered.
    expect((await request(api.url, 'GET', `/api/scan/v2/updates/1220${'ab'.repeat(32)}`)).status).toBe(404);
  });
});
