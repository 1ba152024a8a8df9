/** Per-migration facts (Scan migration-info, reference splice-scan.md §4.6). */
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
    // As the Scan app: the highest lower migration that has updates (a migration known without any does not count).
    db
      .selectFrom('updates')
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
