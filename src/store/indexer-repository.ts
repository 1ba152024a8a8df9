/**
 * All SQL of this indexer's own read-only operations (/api/indexer): the
 * announced ACS snapshots, newest first, and the hourly update counts of the
 * newest migration. Both are primary-key range scans bounded by what they return.
 */
import { sql } from 'kysely';
import { formatRecordTime, fromPgTimestamp, type Micros } from '../domain/time';
import type { Db } from './pool';
import { repositoryOperation } from './query-operation';

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
 * Read from update_counts_by_hour, which the writer keeps with each batch: the newest migration and
 * its newest hour are one descent each of its primary key, and the window a range of at most `hours`
 * entries of it, whatever the network's rate or the length of its history.
 */
export const hourlyUpdateCounts = repositoryOperation(
  'hourlyUpdateCounts',
  async function hourlyUpdateCounts(db: Db, hours: number): Promise<HourlyUpdateCounts | undefined> {
    const { rows } = await sql<{ migration_id: number; newest_hour: string; hour: string | null; update_count: number | null }>`
    with newest as (
      select migration_id, hour from update_counts_by_hour
      where migration_id = (select max(migration_id) from update_counts_by_hour)
      order by hour desc
      limit 1
    )
    select n.migration_id, n.hour as newest_hour, c.hour, c.update_count
    from newest n
    left join update_counts_by_hour c
      on c.migration_id = n.migration_id and c.hour > n.hour - make_interval(hours => ${hours}) and c.hour <= n.hour`.execute(db);
    const first = rows[0];
    if (!first) return undefined;
    const counts = new Map<Micros, number>();
    for (const r of rows) if (r.hour !== null && r.update_count !== null) counts.set(fromPgTimestamp(r.hour), Number(r.update_count));
    return { migrationId: first.migration_id, newestHour: fromPgTimestamp(first.newest_hour), counts };
  },
);
