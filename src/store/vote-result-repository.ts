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

/** The stored results (compact JSON text), at most `limit`. */
export const listVoteResults = repositoryOperation(
  'listVoteResults',
  async function listVoteResults(db: Db, filters: VoteResultFilters, limit: number): Promise<string[]> {
    const conditions = [sql`true`];
    if (filters.actionName !== undefined) conditions.push(sql`action_name like ${`%${filters.actionName}%`}`);
    if (filters.accepted !== undefined) conditions.push(sql`accepted = ${filters.accepted}`);
    if (filters.requester !== undefined) conditions.push(sql`requester like ${`%${filters.requester}%`}`);
    const { effectiveFrom: from, effectiveTo: to } = filters;
    if (from !== undefined && to !== undefined) conditions.push(sql`effective_at between ${timestamp(from)} and ${timestamp(to)}`);
    else if (from !== undefined) conditions.push(sql`effective_at > ${timestamp(from)}`);
    else if (to !== undefined) conditions.push(sql`effective_at < ${timestamp(to)}`);
    const { rows } = await sql<{ result: string }>`
    select result from vote_results
    where ${sql.join(conditions, sql` and `)}
    order by coalesce(effective_at, completed_at) desc, ingest_seq desc
    limit ${limit}`.execute(db);
    return rows.map((r) => r.result);
  },
);
