/** S6 migration info (docs/interfaces.md, "Scan: migration info"). */
import { Router } from 'express';
import { z } from 'zod';
import { formatDateTime } from '../../domain/time';
import { notFound } from '../../internal/errors';
import { findMigrationInfo } from '../../store/migration-repository';
import type { ApiContext } from '../context';
import { parseInput } from '../validation';
import { int64 } from './params';
import { sendJson } from '../json-response';

const MigrationInfoRequest = z.object({ migration_id: int64 });

export function migrationRoutes({ db }: ApiContext): Router {
  const router = Router();

  router.post('/v0/backfilling/migration-info', async (req, res) => {
    const { migration_id } = parseInput(MigrationInfoRequest, req.body, 'body');
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
    });
  });

  return router;
}
