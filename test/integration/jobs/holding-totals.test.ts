/**
 * The snapshots' holdings totals, derived after each announcement by a job of their own: announcing
 * writes none, the job derives them in order (only the newest where none has any), a second run or a
 * second process derives nothing twice, and the worker leaves none awaiting when its source ends.
 */
import { sql } from 'kysely';
import { catchUpSnapshots } from '../../../src/jobs/acs-snapshots';
import { catchUpHoldingTotals } from '../../../src/jobs/holding-totals';
import type { CanonicalItem, TreeEvent } from '../../../src/domain/items';
import { fromPgTimestamp, parseTimestamp, type Micros } from '../../../src/domain/time';
import type { Source } from '../../../src/ingest/source';
import { runWorker } from '../../../src/ingest/worker';
import { createLogger } from '../../../src/internal/logger';
import { deriveHoldingTotals, snapshotsAwaitingHoldingTotals } from '../../../src/store/holding-totals-repository';
import { holdingsTotals, holdingsTotalsFromContracts } from '../../../src/store/holdings-repository';
import { ingestItems } from '../../support/ingest';
import { createTestDatabase, destroyTestDatabase, type TestDatabase } from '../../support/database/database';
import { archived, created, transaction } from '../../support/items/hand-items';
import { simulatedItems } from '../../support/items/simulated-network';

const asSource = (items: CanonicalItem[], first: number) =>
  items.map((item, i) => ({ item, position: String(first + i), origin: `test:${first + i}` }));

const OWNERS = ['alice::1220', 'bob::1220'];
const AMULET = `${'a'.repeat(64)}:Splice.Amulet:Amulet`;

/** An amulet of `owner` (created() makes alice's). */
function amulet(updateId: string, n: number, contractId: string, amount: string, owner: string): TreeEvent {
  const event = created(updateId, n, contractId, amount);
  if (event.event_type !== 'created_event') throw new Error('created() made another event');
  return { ...event, create_arguments: { ...(event.create_arguments as Record<string, unknown>), owner } };
}

const at = (text: string): Micros => parseTimestamp(text);
const derivedTimes = async (t: TestDatabase) =>
  (
    await sql<{ t: string }>`select to_char(record_time at time zone 'UTC', 'DD HH24:MI') as t from holding_totals_snapshots
      order by migration_id, record_time`.execute(t.db)
  ).rows.map((r) => r.t);

describe('holdings totals derived after the announcement', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => destroyTestDatabase(t));

  it('announces without totals, then derives the newest, then each later one in order, each equal to summing every holding', async () => {
    const first = [
      transaction('u1', '2025-01-01T01:00:00.000000Z', [amulet('u1', 0, 'a1', '100.0000000000', OWNERS[0]!)]),
      transaction('u2', '2025-01-01T04:00:00.000000Z', [amulet('u2', 0, 'a2', '7.0000000000', OWNERS[1]!)]),
      transaction('u3', '2025-01-01T07:00:00.000000Z', [archived('u3', 0, 'a1', AMULET, 'splice-amulet')]),
      transaction('u4', '2025-01-01T07:30:00.000000Z', [created('u4', 0, 'n1')]),
    ];
    await ingestItems(t.db, 'test', asSource(first, 1));
    const { taken } = await catchUpSnapshots(t.db);
    expect(taken.map((s) => s.recordTime)).toEqual(['2025-01-01T03:00:00.000000Z', '2025-01-01T06:00:00.000000Z']);
    // The announcement wrote none; where none has any, only the newest awaits them.
    expect(await derivedTimes(t)).toEqual([]);
    expect(await snapshotsAwaitingHoldingTotals(t.db, 10)).toEqual([{ migrationId: 0, recordTime: at('2025-01-01T06:00:00Z') }]);
    expect(await catchUpHoldingTotals(t.db, 10)).toBe(1);
    expect(await derivedTimes(t)).toEqual(['01 06:00']);
    expect(await snapshotsAwaitingHoldingTotals(t.db, 10)).toEqual([]);
    // Derived already: nothing written again; a snapshot that was never taken: nothing either.
    expect(await deriveHoldingTotals(t.db, 0, at('2025-01-01T06:00:00Z'), 10)).toBeUndefined();
    expect(await deriveHoldingTotals(t.db, 0, at('2025-01-01T05:00:00Z'), 10)).toBeUndefined();

    const later = [
      transaction('u5', '2025-01-01T08:00:00.000000Z', [amulet('u5', 0, 'a3', '3.0000000000', OWNERS[0]!)]),
      transaction('u6', '2025-01-01T10:00:00.000000Z', [archived('u6', 0, 'a2', AMULET, 'splice-amulet')]),
      transaction('u7', '2025-01-01T13:00:00.000000Z', [created('u7', 0, 'n2')]),
    ];
    await ingestItems(t.db, 'test', asSource(later, 5));
    expect((await catchUpSnapshots(t.db)).taken.map((s) => s.recordTime)).toEqual([
      '2025-01-01T09:00:00.000000Z',
      '2025-01-01T12:00:00.000000Z',
    ]);
    expect(await snapshotsAwaitingHoldingTotals(t.db, 10)).toEqual([
      { migrationId: 0, recordTime: at('2025-01-01T09:00:00Z') },
      { migrationId: 0, recordTime: at('2025-01-01T12:00:00Z') },
    ]);
    // Two processes at once: each snapshot is derived by one of them.
    const counts = await Promise.all([catchUpHoldingTotals(t.db, 10), catchUpHoldingTotals(t.db, 10)]);
    expect(counts[0] + counts[1]).toBe(2);
    expect(await derivedTimes(t)).toEqual(['01 06:00', '01 09:00', '01 12:00']);
    for (const s of ['2025-01-01T06:00:00Z', '2025-01-01T09:00:00Z', '2025-01-01T12:00:00Z']) {
      expect(await holdingsTotals(t.db, 0, at(s), OWNERS, 10n)).toEqual(await holdingsTotalsFromContracts(t.db, 0, at(s), OWNERS, 10n));
    }
    // The sums themselves, by hand: at 09:00 alice holds a3 (3), bob a2 (7); at 12:00 bob holds none. The
    // hand items share one created_at, so owners come by party id.
    const amounts = async (s: string) => (await holdingsTotals(t.db, 0, at(s), OWNERS)).map((o) => [o.partyId, String(o.unlocked)]);
    expect(await amounts('2025-01-01T09:00:00Z')).toEqual([
      [OWNERS[0], '30000000000'],
      [OWNERS[1], '70000000000'],
    ]);
    expect(await amounts('2025-01-01T12:00:00Z')).toEqual([[OWNERS[0], '30000000000']]);
  });

  it('the worker derives them beside ingestion and leaves none awaiting when its source ends', async () => {
    const d = await createTestDatabase();
    try {
      const items = simulatedItems({ seed: 'holding-totals-job', updates: 600, migrations: 1, meanUpdateGapMs: 60_000 });
      const source: Source = {
        stream: 'holding-totals-job',
        async *read(from) {
          for (let i = from === undefined ? 0 : Number(from); i < items.length; i++)
            yield { item: items[i]!, position: String(i + 1), origin: `item ${i}` };
        },
      };
      await runWorker(
        {
          db: d.db,
          pool: d.pool,
          source,
          logger: createLogger('silent'),
          batchSize: 50,
          batchMaxWaitMs: 20,
          holdingTotalsRefreshOwners: 5,
        },
        new AbortController().signal,
      );
      const snapshots = (await sql<{ t: string }>`select record_time::text as t from acs_snapshots order by record_time`.execute(d.db))
        .rows;
      expect(snapshots.length).toBeGreaterThan(2);
      expect(await snapshotsAwaitingHoldingTotals(d.db, 10)).toEqual([]);
      // The newest has them, and they give what summing every holding gives.
      const newest = (await sql<{ t: string }>`select max(record_time)::text as t from holding_totals_snapshots`.execute(d.db)).rows[0]!.t;
      expect(newest).toBe(snapshots.at(-1)!.t);
      const owners = (
        await sql<{
          owner: string;
        }>`select distinct amulet_owner as owner from contracts where amulet_owner is not null order by 1`.execute(d.db)
      ).rows.map((r) => r.owner);
      expect(owners.length).toBeGreaterThan(1);
      const s = fromPgTimestamp(newest);
      expect(await holdingsTotals(d.db, 0, s, owners, 50n)).toEqual(await holdingsTotalsFromContracts(d.db, 0, s, owners, 50n));
    } finally {
      await destroyTestDatabase(d);
    }
  });
});
