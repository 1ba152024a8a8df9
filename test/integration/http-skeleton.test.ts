import { sql } from 'kysely';
import { applyBatch } from '../../src/ingest/writer';
import { transaction } from '../support/items/hand-items';
import { setNetworkFact } from '../../src/store/network-repository';
import { readMigrationFiles } from '../../src/store/migrator';
import { useTestDatabase } from '../support/database/database';
import { request, startTestApi, type TestApi } from '../support/http/http';

const DSO = 'DSO::1220b1431ef217342db44d516bb9befde802be7d8899637d290895fa58880f19accc';
const SYNC = 'global-domain::1220b1431ef217342db44d516bb9befde802be7d8899637d290895fa58880f19accc';

async function insertDsoRules(t: ReturnType<typeof useTestDatabase>, migrationId: number, dso: string, archived = false) {
  await t.db
    .insertInto('contracts')
    .values({
      migration_id: migrationId,
      contract_id: `00dsorules${migrationId}${archived ? 'a' : ''}`,
      template_id: '1790a114f83d5f290261fae1e7e46fba75a861a3dd603c6b4ef6b67b49053948:Splice.DsoRules:DsoRules',
      package_name: 'splice-dso-governance',
      qualified_name: 'Splice.DsoRules:DsoRules',
      create_arguments: JSON.stringify({ dso }),
      created_at: '2025-03-10T14:00:00Z',
      signatories: [dso],
      observers: [],
      created_in_update_id: 'u1',
      created_record_time: '2025-03-10T14:00:00.000001Z',
      archived_record_time: archived ? '2025-03-10T15:00:00Z' : undefined,
      dso_party: dso,
    })
    .execute();
}

describe('HTTP skeleton', () => {
  const t = useTestDatabase();
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(t, { env: { MIGRATION_ID: '2' } });
  });
  afterAll(async () => {
    await api.close();
  });

  it('answers liveness and readiness', async () => {
    expect(await request(api.url, 'GET', '/livez')).toMatchObject({ status: 200, json: { status: 'ok' } });
    expect(await request(api.url, 'GET', '/readyz')).toMatchObject({ status: 200, json: { status: 'ready' } });
  });

  it('is not ready while a migration is pending', async () => {
    const files = [...readMigrationFiles(), { name: '29991231_001_next.sql', sql: 'select 1', checksum: 'x' }];
    const other = await startTestApi(t, { migrationFiles: files });
    try {
      const res = await request(other.url, 'GET', '/readyz');
      expect(res.status).toBe(503);
      expect(res.json).toEqual({ status: 'not ready', reason: 'pending migrations: 29991231_001_next.sql' });
    } finally {
      await other.close();
    }
  });

  it('answers unknown routes with a ScanError 404', async () => {
    for (const path of ['/nope', '/api/scan/v0/nope', '/api/scan/v0/dso-party-id/extra']) {
      const res = await request(api.url, 'GET', path);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.json).toEqual({ error: 'The requested resource could not be found.' });
    }
  });

  it('answers malformed JSON and invalid bodies with 400', async () => {
    const malformed = await request(api.url, 'POST', '/api/scan/v0/backfilling/migration-info', '{"migration_id": ');
    expect(malformed.status).toBe(400);
    expect((malformed.json as { error: string }).error).toMatch(/^Malformed JSON body: /);
    expect(Object.keys(malformed.json as object)).toEqual(['error']);

    expect(await request(api.url, 'POST', '/api/scan/v0/backfilling/migration-info', {})).toEqual(
      expect.objectContaining({ status: 400, json: { error: "Missing required body field 'migration_id'." } }),
    );
    expect(await request(api.url, 'POST', '/api/scan/v0/backfilling/migration-info', { migration_id: 1.5 })).toEqual(
      expect.objectContaining({ status: 400, json: { error: "Invalid body field 'migration_id': expected an integer." } }),
    );
    expect(await request(api.url, 'POST', '/api/scan/v0/backfilling/migration-info', { migration_id: 2 ** 60 })).toEqual(
      expect.objectContaining({ status: 400, json: { error: "Invalid body field 'migration_id': integer out of range." } }),
    );
  });

  it('echoes a request id, or makes one', async () => {
    const given = await request(api.url, 'GET', '/livez', undefined, { 'x-request-id': 'abc-123' });
    expect(given.headers.get('x-request-id')).toBe('abc-123');
    const made = await request(api.url, 'GET', '/livez', undefined, { 'x-request-id': 'no spaces allowed' });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves the last migration id from the database, at least the configured one', async () => {
    expect(await request(api.url, 'GET', '/api/scan/v0/migrations/last')).toMatchObject({ status: 200, text: '{"migration_id":2}' });
    await t.db
      .insertInto('migrations')
      .values([{ migration_id: 1 }, { migration_id: 5 }])
      .execute();
    expect(await request(api.url, 'GET', '/api/scan/v0/migrations/last')).toMatchObject({ status: 200, text: '{"migration_id":5}' });
  });

  it('serves the DSO party id from the ACS, 404 while none is known', async () => {
    const none = await request(api.url, 'GET', '/api/scan/v0/dso-party-id');
    expect(none.status).toBe(404);
    expect(none.json).toEqual({ error: 'No DSO party is known yet: no DsoRules contract has been ingested.' });

    await setNetworkFact(t.db, 'dso_party_id', 'DSO::1220fromfacts');
    expect(await request(api.url, 'GET', '/api/scan/v0/dso-party-id')).toMatchObject({
      status: 200,
      text: '{"dso_party_id":"DSO::1220fromfacts"}',
    });

    await insertDsoRules(t, 0, 'DSO::1220archived', true);
    await insertDsoRules(t, 3, DSO);
    expect(await request(api.url, 'GET', '/api/scan/v0/dso-party-id')).toMatchObject({ status: 200, text: `{"dso_party_id":"${DSO}"}` });
  });

  it('round-trips a microsecond record time through the database to the response unchanged', async () => {
    // Through the real writer: record times go in as items and come out of S6.
    await t.db
      .insertInto('migrations')
      .values([{ migration_id: 1 }, { migration_id: 5 }])
      .onConflict((oc) => oc.doNothing())
      .execute();
    await applyBatch(t.db, 'm4', [{ item: transaction('m4-a', '2024-01-01T00:00:00.000000Z', [], 4, SYNC), position: '1', origin: 't' }]);
    await applyBatch(t.db, 'm4', [{ item: transaction('m4-b', '2024-01-02T00:00:00.000000Z', [], 4, SYNC), position: '2', origin: 't' }]);
    await applyBatch(
      t.db,
      'm7',
      [
        ['m7-a', '2024-12-10T14:00:02.511000Z', 'a-first::1220aa'],
        ['m7-b', '2025-03-10T14:22:05.123456Z', SYNC],
        ['m7-c', '2025-03-10T14:22:06.500000Z', SYNC],
        ['m7-d', '2025-03-10T15:00:00.000001Z', SYNC],
      ].map(([id, time, sync], i) => ({ item: transaction(id!, time!, [], 7, sync), position: String(i + 1), origin: 't' })),
    );
    await sql`update migrations set complete = false, import_updates_complete = false where migration_id = 4`.execute(t.db);
    await sql`update migrations set import_updates_complete = false where migration_id = 7`.execute(t.db);
    await sql`update migrations set complete = true, last_import_update_id = 'import-9' where migration_id = 7`.execute(t.db);

    const res = await request(api.url, 'POST', '/api/scan/v0/backfilling/migration-info', { migration_id: 7 });
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      JSON.stringify({
        // Migration 5 is known but holds no updates, so the previous one is 4.
        previous_migration_id: 4,
        record_time_range: [
          { synchronizer_id: 'a-first::1220aa', min: '2024-12-10T14:00:02.511Z', max: '2024-12-10T14:00:02.511Z' },
          { synchronizer_id: SYNC, min: '2025-03-10T14:22:05.123456Z', max: '2025-03-10T15:00:00.000001Z' },
        ],
        last_import_update_id: 'import-9',
        complete: true,
        import_updates_complete: false,
      }),
    );

    const first = await request(api.url, 'POST', '/api/scan/v0/backfilling/migration-info', { migration_id: 4 });
    expect(first.json).toEqual({
      previous_migration_id: null,
      record_time_range: [{ synchronizer_id: SYNC, min: '2024-01-01T00:00:00Z', max: '2024-01-02T00:00:00Z' }],
      last_import_update_id: null,
      complete: false,
      import_updates_complete: false,
    });
    expect(await request(api.url, 'POST', '/api/scan/v0/backfilling/migration-info', { migration_id: 6 })).toMatchObject({
      status: 404,
      json: { error: 'No data for migration 6' },
    });
  });

  it('exports request metrics labelled by route template, never by raw path', async () => {
    const res = await request(api.url, 'GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.text).toMatch(
      /scan_indexer_http_requests_total\{method="GET",route="\/api\/scan\/v0\/dso-party-id",status_code="404"\} \d+/,
    );
    expect(res.text).toMatch(/route="unmatched",status_code="404"/);
    expect(res.text).not.toMatch(/route="\/nope"/);
  });

  it('answers an unexpected failure with a generic 500 and no detail', async () => {
    const broken = await startTestApi({ db: t.db, pool: t.pool });
    await sql`alter table migrations rename to migrations_moved`.execute(t.db);
    try {
      const res = await request(broken.url, 'GET', '/api/scan/v0/migrations/last');
      expect(res.status).toBe(500);
      expect(res.json).toEqual({ error: 'An unexpected error occurred.' });
    } finally {
      await sql`alter table migrations_moved rename to migrations`.execute(t.db);
      await broken.close();
    }
  });
});
