import { sql } from 'kysely';
import { catchUpSnapshots } from '../../../src/jobs/acs-snapshots';
import { SourceItemError } from '../../../src/ingest/source';
import { applyBatch } from '../../../src/ingest/writer';
import type { CanonicalItem } from '../../../src/domain/items';
import { createTestDatabase, destroyTestDatabase, type TestDatabase } from '../../support/database/database';
import { archived, created, reassignment, transaction } from '../../support/items/hand-items';
import { CheckpointConflictError } from '../../../src/store/ingest-repository';

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
    await applyBatch(t.db, 'test', asSource(items.slice(0, 1)));
    // Ingestion has not reached 15:00 yet: nothing is due.
    expect((await catchUpSnapshots(t.db)).taken).toEqual([]);
    await applyBatch(t.db, 'test', asSource(items.slice(1, 2), 2));
    // The first boundary strictly after hour 14 is 15:00, now passed; 18:00 is not reached by 17:59:59.999999.
    expect((await catchUpSnapshots(t.db)).taken).toEqual([{ migrationId: 0, recordTime: '2025-01-01T15:00:00.000000Z' }]);
    await applyBatch(t.db, 'test', asSource(items.slice(2), 3));
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

describe('bad input stops with a precise error and applies nothing of its batch', () => {
  let t: TestDatabase;
  beforeEach(async () => {
    t = await createTestDatabase();
  });
  afterEach(async () => destroyTestDatabase(t));

  const counts = async () =>
    (
      await sql<{
        updates: number;
        contracts: number;
      }>`select (select count(*)::int from updates) as updates, (select count(*)::int from contracts) as contracts`.execute(t.db)
    ).rows[0];

  it('an archive of an unknown contract', async () => {
    const batch = asSource([
      transaction('u1', '2025-01-01T10:00:00.000000Z', [created('u1', 0, 'c1')]),
      transaction('u2', '2025-01-01T10:00:01.000000Z', [archived('u2', 0, 'nope')]),
    ]);
    await expect(applyBatch(t.db, 'test', batch)).rejects.toThrow(
      new SourceItemError('test:2', 'u2', 'archive of contract nope, which is unknown or already archived in migration 0'),
    );
    expect(await counts()).toEqual({ updates: 0, contracts: 0 });
  });

  it('an archive of a contract archived in an earlier batch', async () => {
    await applyBatch(
      t.db,
      'test',
      asSource([
        transaction('u1', '2025-01-01T10:00:00.000000Z', [created('u1', 0, 'c1')]),
        transaction('u2', '2025-01-01T10:00:01.000000Z', [archived('u2', 0, 'c1')]),
      ]),
    );
    await expect(
      applyBatch(t.db, 'test', asSource([transaction('u3', '2025-01-01T10:00:02.000000Z', [archived('u3', 0, 'c1')])], 3)),
    ).rejects.toThrow('test:3 (update u3): archive of contract c1, which is unknown or already archived in migration 0');
  });

  it('an item out of order, across batches', async () => {
    await applyBatch(t.db, 'test', asSource([transaction('u1', '2025-01-01T10:00:00.000000Z', [created('u1', 0, 'c1')])]));
    await expect(
      applyBatch(t.db, 'test', asSource([transaction('u0', '2025-01-01T09:59:59.999999Z', [created('u0', 0, 'c0')])], 2)),
    ).rejects.toThrow(
      'test:2 (update u0): out of order: (migration 0, 2025-01-01T09:59:59.999999Z) comes after (migration 0, 2025-01-01T10:00:00.000000Z)',
    );
    expect(await counts()).toEqual({ updates: 1, contracts: 1 });
  });

  it('a dangling event reference and a contract created twice', async () => {
    const dangling = transaction('u1', '2025-01-01T10:00:00.000000Z', [created('u1', 0, 'c1')]);
    (dangling.update as { root_event_ids: string[] }).root_event_ids.push('u1:7');
    await expect(applyBatch(t.db, 'test', asSource([dangling]))).rejects.toThrow(
      'test:1 (update u1): event id u1:7 is referenced but not in events_by_id',
    );

    await applyBatch(t.db, 'test', asSource([transaction('u1', '2025-01-01T10:00:00.000000Z', [created('u1', 0, 'c1')])]));
    await expect(
      applyBatch(t.db, 'test', asSource([transaction('u2', '2025-01-01T10:00:01.000000Z', [created('u2', 0, 'c1')])], 2)),
    ).rejects.toThrow('test:2 (update u2): contract c1 is created again in the same migration');
  });

  it('re-applying an applied item is a no-op', async () => {
    const items = asSource([
      transaction('u1', '2025-01-01T10:00:00.000000Z', [created('u1', 0, 'c1')]),
      transaction('u2', '2025-01-01T10:00:01.000000Z', [archived('u2', 0, 'c1')]),
    ]);
    await applyBatch(t.db, 'stream-a', items);
    await applyBatch(t.db, 'stream-b', items);
    expect(await counts()).toEqual({ updates: 2, contracts: 1 });
  });

  it('an update repeated inside one batch is a no-op, not an error', async () => {
    const item = transaction('u1', '2025-01-01T10:00:00.000000Z', [created('u1', 0, 'c1')]);
    await applyBatch(t.db, 'test', asSource([item, item]));
    expect(await counts()).toEqual({ updates: 1, contracts: 1 });
  });

  it('keeps reassignments and an archive of a stored contract in one batch', async () => {
    await applyBatch(
      t.db,
      'test',
      asSource([transaction('u1', '2025-01-01T10:00:00.000000Z', [created('u1', 0, 'c1'), created('u1', 1, 'c2')])]),
    );
    await applyBatch(
      t.db,
      'test',
      asSource(
        [
          reassignment('r1', '2025-01-01T10:00:01.000000Z', 'unassign', 'c1', 1),
          reassignment('r2', '2025-01-01T10:00:02.000000Z', 'assign', 'c1', 1),
          reassignment('r3', '2025-01-01T10:00:03.000000Z', 'unassign', 'c2', 1),
          reassignment('r4', '2025-01-01T10:00:04.000000Z', 'assign', 'c2', 1),
          transaction('u2', '2025-01-01T10:00:05.000000Z', [archived('u2', 0, 'c2')]),
        ],
        2,
      ),
    );
    const rows = await t.db
      .selectFrom('contracts')
      .select(['contract_id', 'synchronizer_id', 'reassignment_counter', 'archived_in_update_id'])
      .orderBy('contract_id')
      .execute();
    expect(rows).toEqual([
      { contract_id: 'c1', synchronizer_id: 'global-domain::1220aaaa', reassignment_counter: 1, archived_in_update_id: null },
      { contract_id: 'c2', synchronizer_id: 'global-domain::1220aaaa', reassignment_counter: 1, archived_in_update_id: 'u2' },
    ]);
  });

  it('tells a lost commit acknowledgement from another writer', async () => {
    const batch = asSource([transaction('u1', '2025-01-01T10:00:00.000000Z', [created('u1', 0, 'c1')])]);
    await applyBatch(t.db, 'test', batch, null);
    // The same batch again, from a writer that did not see its commit: already applied, nothing written.
    const again = await applyBatch(t.db, 'test', batch, null);
    expect(again.updates).toBe(0);
    await expect(
      applyBatch(t.db, 'test', asSource([transaction('u2', '2025-01-01T10:00:01.000000Z', [created('u2', 0, 'c2')])], 2), null),
    ).rejects.toBeInstanceOf(CheckpointConflictError);
    expect(await counts()).toEqual({ updates: 1, contracts: 1 });
  });
});
