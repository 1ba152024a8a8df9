/**
 * What the live streams read besides the /v0/events pages (update-repository.ts's listEvents): where
 * the history of events ends now, for a subscriber that starts at the tail, and where it begins after
 * retention dropped its oldest months, for a subscriber whose cursor is older.
 */
import { sql } from 'kysely';
import type { StreamKey } from '../domain/stream-key';
import { formatRecordTime, fromPgTimestamp, type Micros } from '../domain/time';
import type { Db } from './pool';
import { repositoryOperation } from './query-operation';

/** Record time of import updates, as a literal so the planner matches the partial indexes. */
const IMPORT_TIME = sql.raw(`'0001-01-01 00:00:00+00'::timestamptz`);

/**
 * The position of the newest event (a non-import update, or a verdict), by the keys' order; undefined
 * when there is none. One backward step of each position index.
 */
export const newestEventPosition = repositoryOperation('newestEventPosition', async function newestEventPosition(db: Db): Promise<
  StreamKey | undefined
> {
  const { rows } = await sql<{ migration_id: number; record_time: string }>`
    select migration_id, record_time from (
      (select u.migration_id, u.record_time from updates u where u.record_time > ${IMPORT_TIME}
        order by u.migration_id desc, u.record_time desc limit 1)
      union all
      (select v.migration_id, v.record_time from verdicts v where v.record_time > ${IMPORT_TIME}
        order by v.migration_id desc, v.record_time desc limit 1)
    ) newest
    order by migration_id desc, record_time desc
    limit 1`.execute(db);
  const row = rows[0];
  return row ? { migrationId: row.migration_id, recordTime: fromPgTimestamp(row.record_time) } : undefined;
});

/**
 * The migration of the first event (a non-import update, or a verdict) at or after `from`, by the
 * keys' order; undefined when there is none. One forward step of each position index.
 */
export const firstEventMigrationFrom = repositoryOperation(
  'firstEventMigrationFrom',
  async function firstEventMigrationFrom(db: Db, from: Micros): Promise<number | undefined> {
    const at = formatRecordTime(from);
    const { rows } = await sql<{ migration_id: number }>`
    select migration_id from (
      (select u.migration_id, u.record_time from updates u where u.record_time >= ${at}::timestamptz and u.record_time > ${IMPORT_TIME}
        order by u.migration_id, u.record_time limit 1)
      union all
      (select v.migration_id, v.record_time from verdicts v where v.record_time >= ${at}::timestamptz and v.record_time > ${IMPORT_TIME}
        order by v.migration_id, v.record_time limit 1)
    ) first
    order by migration_id, record_time
    limit 1`.execute(db);
    return rows[0]?.migration_id;
  },
);

/** An announced ACS snapshot, as the stream's snapshot event shows it. */
export interface AnnouncedSnapshotRow {
  migrationId: number;
  recordTime: Micros;
  contractCount: number;
  /** Decimal text. */
  unlockedAmulet: string;
  lockedAmulet: string;
}

/** The newest announced snapshot's position; undefined when there is none. */
export const newestSnapshotPosition = repositoryOperation('newestSnapshotPosition', async function newestSnapshotPosition(db: Db): Promise<
  StreamKey | undefined
> {
  const row = await db
    .selectFrom('acs_snapshots')
    .select(['migration_id', 'record_time'])
    .orderBy('migration_id', 'desc')
    .orderBy('record_time', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? { migrationId: row.migration_id, recordTime: fromPgTimestamp(row.record_time) } : undefined;
});

/** The snapshots after `after` (undefined: from the first) up to `through` included, in order; at most `limit`. */
export const listSnapshotsBetween = repositoryOperation(
  'listSnapshotsBetween',
  async function listSnapshotsBetween(
    db: Db,
    after: StreamKey | undefined,
    through: StreamKey,
    limit: number,
  ): Promise<AnnouncedSnapshotRow[]> {
    const lower = after
      ? sql`(migration_id, record_time) > (${after.migrationId}::bigint, ${formatRecordTime(after.recordTime)}::timestamptz) and`
      : sql``;
    const { rows } = await sql<{
      migration_id: number;
      record_time: string;
      contract_count: number;
      unlocked_amulet: string;
      locked_amulet: string;
    }>`
    select migration_id, record_time, contract_count, unlocked_amulet, locked_amulet from acs_snapshots
    where ${lower} (migration_id, record_time) <= (${through.migrationId}::bigint, ${formatRecordTime(through.recordTime)}::timestamptz)
    order by migration_id, record_time
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

/**
 * The primary's WAL insert position: past the commit record of every transaction committed so far, also
 * those committed without waiting for the WAL flush (synchronous_commit = off), which the write position
 * (pg_current_wal_lsn) may not be past yet.
 */
export const readWalInsertPosition = repositoryOperation(
  'readWalInsertPosition',
  async function readWalInsertPosition(db: Db): Promise<string> {
    const { rows } = await sql<{ lsn: string }>`select pg_current_wal_insert_lsn()::text as lsn`.execute(db);
    return rows[0]!.lsn;
  },
);
