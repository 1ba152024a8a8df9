/**
 * The round aggregates cost what they return, not the history behind them (issue #29 §3), in the style
 * of history-read-cost.test.ts: every read of the Scan's round aggregates, and the job's aggregation of
 * one more round, touch about the same number of buffers when the history held (activities, closed
 * rounds, aggregated rounds and parties) is ten times longer. Each month has a round closing every
 * hour, and in each round reward claims of several parties and a traffic purchase.
 */
import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import { parseTimestamp } from '../../../src/domain/time';
import { catchUpRoundAggregates } from '../../../src/jobs/round-aggregates';
import { createLogger } from '../../../src/internal/logger';
import { ensureHistoryPartitions } from '../../../src/store/partitions';
import type { Database } from '../../../src/store/schema';
import {
  aggregateClosedRounds,
  findAggregatedRounds,
  findLatestRoundTotals,
  findRoundRewards,
  listRoundPartyTotals,
  listRoundTotals,
  topPartiesByPurchasedTraffic,
  topPartiesByRewards,
} from '../../../src/store/round-aggregates-repository';
import { bufferCounter, type BufferCounter } from '../../support/database/buffer-count';
import { useTestDatabase } from '../../support/database/database';

/** Rounds per month: one an hour of a 30-day month (a live network closes one every 10 minutes; fewer keep the test short). */
const ROUNDS = 30 * 24;

describe('the round aggregates do not grow with history', () => {
  const t = useTestDatabase();
  let counter: BufferCounter;
  let months = 0;

  /** A month of rounds from `start` (YYYY-MM-DD), numbered on from the months before. */
  async function month(start: string): Promise<void> {
    const base = months * ROUNDS;
    months++;
    await ensureHistoryPartitions(t.db, [{ migrationId: 0, recordTime: parseTimestamp(`${start}T00:00:00Z`) }]);
    await t.pool.query(
      `insert into contracts (migration_id, contract_id, template_id, package_name, qualified_name, create_arguments, created_at,
         signatories, observers, created_record_time, archived_record_time, round_number)
       select 0, 'closed-' || ($2 + i), 'p:Splice.Round:ClosedMiningRound', 'splice-amulet', 'Splice.Round:ClosedMiningRound', '{}',
         $1::timestamptz + i * interval '1 hour', array['dso::1220'], array[]::text[],
         $1::timestamptz + i * interval '1 hour', $1::timestamptz + i * interval '1 hour' + interval '1 hour', $2 + i
       from generate_series(0, ${ROUNDS} - 1) i`,
      [start, base],
    );
    // Per round: app and validator rewards of 6 of 40 parties, and a traffic purchase.
    await t.pool.query(
      `insert into activities (migration_id, record_time, update_id, node, kind, leg, party, round, amount, fees, counterparties, traffic)
       select 0, $1::timestamptz + i * interval '1 hour' + k * interval '1 second', $1 || '-' || i || '-' || k, 0,
         (array['app_reward', 'validator_reward', 'traffic_purchase'])[1 + k % 3], 0, 'p' || ((i * 7 + k) % 40) || '::1220',
         $2 + i, 1 + k, 0, '{}', case when k % 3 = 2 then 1000 end
       from generate_series(0, ${ROUNDS} - 1) i cross join generate_series(0, 5) k`,
      [start, base],
    );
  }

  const newest = async () => (await findLatestRoundTotals(t.db))!.closedRound;
  const reads = {
    range: () => counter.allQueries(() => findAggregatedRounds(counter.db)),
    latest: () => counter.allQueries(() => findLatestRoundTotals(counter.db)),
    totals: async () => {
      const r = await newest();
      return counter.allQueries(() => listRoundTotals(counter.db, r - 199n, r));
    },
    partyTotals: async () => {
      const r = await newest();
      return counter.allQueries(() => listRoundPartyTotals(counter.db, r - 49n, r));
    },
    rewardsInRound: async () => {
      const r = await newest();
      return counter.allQueries(() => findRoundRewards(counter.db, r - 10n));
    },
    topApp: () => counter.allQueries(() => topPartiesByRewards(counter.db, 'app_rewards', 20)),
    topValidator: () => counter.allQueries(() => topPartiesByRewards(counter.db, 'validator_rewards', 20)),
    topTraffic: () => counter.allQueries(() => topPartiesByPurchasedTraffic(counter.db, 20)),
  };

  async function costs(): Promise<Record<keyof typeof reads, number>> {
    await t.pool.query('vacuum analyze activities, contracts, round_totals, round_party_totals, round_party_latest');
    const out = {} as Record<keyof typeof reads, number>;
    for (const [k, read] of Object.entries(reads)) out[k as keyof typeof reads] = await read();
    return out;
  }

  /** Takes the newest aggregated round back out, as it was before the job aggregated it; returns it. */
  async function undoNewest(): Promise<bigint> {
    const r = await newest();
    await t.pool.query('delete from round_totals where closed_round = $1', [r.toString()]);
    await t.pool.query('delete from round_party_totals where closed_round = $1', [r.toString()]);
    await t.pool.query(
      `update round_party_latest l set closed_round = p.closed_round, cumulative_app_rewards = p.cumulative_app_rewards,
         cumulative_validator_rewards = p.cumulative_validator_rewards, cumulative_traffic_purchased = p.cumulative_traffic_purchased,
         cumulative_traffic_purchased_cc_spent = p.cumulative_traffic_purchased_cc_spent,
         cumulative_traffic_num_purchases = p.cumulative_traffic_num_purchases
       from (select distinct on (party) * from round_party_totals order by party, closed_round desc) p
       where p.party = l.party and l.closed_round >= $1`,
      [r.toString()],
    );
    return r;
  }

  /**
   * Buffers the job touches to aggregate the next round, every statement summed. It writes, so its
   * statements are captured in a real run, the round is taken out again, and they are run once more
   * under explain (analyze, buffers) in order, in a transaction rolled back.
   */
  async function oneRound(): Promise<number> {
    const r = await undoNewest();
    const captured: CompiledQuery[] = [];
    const db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: t.pool }),
      log: (e) => void (e.level === 'query' && captured.push(e.query)),
    });
    expect(await aggregateClosedRounds(db, 1)).toEqual([r]);
    await undoNewest();
    await t.pool.query('vacuum analyze activities, contracts, round_totals, round_party_totals, round_party_latest');
    const client = await t.pool.connect();
    let blocks = 0;
    try {
      await client.query('begin');
      // Kysely logs the transaction's begin and commit too.
      for (const q of captured.filter((c) => /^\s*(select|with|insert)/i.test(c.sql))) {
        const res = await client.query<{ 'QUERY PLAN': [{ Plan: Record<string, number> }] }>(
          `explain (analyze, buffers, format json) ${q.sql}`,
          [...q.parameters],
        );
        const plan = res.rows[0]!['QUERY PLAN'][0].Plan;
        blocks += plan['Shared Hit Blocks']! + plan['Shared Read Blocks']!;
      }
    } finally {
      await client.query('rollback');
      client.release();
    }
    expect(await aggregateClosedRounds(t.db, 1)).toEqual([r]);
    return blocks;
  }

  beforeAll(async () => {
    await t.pool.query('insert into migrations (migration_id) values (0) on conflict do nothing');
    counter = bufferCounter(t.pool);
  });

  it('every read, and aggregating one more round, touch the same buffers against a history ten times longer', async () => {
    await month('2025-03-01');
    expect(await catchUpRoundAggregates(t.db, createLogger('silent'))).toBe(ROUNDS);
    expect(await findAggregatedRounds(t.db)).toEqual({ start: 0n, end: BigInt(ROUNDS - 1) });
    const short = await costs();
    const shortRound = await oneRound();

    for (const m of ['2025-04', '2025-05', '2025-06', '2025-07', '2025-08', '2025-09', '2025-10', '2025-11', '2025-12']) {
      await month(`${m}-01`);
    }
    expect(await catchUpRoundAggregates(t.db, createLogger('silent'))).toBe(9 * ROUNDS);
    expect(await findAggregatedRounds(t.db)).toEqual({ start: 0n, end: BigInt(10 * ROUNDS - 1) });
    const long = await costs();
    const longRound = await oneRound();

    for (const k of Object.keys(reads) as (keyof typeof reads)[]) {
      expect({ read: k, short: short[k] > 0, blocks: long[k] <= short[k] * 1.5 + 10 }).toEqual({ read: k, short: true, blocks: true });
    }
    // The job's statements probe each month's activity index once: a few buffers a month, not its size.
    expect({ shortRound, longRound, bounded: longRound <= shortRound * 1.5 + 10 * 3 }).toEqual({ shortRound, longRound, bounded: true });
  }, 900_000);
});
