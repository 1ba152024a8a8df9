/**
 * This indexer's own read-only operations, mounted at /api/indexer, for the web UI; no Scan serves them:
 *   GET /v0/acs-snapshots      the announced ACS snapshots, newest first across migrations, keyset-paged
 *   GET /v0/updates-per-hour   updates per UTC hour of record (ledger) time in the newest migration
 * Errors are the Scan API's `{"error": "..."}`, from the application's error handler.
 */
import { Router } from 'express';
import { z } from 'zod';
import { formatDecimal, parseDecimal } from '../../domain/decimal';
import { MICROS_PER_HOUR, formatDateTime, type Micros } from '../../domain/time';
import { hourlyUpdateCounts, listAcsSnapshots, type SnapshotKey } from '../../store/indexer-repository';
import { needPosition } from '../../store/read-context';
import type { Db } from '../../store/pool';
import { primaryDbOf, type ApiContext } from '../context';
import { sendJson } from '../json-response';
import { rejectNulCharacters } from '../nul-guard';
import { mountOperations, operation, type OperationOf } from '../operation';
import { MAX_PAGE_SIZE } from '../page-limit';
import { pageTokensFor, pageTokensWithKey, type PageTokens, type TokenScope } from '../page-token';
import { ErrorResponse } from '../schema-kit';
import { activityOperations } from './activity-routes';
import { balanceOperations } from './balance-routes';
import { HourlyUpdates, SnapshotsPage } from './schemas';
import { seriesOperations } from './series-routes';
import { streamRouter } from './stream-routes';

const DEFAULT_SNAPSHOTS_PAGE_SIZE = 100;
const DEFAULT_HOURS = 24;
/** A week of hours. */
const MAX_HOURS = 168;

/** An optional integer query parameter within min..max, given once; the document states it as such. */
const queryIntegerIn = (min: number, max: number, defaultValue: number) => {
  const expected = `expected an integer from ${min} to ${max}`;
  return z
    .string({ error: expected })
    .regex(/^\d{1,10}$/, { error: expected })
    .transform(Number)
    .refine((n) => n >= min && n <= max, { error: expected })
    .optional()
    .meta({ type: 'integer', format: 'int32', minimum: min, maximum: max, default: defaultValue, pattern: undefined });
};

const SnapshotsQuery = z.object({
  page_size: queryIntegerIn(1, MAX_PAGE_SIZE, DEFAULT_SNAPSHOTS_PAGE_SIZE),
  page_token: z
    .string({ error: 'expected a single string' })
    .optional()
    .describe('next_page_token of the previous page, with the same page_size.'),
});
const UpdatesPerHourQuery = z.object({ hours: queryIntegerIn(1, MAX_HOURS, DEFAULT_HOURS) });

/** A page token's position: the key of the last snapshot served (record time in microseconds). */
const SnapshotPosition = z.object({ m: z.number().int().nonnegative(), t: z.string().regex(/^-?\d{1,20}$/) });

interface IndexerServices {
  db: Db;
  tokens: PageTokens;
}

const clientMistake = {
  description: 'A client mistake (a page size or hours out of range, an altered or foreign page token).',
  body: ErrorResponse,
};

const listSnapshots = operation({
  method: 'get',
  path: '/v0/acs-snapshots',
  summary: 'The announced ACS snapshots with their figures, newest first across migrations (migration_id, then record_time, descending).',
  request: { query: SnapshotsQuery },
  responses: { '200': { description: 'OK', body: SnapshotsPage }, '400': clientMistake },
  handle: async ({ db, tokens }: IndexerServices, { query }, _req, res) => {
    const limit = query.page_size ?? DEFAULT_SNAPSHOTS_PAGE_SIZE;
    const scope: TokenScope = { operation: 'indexer-acs-snapshots', request: { n: limit } };
    let before: SnapshotKey | undefined;
    if (query.page_token !== undefined) {
      const p = await tokens.verify(scope, query.page_token, SnapshotPosition, 'page_token');
      before = { migrationId: p.m, recordTime: BigInt(p.t) };
      // Snapshots are announced in order: a replica that holds this one holds every one before it.
      needPosition({ kind: 'snapshot', migrationId: before.migrationId, recordTime: before.recordTime });
    }
    const snapshots = await listAcsSnapshots(db, before, limit);
    const last = snapshots[snapshots.length - 1];
    const next =
      snapshots.length === limit && last ? await tokens.encode(scope, { m: last.migrationId, t: last.recordTime.toString() }) : null;
    const page: z.input<typeof SnapshotsPage> = {
      snapshots: snapshots.map((s) => ({
        migration_id: s.migrationId,
        // As /api/scan/v0/state/acs/snapshot-timestamp reports snapshot times.
        record_time: formatDateTime(s.recordTime),
        contract_count: s.contractCount,
        unlocked_amulet: formatDecimal(parseDecimal(s.unlockedAmulet)),
        locked_amulet: formatDecimal(parseDecimal(s.lockedAmulet)),
      })),
      next_page_token: next,
    };
    sendJson(res, page);
  },
});

const updatesPerHour = operation({
  method: 'get',
  path: '/v0/updates-per-hour',
  summary:
    'Updates (transactions and reassignments, not import updates) per UTC hour of record time in the newest migration that has any, over the hours ending with the hour of its newest update, oldest first, hours without updates included.',
  request: { query: UpdatesPerHourQuery },
  responses: { '200': { description: 'OK', body: HourlyUpdates }, '400': clientMistake },
  handle: async ({ db }: IndexerServices, { query }, _req, res) => {
    const hours = query.hours ?? DEFAULT_HOURS;
    const found = await hourlyUpdateCounts(db, hours);
    if (!found) {
      sendJson(res, { migration_id: null, buckets: [] } satisfies z.input<typeof HourlyUpdates>);
      return;
    }
    const buckets: { hour: string; updates: number }[] = [];
    for (let i = hours - 1; i >= 0; i--) {
      const hour: Micros = found.newestHour - BigInt(i) * MICROS_PER_HOUR;
      buckets.push({ hour: formatDateTime(hour), updates: found.counts.get(hour) ?? 0 });
    }
    sendJson(res, { migration_id: found.migrationId, buckets } satisfies z.input<typeof HourlyUpdates>);
  },
});

export const indexerOperations: readonly OperationOf<IndexerServices>[] = [listSnapshots, updatesPerHour];

export function indexerRouter(context: ApiContext): Router {
  const { db, config } = context;
  const router = Router();
  router.use(rejectNulCharacters);
  // The same signer as the Scan API's (same key, so any replica verifies any token).
  const tokens = config.pageTokenSecret
    ? pageTokensWithKey(Buffer.from(config.pageTokenSecret, 'utf8'))
    : pageTokensFor(primaryDbOf(context));
  mountOperations(router, activityOperations, { db, tokens });
  mountOperations(router, seriesOperations, { db });
  mountOperations(router, balanceOperations, { db });
  router.use(streamRouter(context));
  return mountOperations(router, indexerOperations, { db, tokens });
}
