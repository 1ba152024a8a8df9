/**
 * Round aggregates of the Scan's removed round_totals (Splice's ScanAggregator), computed from the
 * activity projection at read time. Splice aggregated a round once its ClosedMiningRound was created;
 * the newest such round is the "round of latest data". Reads use activity_rewards_by_round (the reward
 * claims by round) and contracts_by_template_created_at's (template, migration, round) prefix.
 */
import { sql } from 'kysely';
import { SPLICE } from '../domain/splice-contracts';
import type { Db } from './pool';
import { repositoryOperation } from './query-operation';

/** The newest round a ClosedMiningRound was ever created for, in any migration; undefined before the first. */
export const findLatestClosedRound = repositoryOperation('findLatestClosedRound', async function findLatestClosedRound(db: Db): Promise<
  bigint | undefined
> {
  const row = await db
    .selectFrom('contracts')
    .select(sql<string | null>`max(round_number)::text`.as('round'))
    .where('package_name', '=', SPLICE.closedMiningRound.packageName)
    .where('qualified_name', '=', SPLICE.closedMiningRound.qualifiedName)
    .executeTakeFirst();
  return row?.round == null ? undefined : BigInt(row.round);
});

/**
 * The app and validator rewards that transfers of rounds first..last claimed (Splice's AppRewardLogEntry
 * and ValidatorRewardLogEntry: the inputs of a transfer summary, by the round of the transfer), summed.
 */
export const sumRewardsCollected = repositoryOperation(
  'sumRewardsCollected',
  async function sumRewardsCollected(db: Db, first: bigint, last: bigint): Promise<string> {
    const { rows } = await sql<{ amount: string }>`
      select coalesce(sum(amount), 0)::numeric(38, 10)::text as amount
        from activities
       where kind in ('app_reward', 'validator_reward')
         and round between ${first.toString()}::bigint and ${last.toString()}::bigint`.execute(db);
    return rows[0]!.amount;
  },
);
