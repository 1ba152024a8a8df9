/**
 * The refresh of holdings totals for owners whose holdings stop changing (issue #27): each snapshot
 * rewrites, with its own round K, the rows of at most HOLDING_TOTALS_REFRESH_OWNERS owners whose K
 * lags the most. The summary S1 of such an owner stays what it was, to the byte, while it no longer
 * reads one by one the holdings clamped since the owner last changed; and a snapshot refreshes no more
 * owners than the batch, the most lagging first, so that every owner catches up within a few snapshots.
 */
import { sql } from 'kysely';
import { formatRecordTime, parseTimestamp, type Micros } from '../../../src/domain/time';
import { holdingsTotals, holdingsTotalsFromContracts } from '../../../src/store/holdings-repository';
import { deriveHoldingTotals } from '../../../src/store/holding-totals-repository';
import { takeSnapshot, type SnapshotRow } from '../../../src/store/snapshot-repository';
import { bufferCounter } from '../../support/database/buffer-count';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';

const HOUR = 3_600_000_000n;
const DAY0 = parseTimestamp('2026-11-10T00:00:00Z');
/** Snapshots every 3 hours, at hours 3 to 18. */
const SNAPSHOTS = [3n, 6n, 9n, 12n, 15n, 18n].map((h) => DAY0 + h * HOUR);
const ALICE = 'alice::1220aa';
const BOB = 'bob::1220bb';

describe('refreshing the totals of owners whose holdings stop changing', () => {
  const t = useTestDatabase();
  let api: TestApi;
  let ids = 0;

  beforeAll(async () => {
    await sql`select ensure_history_partitions(0, ${formatRecordTime(DAY0)}::timestamptz)`.execute(t.db);
    api = await startTestApi(t);
  });
  afterAll(async () => api?.close());

  beforeEach(async () => {
    await sql`truncate contracts, acs_snapshots, supply_totals, holding_totals, holding_totals_snapshots, holding_totals_newest`.execute(
      t.db,
    );
  });

  /**
   * `count` active amulets of `owner` created at `hour` in `round` (ids from a counter); amount and rate
   * are SQL over i (0 to count - 1), in amulet units.
   */
  async function amulets(owner: string, hour: bigint, round: number, count: number, amount: string, rate: string): Promise<void> {
    const created = formatRecordTime(DAY0 + hour * HOUR);
    await t.pool.query(
      `insert into contracts (migration_id, contract_id, template_id, package_name, qualified_name, create_arguments, created_at,
         signatories, observers, created_record_time, archived_record_time, amulet_owner, amulet_initial_amount,
         amulet_created_round, amulet_rate_per_round, amulet_locked)
       select 0, '00r' || lpad((i + $5::int)::text, 9, '0'), 'p:Splice.Amulet:Amulet', 'splice-amulet', 'Splice.Amulet:Amulet', '{}',
         $2::timestamptz + i * interval '1 microsecond', array[$1], array[]::text[], $2::timestamptz, 'infinity', $1,
         ${amount}, $3::bigint, ${rate}, false
       from generate_series(0, $4::int - 1) i`,
      [owner, created, round, count, ids],
    );
    ids += count;
  }

  /** Takes the snapshots from the first up to and including `until`, from `previous`. */
  async function takeUntil(until: Micros, refreshOwners: number, previous?: SnapshotRow): Promise<SnapshotRow> {
    let last = previous;
    for (const at of SNAPSHOTS) {
      if (at <= (previous?.recordTime ?? -1n) || at > until) continue;
      last = await takeSnapshot(t.db, 0, last, at);
      await deriveHoldingTotals(t.db, 0, at, refreshOwners);
    }
    return last!;
  }

  /** The owners' newest rows at or before `at`: where they were written and their K. */
  async function rowsAt(at: Micros): Promise<{ owner: string; hour: number; k: string }[]> {
    const { rows } = await sql<{ owner: string; hour: number; k: string }>`
      select distinct on (owner) owner, (extract(epoch from record_time - ${formatRecordTime(DAY0)}::timestamptz) / 3600)::int as hour,
        clamped_by::text as k
      from holding_totals where migration_id = 0 and record_time <= ${formatRecordTime(at)}::timestamptz
      order by owner, record_time desc`.execute(t.db);
    return rows;
  }

  const summary = (at: Micros, round: number) =>
    request(api.url, 'POST', '/api/scan/v0/holdings/summary', {
      migration_id: 0,
      record_time: formatRecordTime(at),
      owner_party_ids: [ALICE],
      as_of_round: round,
    });

  it("gives an owner whose holdings stopped changing the snapshot's K, and its S1 answer stays the same", async () => {
    // Alice's two amulets, created in round 0 before the first snapshot, never change: 0.5 at 0.01 a round
    // has its fee clamped from round 51 on; 100 at 0.01 a round is not clamped before round 10,001.
    await amulets(ALICE, 1n, 0, 1, '0.5', '0.01');
    await amulets(ALICE, 1n, 0, 1, '100', '0.01');
    await amulets(BOB, 1n, 0, 1, '1', '0');
    // Bob's holdings change after the third snapshot, in round 300: the K of the fourth is 300.
    await amulets(BOB, 10n, 300, 1, '2', '0');
    const third = await takeUntil(SNAPSHOTS[2]!, 1000);
    expect(await rowsAt(SNAPSHOTS[2]!)).toEqual([
      { owner: ALICE, hour: 3, k: '0' },
      { owner: BOB, hour: 3, k: '0' },
    ]);
    const expected = (at: Micros) => ({
      record_time: formatRecordTime(at).replace(/\.000000Z$/, 'Z'),
      migration_id: 0,
      computed_as_of_round: 400,
      summaries: [
        {
          party_id: ALICE,
          total_unlocked_coin: '100.5000000000',
          total_locked_coin: '0.0000000000',
          total_coin_holdings: '100.5000000000',
          // 0.5 (clamped) + 400 × 0.01.
          accumulated_holding_fees_unlocked: '4.5000000000',
          accumulated_holding_fees_locked: '0.0000000000',
          accumulated_holding_fees_total: '4.5000000000',
          total_available_coin: '96.0000000000',
        },
      ],
    });
    const before = await summary(SNAPSHOTS[2]!, 400);
    expect({ status: before.status, body: before.json }).toEqual({ status: 200, body: expected(SNAPSHOTS[2]!) });

    await takeUntil(SNAPSHOTS[3]!, 1000, third);
    // Alice's row is rewritten at the fourth snapshot with its K, her 0.5 amulet now summed as clamped.
    expect(await rowsAt(SNAPSHOTS[3]!)).toEqual([
      { owner: ALICE, hour: 12, k: '300' },
      { owner: BOB, hour: 12, k: '300' },
    ]);
    const row = await sql<{ clamped: string }>`
      select unlocked_clamped::text as clamped from holding_totals where owner = ${ALICE} and record_time = ${formatRecordTime(SNAPSHOTS[3]!)}::timestamptz`.execute(
      t.db,
    );
    expect(row.rows).toEqual([{ clamped: '0.5000000000' }]);
    const after = await summary(SNAPSHOTS[3]!, 400);
    expect({ status: after.status, body: after.json }).toEqual({ status: 200, body: expected(SNAPSHOTS[3]!) });
    // On either side of the new K too, as summing every holding gives.
    for (const round of [0n, 50n, 51n, 299n, 300n, 301n]) {
      expect(await holdingsTotals(t.db, 0, SNAPSHOTS[3]!, [ALICE, BOB], round)).toEqual(
        await holdingsTotalsFromContracts(t.db, 0, SNAPSHOTS[3]!, [ALICE, BOB], round),
      );
    }
  });

  it('lets S1 of such an owner read about what an owner that just changed reads, where it read every holding clamped since', async () => {
    const STALE = 'stale::1220';
    const FRESH = 'fresh::1220';
    const N = 4000;
    // The same dust for both, created in round 0 before the first snapshot: amounts 0.001 to 0.25 at
    // 0.001 a round, clamped in rounds 2 to 251.
    for (const owner of [STALE, FRESH]) await amulets(owner, 1n, 0, N, '(1 + i % 250) * 0.001', '0.001');
    // Fresh's holdings change again in round 300, before the fourth snapshot; Stale's never do.
    await amulets(FRESH, 10n, 300, 1, '1', '0');
    await sql`vacuum analyze contracts`.execute(t.db);
    const counter = bufferCounter(t.pool);
    const cost = async (owner: string) => {
      const blocks = await counter.lastQuery(() => holdingsTotals(counter.db, 0, SNAPSHOTS[3]!, [owner], 400n));
      expect(await holdingsTotals(t.db, 0, SNAPSHOTS[3]!, [owner], 400n)).toEqual(
        await holdingsTotalsFromContracts(t.db, 0, SNAPSHOTS[3]!, [owner], 400n),
      );
      return blocks;
    };

    // Without the refresh, Stale's row keeps K = 0: S1 as of 400 reads its 4,000 amulets one by one.
    await takeUntil(SNAPSHOTS[3]!, 0);
    expect(await rowsAt(SNAPSHOTS[3]!)).toEqual([
      { owner: FRESH, hour: 12, k: '300' },
      { owner: STALE, hour: 3, k: '0' },
    ]);
    const unrefreshed = { stale: await cost(STALE), fresh: await cost(FRESH) };

    await sql`truncate acs_snapshots, supply_totals, holding_totals, holding_totals_snapshots, holding_totals_newest`.execute(t.db);
    await takeUntil(SNAPSHOTS[3]!, 1000);
    expect(await rowsAt(SNAPSHOTS[3]!)).toEqual([
      { owner: FRESH, hour: 12, k: '300' },
      { owner: STALE, hour: 12, k: '300' },
    ]);
    await sql`vacuum analyze holding_totals`.execute(t.db);
    const refreshed = { stale: await cost(STALE), fresh: await cost(FRESH) };

    expect({ unrefreshedStaleReadsMore: unrefreshed.stale > unrefreshed.fresh * 2 + 10 }).toEqual({ unrefreshedStaleReadsMore: true });
    expect({ refreshedStaleReadsAsFresh: refreshed.stale <= refreshed.fresh * 1.2 + 2 }).toEqual({ refreshedStaleReadsAsFresh: true });
  }, 120_000);

  it('refreshes at most the batch per snapshot, the most lagging first, so that every owner catches up', async () => {
    // Five owners whose holdings stop changing after the snapshot at hour 3 + 3j (j = 0 to 4) in round
    // 10j, named against that order (o4 first), so that the K of the earliest lags the most; another
    // owner's change in round 100 before the snapshot at hour 15 makes them all lag.
    const owners = ['o4::1220', 'o3::1220', 'o2::1220', 'o1::1220', 'o0::1220'];
    for (const [j, owner] of owners.entries()) await amulets(owner, BigInt(1 + 3 * j), 10 * j, 1, '1', '0.001');
    await amulets(BOB, 13n, 100, 1, '1', '0');
    const refreshedAt = async (at: Micros) => {
      const { rows } = await sql<{ owner: string }>`
        select t.owner from holding_totals t where t.record_time = ${formatRecordTime(at)}::timestamptz
          and not exists (select 1 from contracts c where c.amulet_owner = t.owner
            and c.created_record_time > ${formatRecordTime(at)}::timestamptz - interval '3 hours'
            and c.created_record_time <= ${formatRecordTime(at)}::timestamptz)
        order by t.owner`.execute(t.db);
      return rows.map((r) => r.owner);
    };

    // Batch 0 (off) up to hour 12: the K of those that changed earlier lags, and nobody is refreshed.
    let last = await takeUntil(SNAPSHOTS[3]!, 0);
    for (const at of SNAPSHOTS.slice(0, 4)) expect(await refreshedAt(at)).toEqual([]);
    expect((await rowsAt(SNAPSHOTS[3]!)).map((r) => r.k)).toEqual(['30', '20', '10', '0']);
    // Batch 2 at hour 15 (K = 100): o0 changed there; of the four others, the two with the lowest K.
    last = await takeUntil(SNAPSHOTS[4]!, 2, last);
    expect(await refreshedAt(SNAPSHOTS[4]!)).toEqual(['o3::1220', 'o4::1220']);
    // At hour 18: the two left. Every owner's K is then the newest snapshot's.
    await takeUntil(SNAPSHOTS[5]!, 2, last);
    expect(await refreshedAt(SNAPSHOTS[5]!)).toEqual(['o1::1220', 'o2::1220']);
    expect(await rowsAt(SNAPSHOTS[5]!)).toEqual([
      { owner: BOB, hour: 15, k: '100' },
      { owner: 'o0::1220', hour: 15, k: '100' },
      { owner: 'o1::1220', hour: 18, k: '100' },
      { owner: 'o2::1220', hour: 18, k: '100' },
      { owner: 'o3::1220', hour: 15, k: '100' },
      { owner: 'o4::1220', hour: 15, k: '100' },
    ]);
    for (const round of [0n, 100n, 2000n]) {
      expect(await holdingsTotals(t.db, 0, SNAPSHOTS[5]!, [...owners, BOB], round)).toEqual(
        await holdingsTotalsFromContracts(t.db, 0, SNAPSHOTS[5]!, [...owners, BOB], round),
      );
    }
  });
});
