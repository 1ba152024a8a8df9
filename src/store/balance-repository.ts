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
import { migrationAtInstant } from '../domain/migration-at-instant';
import { SPLICE } from '../domain/splice-contracts';
import { formatRecordTime, fromPgTimestamp, type Micros } from '../domain/time';
import { addTotals, totalMinted, type SupplyTotals } from '../domain/supply-totals';
import { HOLDING_FEE_SQL, holdingsTotals } from './holdings-repository';
import type { Db } from './pool';
import { repositoryOperation } from './query-operation';
import { migrationSpans } from './snapshot-repository';
import { flowsBetween, SUPPLY_TOTALS_SELECT, totalsBeforeMigration, totalsOfRow, type SupplyTotalsRow } from './supply-totals-repository';

const ts = (t: Micros) => sql`${formatRecordTime(t)}::timestamptz`;
/**
 * record_time as text parseTimestamp reads, whatever the session's time zone. Selected under the column's
 * own name, so a query orders by the table's column qualified: `order by record_time` would sort this
 * text, reading every row up to the instant instead of the last one by the index.
 */
const UTC_TEXT = sql.raw(`to_char(record_time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`);

/** The migration whose ledger an instant reads (migrationAtInstant); undefined before every migration. */
export const migrationAt = repositoryOperation('migrationAt', async function migrationAt(db: Db, at: Micros): Promise<number | undefined> {
  return migrationAtInstant(await migrationSpans(db), at);
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
  /**
   * Over the whole history ingested up to the instant (earlier migrations included): the snapshot's
   * stored totals (or those before the migration) plus the flows since. Undefined: unknown (the snapshot
   * has none, as before `scan-indexer backfill-supply-totals` has run).
   */
  cumulative: SupplyTotals | undefined;
}

/**
 * The network's holdings at the instant in the migration (all owners), what was minted and burned since
 * the snapshot, and the cumulative flows at the instant.
 */
export const supplyAt = repositoryOperation(
  'supplyAt',
  async function supplyAt(db: Db, migrationId: number, at: Micros): Promise<SupplyAt> {
    const snap = await sql<{ record_time: string; unlocked_amulet: string; locked_amulet: string } & SupplyTotalsRow>`
    select s.utc as record_time, s.unlocked_amulet, s.locked_amulet, ${SUPPLY_TOTALS_SELECT}
    from (select ${UTC_TEXT} as utc, s.record_time, s.unlocked_amulet::text, s.locked_amulet::text from acs_snapshots s
      where migration_id = ${migrationId} and record_time <= ${ts(at)}
      order by s.record_time desc limit 1) s
    left join supply_totals t on t.migration_id = ${migrationId} and t.record_time = s.record_time`.execute(db);
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
    const flows = await flowsBetween(db, migrationId, snapshot, at);
    const base = s === undefined ? await totalsBeforeMigration(db, migrationId) : totalsOfRow(s);
    const d = delta.rows[0]!;
    return {
      migrationId,
      snapshot,
      unlocked: parseDecimal(s?.unlocked_amulet ?? '0') + parseDecimal(d.unlocked),
      locked: parseDecimal(s?.locked_amulet ?? '0') + parseDecimal(d.locked),
      mintedSinceSnapshot: totalMinted(flows),
      burnedSinceSnapshot: flows.burned,
      cumulative: base === undefined ? undefined : addTotals(base, flows),
    };
  },
);

/** One instant whose holdings supplyAtEach reads, in the migration it reads (migrationAt). */
export interface SupplyPoint {
  migrationId: number;
  at: Micros;
}

export interface HoldingsSupply {
  /** The snapshot the figures start from (undefined: none at or before the instant). */
  snapshot: Micros | undefined;
  /** supplyAt's unlocked and locked: initial amounts of the holdings active at the instant. */
  unlocked: Decimal10;
  locked: Decimal10;
}

/**
 * supplyAt's holdings at many instants (a series' period ends), in the order given, without a round of
 * queries per instant. Per migration: one index range of its snapshots, from the newest at or before
 * the earliest instant to the latest; then one statement that reads, in each window (snapshot, instant]
 * (overlapping windows merged, so an hourly series reads each change once), the holdings created
 * (+ at their creation) and archived (- at their archive), by the indexes supplyAt uses: a holding some
 * snapshot saw is archived by contracts_holdings_by_archive, one created and archived inside a slot
 * (which that index leaves out) by its creation row. Each change is bucketed between the consecutive
 * snapshots and instants (width_bucket), and an instant's figure is its snapshot's plus the buckets of
 * its window. An instant on a snapshot reads it alone.
 *
 * This equals supplyAt's created-and-still-active minus visible-and-taken-out because a snapshot is on a
 * slot boundary (snapshot-schedule.ts): a holding archived in (S, T] that S did not see was created after S.
 * Its cost is the snapshots and the changes in the windows, never the history before them.
 */
export const supplyAtEach = repositoryOperation(
  'supplyAtEach',
  async function supplyAtEach(db: Db, points: readonly SupplyPoint[]): Promise<HoldingsSupply[]> {
    const out: HoldingsSupply[] = new Array<HoldingsSupply>(points.length);
    const byMigration = new Map<number, number[]>();
    for (const [i, p] of points.entries()) {
      const list = byMigration.get(p.migrationId);
      if (list) list.push(i);
      else byMigration.set(p.migrationId, [i]);
    }
    for (const [migrationId, indexes] of byMigration) {
      const ats = indexes.map((i) => points[i]!.at);
      const earliest = ats.reduce((a, b) => (b < a ? b : a));
      const latest = ats.reduce((a, b) => (b > a ? b : a));
      const snaps = (
        await sql<{ record_time: string; unlocked_amulet: string; locked_amulet: string }>`
        select ${UTC_TEXT} as record_time, unlocked_amulet::text, locked_amulet::text from acs_snapshots s
        where s.migration_id = ${migrationId} and s.record_time <= ${ts(latest)}
          and s.record_time >= coalesce((
            select p.record_time from acs_snapshots p
            where p.migration_id = ${migrationId} and p.record_time <= ${ts(earliest)}
            order by p.record_time desc limit 1), '-infinity')
        order by s.record_time`.execute(db)
      ).rows.map((r) => ({
        time: fromPgTimestamp(r.record_time),
        unlocked: parseDecimal(r.unlocked_amulet),
        locked: parseDecimal(r.locked_amulet),
      }));
      // Each instant's snapshot: the newest at or before it.
      const snapOf = (at: Micros) => {
        let lo = 0;
        let hi = snaps.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (snaps[mid]!.time <= at) lo = mid + 1;
          else hi = mid;
        }
        return lo === 0 ? undefined : snaps[lo - 1];
      };
      const windows = indexes.map((i) => ({ i, snap: snapOf(points[i]!.at), at: points[i]!.at }));
      const open = windows.filter((w) => w.snap === undefined || w.snap.time < w.at);
      // The cut points: a change at t falls in bucket #{cuts < t}, and (S, T] is buckets pos(S) .. pos(T) - 1.
      const cuts = [...new Set(open.flatMap((w) => (w.snap === undefined ? [w.at] : [w.snap.time, w.at])))].sort((a, b) =>
        a < b ? -1 : a > b ? 1 : 0,
      );
      const pos = new Map(cuts.map((c, k) => [c, k + 1]));
      const prefixUnlocked: Decimal10[] = new Array<Decimal10>(cuts.length + 2).fill(0n);
      const prefixLocked: Decimal10[] = new Array<Decimal10>(cuts.length + 2).fill(0n);
      if (open.length > 0) {
        // The windows (lo, hi], merged where they overlap or touch (an hourly series' (S, S' - 1µs] and (S', …]
        // too: a change at S' lies in no instant's window and so in none of their buckets); lo undefined: from
        // the migration's beginning.
        const sorted = [...open].sort((a, b) => {
          const la = a.snap?.time;
          const lb = b.snap?.time;
          return la === lb ? 0 : la === undefined ? -1 : lb === undefined ? 1 : la < lb ? -1 : 1;
        });
        const merged: { lo: Micros | undefined; hi: Micros }[] = [];
        for (const w of sorted) {
          const last = merged.at(-1);
          if (last !== undefined && (w.snap === undefined || last.hi + 1n >= w.snap.time)) {
            if (w.at > last.hi) last.hi = w.at;
          } else {
            merged.push({ lo: w.snap?.time, hi: w.at });
          }
        }
        const los = merged.map((w) => (w.lo === undefined ? '-infinity' : formatRecordTime(w.lo)));
        const his = merged.map((w) => formatRecordTime(w.hi));
        const lowest = merged[0]!.lo === undefined ? sql`'-infinity'::timestamptz` : ts(merged[0]!.lo);
        const highest = ts(merged.reduce((a, w) => (w.hi > a ? w.hi : a), merged[0]!.hi));
        // #{cuts < t} = #{cut + 1µs <= t}: width_bucket's count of the thresholds at or below t.
        const thresholds = cuts.map((c) => formatRecordTime(c + 1n));
        const { rows } = await sql<{ b: number; unlocked: string; locked: string }>`
          select width_bucket(x.t, ${thresholds}::timestamptz[]) as b,
            coalesce(sum(x.amount) filter (where x.locked is false), 0)::text as unlocked,
            coalesce(sum(x.amount) filter (where x.locked is true), 0)::text as locked
          from unnest(${los}::timestamptz[], ${his}::timestamptz[]) as w(lo, hi)
          cross join lateral (
            select e.t, e.amount, c.amulet_locked as locked
            from contracts c
            cross join lateral (values
              (c.created_record_time, c.amulet_initial_amount),
              (case when c.archived_record_time <= acs_slot(c.created_record_time) then c.archived_record_time end, -c.amulet_initial_amount)
            ) e(t, amount)
            where c.migration_id = ${migrationId} and c.amulet_owner is not null
              and c.created_record_time > w.lo and c.created_record_time <= w.hi
              and c.archived_record_time > w.lo and c.archived_record_time > ${lowest}
              and e.t is not null
            union all
            select c.archived_record_time, -c.amulet_initial_amount, c.amulet_locked
            from contracts c
            where c.migration_id = ${migrationId} and c.amulet_owner is not null
              and c.archived_record_time < 'infinity' and c.archived_record_time > c.created_slot
              and acs_slot(c.archived_record_time) > w.lo and acs_slot(c.archived_record_time) <= acs_slot(w.hi)
              and c.archived_record_time > w.lo and c.archived_record_time <= w.hi
              and c.archived_record_time > ${lowest} and c.archived_record_time <= ${highest}) x
          group by 1`.execute(db);
        for (const r of rows) {
          const b = Number(r.b);
          prefixUnlocked[b + 1] = parseDecimal(r.unlocked);
          prefixLocked[b + 1] = parseDecimal(r.locked);
        }
        for (let k = 1; k < prefixUnlocked.length; k++) {
          prefixUnlocked[k]! += prefixUnlocked[k - 1]!;
          prefixLocked[k]! += prefixLocked[k - 1]!;
        }
      }
      for (const w of windows) {
        const from = w.snap === undefined ? 0 : (pos.get(w.snap.time) ?? 0);
        const to = w.snap !== undefined && w.snap.time === w.at ? from : pos.get(w.at)!;
        out[w.i] = {
          snapshot: w.snap?.time,
          unlocked: (w.snap?.unlocked ?? 0n) + prefixUnlocked[to]! - prefixUnlocked[from]!,
          locked: (w.snap?.locked ?? 0n) + prefixLocked[to]! - prefixLocked[from]!,
        };
      }
    }
    return out;
  },
);
