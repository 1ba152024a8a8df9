/** Per-migration facts (Scan migration-info; docs/interfaces.md, "Scan: migration info"). */
import { sql } from 'kysely';
import { fromPgTimestamp, type Micros } from '../domain/time';
import type { Db } from './pool';
import { repositoryOperation } from './query-operation';

interface RecordTimeRange {
  synchronizerId: string;
  min: Micros;
  max: Micros;
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
export const findMigrationInfo = repositoryOperation(
  'findMigrationInfo',
  async function findMigrationInfo(db: Db, migrationId: number): Promise<MigrationInfo | undefined> {
    const ranges = await db
      .selectFrom('migration_synchronizers')
      .select(['synchronizer_id', 'min_record_time', 'max_record_time'])
      .where('migration_id', '=', migrationId)
      .orderBy('synchronizer_id')
      .execute();
    if (ranges.length === 0) return undefined;
    const [migration, previous] = await Promise.all([
      db.selectFrom('migrations').selectAll().where('migration_id', '=', migrationId).executeTakeFirstOrThrow(),
      // As the Scan app: the highest lower migration that has updates (a migration known without any does not count):
      // with non-import updates (the writer's ranges), or with import updates only (one step of their index).
      sql<{ previous: number | null }>`
      select greatest(
        (select max(migration_id) from migration_synchronizers where migration_id < ${migrationId}),
        (select max(migration_id) from updates where record_time = '0001-01-01 00:00:00+00' and migration_id < ${migrationId})
      ) as previous`
        .execute(db)
        .then((r) => r.rows[0]),
    ]);
    return {
      migrationId,
      previousMigrationId: previous?.previous == null ? undefined : Number(previous.previous),
      recordTimeRanges: ranges.map((r) => ({
        synchronizerId: r.synchronizer_id,
        min: fromPgTimestamp(r.min_record_time),
        max: fromPgTimestamp(r.max_record_time),
      })),
      lastImportUpdateId: migration.last_import_update_id ?? undefined,
      complete: migration.complete,
      importUpdatesComplete: migration.import_updates_complete,
    };
  },
);
