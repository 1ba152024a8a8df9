/** Per-migration facts (Scan migration-info, reference splice-scan.md §4.6). */
import { sql } from 'kysely';
import type { Db } from './pool';

export interface RecordTimeRange {
  synchronizerId: string;
  /** PostgreSQL timestamptz text, UTC. */
  min: string;
  max: string;
}

export interface MigrationInfo {
  migrationId: number;
  previousMigrationId: number | undefined;
  recordTimeRanges: RecordTimeRange[];
  lastImportUpdateId: string | undefined;
  complete: boolean;
  importUpdatesComplete: boolean;
}

/** Undefined when the migration has no non-import updates here. */
export async function findMigrationInfo(db: Db, migrationId: number): Promise<MigrationInfo | undefined> {
  const ranges = await db
    .selectFrom('migration_synchronizers')
    .select(['synchronizer_id', 'min_record_time', 'max_record_time'])
    .where('migration_id', '=', migrationId)
    .orderBy('synchronizer_id')
    .execute();
  if (ranges.length === 0) return undefined;
  const [migration, previous] = await Promise.all([
    db.selectFrom('migrations').selectAll().where('migration_id', '=', migrationId).executeTakeFirstOrThrow(),
    db
      .selectFrom('migrations')
      .select((eb) => eb.fn.max('migration_id').as('previous'))
      .where('migration_id', '<', migrationId)
      .executeTakeFirst(),
  ]);
  return {
    migrationId,
    previousMigrationId: previous?.previous == null ? undefined : Number(previous.previous),
    recordTimeRanges: ranges.map((r) => ({ synchronizerId: r.synchronizer_id, min: r.min_record_time, max: r.max_record_time })),
    lastImportUpdateId: migration.last_import_update_id ?? undefined,
    complete: migration.complete,
    importUpdatesComplete: migration.import_updates_complete,
  };
}

/** Makes a migration known (idempotent). */
export async function ensureMigration(db: Db, migrationId: number): Promise<void> {
  await db.insertInto('migrations').values({ migration_id: migrationId }).onConflict((oc) => oc.doNothing()).execute();
}

/**
 * Widens the record-time range of (migration, synchronizer) to cover new
 * non-import updates; `recordTimes` are timestamptz literals.
 */
export async function widenRecordTimeRange(
  db: Db,
  range: { migrationId: number; synchronizerId: string; min: string; max: string; count: number },
): Promise<void> {
  await ensureMigration(db, range.migrationId);
  await db
    .insertInto('migration_synchronizers')
    .values({
      migration_id: range.migrationId,
      synchronizer_id: range.synchronizerId,
      min_record_time: range.min,
      max_record_time: range.max,
      update_count: range.count,
    })
    .onConflict((oc) =>
      oc.columns(['migration_id', 'synchronizer_id']).doUpdateSet({
        min_record_time: sql<string>`least(migration_synchronizers.min_record_time, excluded.min_record_time)`,
        max_record_time: sql<string>`greatest(migration_synchronizers.max_record_time, excluded.max_record_time)`,
        update_count: sql<number>`migration_synchronizers.update_count + excluded.update_count`,
      }),
    )
    .execute();
}
