/**
 * Network time series and reward leaderboards, aggregated in SQL from the activity projection
 * (20261126_080_activities.sql). Every read is a record-time range of the activities' primary key,
 * (migration_id, record_time, …), taken once per migration held: the key has no leading record time,
 * so each migration is named with its own range, `(migration_id = m and record_time …) or …`, which
 * also prunes the partitions to the months of the range (`migration_id = any(…)` prunes none). Its cost
 * is the activities of the range, never the whole history.
 */
import { sql } from 'kysely';
import type { Micros } from '../domain/time';
import type { Db } from './pool';
import { timeRangePerMigration } from './keyset';
import { repositoryOperation } from './query-operation';

/** One UTC day's sums for one kind of activity (leg 0 only: one row per activity). Decimals as text. */
export interface DailyKindSums {
  /** YYYY-MM-DD. */
  day: string;
  kind: string;
  count: number;
  amount: string;
  burned: string;
  holdingFees: string;
}

/** The kinds whose leg-0 rows the daily sums read: what mints and what burns. */
const DAILY_KINDS = ['mint', 'tap', 'app_reward', 'validator_reward', 'sv_reward', 'validator_faucet', 'transfer', 'traffic_purchase'];

/**
 * Per UTC day of record time in [from, to) and kind, the count and sums of the activities (leg 0) that
 * mint or burn: amount, burned and holding fees. Days and kinds without activities have no row.
 */
export const dailyActivitySums = repositoryOperation(
  'dailyActivitySums',
  async function dailyActivitySums(db: Db, from: Micros, to: Micros): Promise<DailyKindSums[]> {
    // The day series' sums (periodActivitySums), of the kinds this older answer reads.
    const sums = await periodActivitySums(db, 'day', from, to);
    return sums.filter((s) => DAILY_KINDS.includes(s.kind)).map(({ period, ...s }) => ({ day: period.slice(0, 10), ...s }));
  },
);

export interface RewardLeader {
  party: string;
  /** Decimal text. */
  amount: string;
  claims: number;
}

/**
 * The parties that claimed the most of the given reward kinds with record time in [from, to): their
 * sums, largest first (ties by party id), at most `limit`.
 */
export const rewardLeaders = repositoryOperation(
  'rewardLeaders',
  async function rewardLeaders(db: Db, kinds: readonly string[], from: Micros, to: Micros, limit: number): Promise<RewardLeader[]> {
    const range = await timeRangePerMigration(db, from, to);
    if (range === undefined) return [];
    const { rows } = await sql<{ party: string; amount: string; n: string }>`
      select party, sum(amount)::text as amount, count(*)::text as n
      from activities
      where ${range}
        and kind = any(${[...kinds]}::text[])
      group by party
      order by sum(amount) desc, party
      limit ${limit}`.execute(db);
    return rows.map((r) => ({ party: r.party, amount: r.amount, claims: Number(r.n) }));
  },
);

export interface VolumeLeader {
  party: string;
  /** Decimal text: what the party's transfers sent to others, and what others' transfers sent it. */
  sent: string;
  received: string;
  transfers: number;
}

/**
 * The parties with the largest transfer volume (sent plus received, transfers only) with record time in
 * [from, to): leg 0 is a sender's amount to others, legs 1.. a receiver's. Largest first (ties by party
 * id), at most `limit`.
 */
export const volumeLeaders = repositoryOperation(
  'volumeLeaders',
  async function volumeLeaders(db: Db, from: Micros, to: Micros, limit: number): Promise<VolumeLeader[]> {
    const range = await timeRangePerMigration(db, from, to);
    if (range === undefined) return [];
    const { rows } = await sql<{ party: string; sent: string; received: string; n: string }>`
      select party,
        coalesce(sum(amount) filter (where leg = 0), 0)::text as sent,
        coalesce(sum(amount) filter (where leg > 0), 0)::text as received,
        count(*)::text as n
      from activities
      where ${range}
        and kind = 'transfer'
      group by party
      order by sum(amount) desc, party
      limit ${limit}`.execute(db);
    return rows.map((r) => ({ party: r.party, sent: r.sent, received: r.received, transfers: Number(r.n) }));
  },
);

/** The kinds whose leg-0 rows a series sums: the daily sums' and the other burns, ANS entry fees and expired amulet. */
const SERIES_KINDS = [...DAILY_KINDS, 'ans_entry', 'expire'];

/** One period's sums for one kind of activity (leg 0), as dailyActivitySums', `period` its start. */
export interface PeriodKindSums extends Omit<DailyKindSums, 'day'> {
  /** The period's first instant, YYYY-MM-DDTHH:00:00Z. */
  period: string;
}

const periodOf = (interval: 'day' | 'hour') =>
  sql`to_char(date_trunc(${interval}, record_time at time zone 'UTC'), 'YYYY-MM-DD"T"HH24:00:00"Z"')`;

/**
 * Per UTC day or hour of record time in [from, to) and kind, the count and sums of the activities (leg 0)
 * that mint or burn, ANS entry fees included. Periods and kinds without activities have no row.
 */
export const periodActivitySums = repositoryOperation(
  'periodActivitySums',
  async function periodActivitySums(db: Db, interval: 'day' | 'hour', from: Micros, to: Micros): Promise<PeriodKindSums[]> {
    const range = await timeRangePerMigration(db, from, to);
    if (range === undefined) return [];
    const { rows } = await sql<{ period: string; kind: string; n: string; amount: string; burned: string; holding_fees: string }>`
      select ${periodOf(interval)} as period, kind, count(*)::text as n,
        sum(amount)::text as amount, coalesce(sum(burned), 0)::text as burned, coalesce(sum(holding_fees), 0)::text as holding_fees
      from activities
      where ${range}
        and leg = 0 and kind = any(${SERIES_KINDS}::text[])
      group by 1, 2
      order by 1, 2`.execute(db);
    return rows.map((r) => ({
      period: r.period,
      kind: r.kind,
      count: Number(r.n),
      amount: r.amount,
      burned: r.burned,
      holdingFees: r.holding_fees,
    }));
  },
);

/** Per UTC day or hour of record time in [from, to), the distinct parties with an activity (any kind, any leg). */
export const activePartiesPerPeriod = repositoryOperation(
  'activePartiesPerPeriod',
  async function activePartiesPerPeriod(db: Db, interval: 'day' | 'hour', from: Micros, to: Micros): Promise<Map<string, number>> {
    const range = await timeRangePerMigration(db, from, to);
    if (range === undefined) return new Map();
    const { rows } = await sql<{ period: string; n: string }>`
      select ${periodOf(interval)} as period, count(distinct party)::text as n
      from activities
      where ${range}
      group by 1`.execute(db);
    return new Map(rows.map((r) => [r.period, Number(r.n)]));
  },
);
