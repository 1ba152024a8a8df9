/** S6 migration info (docs/interfaces.md, "Scan: migration info"). */
import { Router } from 'express';
import { z } from 'zod';
import { formatDateTime } from '../../domain/time';
import { notFound } from '../../internal/errors';
import { findMigrationInfo } from '../../store/migration-repository';
import type { Db } from '../../store/pool';
import type { ApiContext } from '../context';
import { mountOperations, operation, type OperationOf } from '../operation';
import { bool, int64 as int64Answer, str } from '../schema-kit';
import { scanErrors } from './error-answers';
import { int64 } from './params';
import { RecordTimeRange } from './schemas';
import { sendJson } from '../json-response';

const MigrationInfoRequest = z.object({ migration_id: int64 });

const MigrationInfoResponse = z.object({
  previous_migration_id: int64Answer().nullable().optional(),
  record_time_range: z.array(RecordTimeRange),
  last_import_update_id: str().nullable().optional(),
  complete: bool(),
  import_updates_complete: bool().nullable().optional(),
});

interface MigrationServices {
  db: Db;
}

const migrationInfo = operation({
  method: 'post',
  path: '/v0/backfilling/migration-info',
  summary: 'S6: what this instance holds of a migration.',
  request: { body: MigrationInfoRequest },
  responses: { '200': { description: 'OK', body: MigrationInfoResponse }, ...scanErrors(400, 404) },
  handle: async ({ db }: MigrationServices, { body: { migration_id } }, _req, res) => {
    const info = await findMigrationInfo(db, migration_id);
    if (!info) throw notFound(`No data for migration ${migration_id}`);
    // Key order and nulls as the Scan app's generated encoder writes them.
    sendJson(res, {
      previous_migration_id: info.previousMigrationId ?? null,
      record_time_range: info.recordTimeRanges.map((r) => ({
        synchronizer_id: r.synchronizerId,
        min: formatDateTime(r.min),
        max: formatDateTime(r.max),
      })),
      last_import_update_id: info.lastImportUpdateId ?? null,
      complete: info.complete,
      import_updates_complete: info.importUpdatesComplete,
    } satisfies z.input<typeof MigrationInfoResponse>);
  },
});

export const migrationOperations: readonly OperationOf<MigrationServices>[] = [migrationInfo];

export function migrationRoutes({ db }: ApiContext): Router {
  return mountOperations(Router(), migrationOperations, { db });
}
