/** S6 and S15: migration-info and the last migration id, with record times round-tripped through the writer. */
import { sql } from 'kysely';
import { ingestItems } from '../../support/ingest';
import { transaction } from '../../support/items/hand-items';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';

const SYNC = 'global-domain::1220b1431ef217342db44d516bb9befde802be7d8899637d290895fa58880f19accc';

describe('migration routes', () => {
  const t = useTestDatabase();
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(t, { env: { MIGRATION_ID: '2' } });
  });
  afterAll(async () => {
    await api.close();
  });

  it('serves the last migration id from the database, at least the configured one', async () => {
    expect(await request(api.url, 'GET', '/api/scan/v0/migrations/last')).toMatchObject({ status: 200, text: '{"migration_id":2}' });
    await t.db
      .insertInto('migrations')
      .values([{ migration_id: 1 }, { migration_id: 5 }])
      .execute();
    expect(await request(api.url, 'GET', '/api/scan/v0/migrations/last')).toMatchObject({ status: 200, text: '{"migration_id":5}' });
  });

  it('round-trips a microsecond record time through the database to the response unchanged', async () => {
    // Through the real writer: record times go in as items and come out of S6.
    await t.db
      .insertInto('migrations')
      .values([{ migration_id: 1 }, { migration_id: 5 }])
      .onConflict((oc) => oc.doNothing())
      .execute();
    await ingestItems(t.db, 'm4', [{ item: transaction('m4-a', '2024-01-01T00:00:00.000000Z', [], 4, SYNC), position: '1', origin: 't' }]);
    await ingestItems(t.db, 'm4', [{ item: transaction('m4-b', '2024-01-02T00:00:00.000000Z', [], 4, SYNC), position: '2', origin: 't' }]);
    await ingestItems(
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
});
