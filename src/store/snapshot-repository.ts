/**
 * ACS snapshots over the temporal ACS. A snapshot copies no rows: its figures
 * are the previous snapshot's plus the deltas the writer recorded for the
 * slots in between (acs_deltas, one row per 3-hour slot), so announcing one
 * costs the same at any ACS size.
 */
import { sql } from 'kysely';
import { formatRecordTime, fromPgTimestamp, type Micros } from '../domain/time';
import { snapshotNotice } from './commit-notifications';
import { writeSupplyTotals } from './supply-totals-repository';
import type { Db } from './pool';
import { repositoryOperation } from './query-operation';

export interface MigrationSpan {
  migrationId: number;
  /** Record times of the first and last non-import update. */
  first: Micros;
  last: Micros;
}

export interface SnapshotRow {
  migrationId: number;
  recordTime: Micros;
  contractCount: number;
  /** Decimal text. */
  unlockedAmulet: string;
  lockedAmulet: string;
  /** Highest created_at among the snapshot's contracts (null: none). */
  maxCreatedAt: Micros | null;
}

export const migrationSpans = repositoryOperation('migrationSpans', async function migrationSpans(db: Db): Promise<MigrationSpan[]> {
  const rows = await db
    .selectFrom('migration_synchronizers')
    .select(['migration_id', (eb) => eb.fn.min('min_record_time').as('first'), (eb) => eb.fn.max('max_record_time').as('last')])
    .groupBy('migration_id')
    .orderBy('migration_id')
    .execute();
  return rows.map((r) => ({ migrationId: r.migration_id, first: fromPgTimestamp(r.first), last: fromPgTimestamp(r.last) }));
});

export const latestSnapshot = repositoryOperation('latestSnapshot', async function latestSnapshot(db: Db, migrationId: number): Promise<
  SnapshotRow | undefined
> {
  const row = await db
    .selectFrom('acs_snapshots as a')
    .selectAll('a')
    .where('migration_id', '=', migrationId)
    .orderBy('record_time', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row
    ? {
        migrationId,
        recordTime: fromPgTimestamp(row.record_time),
        contractCount: row.contract_count,
        unlockedAmulet: row.unlocked_amulet,
        lockedAmulet: row.locked_amulet,
        maxCreatedAt: row.max_created_at === null ? null : fromPgTimestamp(row.max_created_at),
      }
    : undefined;
});

/**
 * Takes the snapshot at `to` from the one at `from` (undefined: from nothing), with the cumulative
 * supply flows at it, in one transaction. A snapshot taken already is returned as it is. The owners'
 * holdings totals at it are derived after it is announced, in a transaction of their own
 * (src/jobs/holding-totals.ts): they cost what changed since the snapshot before, which would hold
 * the announcement, and the ingestion that waits for it, for as long.
 */
export const takeSnapshot = repositoryOperation(
  'takeSnapshot',
  async function takeSnapshot(db: Db, migrationId: number, from: SnapshotRow | undefined, at: Micros): Promise<SnapshotRow> {
    const lower = from ? formatRecordTime(from.recordTime) : '-infinity';
    const to = formatRecordTime(at);
    const previousMax = from?.maxCreatedAt === null || from?.maxCreatedAt === undefined ? null : formatRecordTime(from.maxCreatedAt);
    return db.transaction().execute(async (trx) => {
      // Not bound by DATABASE_STATEMENT_TIMEOUT_MS, which is for answers: a snapshot that does not finish
      // would fail again at each start (the first supply totals of a long history are long work).
      await sql`set local statement_timeout = 0`.execute(trx);
      const { rows } = await sql<{
        contract_count: number;
        unlocked: string;
        locked: string;
        max_created_at: string | null;
        inserted: boolean;
      }>`
      insert into acs_snapshots (migration_id, record_time, contract_count, unlocked_amulet, locked_amulet, max_created_at)
      select ${migrationId}, ${to}::timestamptz,
             ${from?.contractCount ?? 0} + coalesce(sum(d.contract_count), 0),
             ${from?.unlockedAmulet ?? '0'}::numeric + coalesce(sum(d.unlocked_amulet), 0),
             ${from?.lockedAmulet ?? '0'}::numeric + coalesce(sum(d.locked_amulet), 0),
             greatest(${previousMax}::timestamptz, max(d.max_created_at))
      from acs_deltas d
      where d.migration_id = ${migrationId} and d.slot > ${lower}::timestamptz and d.slot <= ${to}::timestamptz
      on conflict (migration_id, record_time) do update set migration_id = excluded.migration_id
      returning contract_count, unlocked_amulet as unlocked, locked_amulet as locked, max_created_at, xmax = 0 as inserted`.execute(trx);
      const r = rows[0]!;
      // The cumulative supply flows at it, when those at the snapshot before are known.
      if (r.inserted) await writeSupplyTotals(trx, migrationId, from?.recordTime, at);
      // Live streams with snapshot events read it once this commits.
      if (r.inserted) {
        const notice = snapshotNotice(migrationId, at);
        await sql`select pg_notify(${notice.channel}, ${notice.payload})`.execute(trx);
      }
      return {
        migrationId,
        recordTime: at,
        contractCount: r.contract_count,
        unlockedAmulet: r.unlocked,
        lockedAmulet: r.locked,
        maxCreatedAt: r.max_created_at === null ? null : fromPgTimestamp(r.max_created_at),
      };
    });
  },
);
