/**
 * Closed votes' results (vote_results), newest first, filtered as the Scan
 * app filters its transaction log: action name and requester by substring
 * (LIKE, so `%` and `_` match as wildcards there too), acceptance exactly, and
 * the effective time between the bounds (both inclusive) or after / before
 * one (exclusive), which leaves out votes that were not accepted.
 */
import { sql } from 'kysely';
import { formatRecordTime, type Micros } from '../domain/time';
import type { Db } from './pool';
import { repositoryOperation } from './query-operation';

export interface VoteResultFilters {
  actionName?: string;
  accepted?: boolean;
  requester?: string;
  effectiveFrom?: Micros;
  effectiveTo?: Micros;
}

const timestamp = (t: Micros) => sql`${formatRecordTime(t)}::timestamptz`;

/** The conditions of the filters, as the Scan app's transaction-log query has them. */
function conditionsOf(filters: VoteResultFilters) {
  const conditions = [sql`true`];
  if (filters.actionName !== undefined) conditions.push(sql`action_name like ${`%${filters.actionName}%`}`);
  if (filters.accepted !== undefined) conditions.push(sql`accepted = ${filters.accepted}`);
  if (filters.requester !== undefined) conditions.push(sql`requester like ${`%${filters.requester}%`}`);
  const { effectiveFrom: from, effectiveTo: to } = filters;
  if (from !== undefined && to !== undefined) conditions.push(sql`effective_at between ${timestamp(from)} and ${timestamp(to)}`);
  else if (from !== undefined) conditions.push(sql`effective_at > ${timestamp(from)}`);
  else if (to !== undefined) conditions.push(sql`effective_at < ${timestamp(to)}`);
  return sql.join(conditions, sql` and `);
}

/** The stored results (compact JSON text), at most `limit`. */
export const listVoteResults = repositoryOperation(
  'listVoteResults',
  async function listVoteResults(db: Db, filters: VoteResultFilters, limit: number): Promise<string[]> {
    const { rows } = await sql<{ result: string }>`
    select result from vote_results
    where ${conditionsOf(filters)}
    order by coalesce(effective_at, completed_at) desc, ingest_seq desc
    limit ${limit}`.execute(db);
    return rows.map((r) => r.result);
  },
);

/** How many results the filters match (all of them: no limit). */
export const countVoteResults = repositoryOperation(
  'countVoteResults',
  async function countVoteResults(db: Db, filters: VoteResultFilters): Promise<number> {
    const { rows } = await sql<{ count: string }>`select count(*) as count from vote_results where ${conditionsOf(filters)}`.execute(db);
    return Number(rows[0]!.count);
  },
);

/**
 * The reward weight the newest accepted SRARC_UpdateSvRewardWeight vote for this SV set (its
 * newRewardWeight, as the vote's result holds it), effective strictly before `before` when given.
 */
export const previousSvRewardWeight = repositoryOperation(
  'previousSvRewardWeight',
  async function previousSvRewardWeight(db: Db, svParty: string, before: Micros | undefined): Promise<string | undefined> {
    const action = sql`(result::jsonb -> 'request' -> 'action' -> 'value' -> 'dsoAction' -> 'value')`;
    const { rows } = await sql<{ weight: string | null }>`
    select ${action} ->> 'newRewardWeight' as weight from vote_results
    where action_name = 'SRARC_UpdateSvRewardWeight' and accepted
      and ${action} ->> 'svParty' = ${svParty}
      ${before === undefined ? sql`` : sql`and effective_at < ${timestamp(before)}`}
    order by effective_at desc, ingest_seq desc
    limit 1`.execute(db);
    return rows[0]?.weight ?? undefined;
  },
);
