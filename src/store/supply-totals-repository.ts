/**
 * Cumulative supply flows at ACS snapshots (supply_totals, migration 20261127_010; issue #29, Splice
 * issue 179): minted by kind, burned with its parts, and the mint the issuance curve allowed, over the
 * whole history ingested. The totals at snapshot S are those at the snapshot P before it (or, for a
 * migration's first snapshot, at the end of the migrations before; zero at the beginning of the history)
 * plus the flows of (P, S]: the activities' leg 0, summed per kind over a key range of `activities`, and
 * the rounds that started issuing, by contracts_issuing_rounds_by_created_time. The snapshot job writes
 * them in the snapshot's transaction; `scan-indexer backfill-supply-totals` (src/jobs/supply-totals-backfill.ts)
 * those of the snapshots taken before. Reads add the flows since the snapshot (supplyAt), so they cost
 * what changed since it.
 *
 * Totals are never guessed: a snapshot whose predecessor has none gets none, and the beginning of the
 * history counts as zero only when the activity projection covers it (no backfill pending) and
 * retention has dropped nothing.
 */
import { sql } from 'kysely';
import { PayloadShapeError } from '../domain/dso-state';
import { formatDecimal, parseDecimal, type Decimal10 } from '../domain/decimal';
import type { Json } from '../domain/json';
import { SPLICE } from '../domain/splice-contracts';
import { addTotals, flowsOfKinds, roundIssuance, zeroTotals, type KindSums, type SupplyTotals } from '../domain/supply-totals';
import { formatRecordTime, fromPgTimestamp, IMPORT_RECORD_TIME, type Micros } from '../domain/time';
import type { Db } from './pool';
import { readHistoryStart } from './partitions';
import { repositoryOperation } from './query-operation';

const ts = (t: Micros) => sql`${formatRecordTime(t)}::timestamptz`;

/**
 * Serialises writing totals at a snapshot (snapshot job) with the backfill's pages and its end, so that a
 * snapshot taken while the backfill finishes either sees its predecessor's totals or is seen by it.
 */
const SUPPLY_TOTALS_LOCK_KEY = '7231004179';

/** The stored columns, in the order of totalsValues(). */
const SUPPLY_TOTALS_COLUMNS = [
  'minted_mint',
  'minted_tap',
  'minted_app_reward',
  'minted_validator_reward',
  'minted_sv_reward',
  'minted_validator_faucet',
  'burned',
  'burned_holding_fees',
  'burned_traffic',
  'burned_ans',
  'burned_expired',
  'allowed_mint',
  'issuing_rounds',
] as const;

/** A supply_totals row as text (numeric columns read as text). */
export type SupplyTotalsRow = Record<(typeof SUPPLY_TOTALS_COLUMNS)[number], string | null>;

/** The columns of supply_totals `t` as text, for a select. */
export const SUPPLY_TOTALS_SELECT = sql.raw(SUPPLY_TOTALS_COLUMNS.map((c) => `t.${c}::text as ${c}`).join(', '));

/** A row's totals; undefined when the row is absent (its columns null). */
export function totalsOfRow(r: SupplyTotalsRow): SupplyTotals | undefined {
  if (r.issuing_rounds === null) return undefined;
  const d = (x: string | null) => parseDecimal(x ?? '0');
  return {
    minted: {
      mint: d(r.minted_mint),
      tap: d(r.minted_tap),
      app_reward: d(r.minted_app_reward),
      validator_reward: d(r.minted_validator_reward),
      sv_reward: d(r.minted_sv_reward),
      validator_faucet: d(r.minted_validator_faucet),
    },
    burned: d(r.burned),
    holdingFees: d(r.burned_holding_fees),
    traffic: d(r.burned_traffic),
    ans: d(r.burned_ans),
    expired: d(r.burned_expired),
    allowedMint: r.allowed_mint === null ? null : d(r.allowed_mint),
    issuingRounds: Number(r.issuing_rounds),
  };
}

function totalsValues(t: SupplyTotals): (string | null)[] {
  const m = t.minted;
  return [
    ...[
      m.mint,
      m.tap,
      m.app_reward,
      m.validator_reward,
      m.sv_reward,
      m.validator_faucet,
      t.burned,
      t.holdingFees,
      t.traffic,
      t.ans,
      t.expired,
    ].map(formatDecimal),
    t.allowedMint === null ? null : formatDecimal(t.allowedMint),
    String(t.issuingRounds),
  ];
}

/**
 * The activities' flows in (lo, hi] of the migration (lo undefined: from its beginning; hi undefined: to
 * its end), summed per kind over leg 0 (one row per activity), in the range's partitions only.
 */
async function activityFlows(db: Db, migrationId: number, lo: Micros | undefined, hi: Micros | undefined): Promise<SupplyTotals> {
  const { rows } = await sql<KindSums>`
    select kind, coalesce(sum(amount), 0)::text as amount, coalesce(sum(burned), 0)::text as burned,
      coalesce(sum(holding_fees), 0)::text as "holdingFees"
    from activities
    where migration_id = ${migrationId} and leg = 0
      and record_time > ${lo === undefined ? sql`'-infinity'::timestamptz` : ts(lo)}
      and record_time <= ${hi === undefined ? sql`'infinity'::timestamptz` : ts(hi)}
    group by kind`.execute(db);
  return flowsOfKinds(rows);
}

/**
 * The rounds that started issuing in (lo, hi] of the migration: the IssuingMiningRound contracts created
 * by live updates (an imported one started issuing in an earlier migration), each with what the issuance
 * curve let it issue, read from the SummarizingMiningRound that AmuletRules_MiningRound_StartIssuing
 * archived in the same transaction (so at the issuing round's record time: contracts_by_archive).
 */
async function issuingRoundFlows(
  db: Db,
  migrationId: number,
  lo: Micros | undefined,
  hi: Micros | undefined,
): Promise<{ allowedMint: Decimal10 | null; issuingRounds: number }> {
  const from = lo === undefined || lo < IMPORT_RECORD_TIME ? IMPORT_RECORD_TIME : lo;
  const issuing = SPLICE.issuingMiningRound;
  const summarizing = SPLICE.summarizingMiningRound;
  // Literals, so that the partial index's predicate is seen to hold whatever the plan.
  const { rows } = await sql<{ round: string | null; args: string | null }>`
    select i.round_number::text as round, s.create_arguments as args
    from contracts i
    left join lateral (
      select s.create_arguments from contracts s
      where s.migration_id = i.migration_id and s.archived_record_time = i.created_record_time
        and s.package_name = ${sql.lit(summarizing.packageName)} and s.qualified_name = ${sql.lit(summarizing.qualifiedName)}
        and s.round_number = i.round_number
      limit 1) s on true
    where i.migration_id = ${migrationId}
      and i.package_name = ${sql.lit(issuing.packageName)} and i.qualified_name = ${sql.lit(issuing.qualifiedName)}
      and i.created_record_time > ${ts(from)}
      and i.created_record_time <= ${hi === undefined ? sql`'infinity'::timestamptz` : ts(hi)}
      -- A contract created after lo is archived after it too: only the archive months from lo on are read.
      and i.archived_record_time > ${ts(from)}`.execute(db);
  let allowedMint: Decimal10 | null = 0n;
  for (const r of rows) {
    if (allowedMint === null) break;
    if (r.args === null) {
      allowedMint = null;
      break;
    }
    try {
      allowedMint += roundIssuance('SummarizingMiningRound', JSON.parse(r.args) as Json);
    } catch (err) {
      // A configuration that cannot be read makes the allowed mint unknown, never a guess.
      if (err instanceof PayloadShapeError || err instanceof RangeError || err instanceof SyntaxError) allowedMint = null;
      else throw err;
    }
  }
  return { allowedMint, issuingRounds: rows.length };
}

/** Everything that flowed in (lo, hi] of the migration: activities and issuing rounds. */
export async function flowsBetween(db: Db, migrationId: number, lo: Micros | undefined, hi: Micros | undefined): Promise<SupplyTotals> {
  const flows = await activityFlows(db, migrationId, lo, hi);
  const rounds = await issuingRoundFlows(db, migrationId, lo, hi);
  return { ...flows, ...rounds };
}

/**
 * Whether the history's beginning may count as zero: the activity projection covers all of it (no
 * backfill of the totals pending, which waits for the activities' own) and retention dropped nothing.
 */
async function countsFromZero(db: Db, backfilling: boolean): Promise<boolean> {
  if (!backfilling) {
    const { rows } = await sql<{ pending: boolean }>`
      select exists (select 1 from supply_totals_backfill where finished_at is null) as pending`.execute(db);
    if (rows[0]!.pending) return false;
  }
  return (await readHistoryStart(db)) === undefined;
}

/** The totals stored at the snapshot; undefined: none. */
async function storedTotals(db: Db, migrationId: number, at: Micros): Promise<SupplyTotals | undefined> {
  const { rows } = await sql<SupplyTotalsRow>`
    select ${SUPPLY_TOTALS_SELECT} from supply_totals t where t.migration_id = ${migrationId} and t.record_time = ${ts(at)}`.execute(db);
  return rows[0] === undefined ? undefined : totalsOfRow(rows[0]);
}

/** The totals at the end of the migration: its newest snapshot's plus what followed; undefined: unknown. */
async function totalsAtMigrationEnd(db: Db, migrationId: number, backfilling: boolean): Promise<SupplyTotals | undefined> {
  const { rows } = await sql<{ record_time: string } & SupplyTotalsRow>`
    select s.record_time::text as record_time, ${SUPPLY_TOTALS_SELECT}
    from (select record_time from acs_snapshots a where a.migration_id = ${migrationId} order by a.record_time desc limit 1) s
    left join supply_totals t on t.migration_id = ${migrationId} and t.record_time = s.record_time`.execute(db);
  const newest = rows[0];
  if (newest !== undefined) {
    const base = totalsOfRow(newest);
    if (base === undefined) return undefined;
    return addTotals(base, await flowsBetween(db, migrationId, fromPgTimestamp(newest.record_time), undefined));
  }
  const before = await totalsBeforeMigration(db, migrationId, backfilling);
  return before === undefined ? undefined : addTotals(before, await flowsBetween(db, migrationId, undefined, undefined));
}

/**
 * The totals over everything before the migration's history: the end of the migration before it (the
 * newest with history), or zero before the first one when the history counts from zero (`backfilling`:
 * the backfill, which checked that the activity projection is complete, counts from zero while it is
 * pending); undefined: unknown.
 */
export const totalsBeforeMigration = repositoryOperation(
  'totalsBeforeMigration',
  async function totalsBeforeMigration(db: Db, migrationId: number, backfilling?: boolean): Promise<SupplyTotals | undefined> {
    const { rows } = await sql<{ migration_id: number }>`
      select migration_id from migration_synchronizers where migration_id < ${migrationId}
      order by migration_id desc limit 1`.execute(db);
    const previous = rows[0];
    if (previous === undefined) return (await countsFromZero(db, backfilling === true)) ? zeroTotals() : undefined;
    return totalsAtMigrationEnd(db, Number(previous.migration_id), backfilling === true);
  },
);

/**
 * Writes the totals at snapshot `at` of the migration, in the caller's transaction (takeSnapshot's, or
 * a backfill page's), from those at `from` (the snapshot before it in the migration; undefined: its
 * first), when they are known. Returns whether the snapshot has totals now.
 */
export async function writeSupplyTotals(
  db: Db,
  migrationId: number,
  from: Micros | undefined,
  at: Micros,
  backfilling = false,
): Promise<boolean> {
  await sql`select pg_advisory_xact_lock(${SUPPLY_TOTALS_LOCK_KEY}::bigint)`.execute(db);
  if ((await storedTotals(db, migrationId, at)) !== undefined) return true;
  const base = from === undefined ? await totalsBeforeMigration(db, migrationId, backfilling) : await storedTotals(db, migrationId, from);
  if (base === undefined) return false;
  const totals = addTotals(base, await flowsBetween(db, migrationId, from, at));
  const values = totalsValues(totals);
  await sql`insert into supply_totals (migration_id, record_time, ${sql.raw(SUPPLY_TOTALS_COLUMNS.join(', '))})
    values (${migrationId}, ${ts(at)}, ${sql.join(values.map((v, i) => (i === values.length - 1 ? sql`${v}::bigint` : sql`${v}::numeric`)))})
    on conflict (migration_id, record_time) do nothing`.execute(db);
  return true;
}

/** Where the backfill of the totals stands. */
export interface SupplyTotalsBackfillState {
  /** False when the history stored before migration 20261127_010 never needed it, or it has finished. */
  pending: boolean;
  snapshotsDone: number;
  /** Whether `scan-indexer backfill-activities` has finished (since migration 20261127_040 last reset it). */
  activitiesComplete: boolean;
}

export const supplyTotalsBackfillState = repositoryOperation(
  'supplyTotalsBackfillState',
  async function supplyTotalsBackfillState(db: Db): Promise<SupplyTotalsBackfillState> {
    const { rows } = await sql<{ snapshots_done: string; finished: boolean }>`
      select snapshots_done::text, finished_at is not null as finished from supply_totals_backfill`.execute(db);
    const r = rows[0];
    const activities = await sql<{ finished: boolean }>`
      select exists (select 1 from activity_backfill where finished_at is not null) as finished`.execute(db);
    return {
      pending: r !== undefined && !r.finished,
      snapshotsDone: r === undefined ? 0 : Number(r.snapshots_done),
      activitiesComplete: activities.rows[0]!.finished,
    };
  },
);

/** The snapshots without totals, in the network's order, each with the snapshot before it in its migration. */
export const snapshotsWithoutTotals = repositoryOperation(
  'snapshotsWithoutTotals',
  async function snapshotsWithoutTotals(
    db: Db,
    limit: number,
  ): Promise<{ migrationId: number; recordTime: string; previous: string | null }[]> {
    const { rows } = await sql<{ migration_id: number; record_time: string; previous: string | null }>`
      select s.migration_id, s.record_time::text as record_time, (
          select p.record_time::text from acs_snapshots p
          where p.migration_id = s.migration_id and p.record_time < s.record_time order by p.record_time desc limit 1) as previous
      from acs_snapshots s
      where not exists (select 1 from supply_totals t where t.migration_id = s.migration_id and t.record_time = s.record_time)
      order by s.migration_id, s.record_time
      limit ${limit}`.execute(db);
    return rows.map((r) => ({ migrationId: Number(r.migration_id), recordTime: r.record_time, previous: r.previous }));
  },
);

/** Counts the snapshots, and those with totals. */
export const countSnapshotTotals = repositoryOperation('countSnapshotTotals', async function countSnapshotTotals(db: Db): Promise<{
  snapshots: number;
  withTotals: number;
}> {
  const { rows } = await sql<{ snapshots: string; with_totals: string }>`
      select (select count(*) from acs_snapshots)::text as snapshots, (select count(*) from supply_totals)::text as with_totals`.execute(
    db,
  );
  return { snapshots: Number(rows[0]!.snapshots), withTotals: Number(rows[0]!.with_totals) };
});

/**
 * One step of the backfill, in one transaction: the totals at the snapshot from its predecessor's.
 * Returns whether it has totals now (false: its predecessor has none, and so the history before it is unknown).
 */
export const backfillSnapshotTotals = repositoryOperation(
  'backfillSnapshotTotals',
  async function backfillSnapshotTotals(db: Db, migrationId: number, at: Micros, from: Micros | undefined): Promise<boolean> {
    return db.transaction().execute(async (trx) => {
      const written = await writeSupplyTotals(trx, migrationId, from, at, true);
      if (written) {
        await sql`update supply_totals_backfill set snapshots_done = snapshots_done + 1, updated_at = now()`.execute(trx);
      }
      return written;
    });
  },
);

/**
 * Ends the backfill when every snapshot has totals (checked under the lock the snapshot job takes, so a
 * snapshot taken meanwhile is either seen here or finds its predecessor's totals). Returns whether it ended.
 */
export const finishSupplyTotalsBackfill = repositoryOperation(
  'finishSupplyTotalsBackfill',
  async function finishSupplyTotalsBackfill(db: Db): Promise<boolean> {
    return db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${SUPPLY_TOTALS_LOCK_KEY}::bigint)`.execute(trx);
      const { rows } = await sql<{ missing: boolean }>`
        select exists (select 1 from acs_snapshots s
          where not exists (select 1 from supply_totals t where t.migration_id = s.migration_id and t.record_time = s.record_time)) as missing`.execute(
        trx,
      );
      if (rows[0]!.missing) return false;
      await sql`update supply_totals_backfill set finished_at = now(), updated_at = now() where finished_at is null`.execute(trx);
      return true;
    });
  },
);
