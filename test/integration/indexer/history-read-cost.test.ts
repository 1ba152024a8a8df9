/**
 * The parsed-history reads at an instant cost what lies between the instant and the snapshot before it,
 * and a party's activity page what it returns, not the history around them (issue #29 §3), in the style
 * of test/integration/scan/read-cost.test.ts: supply at an instant (with its cumulative totals: the
 * snapshot's stored ones plus the flows since; and in a new migration before its first snapshot, from the
 * end of the one before), supply at each period end of a
 * series (hourly and daily over two days), a party's balance at an instant, and
 * pages of a party's activity (newest first, a kind in a window, after a position) touch about the same
 * number of buffers when the history held around them spans ten times as many months. Each month has a
 * snapshot every 3 hours (with the party's holding totals), amulets living 5 hours (so across snapshot
 * boundaries), and activities every 2 minutes.
 */
import { parseTimestamp, type Micros } from '../../../src/domain/time';
import { listPartyActivities, type ActivityPosition } from '../../../src/store/activity-repository';
import { partyBalanceAt, supplyAt, supplyAtEach, type SupplyPoint } from '../../../src/store/balance-repository';
import { ensureHistoryPartitions } from '../../../src/store/partitions';
import { bufferCounter, type BufferCounter } from '../../support/database/buffer-count';
import { useTestDatabase } from '../../support/database/database';

const PARTY = 'heavy::1220';
const OTHER = 'other::1220';
/** Between the snapshots of 12:00 and 15:00. */
const AT = parseTimestamp('2025-03-10T13:30:00Z');
const FROM = parseTimestamp('2025-03-10T00:00:00Z');
const TO = parseTimestamp('2025-03-12T00:00:00Z');
/** The period ends (last microseconds) of a series over [FROM, TO): 48 hours, or 2 days. */
const endsEvery = (step: Micros): SupplyPoint[] =>
  Array.from({ length: Number((TO - FROM) / step) }, (_, k) => ({ migrationId: 0, at: FROM + BigInt(k + 1) * step - 1n }));
const HOUR_ENDS = endsEvery(3_600_000_000n);
/** A SummarizingMiningRound's configuration, as far as the allowed mint reads it: 40e9 a year, hourly rounds. */
const ROUND_CONFIG = { issuanceConfig: { amuletToIssuePerYear: '40000000000.0000000000' }, tickDuration: { microseconds: '3600000000' } };
/** Migration 1 begins after the history of migration 0; read before its first snapshot. */
const NEXT = parseTimestamp('2025-07-01T01:30:00Z');
const DAY_ENDS = endsEvery(86_400_000_000n);

describe('the parsed-history reads do not grow with history', () => {
  const t = useTestDatabase();
  let counter: BufferCounter;
  let middle: ActivityPosition;

  /** A month of history from `start` (YYYY-MM-DD). */
  async function month(start: string): Promise<void> {
    await ensureHistoryPartitions(t.db, [{ migrationId: 0, recordTime: parseTimestamp(`${start}T00:00:00Z`) }]);
    const minutes = `extract(epoch from ($1::timestamptz + interval '1 month' - $1::timestamptz))::int / 60`;
    await t.pool.query(
      `insert into activities (migration_id, record_time, update_id, node, kind, leg, party, round, amount, fees, holding_fees, burned, counterparties)
       select 0, $1::timestamptz + i * interval '2 minutes', $1 || '-' || i, 0,
         (array['transfer', 'app_reward', 'tap', 'ans_entry'])[1 + i % 4], 0, (array[$2, $3])[1 + i % 2], 1, 1, 0.1, 0.01, 0.2, '{}'
       from generate_series(0, ${minutes} / 2 - 1) i`,
      [start, PARTY, OTHER],
    );
    for (const owner of [PARTY, OTHER]) {
      await t.pool.query(
        `insert into contracts (migration_id, contract_id, template_id, package_name, qualified_name, create_arguments, created_at,
           signatories, observers, created_record_time, archived_record_time, amulet_owner, amulet_initial_amount,
           amulet_created_round, amulet_rate_per_round, amulet_locked)
         select 0, $2 || '-' || $1 || '-' || lpad(i::text, 6, '0'), 'p:Splice.Amulet:Amulet', 'splice-amulet', 'Splice.Amulet:Amulet', '{}',
           $1::timestamptz + i * interval '10 minutes', array['dso::1220', $2], array[]::text[],
           $1::timestamptz + i * interval '10 minutes', $1::timestamptz + i * interval '10 minutes' + interval '5 hours',
           $2, 100, 1, 0.001, i % 5 = 0
         from generate_series(0, ${minutes} / 10 - 1) i`,
        [start, owner],
      );
    }
    const snapshots = `generate_series($1::timestamptz, $1::timestamptz + interval '1 month' - interval '3 hours', interval '3 hours') s`;
    await t.pool.query(
      `insert into acs_snapshots (migration_id, record_time, contract_count, unlocked_amulet, locked_amulet, max_created_at)
       select 0, s, 60, 4800, 1200, s from ${snapshots}`,
      [start],
    );
    await t.pool.query(`insert into holding_totals_snapshots (migration_id, record_time) select 0, s from ${snapshots}`, [start]);
    // The cumulative supply totals at each snapshot, and a round that starts issuing every hour (on the hour).
    await t.pool.query(
      `insert into supply_totals (migration_id, record_time, minted_mint, minted_tap, minted_app_reward, minted_validator_reward,
         minted_sv_reward, minted_validator_faucet, burned, burned_holding_fees, burned_traffic, burned_ans, allowed_mint, issuing_rounds)
       select 0, s, 0, 500, 500, 0, 0, 0, 400, 20, 0, 100, 1000, 100 from ${snapshots}`,
      [start],
    );
    await rounds(0, start, '1 month');
    await t.pool.query(
      `insert into holding_totals (migration_id, owner, record_time, holdings, first_created_at, unlocked, locked,
         unlocked_rate, locked_rate, unlocked_round_rate, locked_round_rate)
       select 0, o, s, 30, s - interval '5 hours', 2400, 600, 0.024, 0.006, 0.024, 0.006
       from ${snapshots} cross join unnest(array[$2, $3]) o`,
      [start, PARTY, OTHER],
    );
    await t.pool.query('vacuum analyze activities, contracts, acs_snapshots, holding_totals_snapshots, holding_totals, supply_totals');
  }

  /**
   * A round that starts issuing every hour from `start` over `span`: an IssuingMiningRound created at the
   * hour and archived two hours later (as rounds close: in every archive month of the history), and the
   * SummarizingMiningRound with the issuance configuration archived at its creation.
   */
  async function rounds(migrationId: number, start: string, span: string): Promise<void> {
    const hours = `generate_series(0, extract(epoch from ($1::timestamptz + interval '${span}' - $1::timestamptz))::int / 3600 - 1) i`;
    const insert = `insert into contracts (migration_id, contract_id, template_id, package_name, qualified_name, create_arguments, created_at,
        signatories, observers, created_record_time, archived_record_time, round_number)`;
    await t.pool.query(
      `${insert}
       select $2::bigint, 'issuing-' || $1 || '-' || i, 'p:Splice.Round:IssuingMiningRound', 'splice-amulet', 'Splice.Round:IssuingMiningRound',
         '{}', $1::timestamptz + i * interval '1 hour', array['dso::1220'], array[]::text[], $1::timestamptz + i * interval '1 hour',
         $1::timestamptz + i * interval '1 hour' + interval '2 hours', i
       from ${hours}`,
      [start, migrationId],
    );
    await t.pool.query(
      `${insert}
       select $2::bigint, 'summarizing-' || $1 || '-' || i, 'p:Splice.Round:SummarizingMiningRound', 'splice-amulet',
         'Splice.Round:SummarizingMiningRound', $3, $1::timestamptz + i * interval '1 hour' - interval '30 minutes', array['dso::1220'],
         array[]::text[], $1::timestamptz + i * interval '1 hour' - interval '30 minutes', $1::timestamptz + i * interval '1 hour', i
       from ${hours}`,
      [start, migrationId, JSON.stringify(ROUND_CONFIG)],
    );
  }

  const reads = {
    supply: () => counter.allQueries(() => supplyAt(counter.db, 0, AT)),
    // Its cumulative totals start from the end of migration 0: its last snapshot and what followed it.
    supplyInNextMigration: () => counter.allQueries(() => supplyAt(counter.db, 1, NEXT)),
    hourlySupply: () => counter.allQueries(() => supplyAtEach(counter.db, HOUR_ENDS)),
    dailySupply: () => counter.allQueries(() => supplyAtEach(counter.db, DAY_ENDS)),
    balance: () => counter.allQueries(() => partyBalanceAt(counter.db, 0, PARTY, AT, 10n)),
    newest: () => counter.lastQuery(() => listPartyActivities(counter.db, { party: PARTY, order: 'desc', limit: 50 })),
    window: () =>
      counter.lastQuery(() =>
        listPartyActivities(counter.db, { party: PARTY, kinds: ['tap'], from: FROM, to: TO, order: 'asc', limit: 50 }),
      ),
    after: () => counter.lastQuery(() => listPartyActivities(counter.db, { party: PARTY, order: 'asc', after: middle, limit: 50 })),
  };

  async function costs(): Promise<Record<keyof typeof reads, number>> {
    const out = {} as Record<keyof typeof reads, number>;
    for (const [k, read] of Object.entries(reads)) out[k as keyof typeof reads] = await read();
    return out;
  }

  beforeAll(async () => {
    await t.pool.query('insert into migrations (migration_id) values (0), (1) on conflict do nothing');
    // The migrations' spans, as the writer keeps them (the totals before migration 1 are migration 0's end).
    await t.pool.query(
      `insert into migration_synchronizers (migration_id, synchronizer_id, min_record_time, max_record_time, update_count)
       values (0, 'sync::1220', '2024-09-01T00:00:00Z', '2025-06-30T23:58:00Z', 1), (1, 'sync::1220', '2025-07-01T00:00:00Z', '2025-07-01T02:00:00Z', 1)`,
    );
    // Two hours of migration 1: activities every 2 minutes and two rounds, before its first snapshot.
    await ensureHistoryPartitions(t.db, [{ migrationId: 1, recordTime: parseTimestamp('2025-07-01T00:00:00Z') }]);
    await t.pool.query(
      `insert into activities (migration_id, record_time, update_id, node, kind, leg, party, round, amount, fees, holding_fees, burned, counterparties)
       select 1, '2025-07-01T00:00:00Z'::timestamptz + i * interval '2 minutes', 'm1-' || i, 0, 'tap', 0, $1, 1, 1, 0, null, null, '{}'
       from generate_series(0, 59) i`,
      [PARTY],
    );
    await rounds(1, '2025-07-01T00:00:00Z', '2 hours');
    counter = bufferCounter(t.pool);
  });

  it("supply at an instant and at a series' period ends, balance at an instant, and activity pages, touch the same buffers against a history ten times longer", async () => {
    await month('2025-03-01');
    // A position in the middle of the party's activities, as a page's last row gives it.
    const page = await listPartyActivities(t.db, { party: PARTY, order: 'asc', from: FROM, limit: 1 });
    middle = page[0]!;

    // The reads return what their range holds: the 12:00 snapshot, its totals plus what changed since.
    const supply = await supplyAt(t.db, 0, AT);
    expect(supply.snapshot).toBe(parseTimestamp('2025-03-10T12:00:00Z'));
    // The cumulative totals: the snapshot's, the round of 13:00 and the activities of (12:00, 13:30] (a tap every 8 minutes).
    const perRound = 45_662_100_456_621_005n;
    expect(supply.cumulative).toMatchObject({ issuingRounds: 101, allowedMint: 10_000_000_000_000n + perRound });
    expect(supply.cumulative?.minted.tap).toBe(5_000_000_000_000n + 11n * 10_000_000_000n);
    const next = await supplyAt(t.db, 1, NEXT);
    expect(next.cumulative).toBeDefined();
    const balance = await partyBalanceAt(t.db, 0, PARTY, AT, 10n);
    expect(balance.snapshot).toBe(parseTimestamp('2025-03-10T12:00:00Z'));
    // The series' supply at each period end is supplyAt's there (instants on snapshots and between them too).
    const onSnapshots = [0n, 1n, 10_800_000_000n, 10_800_000_001n].map((d) => ({ migrationId: 0, at: FROM + d }));
    const hourly = await supplyAtEach(t.db, HOUR_ENDS);
    for (const points of [HOUR_ENDS, DAY_ENDS, onSnapshots]) {
      const each = await supplyAtEach(t.db, points);
      const one = [];
      for (const p of points) {
        const s = await supplyAt(t.db, 0, p.at);
        one.push({ snapshot: s.snapshot, unlocked: s.unlocked, locked: s.locked });
      }
      expect(each).toEqual(one);
    }
    // A row of the party every 4 minutes, a tap every 8 (at 4 past): the window's first 50 taps.
    const taps = await listPartyActivities(t.db, { party: PARTY, kinds: ['tap'], from: FROM, to: TO, order: 'asc', limit: 50 });
    expect(taps.map((a) => [a.kind, a.recordTime - FROM])).toEqual(
      Array.from({ length: 50 }, (_, i) => ['tap', (BigInt(i) * 8n + 4n) * 60_000_000n] as [string, Micros]),
    );
    const short = await costs();

    for (const m of ['2024-09', '2024-10', '2024-11', '2024-12', '2025-01', '2025-02', '2025-04', '2025-05', '2025-06']) {
      await month(`${m}-01`);
    }
    expect(await supplyAt(t.db, 0, AT)).toEqual(supply);
    // Migration 0's end moved three months on; what lies between its last snapshot and its end did not grow.
    const later = await supplyAt(t.db, 1, NEXT);
    expect(later.cumulative?.issuingRounds).toBe(next.cumulative!.issuingRounds);
    expect(await supplyAtEach(t.db, HOUR_ENDS)).toEqual(hourly);
    const long = await costs();
    for (const k of Object.keys(reads) as (keyof typeof reads)[]) {
      expect({ read: k, short: short[k] > 0, blocks: long[k] <= short[k] * 1.5 + 10 }).toEqual({ read: k, short: true, blocks: true });
    }
  }, 600_000);
});
