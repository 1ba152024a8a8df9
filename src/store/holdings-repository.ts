/**
 * Holdings over the temporal ACS: the amulets and locked amulets an owner
 * holds at a snapshot (amulet_owner is Amulet.owner or LockedAmulet.amulet.owner,
 * so a party that is only a lock holder owns nothing here), paged in creation
 * order, and their per-owner totals aggregated in SQL for any number of contracts.
 */
import { sql } from 'kysely';
import type { ActiveContract } from '../domain/active-contract';
import { parseDecimal } from '../domain/decimal';
import type { HoldingsTotals } from '../domain/holding-fees';
import { SPLICE } from '../domain/splice-contracts';
import { formatRecordTime, type Micros } from '../domain/time';
import {
  ACTIVE,
  activeNowCreatedBy,
  afterKey,
  archivedAfter,
  createdBy,
  fetchPage,
  snapshotBounds,
  type CreationKey,
} from './acs-repository';
import { totalsAt } from './holding-totals-repository';
import type { Db } from './pool';
import { repositoryOperation } from './query-operation';

export interface HoldingsPageQuery {
  migrationId: number;
  at: Micros;
  after: CreationKey | undefined;
  limit: number;
  /** Distinct owner parties. */
  owners: string[];
}

/**
 * One page of the owners' holdings in creation order: per owner, a keyset
 * range of its active holdings (contracts_holdings_by_owner_created_at), at
 * most `limit` entries each, merged with its holdings archived since the
 * snapshot (at a recent one, read from contracts_holdings_totals; at an old
 * one, a range of contracts_history_holdings_by_owner_created_at). A page
 * costs the same however much history the owners have and however deep it is.
 */
export const holdingsPage = repositoryOperation('holdingsPage', async function holdingsPage(db: Db, q: HoldingsPageQuery): Promise<
  ActiveContract[]
> {
  const bounds = await snapshotBounds(db, q.migrationId, q.at);
  const bound = sql`${afterKey(q.after)} ${createdBy(bounds)}`;
  const order = sql`order by created_at, contract_id limit ${q.limit}`;
  const owner = sql`migration_id = ${q.migrationId} and amulet_owner is not null and amulet_owner = o.owner`;
  const history = bounds.recent
    ? sql`select contract_id, created_at, archived_record_time from (
          select contract_id, created_at, archived_record_time from contracts
          where migration_id = ${q.migrationId} and amulet_owner is not null and amulet_owner = any(${q.owners}::text[])
            and ${archivedAfter(q.at)} ${bound} offset 0) h`
    : sql`select p.contract_id, p.created_at, p.archived_record_time from unnest(${q.owners}::text[]) as o(owner)
          cross join lateral (select contract_id, created_at, archived_record_time from contracts
            where ${owner} and ${archivedAfter(q.at)} ${bound} ${order}) p`;
  return fetchPage(
    db,
    q.migrationId,
    sql`select contract_id, created_at, archived_record_time from (
          (select p.contract_id, p.created_at, ${ACTIVE} from unnest(${q.owners}::text[]) as o(owner)
           cross join lateral (select contract_id, created_at from contracts where ${owner} and ${activeNowCreatedBy(q.at)} ${bound} ${order}) p)
          union all (${history})) x
        ${order}`,
  );
});

/**
 * The holding fee rule of src/domain/holding-fees.ts (holdingFee) over the columns of
 * `contracts` (alias `c`) and the round as a bigint column `as_of.round`. numeric × bigint of a
 * numeric(38, 10) rate is exact at scale 10, so the half-even rounding of the rule never applies.
 * test/integration/scan/holding-fees-sql.test.ts checks that the two agree.
 */
export const HOLDING_FEE_SQL = 'least(c.amulet_initial_amount, (as_of.round - c.amulet_created_round)::numeric * c.amulet_rate_per_round)';

export interface OwnerTotals extends HoldingsTotals {
  partyId: string;
}

/**
 * Per-owner totals of the holdings active at (migrationId, at), with holding
 * fees as of `asOfRound` (none asked: fees are zero and not computed). Owners
 * without holdings are absent; the others come in the order of their first
 * holding in creation order (ties by party id, bytewise). At a snapshot taken
 * with holdings totals, one totals row per owner plus the holdings whose fee
 * the clamp of the rule bounds (src/store/holding-totals-repository.ts);
 * before, every holding (holdingsTotalsFromContracts).
 */
export const holdingsTotals = repositoryOperation(
  'holdingsTotals',
  async function holdingsTotals(db: Db, migrationId: number, at: Micros, owners: string[], asOfRound?: bigint): Promise<OwnerTotals[]> {
    const snapshot = await sql<{ one: number }>`
      select 1 as one from holding_totals_snapshots where migration_id = ${migrationId} and record_time = ${formatRecordTime(at)}::timestamptz`.execute(
      db,
    );
    return snapshot.rows.length > 0
      ? totalsFromSnapshotRows(db, migrationId, at, owners, asOfRound)
      : holdingsTotalsFromContracts(db, migrationId, at, owners, asOfRound);
  },
);

interface TotalsRow {
  party_id: string;
  unlocked: string;
  locked: string;
  fees_unlocked: string;
  fees_locked: string;
}

const ownerTotals = (rows: TotalsRow[]): OwnerTotals[] =>
  rows.map((r) => ({
    partyId: r.party_id,
    unlocked: parseDecimal(r.unlocked),
    locked: parseDecimal(r.locked),
    feesUnlocked: parseDecimal(r.fees_unlocked),
    feesLocked: parseDecimal(r.fees_locked),
  }));

/**
 * The totals from the snapshot's holding_totals rows. Fees as of R are R × sum(rate) −
 * sum(created_round × rate), plus, over the holdings already clamped as of the row's round K (kept
 * summed in the row), amount − (R − created_round) × rate; then, one by one, each holding visible at
 * the snapshot (active, by contracts_holdings_by_clamp_round, or archived since the snapshot) whose
 * clamp round lies in (K, R] adds the same (clamped as of R, not summed as such), each one in (R, K]
 * takes it back (summed as clamped, not clamped as of R), and each one whose clamp round is
 * -Infinity adds its fee by the rule minus its unclamped part.
 */
async function totalsFromSnapshotRows(
  db: Db,
  migrationId: number,
  at: Micros,
  owners: string[],
  asOfRound?: bigint,
): Promise<OwnerTotals[]> {
  const t = formatRecordTime(at);
  const fee = sql.raw(HOLDING_FEE_SQL);
  const unclamped = sql`case when c.amulet_initial_amount is not null and c.amulet_created_round is not null and c.amulet_rate_per_round is not null
    then (as_of.round - c.amulet_created_round)::numeric * c.amulet_rate_per_round else 0 end`;
  const clampRound = sql`holding_clamp_round(c.amulet_initial_amount, c.amulet_created_round, c.amulet_rate_per_round)`;
  const round = (asOfRound ?? 0n).toString();
  const fees =
    asOfRound === undefined
      ? sql`'0' as fees_unlocked, '0' as fees_locked`
      : sql`(${round}::numeric * (t.unlocked_rate - t.unlocked_clamped_rate) - (t.unlocked_round_rate - t.unlocked_clamped_round_rate)
              + t.unlocked_clamped + coalesce(x.unlocked, 0) + coalesce(l.unlocked, 0))::text as fees_unlocked,
            (${round}::numeric * (t.locked_rate - t.locked_clamped_rate) - (t.locked_round_rate - t.locked_clamped_round_rate)
              + t.locked_clamped + coalesce(x.locked, 0) + coalesce(l.locked, 0))::text as fees_locked`;
  // Per candidate `c` (its clamp round as c.clamp, its owner's K as c.clamped_by).
  const correctionOf = sql`case when c.clamp = '-Infinity'::numeric then coalesce(${fee}, 0) - ${unclamped}
    when as_of.round >= c.clamped_by then c.amulet_initial_amount - ${unclamped}
    else ${unclamped} - c.amulet_initial_amount end`;
  const correction = sql`sum(${correctionOf}) filter (where c.amulet_locked is false) as unlocked,
        sum(${correctionOf}) filter (where c.amulet_locked is true) as locked`;
  const between = (k: string) =>
    sql`(${clampRound} > least(${round}::numeric, ${sql.ref(k)}) and ${clampRound} <= greatest(${round}::numeric, ${sql.ref(k)}))`;
  const candidateColumns = sql`c.amulet_initial_amount, c.amulet_created_round, c.amulet_rate_per_round, c.amulet_locked, ${clampRound} as clamp, k.clamped_by`;
  const active = sql`c.migration_id = ${migrationId} and c.amulet_owner is not null and c.amulet_owner = k.owner
    and c.archived_record_time = 'infinity' and c.created_record_time <= ${t}::timestamptz`;
  // The active candidates per owner by two ranges of its clamp index; those archived since the snapshot
  // in one pass for all owners (a per-owner lateral would let the planner walk every archive since the
  // snapshot once per owner).
  const corrections =
    asOfRound === undefined
      ? sql``
      : sql`left join lateral (
          select ${correction} from (
            select ${candidateColumns} from contracts c where ${active} and ${between('k.clamped_by')}
            union all
            select ${candidateColumns} from contracts c where ${active} and ${clampRound} = '-Infinity'::numeric) c
          cross join as_of) x on true
        left join archived_since l on l.owner = t.owner`;
  const archivedSince =
    asOfRound === undefined
      ? sql``
      : sql`, archived_since as (
          select c.amulet_owner as owner, ${correction} from (
            select c.amulet_owner, ${candidateColumns} from (
              -- Planned alone (offset 0), by the owners as before: joined to the totals, the planner may
              -- walk the archives since the snapshot once per owner.
              select c.amulet_owner, c.amulet_initial_amount, c.amulet_created_round, c.amulet_rate_per_round, c.amulet_locked from contracts c
              where c.migration_id = ${migrationId} and c.amulet_owner is not null and c.amulet_owner = any(${owners}::text[])
                and c.archived_record_time > ${t}::timestamptz and c.archived_record_time < 'infinity' and c.archived_record_time > c.created_slot
                and c.created_record_time <= ${t}::timestamptz
                and ${clampRound} is not null
              offset 0) c
            join totals k on k.owner = c.amulet_owner
            where ${clampRound} = '-Infinity'::numeric or ${between('k.clamped_by')}) c
          cross join as_of
          group by c.amulet_owner)`;
  const rows = await sql<TotalsRow>`
    with as_of as (select ${round}::bigint as round),
    totals as (
      select o.owner, t.holdings, t.first_created_at, t.unlocked, t.locked, t.unlocked_rate, t.locked_rate,
        t.unlocked_round_rate, t.locked_round_rate, t.unlocked_clamped, t.locked_clamped, t.unlocked_clamped_rate,
        t.locked_clamped_rate, t.unlocked_clamped_round_rate, t.locked_clamped_round_rate, t.clamped_by
      from unnest(${owners}::text[]) as o(owner)
      cross join lateral (${totalsAt(migrationId, at, 'o.owner')}) t
      where t.holdings > 0) ${archivedSince}
    select t.owner as party_id, t.unlocked::text as unlocked, t.locked::text as locked, ${fees}
    from totals t cross join lateral (select t.owner, t.clamped_by) k
    ${corrections}
    order by t.first_created_at, t.owner collate "C"`.execute(db);
  return ownerTotals(rows.rows);
}

/**
 * The totals summed over every holding active at the snapshot (its owners' entries of
 * contracts_holdings_totals): what snapshots taken without holdings totals are read from, and the
 * reference the totals are checked against.
 */
export const holdingsTotalsFromContracts = repositoryOperation(
  'holdingsTotalsFromContracts',
  async function holdingsTotalsFromContracts(
    db: Db,
    migrationId: number,
    at: Micros,
    owners: string[],
    asOfRound?: bigint,
  ): Promise<OwnerTotals[]> {
    const fee = sql.raw(HOLDING_FEE_SQL);
    const t = formatRecordTime(at);
    const fees =
      asOfRound === undefined
        ? sql`'0' as fees_unlocked, '0' as fees_locked`
        : sql`coalesce(sum(${fee}) filter (where not c.amulet_locked), 0)::text as fees_unlocked,
           coalesce(sum(${fee}) filter (where c.amulet_locked), 0)::text as fees_locked`;
    const rows = await sql<TotalsRow>`
    with as_of as (select ${(asOfRound ?? 0n).toString()}::bigint as round)
    select c.amulet_owner as party_id,
           coalesce(sum(c.amulet_initial_amount) filter (where not c.amulet_locked), 0)::text as unlocked,
           coalesce(sum(c.amulet_initial_amount) filter (where c.amulet_locked), 0)::text as locked,
           ${fees}
    from contracts c cross join as_of
    where c.migration_id = ${migrationId} and c.amulet_owner is not null and c.amulet_owner = any(${owners}::text[])
      and c.archived_record_time > ${t}::timestamptz and c.archived_record_time > c.created_slot
      and c.created_record_time <= ${t}::timestamptz
    group by c.amulet_owner
    order by min(c.created_at), c.amulet_owner collate "C"`.execute(db);
    return ownerTotals(rows.rows);
  },
);

/**
 * The round of the earliest open mining round in the current ACS (the newest
 * migration's active contracts), as Scan's default as_of_round; undefined when
 * there is none.
 */
export const earliestOpenRound = repositoryOperation('earliestOpenRound', async function earliestOpenRound(db: Db): Promise<
  bigint | undefined
> {
  const row = await sql<{ round_number: string }>`
    select c.round_number::text as round_number from contracts c
    where c.package_name = ${SPLICE.openMiningRound.packageName}
      and c.qualified_name = ${SPLICE.openMiningRound.qualifiedName}
      and c.archived_record_time = 'infinity'
      and c.migration_id = (select max(migration_id) from migrations)
    order by c.round_number, c.ingest_seq
    limit 1`.execute(db);
  const r = row.rows[0];
  return r ? BigInt(r.round_number) : undefined;
});
