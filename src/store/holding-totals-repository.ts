/**
 * Per-owner holdings totals at ACS snapshots (holding_totals, migration 20261126_070), so that a
 * holdings summary reads one row per owner whatever the number of its holdings.
 *
 * The totals of a snapshot S after P, derived once S is announced (src/jobs/holding-totals.ts), are a row at S for each owner whose holdings changed in (P, S]:
 * its row at P plus the holdings created in (P, S] minus those archived in (P, S] (a contract
 * created and archived within the window counts once each way), read by snapshot slot
 * (contracts_holdings_by_creation, contracts_holdings_by_archive; snapshots are on slot
 * boundaries, as acs_deltas has it): the cost follows what changed, not the ACS. The first snapshot with totals (none before it, or only snapshots taken before the
 * migration) aggregates every holding once.
 *
 * Holding fees as of round R are R × sum(rate) − sum(created_round × rate) wherever the clamp of
 * the rule does not bind. Each row also keeps a round K and the sums over the owner's holdings
 * already clamped as of K (their fee is their amount from K on); so only the holdings whose clamp
 * round lies between K and R (contracts_holdings_by_clamp_round for the active ones, and those
 * archived since the snapshot), and those whose fee the rule alone gives (clamp round -Infinity),
 * are read one by one and corrected by the rule itself, so the result is exact.
 *
 * An owner whose holdings stop changing gets no new row, so its K would stay where it was and that
 * range (K, R] would grow with time: each snapshot also rewrites, with the snapshot's K, the rows of
 * a bounded number of the owners whose K lags the most (refreshLagging, HOLDING_TOTALS_REFRESH_OWNERS).
 */
import { sql, type RawBuilder } from 'kysely';
import { formatRecordTime, fromPgTimestamp, type Micros } from '../domain/time';
import type { Db } from './pool';
import { repositoryOperation } from './query-operation';

const ts = (t: Micros) => sql`${formatRecordTime(t)}::timestamptz`;

/** The holdings with the three columns of the fee rule all set: their fee without the clamp is (R − c) × r. */
const REGULAR = sql.raw(
  'c.amulet_initial_amount is not null and c.amulet_created_round is not null and c.amulet_rate_per_round is not null',
);

/** The sums one owner's totals are made of, over holdings `c` (negated for what leaves). */
function sums(sign: '' | '-'): RawBuilder<unknown> {
  const s = sql.raw(sign);
  return sql`${s}count(*) as holdings,
    ${s}coalesce(sum(c.amulet_initial_amount) filter (where c.amulet_locked is false), 0) as unlocked,
    ${s}coalesce(sum(c.amulet_initial_amount) filter (where c.amulet_locked is true), 0) as locked,
    ${s}coalesce(sum(c.amulet_rate_per_round) filter (where c.amulet_locked is false and ${REGULAR}), 0) as unlocked_rate,
    ${s}coalesce(sum(c.amulet_rate_per_round) filter (where c.amulet_locked is true and ${REGULAR}), 0) as locked_rate,
    ${s}coalesce(sum(c.amulet_created_round::numeric * c.amulet_rate_per_round) filter (where c.amulet_locked is false and ${REGULAR}), 0)
      as unlocked_round_rate,
    ${s}coalesce(sum(c.amulet_created_round::numeric * c.amulet_rate_per_round) filter (where c.amulet_locked is true and ${REGULAR}), 0)
      as locked_round_rate`;
}

/** The columns in the order of sums() with first_created_at last. */
const COLUMNS = sql.raw(
  'migration_id, owner, record_time, holdings, unlocked, locked, unlocked_rate, locked_rate, unlocked_round_rate, locked_round_rate, first_created_at',
);

/** The columns of clampedSums(), then clamped_by (migration 20261126_120). */
const CLAMPED_COLUMNS = sql.raw(
  'unlocked_clamped, locked_clamped, unlocked_clamped_rate, locked_clamped_rate, unlocked_clamped_round_rate, locked_clamped_round_rate, clamped_by',
);

/**
 * Over holdings `c`, the sums of those whose clamp round is finite and at most `k` (none when `k` is
 * null): as of any round from `k` on, the fee of each is its amount. With `above`, only those whose
 * clamp round is also above it (what a refresh adds to a row clamped as of `above`).
 */
function clampedSums(k: string | null, above: RawBuilder<unknown> = sql`'-Infinity'::numeric`): RawBuilder<unknown> {
  const clamped = sql`holding_clamp_round(c.amulet_initial_amount, c.amulet_created_round, c.amulet_rate_per_round) > ${above}
    and holding_clamp_round(c.amulet_initial_amount, c.amulet_created_round, c.amulet_rate_per_round) <= ${k}::numeric`;
  return sql`coalesce(sum(c.amulet_initial_amount) filter (where c.amulet_locked is false and ${clamped}), 0) as unlocked_clamped,
    coalesce(sum(c.amulet_initial_amount) filter (where c.amulet_locked is true and ${clamped}), 0) as locked_clamped,
    coalesce(sum(c.amulet_rate_per_round) filter (where c.amulet_locked is false and ${clamped}), 0) as unlocked_clamped_rate,
    coalesce(sum(c.amulet_rate_per_round) filter (where c.amulet_locked is true and ${clamped}), 0) as locked_clamped_rate,
    coalesce(sum(c.amulet_created_round::numeric * c.amulet_rate_per_round) filter (where c.amulet_locked is false and ${clamped}), 0)
      as unlocked_clamped_round_rate,
    coalesce(sum(c.amulet_created_round::numeric * c.amulet_rate_per_round) filter (where c.amulet_locked is true and ${clamped}), 0)
      as locked_clamped_round_rate`;
}

/**
 * Keeps holding_totals_newest (migration 20261127_030) on the rows `written` returned: each owner's
 * newest row's K and whether it has holdings, so that a refresh finds the owners lagging the most.
 */
const keepNewest = sql`insert into holding_totals_newest (migration_id, owner, clamped_by, active)
  select migration_id, owner, clamped_by, holdings > 0 from written
  on conflict (migration_id, owner) do update set clamped_by = excluded.clamped_by, active = excluded.active`;

/** The newest totals row at or before `at` of the owner in column `owner` (for a lateral join). */
export const totalsAt = (migrationId: number, at: Micros, owner: string) =>
  sql`select * from holding_totals t
      where t.migration_id = ${migrationId} and t.owner = ${sql.ref(owner)} and t.record_time <= ${ts(at)}
      order by t.record_time desc limit 1`;

/**
 * Writes the owners' totals at snapshot `at` of the migration, in the caller's transaction, from
 * those at `from` when it has them (else from every holding), and the snapshot's K (the clamped_by
 * of migration 20261126_120) for holding_totals_snapshots. Returns undefined, writing nothing, when
 * a later snapshot of the migration has totals already: rows at `at` would change what is read at
 * the later one. The sums over the holdings clamped as of K are read, per owner written, from its
 * clamp index range (and its holdings archived since `at`): that is what keeps S1 from reading them
 * at every summary. Then up to `refreshOwners` owners without changes whose K lags are refreshed
 * (refreshLagging; 0: none), and their number returned.
 */
async function writeHoldingTotals(
  db: Db,
  migrationId: number,
  from: { recordTime: Micros; holdingTotals: boolean } | undefined,
  at: Micros,
  refreshOwners: number,
): Promise<{ clampedBy: string | null; refreshed: number } | undefined> {
  const later = await sql<{ one: number }>`
    select 1 as one from holding_totals_snapshots where migration_id = ${migrationId} and record_time > ${ts(at)} limit 1`.execute(db);
  if (later.rows.length > 0) return undefined;
  if (from === undefined || !from.holdingTotals) {
    const visible = sql`c.migration_id = ${migrationId} and c.amulet_owner is not null
        and c.archived_record_time > ${ts(at)} and c.archived_record_time > c.created_slot and c.created_record_time <= ${ts(at)}`;
    const k = await sql<{ k: string | null }>`select max(c.amulet_created_round)::text as k from contracts c where ${visible}`.execute(db);
    const clampedBy = k.rows[0]?.k ?? null;
    await sql`with written as (insert into holding_totals (${COLUMNS}, ${CLAMPED_COLUMNS})
      select ${migrationId}, c.amulet_owner, ${ts(at)}, ${sums('')}, min(c.created_at) as first_created_at, ${clampedSums(clampedBy)},
        coalesce(${clampedBy}::numeric, '-Infinity')
      from contracts c
      where ${visible}
      group by c.amulet_owner
      on conflict (migration_id, owner, record_time) do nothing
      returning migration_id, owner, clamped_by, holdings)
      ${keepNewest}`.execute(db);
    return { clampedBy, refreshed: 0 };
  }
  const p = ts(from.recordTime);
  const s = ts(at);
  // K goes up with the created rounds of the holdings each snapshot adds (those of the window read by creation slot).
  const k = await sql<{ k: string | null }>`
    select greatest(
      (select clamped_by from holding_totals_snapshots where migration_id = ${migrationId} and record_time = ${p}),
      max(c.amulet_created_round)::numeric)::text as k
    from contracts c
    where c.migration_id = ${migrationId} and c.amulet_owner is not null and c.archived_record_time > c.created_slot
      and c.archived_record_time > ${p} and c.created_slot > ${p} and c.created_slot <= ${s}`.execute(db);
  const clampedBy = k.rows[0]?.k ?? null;
  const clampRound = sql`holding_clamp_round(c.amulet_initial_amount, c.amulet_created_round, c.amulet_rate_per_round)`;
  // Contracts created after P are archived after P too: that bound leaves the earlier archive months out.
  await sql`with changes as (
        select c.amulet_owner as owner, ${sums('')} from contracts c
        where c.migration_id = ${migrationId} and c.amulet_owner is not null and c.archived_record_time > c.created_slot
          and c.archived_record_time > ${p} and c.created_slot > ${p} and c.created_slot <= ${s}
        group by c.amulet_owner
        union all
        select c.amulet_owner, ${sums('-')} from contracts c
        where c.migration_id = ${migrationId} and c.amulet_owner is not null
          and c.archived_record_time < 'infinity' and c.archived_record_time > c.created_slot
          and c.archived_record_time > ${p} and c.archived_record_time <= ${s}
          and acs_slot(c.archived_record_time) > ${p} and acs_slot(c.archived_record_time) <= ${s}
        group by c.amulet_owner),
      delta as (
        select owner, sum(holdings) as holdings, sum(unlocked) as unlocked, sum(locked) as locked,
          sum(unlocked_rate) as unlocked_rate, sum(locked_rate) as locked_rate,
          sum(unlocked_round_rate) as unlocked_round_rate, sum(locked_round_rate) as locked_round_rate
        from changes group by owner),
      next as (
        select d.owner, coalesce(t.holdings, 0) + d.holdings as holdings,
          coalesce(t.unlocked, 0) + d.unlocked as unlocked, coalesce(t.locked, 0) + d.locked as locked,
          coalesce(t.unlocked_rate, 0) + d.unlocked_rate as unlocked_rate, coalesce(t.locked_rate, 0) + d.locked_rate as locked_rate,
          coalesce(t.unlocked_round_rate, 0) + d.unlocked_round_rate as unlocked_round_rate,
          coalesce(t.locked_round_rate, 0) + d.locked_round_rate as locked_round_rate
        from delta d left join lateral (${totalsAt(migrationId, from.recordTime, 'd.owner')}) t on true),
      -- In one pass for all owners: per owner, the planner could walk every archive since S once each.
      archived_since as (
        select c.amulet_owner as owner, min(c.created_at) as first, ${clampedSums(clampedBy)} from contracts c
        where c.migration_id = ${migrationId} and c.amulet_owner is not null and c.amulet_owner = any(array(select owner from delta))
          and c.archived_record_time > ${s} and c.archived_record_time < 'infinity' and c.archived_record_time > c.created_slot
          and c.created_record_time <= ${s}
        group by c.amulet_owner),
      written as (insert into holding_totals (${COLUMNS}, ${CLAMPED_COLUMNS})
      select ${migrationId}, n.owner, ${s}, n.holdings,
        n.unlocked, n.locked, n.unlocked_rate, n.locked_rate, n.unlocked_round_rate, n.locked_round_rate,
        -- The first holding at S: the oldest active one created by S, or one archived since S.
        case when n.holdings > 0 then least(
          (select a.created_at from contracts a
           where a.migration_id = ${migrationId} and a.amulet_owner is not null and a.amulet_owner = n.owner
             and a.archived_record_time = 'infinity' and a.created_record_time <= ${s}
           order by a.created_at, a.contract_id limit 1),
          l.first)
        end,
        ca.unlocked_clamped + coalesce(l.unlocked_clamped, 0), ca.locked_clamped + coalesce(l.locked_clamped, 0),
        ca.unlocked_clamped_rate + coalesce(l.unlocked_clamped_rate, 0), ca.locked_clamped_rate + coalesce(l.locked_clamped_rate, 0),
        ca.unlocked_clamped_round_rate + coalesce(l.unlocked_clamped_round_rate, 0),
        ca.locked_clamped_round_rate + coalesce(l.locked_clamped_round_rate, 0),
        coalesce(${clampedBy}::numeric, '-Infinity')
      from next n
      -- The owner's active holdings at S already clamped as of K, by its clamp index range.
      cross join lateral (
        select ${clampedSums(clampedBy)} from contracts c
        where c.migration_id = ${migrationId} and c.amulet_owner is not null and c.amulet_owner = n.owner
          and c.archived_record_time = 'infinity' and ${clampRound} > '-Infinity'::numeric and ${clampRound} <= ${clampedBy}::numeric
          and c.created_record_time <= ${s}) ca
      left join archived_since l on l.owner = n.owner
      on conflict (migration_id, owner, record_time) do nothing
      returning migration_id, owner, clamped_by, holdings)
      ${keepNewest}`.execute(db);
  const refreshed = clampedBy === null || refreshOwners === 0 ? 0 : await refreshLagging(db, migrationId, at, clampedBy, refreshOwners);
  return { clampedBy, refreshed };
}

/**
 * Rewrites at snapshot `at` (of K `k`) the rows of at most `limit` owners with holdings whose newest
 * row's K lags `k` the most (holding_totals_newest), and returns how many. Such an owner's holdings
 * have not changed since its row (else a row at a snapshot after it would be newer), so the new row
 * is the old one with K set to `k` and the sums over the holdings clamped as of K grown by those
 * visible at `at` whose clamp round lies in (old K, k]: what S1 would otherwise read one by one at
 * every summary of the owner, read once here. The rows refreshed get K = `k`, so an owner lagging now
 * is refreshed within ceil(lagging owners / limit) snapshots, whatever else is written.
 */
async function refreshLagging(db: Db, migrationId: number, at: Micros, k: string, limit: number): Promise<number> {
  const s = ts(at);
  const clampRound = sql`holding_clamp_round(c.amulet_initial_amount, c.amulet_created_round, c.amulet_rate_per_round)`;
  const { rows } = await sql<{ refreshed: number }>`with picked as (
        select n.owner from holding_totals_newest n
        where n.migration_id = ${migrationId} and n.active and n.clamped_by < ${k}::numeric
        order by n.clamped_by, n.owner limit ${limit}),
      -- The owner's newest row itself (holding_totals_newest only chose it): one from before S that lags.
      old as (
        select t.* from picked p cross join lateral (${totalsAt(migrationId, at, 'p.owner')}) t
        where t.record_time < ${s} and t.holdings > 0 and t.clamped_by < ${k}::numeric),
      -- Those of their holdings archived since S in one pass, as writeHoldingTotals reads them.
      archived_since as (
        select o.owner, ${clampedSums(k, sql`o.clamped_by`)} from (
          select c.amulet_owner, c.amulet_initial_amount, c.amulet_created_round, c.amulet_rate_per_round, c.amulet_locked from contracts c
          where c.migration_id = ${migrationId} and c.amulet_owner is not null and c.amulet_owner = any(array(select owner from old))
            and c.archived_record_time > ${s} and c.archived_record_time < 'infinity' and c.archived_record_time > c.created_slot
            and c.created_record_time <= ${s}
          offset 0) c
        join old o on o.owner = c.amulet_owner
        group by o.owner),
      written as (insert into holding_totals (${COLUMNS}, ${CLAMPED_COLUMNS})
        select ${migrationId}, o.owner, ${s}, o.holdings, o.unlocked, o.locked, o.unlocked_rate, o.locked_rate,
          o.unlocked_round_rate, o.locked_round_rate, o.first_created_at,
          o.unlocked_clamped + a.unlocked_clamped + coalesce(l.unlocked_clamped, 0),
          o.locked_clamped + a.locked_clamped + coalesce(l.locked_clamped, 0),
          o.unlocked_clamped_rate + a.unlocked_clamped_rate + coalesce(l.unlocked_clamped_rate, 0),
          o.locked_clamped_rate + a.locked_clamped_rate + coalesce(l.locked_clamped_rate, 0),
          o.unlocked_clamped_round_rate + a.unlocked_clamped_round_rate + coalesce(l.unlocked_clamped_round_rate, 0),
          o.locked_clamped_round_rate + a.locked_clamped_round_rate + coalesce(l.locked_clamped_round_rate, 0),
          ${k}::numeric
        from old o
        -- Its active holdings at S clamped in (old K, k], by its clamp index range.
        cross join lateral (
          select ${clampedSums(k, sql`o.clamped_by`)} from contracts c
          where c.migration_id = ${migrationId} and c.amulet_owner is not null and c.amulet_owner = o.owner
            and c.archived_record_time = 'infinity' and ${clampRound} > o.clamped_by and ${clampRound} <= ${k}::numeric
            and c.created_record_time <= ${s}) a
        left join archived_since l on l.owner = o.owner
        on conflict (migration_id, owner, record_time) do nothing
        returning migration_id, owner, clamped_by, holdings),
      kept as (${keepNewest} returning 1)
    select count(*)::int as refreshed from kept`.execute(db);
  return rows[0]?.refreshed ?? 0;
}

/**
 * Serializes what writes holding_totals: the derivation of a snapshot's totals (by the worker's job and by
 * `scan-indexer snapshot` alike) and the retention's move of the rows before the history it keeps.
 */
const HOLDING_TOTALS_LOCK_KEY = '7231004197';

/** A snapshot whose owners' holdings totals are still to be derived. */
export interface SnapshotAwaitingTotals {
  migrationId: number;
  recordTime: Micros;
}

/**
 * The snapshots whose holdings totals are still to be derived, in the order they must be (each one's
 * are written from those of the snapshot before it): per migration, those after its newest snapshot
 * with totals; where none has any, only its newest snapshot (the first with totals sums every holding
 * once; the snapshots before it keep being summed from the contracts, as those taken before
 * migration 20261126_070 are).
 */
export const snapshotsAwaitingHoldingTotals = repositoryOperation(
  'snapshotsAwaitingHoldingTotals',
  async function snapshotsAwaitingHoldingTotals(db: Db, limit: number): Promise<SnapshotAwaitingTotals[]> {
    // Per migration (migration_synchronizers has a row each), two index probes and the range after them:
    // the job asks every few seconds, so the cost must not follow the number of snapshots.
    const { rows } = await sql<{ migration_id: number; record_time: string }>`
      select m.migration_id, s.record_time
      from (select distinct migration_id from migration_synchronizers) m
      cross join lateral (select max(h.record_time) as with_totals from holding_totals_snapshots h where h.migration_id = m.migration_id) h
      cross join lateral (select max(a.record_time) as newest from acs_snapshots a where a.migration_id = m.migration_id) n
      cross join lateral (
        select a.record_time from acs_snapshots a
        where a.migration_id = m.migration_id
          -- After the newest with totals (times are whole microseconds), or from the newest when none has any.
          and a.record_time >= coalesce(h.with_totals + interval '1 microsecond', n.newest)
        order by a.record_time limit ${limit}) s
      order by m.migration_id, s.record_time
      limit ${limit}`.execute(db);
    return rows.map((r) => ({ migrationId: Number(r.migration_id), recordTime: fromPgTimestamp(r.record_time) }));
  },
);

/**
 * Derives the owners' holdings totals at snapshot `at` of the migration in a transaction of its own,
 * from those at the snapshot before it when it has them (writeHoldingTotals), and records that the
 * snapshot has them. Returns undefined, writing nothing, when the snapshot is gone, has them already (another
 * process derived them), or a later snapshot has them.
 */
export const deriveHoldingTotals = repositoryOperation(
  'deriveHoldingTotals',
  async function deriveHoldingTotals(
    db: Db,
    migrationId: number,
    at: Micros,
    refreshOwners: number,
  ): Promise<{ clampedBy: string | null; refreshed: number } | undefined> {
    return db.transaction().execute(async (trx) => {
      // Long work on a large window or a first full sum: not bound by the answers' statement timeout.
      await sql`set local statement_timeout = 0`.execute(trx);
      await sql`select pg_advisory_xact_lock(${HOLDING_TOTALS_LOCK_KEY}::bigint)`.execute(trx);
      const { rows } = await sql<{ taken: boolean; derived: boolean; previous: string | null; previous_totals: boolean }>`
        select exists (select 1 from acs_snapshots where migration_id = ${migrationId} and record_time = ${ts(at)}) as taken,
          exists (select 1 from holding_totals_snapshots where migration_id = ${migrationId} and record_time = ${ts(at)}) as derived,
          p.record_time as previous,
          exists (select 1 from holding_totals_snapshots h where h.migration_id = ${migrationId} and h.record_time = p.record_time)
            as previous_totals
        from (select 1) one
        left join lateral (select a.record_time from acs_snapshots a where a.migration_id = ${migrationId} and a.record_time < ${ts(at)}
          order by a.record_time desc limit 1) p on true`.execute(trx);
      const r = rows[0]!;
      if (!r.taken || r.derived) return undefined;
      const from = r.previous === null ? undefined : { recordTime: fromPgTimestamp(r.previous), holdingTotals: r.previous_totals };
      const written = await writeHoldingTotals(trx, migrationId, from, at, refreshOwners);
      if (written) {
        await sql`insert into holding_totals_snapshots (migration_id, record_time, clamped_by)
          values (${migrationId}, ${ts(at)}, ${written.clampedBy}::numeric)`.execute(trx);
      }
      return written;
    });
  },
);

/**
 * Before the snapshots before `start` are deleted: each owner's newest totals row before it moves to
 * the first snapshot with totals kept (unless the owner has a row there), so that what is read at
 * the kept snapshots does not change; the other rows before `start` go.
 */
export const dropHoldingTotalsBefore = repositoryOperation(
  'dropHoldingTotalsBefore',
  async function dropHoldingTotalsBefore(db: Db, start: string): Promise<void> {
    await db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${HOLDING_TOTALS_LOCK_KEY}::bigint)`.execute(trx);
      await sql`with kept as (
          select migration_id, min(record_time) as first from holding_totals_snapshots
          where record_time >= ${start}::timestamptz group by migration_id),
        newest as (
          select distinct on (t.migration_id, t.owner) t.migration_id, t.owner, t.record_time, k.first from holding_totals t
          join kept k on k.migration_id = t.migration_id
          where t.record_time < ${start}::timestamptz
          order by t.migration_id, t.owner, t.record_time desc)
      update holding_totals t set record_time = n.first from newest n
      where t.migration_id = n.migration_id and t.owner = n.owner and t.record_time = n.record_time
        and not exists (select 1 from holding_totals u where u.migration_id = n.migration_id and u.owner = n.owner and u.record_time = n.first)`.execute(
        trx,
      );
      await sql`delete from holding_totals where record_time < ${start}::timestamptz`.execute(trx);
      await sql`delete from holding_totals_snapshots where record_time < ${start}::timestamptz`.execute(trx);
    });
  },
);
