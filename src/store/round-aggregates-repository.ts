/**
 * The removed Scan round aggregates (Splice's ScanAggregator: round_totals, round_party_totals and the
 * leaderboards over them), materialized per closed round by the worker (src/jobs/round-aggregates.ts)
 * from the activity projection, and read by the API. A round is aggregated once its ClosedMiningRound
 * exists, in round order from the first closed round on, as Splice aggregated "completely closed"
 * consecutive rounds; the newest aggregated round is the "round of latest data". Writes run on the
 * primary (the worker's pool), reads wherever the API reads: each read touches the rows it returns.
 */
import { sql } from 'kysely';
import { SPLICE } from '../domain/splice-contracts';
import type { Db } from './pool';
import { repositoryOperation } from './query-operation';

const CLOSED = SPLICE.closedMiningRound;

/** Amounts as the API writes them: ten decimals. */
const dec = (column: string) => sql.raw(`${column}::numeric(38, 10)::text`);

export interface RoundTotalsRow {
  closedRound: bigint;
  /** Ledger effective time of the round's ClosedMiningRound, as PostgreSQL text. */
  effectiveAt: string;
  appRewards: string;
  validatorRewards: string;
  cumulativeAppRewards: string;
  cumulativeValidatorRewards: string;
}

export interface RoundPartyTotalsRow {
  closedRound: bigint;
  party: string;
  appRewards: string;
  validatorRewards: string;
  trafficPurchased: bigint;
  trafficPurchasedCcSpent: string;
  trafficNumPurchases: bigint;
  cumulativeAppRewards: string;
  cumulativeValidatorRewards: string;
  cumulativeTrafficPurchased: bigint;
  cumulativeTrafficPurchasedCcSpent: string;
  cumulativeTrafficNumPurchases: bigint;
}

// ---------------------------------------------------------------------------------------------------
// Writes (the worker)

/** The advisory lock between a round's aggregation and the start of the activity backfill (arbitrary constant). */
export const ROUND_AGGREGATES_LOCK_KEY = '7231004183';

/**
 * Aggregates the closed rounds after the newest aggregated one, in order, at most `maxRounds`, each in
 * its own transaction; stops at the first round without a ClosedMiningRound. Nothing while the activity
 * backfill (`scan-indexer backfill-activities`) is under way: its rounds would be summed incomplete.
 * Returns the rounds aggregated.
 */
export const aggregateClosedRounds = repositoryOperation(
  'aggregateClosedRounds',
  async function aggregateClosedRounds(db: Db, maxRounds: number): Promise<bigint[]> {
    const done: bigint[] = [];
    while (done.length < maxRounds) {
      const round = await db.transaction().execute(async (tx) => {
        // Under the lock the backfill's start takes (beginActivityBackfill), checked in each round's
        // transaction: a backfill that begins between two rounds stops the pass.
        await sql`select pg_advisory_xact_lock(${ROUND_AGGREGATES_LOCK_KEY}::bigint)`.execute(tx);
        const backfilling = await sql<{ n: number }>`select 1 as n from activity_backfill where finished_at is null`.execute(tx);
        if (backfilling.rows.length > 0) return undefined;
        const last = await sql<{ r: string | null }>`select max(closed_round)::text as r from round_totals`.execute(tx);
        let next: bigint;
        if (last.rows[0]?.r != null) {
          next = BigInt(last.rows[0].r) + 1n;
        } else {
          const first = await sql<{ r: string | null }>`
            select min(round_number)::text as r from contracts
             where package_name = ${CLOSED.packageName} and qualified_name = ${CLOSED.qualifiedName}`.execute(tx);
          if (first.rows[0]?.r == null) return undefined;
          next = BigInt(first.rows[0].r);
        }
        const closed = await sql<{ at: string | null }>`
          select max(created_at)::text as at from contracts
           where package_name = ${CLOSED.packageName} and qualified_name = ${CLOSED.qualifiedName}
             and round_number = ${next.toString()}::bigint`.execute(tx);
        const effectiveAt = closed.rows[0]?.at;
        if (effectiveAt == null) return undefined;
        await aggregateRound(tx, next, effectiveAt);
        return next;
      });
      if (round === undefined) break;
      done.push(round);
    }
    return done;
  },
);

/**
 * Where the aggregation waits for good: the round after the newest aggregated one has no ClosedMiningRound,
 * yet a later round has one (a gap in the history, as an import with a hole would leave). Rounds are summed in
 * order, so nothing after the gap is aggregated until the missing round's contract is ingested.
 * Undefined where there is no such gap (including before the first aggregated round).
 */
export const findRoundAggregationGap = repositoryOperation(
  'findRoundAggregationGap',
  async function findRoundAggregationGap(db: Db): Promise<{ missing: bigint; nextClosed: bigint } | undefined> {
    const { rows } = await sql<{ missing: string; next_closed: string | null }>`
      select (l.r + 1)::text as missing,
             (select min(round_number) from contracts
               where package_name = ${CLOSED.packageName} and qualified_name = ${CLOSED.qualifiedName}
                 and round_number > l.r + 1)::text as next_closed
        from (select max(closed_round) as r from round_totals) l
       where l.r is not null
         and not exists (select 1 from contracts
                          where package_name = ${CLOSED.packageName} and qualified_name = ${CLOSED.qualifiedName}
                            and round_number = l.r + 1)`.execute(db);
    const row = rows[0];
    return row?.next_closed == null ? undefined : { missing: BigInt(row.missing), nextClosed: BigInt(row.next_closed) };
  },
);

/** One round's rows: the round's claims and purchases by party, added to each party's running totals. */
async function aggregateRound(tx: Db, round: bigint, effectiveAt: string): Promise<void> {
  const r = round.toString();
  await sql`
    with claims as (
      select party,
             coalesce(sum(amount) filter (where kind = 'app_reward'), 0) as app,
             coalesce(sum(amount) filter (where kind = 'validator_reward'), 0) as validator,
             coalesce(sum(traffic) filter (where kind = 'traffic_purchase'), 0)::bigint as traffic,
             coalesce(sum(amount) filter (where kind = 'traffic_purchase'), 0) as cc,
             count(*) filter (where kind = 'traffic_purchase') as purchases
        from activities
       where round = ${r}::bigint and kind in ('app_reward', 'validator_reward', 'traffic_purchase')
       group by party
    ),
    party_rows as (
      insert into round_party_totals (closed_round, party, app_rewards, validator_rewards, traffic_purchased,
             traffic_purchased_cc_spent, traffic_num_purchases, cumulative_app_rewards, cumulative_validator_rewards,
             cumulative_traffic_purchased, cumulative_traffic_purchased_cc_spent, cumulative_traffic_num_purchases)
      select ${r}::bigint, c.party, c.app, c.validator, c.traffic, c.cc, c.purchases,
             coalesce(l.cumulative_app_rewards, 0) + c.app,
             coalesce(l.cumulative_validator_rewards, 0) + c.validator,
             coalesce(l.cumulative_traffic_purchased, 0) + c.traffic,
             coalesce(l.cumulative_traffic_purchased_cc_spent, 0) + c.cc,
             coalesce(l.cumulative_traffic_num_purchases, 0) + c.purchases
        from claims c left join round_party_latest l on l.party = c.party
      returning *
    ),
    latest as (
      insert into round_party_latest (party, closed_round, cumulative_app_rewards, cumulative_validator_rewards,
             cumulative_traffic_purchased, cumulative_traffic_purchased_cc_spent, cumulative_traffic_num_purchases,
             last_purchased_in_round)
      select party, closed_round, cumulative_app_rewards, cumulative_validator_rewards, cumulative_traffic_purchased,
             cumulative_traffic_purchased_cc_spent, cumulative_traffic_num_purchases,
             case when traffic_purchased > 0 then closed_round else 0 end
        from party_rows
      on conflict (party) do update set
        closed_round = excluded.closed_round,
        cumulative_app_rewards = excluded.cumulative_app_rewards,
        cumulative_validator_rewards = excluded.cumulative_validator_rewards,
        cumulative_traffic_purchased = excluded.cumulative_traffic_purchased,
        cumulative_traffic_purchased_cc_spent = excluded.cumulative_traffic_purchased_cc_spent,
        cumulative_traffic_num_purchases = excluded.cumulative_traffic_num_purchases,
        last_purchased_in_round = greatest(round_party_latest.last_purchased_in_round, excluded.last_purchased_in_round)
    ),
    previous as (
      select cumulative_app_rewards, cumulative_validator_rewards from round_totals where closed_round = ${r}::bigint - 1
    )
    insert into round_totals (closed_round, closed_round_effective_at, app_rewards, validator_rewards,
           cumulative_app_rewards, cumulative_validator_rewards)
    select ${r}::bigint, ${effectiveAt}::timestamptz, t.app, t.validator,
           coalesce((select cumulative_app_rewards from previous), 0) + t.app,
           coalesce((select cumulative_validator_rewards from previous), 0) + t.validator
      from (select coalesce(sum(app), 0) as app, coalesce(sum(validator), 0) as validator from claims) t`.execute(tx);
}

// ---------------------------------------------------------------------------------------------------
// Reads (the API)

/** The first and newest aggregated rounds; undefined before the first. */
export const findAggregatedRounds = repositoryOperation('findAggregatedRounds', async function findAggregatedRounds(db: Db): Promise<
  { start: bigint; end: bigint } | undefined
> {
  // Two ends of the primary key, each one index probe.
  const { rows } = await sql<{ start: string | null; end: string | null }>`
    select (select closed_round from round_totals order by closed_round asc limit 1)::text as start,
           (select closed_round from round_totals order by closed_round desc limit 1)::text as end`.execute(db);
  const row = rows[0];
  return row?.start == null || row.end == null ? undefined : { start: BigInt(row.start), end: BigInt(row.end) };
});

const roundTotalsColumns = sql`
  closed_round::text as closed_round, closed_round_effective_at::text as effective_at,
  ${dec('app_rewards')} as app_rewards, ${dec('validator_rewards')} as validator_rewards,
  ${dec('cumulative_app_rewards')} as cumulative_app_rewards,
  ${dec('cumulative_validator_rewards')} as cumulative_validator_rewards`;

interface RoundTotalsDbRow {
  closed_round: string;
  effective_at: string;
  app_rewards: string;
  validator_rewards: string;
  cumulative_app_rewards: string;
  cumulative_validator_rewards: string;
}

const roundTotalsOf = (r: RoundTotalsDbRow): RoundTotalsRow => ({
  closedRound: BigInt(r.closed_round),
  effectiveAt: r.effective_at,
  appRewards: r.app_rewards,
  validatorRewards: r.validator_rewards,
  cumulativeAppRewards: r.cumulative_app_rewards,
  cumulativeValidatorRewards: r.cumulative_validator_rewards,
});

/** The newest aggregated round's totals; undefined before the first. */
export const findLatestRoundTotals = repositoryOperation('findLatestRoundTotals', async function findLatestRoundTotals(db: Db): Promise<
  RoundTotalsRow | undefined
> {
  const { rows } = await sql<RoundTotalsDbRow>`
    select ${roundTotalsColumns} from round_totals order by round_totals.closed_round desc limit 1`.execute(db);
  return rows[0] && roundTotalsOf(rows[0]);
});

/** The totals of the aggregated rounds first..last, in round order. */
export const listRoundTotals = repositoryOperation(
  'listRoundTotals',
  async function listRoundTotals(db: Db, first: bigint, last: bigint): Promise<RoundTotalsRow[]> {
    const { rows } = await sql<RoundTotalsDbRow>`
    select ${roundTotalsColumns} from round_totals
     where closed_round between ${first.toString()}::bigint and ${last.toString()}::bigint
     order by round_totals.closed_round`.execute(db);
    return rows.map(roundTotalsOf);
  },
);

/** The party totals of the aggregated rounds first..last, by round, then party (bytewise). */
export const listRoundPartyTotals = repositoryOperation(
  'listRoundPartyTotals',
  async function listRoundPartyTotals(db: Db, first: bigint, last: bigint): Promise<RoundPartyTotalsRow[]> {
    const { rows } = await sql<{
      closed_round: string;
      party: string;
      app_rewards: string;
      validator_rewards: string;
      traffic_purchased: string;
      traffic_purchased_cc_spent: string;
      traffic_num_purchases: string;
      cumulative_app_rewards: string;
      cumulative_validator_rewards: string;
      cumulative_traffic_purchased: string;
      cumulative_traffic_purchased_cc_spent: string;
      cumulative_traffic_num_purchases: string;
    }>`
    select closed_round::text, party, ${dec('app_rewards')} as app_rewards, ${dec('validator_rewards')} as validator_rewards,
           traffic_purchased::text, ${dec('traffic_purchased_cc_spent')} as traffic_purchased_cc_spent,
           traffic_num_purchases::text, ${dec('cumulative_app_rewards')} as cumulative_app_rewards,
           ${dec('cumulative_validator_rewards')} as cumulative_validator_rewards, cumulative_traffic_purchased::text,
           ${dec('cumulative_traffic_purchased_cc_spent')} as cumulative_traffic_purchased_cc_spent,
           cumulative_traffic_num_purchases::text
      from round_party_totals
     where closed_round between ${first.toString()}::bigint and ${last.toString()}::bigint
     order by round_party_totals.closed_round, round_party_totals.party collate "C"`.execute(db);
    return rows.map((r) => ({
      closedRound: BigInt(r.closed_round),
      party: r.party,
      appRewards: r.app_rewards,
      validatorRewards: r.validator_rewards,
      trafficPurchased: BigInt(r.traffic_purchased),
      trafficPurchasedCcSpent: r.traffic_purchased_cc_spent,
      trafficNumPurchases: BigInt(r.traffic_num_purchases),
      cumulativeAppRewards: r.cumulative_app_rewards,
      cumulativeValidatorRewards: r.cumulative_validator_rewards,
      cumulativeTrafficPurchased: BigInt(r.cumulative_traffic_purchased),
      cumulativeTrafficPurchasedCcSpent: r.cumulative_traffic_purchased_cc_spent,
      cumulativeTrafficNumPurchases: BigInt(r.cumulative_traffic_num_purchases),
    }));
  },
);

/** The rewards a round's transfers claimed (app and validator), or undefined for a round not aggregated. */
export const findRoundRewards = repositoryOperation('findRoundRewards', async function findRoundRewards(db: Db, round: bigint): Promise<
  string | undefined
> {
  const { rows } = await sql<{ amount: string }>`
    select (app_rewards + validator_rewards)::numeric(38, 10)::text as amount
      from round_totals where closed_round = ${round.toString()}::bigint`.execute(db);
  return rows[0]?.amount;
});

export type Leaderboard = 'app_rewards' | 'validator_rewards';

/**
 * The parties with the most rewards of a kind over every aggregated round, at most `limit`, most first,
 * ties by party descending (bytewise), as Splice ranked its newest round's running totals.
 */
export const topPartiesByRewards = repositoryOperation(
  'topPartiesByRewards',
  async function topPartiesByRewards(db: Db, board: Leaderboard, limit: number): Promise<{ party: string; rewards: string }[]> {
    const column = sql.raw(board === 'app_rewards' ? 'cumulative_app_rewards' : 'cumulative_validator_rewards');
    const { rows } = await sql<{ party: string; rewards: string }>`
    select party, ${column}::numeric(38, 10)::text as rewards from round_party_latest
     where ${column} > 0
     order by ${column} desc, party collate "C" desc
     limit ${limit}`.execute(db);
    return rows;
  },
);

export interface PurchasedTraffic {
  validator: string;
  numPurchases: bigint;
  totalTrafficPurchased: bigint;
  totalCcSpent: string;
  lastPurchasedInRound: bigint;
}

/** The parties that bought the most traffic over every aggregated round, at most `limit`, as above. */
export const topPartiesByPurchasedTraffic = repositoryOperation(
  'topPartiesByPurchasedTraffic',
  async function topPartiesByPurchasedTraffic(db: Db, limit: number): Promise<PurchasedTraffic[]> {
    const { rows } = await sql<{ party: string; n: string; traffic: string; cc: string; last: string }>`
    select party, cumulative_traffic_num_purchases::text as n, cumulative_traffic_purchased::text as traffic,
           cumulative_traffic_purchased_cc_spent::numeric(38, 10)::text as cc, last_purchased_in_round::text as last
      from round_party_latest
     where cumulative_traffic_purchased > 0
     order by cumulative_traffic_purchased desc, party collate "C" desc
     limit ${limit}`.execute(db);
    return rows.map((r) => ({
      validator: r.party,
      numPurchases: BigInt(r.n),
      totalTrafficPurchased: BigInt(r.traffic),
      totalCcSpent: r.cc,
      lastPurchasedInRound: BigInt(r.last),
    }));
  },
);
