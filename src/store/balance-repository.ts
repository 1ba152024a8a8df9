/**
 * A party's holdings and the network's supply at any instant, not only at snapshots (issue #29).
 *
 * The holdings at an instant T of migration m are the Amulet and LockedAmulet contracts created at or
 * before T and archived after it. They are read as the newest snapshot S at or before T, plus the
 * holdings created in (S, T] still active at T, minus those visible at S archived in (S, T]: both are
 * index ranges of what changed in (S, T] (migration 20261126_140, contracts_holdings_totals,
 * contracts_holdings_by_archive), so the cost of a read follows what changed since the snapshot, never
 * the length of the history. Snapshots come every 3 hours; before the first one, everything before T is read.
 *
 * A party's totals at S are the holdings summary's (holdingsTotals: holding_totals rows, fees as of a
 * round exact with the clamp); the holdings added and taken out are read one by one, with the fee rule
 * applied to each (HOLDING_FEE_SQL), so the fees at T are exact too. The network's figures at S are the
 * snapshot's own (acs_snapshots: amounts before holding fees), so the supply is exact in initial amounts.
 */
import { sql } from 'kysely';
import { parseDecimal, type Decimal10 } from '../domain/decimal';
import { SPLICE } from '../domain/splice-contracts';
import { formatRecordTime, fromPgTimestamp, type Micros } from '../domain/time';
import { HOLDING_FEE_SQL, holdingsTotals } from './holdings-repository';
import type { Db } from './pool';
import { repositoryOperation } from './query-operation';

const ts = (t: Micros) => sql`${formatRecordTime(t)}::timestamptz`;
/**
 * record_time as text parseTimestamp reads, whatever the session's time zone. Selected under the column's
 * own name, so a query orders by the table's column qualified: `order by record_time` would sort this
 * text, reading every row up to the instant instead of the last one by the index.
 */
const UTC_TEXT = sql.raw(`to_char(record_time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`);

/**
 * The migration whose ledger an instant reads: the newest one whose first update is at or before it
 * (after a migration ended and before the next began, the ended one's final state). Undefined: before
 * every migration.
 */
export const migrationAt = repositoryOperation('migrationAt', async function migrationAt(db: Db, at: Micros): Promise<number | undefined> {
  const { rows } = await sql<{ migration_id: string }>`
    select migration_id::text from migration_synchronizers
    group by migration_id
    having min(min_record_time) <= ${ts(at)}
    order by migration_id desc limit 1`.execute(db);
  return rows[0] === undefined ? undefined : Number(rows[0].migration_id);
});

/**
 * The earliest mining round open at the instant (as the Scan's holdings summary takes the earliest open
 * round by default): among the few open rounds created last at or before it, those still active.
 */
export const openRoundAt = repositoryOperation('openRoundAt', async function openRoundAt(db: Db, migrationId: number, at: Micros): Promise<
  bigint | undefined
> {
  const { rows } = await sql<{ round: string | null }>`
    select min(r.round_number)::text as round from (
      select c.round_number, c.archived_record_time from contracts c
      where c.migration_id = ${migrationId} and c.package_name = ${SPLICE.openMiningRound.packageName}
        and c.qualified_name = ${SPLICE.openMiningRound.qualifiedName} and c.created_record_time <= ${ts(at)}
      order by c.created_record_time desc limit 16) r
    where r.archived_record_time > ${ts(at)}`.execute(db);
  const r = rows[0]?.round;
  return r === null || r === undefined ? undefined : BigInt(r);
});

export interface BalanceAt {
  migrationId: number;
  /** The snapshot the figures were read from (undefined: none before the instant). */
  snapshot: Micros | undefined;
  holdings: number;
  unlocked: Decimal10;
  locked: Decimal10;
  feesUnlocked: Decimal10;
  feesLocked: Decimal10;
}

interface DeltaRow {
  holdings: string;
  unlocked: string;
  locked: string;
  fees_unlocked: string;
  fees_locked: string;
}

/**
 * The party's holdings at the instant in the migration, with fees as of `round` (none: zero fees).
 */
export const partyBalanceAt = repositoryOperation(
  'partyBalanceAt',
  async function partyBalanceAt(db: Db, migrationId: number, party: string, at: Micros, round: bigint | undefined): Promise<BalanceAt> {
    const snap = await sql<{ record_time: string }>`
      select ${UTC_TEXT} as record_time from holding_totals_snapshots s
      where migration_id = ${migrationId} and record_time <= ${ts(at)}
      order by s.record_time desc limit 1`.execute(db);
    const snapshot = snap.rows[0] === undefined ? undefined : fromPgTimestamp(snap.rows[0].record_time);
    const base =
      snapshot === undefined
        ? undefined
        : (await holdingsTotals(db, migrationId, snapshot, [party], round)).find((o) => o.partyId === party);
    const holdingsAtSnapshot =
      snapshot === undefined
        ? 0
        : Number(
            (
              await sql<{ holdings: string | null }>`
                select t.holdings::text from holding_totals t
                where t.migration_id = ${migrationId} and t.owner = ${party} and t.record_time <= ${ts(snapshot)}
                order by t.record_time desc limit 1`.execute(db)
            ).rows[0]?.holdings ?? 0,
          );
    const fee = round === undefined ? sql`0` : sql`(${sql.raw(HOLDING_FEE_SQL)})`;
    const figures = (sign: '' | '-') => {
      const s = sql.raw(sign);
      return sql`${s}count(*) as holdings,
        ${s}coalesce(sum(c.amulet_initial_amount) filter (where c.amulet_locked is false), 0) as unlocked,
        ${s}coalesce(sum(c.amulet_initial_amount) filter (where c.amulet_locked is true), 0) as locked,
        ${s}coalesce(sum(${fee}) filter (where c.amulet_locked is false), 0) as fees_unlocked,
        ${s}coalesce(sum(${fee}) filter (where c.amulet_locked is true), 0) as fees_locked`;
    };
    const owner = sql`c.migration_id = ${migrationId} and c.amulet_owner is not null and c.amulet_owner = ${party}`;
    const after = snapshot === undefined ? sql`true` : sql`c.created_record_time > ${ts(snapshot)}`;
    // Taken out: what was visible at S (created by S, archived after it; so archived after its slot) and archived by T.
    const takenOut =
      snapshot === undefined
        ? sql``
        : sql`union all
          select ${figures('-')} from contracts c cross join as_of
          where ${owner} and c.archived_record_time > c.created_slot
            and c.archived_record_time > ${ts(snapshot)} and c.archived_record_time <= ${ts(at)}
            and c.created_record_time <= ${ts(snapshot)}`;
    const { rows } = await sql<DeltaRow>`
      with as_of as (select ${(round ?? 0n).toString()}::bigint as round)
      select coalesce(sum(holdings), 0)::text as holdings, coalesce(sum(unlocked), 0)::text as unlocked,
        coalesce(sum(locked), 0)::text as locked, coalesce(sum(fees_unlocked), 0)::text as fees_unlocked,
        coalesce(sum(fees_locked), 0)::text as fees_locked
      from (
        select ${figures('')} from contracts c cross join as_of
        where ${owner} and ${after} and c.created_record_time <= ${ts(at)} and c.archived_record_time > ${ts(at)}
        ${takenOut}) d`.execute(db);
    const d = rows[0]!;
    return {
      migrationId,
      snapshot,
      holdings: holdingsAtSnapshot + Number(d.holdings),
      unlocked: (base?.unlocked ?? 0n) + parseDecimal(d.unlocked),
      locked: (base?.locked ?? 0n) + parseDecimal(d.locked),
      feesUnlocked: (base?.feesUnlocked ?? 0n) + parseDecimal(d.fees_unlocked),
      feesLocked: (base?.feesLocked ?? 0n) + parseDecimal(d.fees_locked),
    };
  },
);

export interface SupplyAt {
  migrationId: number;
  snapshot: Micros | undefined;
  /** Initial amounts of the holdings active at the instant (before holding fees). */
  unlocked: Decimal10;
  locked: Decimal10;
  /** Over (snapshot, instant], from the activities: minted (mints, taps, rewards claimed) and burned. */
  mintedSinceSnapshot: Decimal10;
  burnedSinceSnapshot: Decimal10;
}

/** The leg-0 activity kinds that mint; transfers and traffic purchases burn. */
const MINTING = ['mint', 'tap', 'app_reward', 'validator_reward', 'sv_reward', 'validator_faucet'];

/** The network's holdings at the instant in the migration (all owners), and what was minted and burned since the snapshot. */
export const supplyAt = repositoryOperation(
  'supplyAt',
  async function supplyAt(db: Db, migrationId: number, at: Micros): Promise<SupplyAt> {
    const snap = await sql<{ record_time: string; unlocked_amulet: string; locked_amulet: string }>`
    select ${UTC_TEXT} as record_time, unlocked_amulet::text, locked_amulet::text from acs_snapshots s
    where migration_id = ${migrationId} and record_time <= ${ts(at)}
    order by s.record_time desc limit 1`.execute(db);
    const s = snap.rows[0];
    const snapshot = s === undefined ? undefined : fromPgTimestamp(s.record_time);
    const since = snapshot === undefined ? sql`'-infinity'::timestamptz` : ts(snapshot);
    // Taken out: holdings visible at S archived in (S, T], by the slot of their archive (contracts_holdings_by_archive).
    const takenOut =
      snapshot === undefined
        ? sql``
        : sql`union all
        select -coalesce(sum(c.amulet_initial_amount) filter (where c.amulet_locked is false), 0),
          -coalesce(sum(c.amulet_initial_amount) filter (where c.amulet_locked is true), 0)
        from contracts c
        where c.migration_id = ${migrationId} and c.amulet_owner is not null
          and c.archived_record_time < 'infinity' and c.archived_record_time > c.created_slot
          and acs_slot(c.archived_record_time) > ${since} and acs_slot(c.archived_record_time) <= acs_slot(${ts(at)})
          and c.archived_record_time > ${since} and c.archived_record_time <= ${ts(at)} and c.created_record_time <= ${since}`;
    const delta = await sql<{ unlocked: string; locked: string }>`
    select coalesce(sum(unlocked), 0)::text as unlocked, coalesce(sum(locked), 0)::text as locked from (
      select coalesce(sum(c.amulet_initial_amount) filter (where c.amulet_locked is false), 0) as unlocked,
        coalesce(sum(c.amulet_initial_amount) filter (where c.amulet_locked is true), 0) as locked
      from contracts c
      where c.migration_id = ${migrationId} and c.amulet_owner is not null
        and c.created_record_time > ${since} and c.created_record_time <= ${ts(at)} and c.archived_record_time > ${ts(at)}
      ${takenOut}) d`.execute(db);
    const flows = await sql<{ minted: string; burned: string }>`
    select coalesce(sum(amount) filter (where kind = any(${MINTING}::text[])), 0)::text as minted,
      coalesce(sum(burned), 0)::text as burned
    from activities
    where migration_id = ${migrationId} and record_time > ${since} and record_time <= ${ts(at)} and leg = 0`.execute(db);
    const d = delta.rows[0]!;
    const f = flows.rows[0]!;
    return {
      migrationId,
      snapshot,
      unlocked: parseDecimal(s?.unlocked_amulet ?? '0') + parseDecimal(d.unlocked),
      locked: parseDecimal(s?.locked_amulet ?? '0') + parseDecimal(d.locked),
      mintedSinceSnapshot: parseDecimal(f.minted),
      burnedSinceSnapshot: parseDecimal(f.burned),
    };
  },
);
