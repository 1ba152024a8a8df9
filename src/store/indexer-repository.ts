/**
 * All SQL of this indexer's own read-only operations (/api/indexer): the
 * announced ACS snapshots, newest first, and the hourly update counts of the
 * newest migration. Both are index range scans bounded by what they return.
 */
import { sql } from 'kysely';
import { formatRecordTime, fromPgTimestamp, type Micros } from '../domain/time';
import type { Db } from './pool';
import { repositoryOperation } from './query-operation';

/** Record time of import updates, as a literal so the planner matches the partial index updates_live_by_position. */
const IMPORT_TIME = sql.raw(`'0001-01-01 00:00:00+00'::timestamptz`);

const MICROS_PER_HOUR = 3_600_000_000n;

/** Where a list of snapshots continues: strictly before this key, in (migration_id, record_time) order. */
export interface SnapshotKey {
  migrationId: number;
  recordTime: Micros;
}

export interface AnnouncedSnapshot extends SnapshotKey {
  contractCount: number;
  /** Decimal text, as PostgreSQL prints numeric(38, 10). */
  unlockedAmulet: string;
  lockedAmulet: string;
}

/**
 * A page of announced snapshots, newest first across migrations (migration_id desc, record_time desc),
 * strictly before `before` when given: a backward range of the primary key (migration_id, record_time)
 * that reads `limit` entries.
 */
export const listAcsSnapshots = repositoryOperation(
  'listAcsSnapshots',
  async function listAcsSnapshots(db: Db, before: SnapshotKey | undefined, limit: number): Promise<AnnouncedSnapshot[]> {
    const { rows } = await sql<{
      migration_id: number;
      record_time: string;
      contract_count: number;
      unlocked_amulet: string;
      locked_amulet: string;
    }>`
    select migration_id, record_time, contract_count, unlocked_amulet, locked_amulet
    from acs_snapshots
    ${before ? sql`where (migration_id, record_time) < (${before.migrationId}, ${formatRecordTime(before.recordTime)}::timestamptz)` : sql``}
    order by migration_id desc, record_time desc
    limit ${limit}`.execute(db);
    return rows.map((r) => ({
      migrationId: r.migration_id,
      recordTime: fromPgTimestamp(r.record_time),
      contractCount: r.contract_count,
      unlockedAmulet: r.unlocked_amulet,
      lockedAmulet: r.locked_amulet,
    }));
  },
);

export interface HourlyUpdateCounts {
  migrationId: number;
  /** Start of the UTC hour holding the migration's newest (non-import) update. */
  newestHour: Micros;
  /** Updates per UTC hour start, for the hours of the window that have any. */
  counts: Map<Micros, number>;
}

/**
 * The number of updates (transactions and reassignments, import updates excluded) per UTC hour of
 * record time in the newest migration that has any, over the `hours` hours ending with the hour of
 * its newest update; undefined when no migration has one.
 *
 * Cost, one statement on updates_live_by_position (migration_id, record_time, …) where record_time >
 * 0001-01-01: the newest update is the first entry of a backward scan (one index descent), then a
 * range scan of (migration_id = m, record_time in the window) reads one index entry per update of the
 * window (about 40 per 8 KB page) and nothing outside it, whatever the size of the history
 * (test/integration/indexer/indexer-endpoints.test.ts checks the plan). The scan is index-only on
 * pages vacuum has marked all-visible; updates on newer pages cost a heap visit each, so the price
 * is O(updates in the window), at most a week's. At most `hours` groups come back.
 */
export const hourlyUpdateCounts = repositoryOperation(
  'hourlyUpdateCounts',
  async function hourlyUpdateCounts(db: Db, hours: number): Promise<HourlyUpdateCounts | undefined> {
    // Hours are numbered from the Unix epoch in UTC (floor of epoch seconds / 3600), so no session time
    // zone enters; the window is [start of the newest hour - (hours - 1) h, the newest update].
    const { rows } = await sql<{ migration_id: number; newest_hour: number; hour: number | null; updates: number | null }>`
    select n.migration_id, floor(extract(epoch from n.record_time) / 3600)::bigint as newest_hour, c.hour, c.updates
    from (
      select migration_id, record_time from updates
      where record_time > ${IMPORT_TIME}
      order by migration_id desc, record_time desc
      limit 1
    ) n
    left join lateral (
      select floor(extract(epoch from u.record_time) / 3600)::bigint as hour, count(*) as updates
      from updates u
      where u.migration_id = n.migration_id
        and u.record_time > ${IMPORT_TIME}
        and u.record_time >= date_trunc('hour', n.record_time, 'UTC') - make_interval(hours => ${hours - 1})
        and u.record_time <= n.record_time
      group by 1
    ) c on true`.execute(db);
    const first = rows[0];
    if (!first) return undefined;
    const counts = new Map<Micros, number>();
    for (const r of rows) if (r.hour !== null && r.updates !== null) counts.set(BigInt(r.hour) * MICROS_PER_HOUR, r.updates);
    return { migrationId: first.migration_id, newestHour: BigInt(first.newest_hour) * MICROS_PER_HOUR, counts };
  },
);
