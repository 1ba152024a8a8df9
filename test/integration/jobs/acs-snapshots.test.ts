/** ACS snapshots announced on the Scan schedule, with their figures, as ingestion passes each boundary. */
import { sql } from 'kysely';
import { catchUpSnapshots } from '../../../src/jobs/acs-snapshots';
import { ingestItems } from '../../support/ingest';
import type { CanonicalItem } from '../../../src/domain/items';
import { createTestDatabase, destroyTestDatabase, type TestDatabase } from '../../support/database/database';
import { archived, created, transaction } from '../../support/items/hand-items';

const asSource = (items: CanonicalItem[], first = 1) =>
  items.map((item, i) => ({ item, position: String(first + i), origin: `test:${first + i}` }));

describe('ACS snapshots on the Scan schedule', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => destroyTestDatabase(t));

  it('announces the hand-checked times with exact figures', async () => {
    const items = [
      transaction('u1', '2025-01-01T14:22:05.123456Z', [created('u1', 0, 'c1'), created('u1', 1, 'a1', '100.0000000000')]),
      transaction('u2', '2025-01-01T17:59:59.999999Z', [created('u2', 0, 'c2'), created('u2', 1, 'a2', '0.5000000000')]),
      transaction('u3', '2025-01-01T18:00:00.000000Z', [archived('u3', 0, 'c1'), archived('u3', 1, 'a1')]),
      transaction('u4', '2025-01-01T21:30:00.000000Z', [created('u4', 0, 'c3')]),
    ];
    await ingestItems(t.db, 'test', asSource(items.slice(0, 1)));
    // Ingestion has not reached 15:00 yet: nothing is due.
    expect((await catchUpSnapshots(t.db)).taken).toEqual([]);
    await ingestItems(t.db, 'test', asSource(items.slice(1, 2), 2));
    // The first boundary strictly after hour 14 is 15:00, now passed; 18:00 is not reached by 17:59:59.999999.
    expect((await catchUpSnapshots(t.db)).taken).toEqual([{ migrationId: 0, recordTime: '2025-01-01T15:00:00.000000Z' }]);
    await ingestItems(t.db, 'test', asSource(items.slice(2), 3));
    // Stopped (a shutdown): nothing more is taken, and the next run catches up from the latest snapshot.
    const stopped = new AbortController();
    stopped.abort();
    expect(await catchUpSnapshots(t.db, undefined, undefined, stopped.signal)).toEqual({ taken: [], nextDue: undefined });
    const { taken, nextDue } = await catchUpSnapshots(t.db);
    // Then every 3 h while ingestion has passed it; 00:00 is beyond the last update at 21:30.
    expect(taken).toEqual([
      { migrationId: 0, recordTime: '2025-01-01T18:00:00.000000Z' },
      { migrationId: 0, recordTime: '2025-01-01T21:00:00.000000Z' },
    ]);
    expect(nextDue).toBe(1735776000000000n); // 2025-01-02T00:00:00Z
    const rows = await sql<{ t: string; contract_count: number; unlocked_amulet: string; locked_amulet: string }>`
      select to_char(record_time at time zone 'UTC', 'HH24:MI') as t, contract_count, unlocked_amulet, locked_amulet
      from acs_snapshots order by record_time`.execute(t.db);
    expect(rows.rows).toEqual([
      { t: '15:00', contract_count: 2, unlocked_amulet: '100.0000000000', locked_amulet: '0.0000000000' },
      // u3 at exactly 18:00 is inside the 18:00 snapshot.
      { t: '18:00', contract_count: 2, unlocked_amulet: '0.5000000000', locked_amulet: '0.0000000000' },
      { t: '21:00', contract_count: 2, unlocked_amulet: '0.5000000000', locked_amulet: '0.0000000000' },
    ]);
    // Running it again announces nothing new.
    expect((await catchUpSnapshots(t.db)).taken).toEqual([]);
  });
});
