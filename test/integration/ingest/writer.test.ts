/** The writer: bad input stops ingestion naming the item, with nothing of its batch applied; re-applied items are no-ops. */
import { sql } from 'kysely';
import { SourceItemError } from '../../../src/ingest/source';
import { ingestItems } from '../../support/ingest';
import type { CanonicalItem } from '../../../src/domain/items';
import { createTestDatabase, destroyTestDatabase, type TestDatabase } from '../../support/database/database';
import { archived, created, reassignment, transaction } from '../../support/items/hand-items';
import { CheckpointConflictError } from '../../../src/store/ingest-repository';

const asSource = (items: CanonicalItem[], first = 1) =>
  items.map((item, i) => ({ item, position: String(first + i), origin: `test:${first + i}` }));

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
    await expect(ingestItems(t.db, 'test', batch)).rejects.toThrow(
      new SourceItemError('test:2', 'u2', 'archive of contract nope, which is unknown or already archived in migration 0'),
    );
    expect(await counts()).toEqual({ updates: 0, contracts: 0 });
  });

  it('an archive of a contract archived in an earlier batch', async () => {
    await ingestItems(
      t.db,
      'test',
      asSource([
        transaction('u1', '2025-01-01T10:00:00.000000Z', [created('u1', 0, 'c1')]),
        transaction('u2', '2025-01-01T10:00:01.000000Z', [archived('u2', 0, 'c1')]),
      ]),
    );
    await expect(
      ingestItems(t.db, 'test', asSource([transaction('u3', '2025-01-01T10:00:02.000000Z', [archived('u3', 0, 'c1')])], 3)),
    ).rejects.toThrow('test:3 (update u3): archive of contract c1, which is unknown or already archived in migration 0');
  });

  it('an item out of order, across batches', async () => {
    await ingestItems(t.db, 'test', asSource([transaction('u1', '2025-01-01T10:00:00.000000Z', [created('u1', 0, 'c1')])]));
    await expect(
      ingestItems(t.db, 'test', asSource([transaction('u0', '2025-01-01T09:59:59.999999Z', [created('u0', 0, 'c0')])], 2)),
    ).rejects.toThrow(
      'test:2 (update u0): out of order: (migration 0, 2025-01-01T09:59:59.999999Z) comes after (migration 0, 2025-01-01T10:00:00.000000Z)',
    );
    expect(await counts()).toEqual({ updates: 1, contracts: 1 });
  });

  it('a dangling event reference and a contract created twice', async () => {
    const dangling = transaction('u1', '2025-01-01T10:00:00.000000Z', [created('u1', 0, 'c1')]);
    (dangling.update as { root_event_ids: string[] }).root_event_ids.push('u1:7');
    await expect(ingestItems(t.db, 'test', asSource([dangling]))).rejects.toThrow(
      'test:1 (update u1): event id u1:7 is referenced but not in events_by_id',
    );

    await ingestItems(t.db, 'test', asSource([transaction('u1', '2025-01-01T10:00:00.000000Z', [created('u1', 0, 'c1')])]));
    await expect(
      ingestItems(t.db, 'test', asSource([transaction('u2', '2025-01-01T10:00:01.000000Z', [created('u2', 0, 'c1')])], 2)),
    ).rejects.toThrow('test:2 (update u2): contract c1 is created again in the same migration');
  });

  it('re-applying an applied item is a no-op', async () => {
    const items = asSource([
      transaction('u1', '2025-01-01T10:00:00.000000Z', [created('u1', 0, 'c1')]),
      transaction('u2', '2025-01-01T10:00:01.000000Z', [archived('u2', 0, 'c1')]),
    ]);
    await ingestItems(t.db, 'stream-a', items);
    await ingestItems(t.db, 'stream-b', items);
    expect(await counts()).toEqual({ updates: 2, contracts: 1 });
  });

  it('stores created-event blobs apart, the newest of a contract winning, and re-applies them as no-ops', async () => {
    const blobs = async () =>
      (await sql<{ contract_id: string; blob: string }>`select * from contract_blobs order by 1`.execute(t.db)).rows;
    const first = { ...transaction('u1', '2025-01-01T10:00:00.000000Z', [created('u1', 0, 'c1')]), created_event_blobs: { c1: 'AAAA' } };
    await ingestItems(t.db, 'test', asSource([first]));
    expect(await blobs()).toEqual([{ contract_id: 'c1', blob: 'AAAA' }]);
    await ingestItems(t.db, 'other', asSource([first]));
    expect(await blobs()).toEqual([{ contract_id: 'c1', blob: 'AAAA' }]);
    // The same contract assigned with a new blob (as after a hard migration): the new one is served.
    const assigned = { ...reassignment('u2', '2025-01-01T10:00:01.000000Z', 'assign', 'c1', 1), created_event_blobs: { c1: 'BBBB' } };
    await ingestItems(t.db, 'test', asSource([assigned], 2));
    expect(await blobs()).toEqual([{ contract_id: 'c1', blob: 'BBBB' }]);
  });

  it('an update repeated inside one batch is a no-op, not an error', async () => {
    const item = transaction('u1', '2025-01-01T10:00:00.000000Z', [created('u1', 0, 'c1')]);
    await ingestItems(t.db, 'test', asSource([item, item]));
    expect(await counts()).toEqual({ updates: 1, contracts: 1 });
  });

  it('keeps reassignments and an archive of a stored contract in one batch', async () => {
    await ingestItems(
      t.db,
      'test',
      asSource([transaction('u1', '2025-01-01T10:00:00.000000Z', [created('u1', 0, 'c1'), created('u1', 1, 'c2')])]),
    );
    await ingestItems(
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
    await ingestItems(t.db, 'test', batch, { checkpoint: null });
    // The same batch again, from a writer that did not see its commit: already applied, nothing written.
    const again = await ingestItems(t.db, 'test', batch, { checkpoint: null });
    expect(again.updates).toBe(0);
    await expect(
      ingestItems(t.db, 'test', asSource([transaction('u2', '2025-01-01T10:00:01.000000Z', [created('u2', 0, 'c2')])], 2), {
        checkpoint: null,
      }),
    ).rejects.toBeInstanceOf(CheckpointConflictError);
    expect(await counts()).toEqual({ updates: 1, contracts: 1 });
  });
});
