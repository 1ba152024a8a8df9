/**
 * The per-owner holdings totals kept at each snapshot (holding_totals) must give exactly what
 * summing every holding gives: amounts, fees as of any round (the clamp included) and the order of
 * the owners. Random holdings, created and archived at random times around snapshot boundaries,
 * are read both ways at every snapshot; so are the snapshots left after retention drops earlier ones.
 */
import fc from 'fast-check';
import { sql } from 'kysely';
import { formatRecordTime, parseTimestamp, type Micros } from '../../../src/domain/time';
import { deriveHoldingTotals, dropHoldingTotalsBefore } from '../../../src/store/holding-totals-repository';
import { holdingsTotals, holdingsTotalsFromContracts } from '../../../src/store/holdings-repository';
import { takeSnapshot, type SnapshotRow } from '../../../src/store/snapshot-repository';
import { useTestDatabase } from '../../support/database/database';

const HOUR = 3_600_000_000;
const DAY0 = parseTimestamp('2026-11-10T00:00:00Z');
const OWNERS = ['alice::1220aa', 'bob::1220bb', 'carol::1220cc', 'dave::1220dd'];
const SNAPSHOTS = [3, 6, 9, 12].map((h) => DAY0 + BigInt(h) * BigInt(HOUR));

interface Holding {
  owner: number;
  amount: bigint | null;
  createdRound: number | null;
  rate: bigint | null;
  locked: boolean;
  createdMicros: number;
  /** Micros after creation, or null: active. */
  livesMicros: number | null;
}

const holding: fc.Arbitrary<Holding> = fc.record({
  owner: fc.integer({ min: 0, max: OWNERS.length - 1 }),
  // Amounts and rates in units of 1e-10: dust to large, so that the clamp binds for some rounds.
  amount: fc.oneof(fc.bigInt({ min: 0n, max: 10_000_000_000n }), fc.bigInt({ min: 0n, max: 10n ** 16n })),
  createdRound: fc.integer({ min: 0, max: 200 }),
  rate: fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 100_000_000n }), fc.constant(38_051_800n)),
  locked: fc.boolean(),
  createdMicros: fc.integer({ min: 0, max: 13 * HOUR }),
  livesMicros: fc.option(fc.integer({ min: 0, max: 8 * HOUR }), { nil: null }),
});

const decimal = (units: bigint | null): string | null => {
  if (units === null) return null;
  const abs = units < 0n ? -units : units;
  return `${units < 0n ? '-' : ''}${abs / 10_000_000_000n}.${(abs % 10_000_000_000n).toString().padStart(10, '0')}`;
};

/**
 * Holdings whose fee the rule alone gives: a column missing, a negative amount or rate (clamp round
 * -Infinity), mixed with dust and whole amounts whose clamp round falls near the snapshots' own round.
 */
const oddHolding: fc.Arbitrary<Holding> = fc.record({
  owner: fc.integer({ min: 0, max: OWNERS.length - 1 }),
  amount: fc.oneof(
    fc.constant(null),
    fc.bigInt({ min: -10_000_000_000n, max: -1n }),
    fc.bigInt({ min: 0n, max: 10_000_000_000n }),
    fc.bigInt({ min: 0n, max: 10n ** 13n }),
  ),
  createdRound: fc.option(fc.integer({ min: 0, max: 200 }), { nil: null, freq: 8 }),
  rate: fc.oneof(
    fc.constant(null),
    fc.constant(0n),
    fc.bigInt({ min: -100_000_000n, max: -1n }),
    fc.bigInt({ min: 1n, max: 1_000_000_000n }),
  ),
  locked: fc.boolean(),
  createdMicros: fc.integer({ min: 0, max: 13 * HOUR }),
  livesMicros: fc.option(fc.integer({ min: 0, max: 8 * HOUR }), { nil: null }),
});

describe('holdings totals at snapshots', () => {
  const t = useTestDatabase();

  async function load(holdings: Holding[]): Promise<void> {
    await sql`truncate contracts, acs_snapshots, supply_totals, holding_totals, holding_totals_snapshots, holding_totals_newest`.execute(
      t.db,
    );
    await sql`select ensure_history_partitions(0, ${formatRecordTime(DAY0)}::timestamptz)`.execute(t.db);
    for (const [i, h] of holdings.entries()) {
      const created = DAY0 + BigInt(h.createdMicros);
      const archived = h.livesMicros === null ? 'infinity' : formatRecordTime(created + BigInt(h.livesMicros));
      // created_at (ledger time) need not follow record time: a holding's order among owners comes from it.
      const createdAt = formatRecordTime(DAY0 + BigInt((h.createdMicros * 7919) % (13 * HOUR)));
      await sql`insert into contracts (migration_id, contract_id, template_id, package_name, qualified_name, create_arguments,
          created_at, signatories, observers, created_record_time, archived_record_time, amulet_owner, amulet_initial_amount,
          amulet_created_round, amulet_rate_per_round, amulet_locked)
        values (0, ${`00c${i}`}, 'p:Splice.Amulet:Amulet', 'splice-amulet', 'Splice.Amulet:Amulet', '{}', ${createdAt}::timestamptz,
          ${[OWNERS[h.owner]!]}::text[], '{}'::text[], ${formatRecordTime(created)}::timestamptz, ${archived}::timestamptz,
          ${OWNERS[h.owner]!}, ${decimal(h.amount)}::numeric, ${h.createdRound}::bigint, ${decimal(h.rate)}::numeric, ${h.locked})`.execute(
        t.db,
      );
    }
  }

  /** Takes the snapshots, refreshing at most `refreshOwners` unchanged owners at each (two: some wait a snapshot). */
  async function takeAll(dropTotalsOfFirst: boolean, refreshOwners = 2): Promise<void> {
    let previous: SnapshotRow | undefined;
    for (const [i, at] of SNAPSHOTS.entries()) {
      previous = await takeSnapshot(t.db, 0, previous, at);
      await deriveHoldingTotals(t.db, 0, at, refreshOwners);
      if (i === 0 && dropTotalsOfFirst) {
        // As if taken before the totals existed: the next one aggregates every holding again.
        await sql`delete from holding_totals_snapshots`.execute(t.db);
        await sql`delete from holding_totals`.execute(t.db);
        await sql`delete from holding_totals_newest`.execute(t.db);
      }
    }
  }

  async function expectSame(snapshots: Micros[], rounds: (bigint | undefined)[]): Promise<void> {
    for (const at of snapshots) {
      for (const round of rounds) {
        const direct = await holdingsTotalsFromContracts(t.db, 0, at, OWNERS, round);
        expect(await holdingsTotals(t.db, 0, at, OWNERS, round)).toEqual(direct);
      }
    }
  }

  it('reads from the totals exactly what summing every holding gives', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(holding, { minLength: 0, maxLength: 40 }),
        fc.boolean(),
        fc.array(fc.bigInt({ min: -10n, max: 400n }), { minLength: 1, maxLength: 3 }),
        async (holdings, dropTotalsOfFirst, rounds) => {
          await load(holdings);
          await takeAll(dropTotalsOfFirst);
          const kept = dropTotalsOfFirst ? SNAPSHOTS.slice(1) : SNAPSHOTS;
          const totals = await sql<{ n: number }>`select count(*)::int as n from holding_totals_snapshots`.execute(t.db);
          expect(totals.rows[0]!.n).toBe(kept.length);
          await expectSame(SNAPSHOTS, [undefined, ...rounds]);
          // Retention: the snapshots before the third go; what the others read stays.
          const start = formatRecordTime(SNAPSHOTS[2]!);
          await dropHoldingTotalsBefore(t.db, start);
          await sql`delete from acs_snapshots where record_time < ${start}::timestamptz`.execute(t.db);
          await expectSame(SNAPSHOTS.slice(2), [undefined, ...rounds]);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('clamps a fee that reaches the amount, active or archived since the snapshot', async () => {
    const base = { owner: 0, createdRound: 0, locked: false, createdMicros: HOUR };
    await load([
      // 100 rounds × 0.01 = 1.0 > 0.5: capped at 0.5 from round 51 on.
      { ...base, amount: 5_000_000_000n, rate: 100_000_000n, livesMicros: null },
      // The same, archived after the last snapshot.
      { ...base, amount: 5_000_000_000n, rate: 100_000_000n, livesMicros: 12 * HOUR },
      // Not capped: 100 × 0.01 = 1.0 < 2.0.
      { ...base, amount: 20_000_000_000n, rate: 100_000_000n, livesMicros: null },
    ]);
    await takeAll(false);
    const [alice] = await holdingsTotals(t.db, 0, SNAPSHOTS[3]!, OWNERS, 100n);
    expect(alice).toEqual({
      partyId: OWNERS[0],
      unlocked: 30_000_000_000n,
      locked: 0n,
      feesUnlocked: 20_000_000_000n,
      feesLocked: 0n,
    });
    await expectSame(SNAPSHOTS, [0n, 50n, 51n, 100n]);
  });
  it('reads fees as of rounds on either side of each snapshot own round exactly, odd holdings included', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(holding, oddHolding), { minLength: 0, maxLength: 40 }),
        fc.array(fc.integer({ min: -30, max: 30 }), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        async (holdings, offsets, asBefore) => {
          await load(holdings);
          await takeAll(false);
          const ks = await sql<{
            k: string | null;
          }>`select clamped_by::text as k from holding_totals_snapshots order by record_time`.execute(t.db);
          const rounds = ks.rows.flatMap((r) => (r.k === null ? [] : offsets.map((o) => BigInt(r.k!) + BigInt(o))));
          if (asBefore) {
            // Rows written before migration 20261126_120: no round, nothing summed as clamped.
            await sql`update holding_totals set clamped_by = '-Infinity', unlocked_clamped = 0, locked_clamped = 0,
                unlocked_clamped_rate = 0, locked_clamped_rate = 0, unlocked_clamped_round_rate = 0, locked_clamped_round_rate = 0`.execute(
              t.db,
            );
          }
          await expectSame(SNAPSHOTS, [undefined, 0n, ...rounds]);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('keeps the holdings clamped as of the snapshot round summed, and reads only those clamped since', async () => {
    const base = { owner: 0, locked: false, createdMicros: HOUR, livesMicros: null };
    await load([
      // Clamp round 0 + floor(0.5 / 0.01) + 1 = 51, before the snapshot's round (created round 80): summed.
      { ...base, amount: 5_000_000_000n, createdRound: 0, rate: 100_000_000n },
      // Clamp round 60 + 51 = 111: after it, read one by one as of 111 and later.
      { ...base, amount: 5_000_000_000n, createdRound: 60, rate: 100_000_000n },
      { ...base, amount: 20_000_000_000n, createdRound: 80, rate: 100_000_000n },
    ]);
    await takeAll(false);
    const row = await sql<{ k: string; clamped: string }>`
      select clamped_by::text as k, unlocked_clamped::text as clamped from holding_totals where owner = ${OWNERS[0]!}`.execute(t.db);
    expect(row.rows).toEqual([{ k: '80', clamped: '0.5000000000' }]);
    await expectSame(SNAPSHOTS, [0n, 50n, 51n, 79n, 80n, 81n, 110n, 111n, 300n]);
  });
});
