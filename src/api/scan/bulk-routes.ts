/**
 * Bulk storage (docs/bulk-history.md), pre-alpha in Splice, served from the objects the bulk writer
 * (src/jobs/bulk-history.ts) put in BULK_STORAGE_DIR and recorded with their checksums:
 *   GET  /v0/history/bulk/acs                    ACS snapshot objects at or before a time
 *   POST /v0/history/bulk/updates                update history objects covering a range, paged by segment
 *   S7   POST /v0/history/bulk/checksums         the digests of objects by key
 *   GET  /v0/history/bulk/progress               whether snapshots and history are written up to a time
 *   GET  /v0/history/bulk/download/{object_key}  an object's bytes
 * Without BULK_STORAGE_DIR each answers 501 "Bulk storage is not configured", as the Scan app does
 * without bulk storage, before looking at its input.
 */
import { dateTime } from './snapshot-input';
import { pipeline } from 'node:stream/promises';
import type { Request, RequestHandler } from 'express';
import { z } from 'zod';
import { bulkSnapshotTimeAtOrBefore, isObjectKey, parseFolder } from '../../domain/bulk-layout';
import { formatDateTime, formatInstant } from '../../domain/time';
import { badRequest, HttpError, notFound } from '../../internal/errors';
import {
  bulkObjectsByKey,
  bulkObjectsOf,
  bulkSegmentStartingAt,
  latestBulkSegment,
  updateSegmentsInRange,
  type BulkObjectRow,
} from '../../store/bulk-repository';
import { bulkObjectStore } from '../../store/bulk-object-store';
import type { ApiContext } from '../context';
import { sendJson } from '../json-response';
import { operation, type OperationOf } from '../operation';
import { scanErrors } from './error-answers';
import {
  BulkStorageObjectRef,
  GetBulkObjectChecksumsResponse,
  GetBulkObjectsProgressResponse,
  ListBulkAcsSnapshotObjectsResponse,
  ListBulkUpdateHistoryObjectsResponse,
} from './schemas';

const NOT_CONFIGURED = 'Bulk storage is not configured';
/** scan.yaml's bound on page_size, and HttpRequestLimits' bound on request lists. */
const MAX_PAGE_SIZE = 1000;
const MAX_KEYS = 1000;

const AcsQuery = z.object({ at_or_before_record_time: dateTime });
const ProgressQuery = z.object({
  record_time: dateTime.describe('The record time both the ACS snapshots and the update history must reach.'),
});
const UpdatesRequest = z.object({
  start_record_time: dateTime.describe('The objects include every update with a record time after this (and may include earlier ones).'),
  end_record_time: dateTime.describe('The objects include every update with a record time at most this (and may include later ones).'),
  page_size: z
    .number({ error: 'expected an integer' })
    .int({ error: 'expected an integer' })
    .min(1, { error: 'page_size must be at least 1' })
    .max(MAX_PAGE_SIZE, { error: `page_size must be at most ${MAX_PAGE_SIZE}` })
    .meta({ type: 'integer', format: 'int32' }),
  next_page_token: z
    .string({ error: 'expected a string' })
    .nullish()
    .describe('next_page_token of the previous page, with the same arguments.'),
});
const ChecksumsRequest = z.object({
  object_keys: z
    .array(z.string({ error: 'expected a string' }), { error: 'expected an array of strings' })
    .max(MAX_KEYS, { error: `object_keys must have at most ${MAX_KEYS} keys` }),
});
const DownloadParams = z.object({ object_key: z.string().describe('The object key, URL-encoded (its "/" as %2F).') });

/** 501 before the input is read, when bulk storage is off. */
const configured = (context: ApiContext): RequestHandler[] => [
  (_req, _res, next) => next(bulkObjectStore(context.config.bulkStorage) ? undefined : new HttpError(501, NOT_CONFIGURED)),
];

/** The download URL of an object on this server, as the request reached it. */
function objectRef(req: Request, o: BulkObjectRow): z.input<typeof BulkStorageObjectRef> {
  return {
    url: `${req.protocol}://${req.get('host')}${req.baseUrl}/v0/history/bulk/download/${encodeURIComponent(o.key)}`,
    digest: o.sha256,
  };
}

const ok = (body: z.ZodType) => ({ '200': { description: 'OK', body } });
const notConfigured = { before: configured };

const listAcs = operation({
  method: 'get',
  path: '/v0/history/bulk/acs',
  summary: 'Bulk storage: the objects of the ACS snapshot at or before a record time (pre-alpha in Splice).',
  request: { query: AcsQuery },
  responses: { ...ok(ListBulkAcsSnapshotObjectsResponse), ...scanErrors(400, 404, 500, 501) },
  ...notConfigured,
  handle: async ({ db }: ApiContext, { query }, req, res) => {
    const latest = await latestBulkSegment(db, 'acs');
    if (!latest) throw notFound('no snapshot in committed bulk storage yet');
    const t = query.at_or_before_record_time;
    const at = latest.start.recordTime < t ? latest.start.recordTime : bulkSnapshotTimeAtOrBefore(t);
    const segment = await bulkSegmentStartingAt(db, 'acs', at);
    const objects = segment ? await bulkObjectsOf(db, 'acs', [segment.folder]) : [];
    if (objects.length === 0) {
      throw notFound(
        `No snapshot objects found in bulk storage at expected timestamp ${formatInstant(at)}, this may be because the timestamp is before network genesis`,
      );
    }
    sendJson(res, { record_time: formatDateTime(at), object_refs: objects.map((o) => objectRef(req, o)) } satisfies z.input<
      typeof ListBulkAcsSnapshotObjectsResponse
    >);
  },
});

const listUpdates = operation({
  method: 'post',
  path: '/v0/history/bulk/updates',
  summary:
    'Bulk storage: the update history objects covering (start_record_time, end_record_time], whole segments at a time, paged by segment (pre-alpha in Splice).',
  request: { body: UpdatesRequest },
  responses: { ...ok(ListBulkUpdateHistoryObjectsResponse), ...scanErrors(400, 500, 501) },
  ...notConfigured,
  handle: async ({ db }: ApiContext, { body }, req, res) => {
    const token = body.next_page_token ?? undefined;
    const afterFolder = token?.replace(/\/$/, '');
    if (afterFolder !== undefined && parseFolder(afterFolder) === undefined) throw badRequest(`Invalid next_page_token: ${token}`);
    const end = body.end_record_time;
    // Read once: the segments listed and the next page token follow from the same progress.
    const progress = await latestBulkSegment(db, 'updates');
    const segments = progress
      ? await updateSegmentsInRange(db, { after: body.start_record_time, atOrBefore: end, afterFolder, limit: body.page_size })
      : [];
    const byFolder = new Map<string, BulkObjectRow[]>();
    const objects = await bulkObjectsOf(
      db,
      'updates',
      segments.map((s) => s.folder),
    );
    for (const o of objects) byFolder.set(o.folder, [...(byFolder.get(o.folder) ?? []), o]);
    // Whole segments only: one that would pass page_size ends the page (or fails it, if it would be the first).
    const listed: BulkObjectRow[] = [];
    for (const s of segments) {
      const objects = byFolder.get(s.folder) ?? [];
      if (listed.length + objects.length > body.page_size) {
        if (listed.length === 0)
          throw badRequest(`Limit of ${body.page_size} is too low to return any objects, even from a single folder of objects`);
        break;
      }
      listed.push(...objects);
    }
    let next: string | undefined;
    const last = listed[listed.length - 1];
    if (last) {
      next = parseFolder(last.folder)!.end < end ? `${last.folder}/` : undefined;
    } else {
      // Nothing (more) written for the range: the same token again while the history written ends before the range does.
      next = progress && progress.end.recordTime >= end ? undefined : token;
    }
    sendJson(res, {
      object_refs: listed.map((o) => objectRef(req, o)),
      ...(next !== undefined && { next_page_token: next }),
    } satisfies z.input<typeof ListBulkUpdateHistoryObjectsResponse>);
  },
});

const checksums = operation({
  method: 'post',
  path: '/v0/history/bulk/checksums',
  summary: 'S7: the checksums (base64 SHA-256) of bulk storage objects, in the order of the keys asked (pre-alpha in Splice).',
  request: { body: ChecksumsRequest },
  responses: { ...ok(GetBulkObjectChecksumsResponse), ...scanErrors(400, 404, 500, 501) },
  ...notConfigured,
  handle: async ({ db }: ApiContext, { body }, _req, res) => {
    const found = await bulkObjectsByKey(db, body.object_keys);
    const missing = body.object_keys.find((k) => !found.has(k));
    if (missing !== undefined) throw notFound(`No bulk storage object with key ${missing}`);
    sendJson(res, { checksums: body.object_keys.map((k) => ({ value: found.get(k)!.sha256 })) } satisfies z.input<
      typeof GetBulkObjectChecksumsResponse
    >);
  },
});

const progress = operation({
  method: 'get',
  path: '/v0/history/bulk/progress',
  summary:
    'Bulk storage: whether an ACS snapshot at or after the record time and the update history up to it are written (pre-alpha in Splice).',
  request: { query: ProgressQuery },
  responses: { ...ok(GetBulkObjectsProgressResponse), ...scanErrors(400, 500, 501) },
  ...notConfigured,
  handle: async ({ db }: ApiContext, { query }, _req, res) => {
    const t = query.record_time;
    const [acs, updates] = await Promise.all([latestBulkSegment(db, 'acs'), latestBulkSegment(db, 'updates')]);
    const beyond = acs !== undefined && acs.start.recordTime >= t && updates !== undefined && updates.end.recordTime >= t;
    sendJson(res, { beyond_requested_record_time: beyond } satisfies z.input<typeof GetBulkObjectsProgressResponse>);
  },
});

const download = operation({
  method: 'get',
  path: '/v0/history/bulk/download/{object_key}',
  summary: 'Bulk storage: the bytes of one object (zstd-compressed NDJSON), as written (pre-alpha in Splice).',
  request: { params: DownloadParams },
  responses: {
    '200': {
      description: 'The object.',
      content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
    },
    ...scanErrors(404, 500, 501),
  },
  ...notConfigured,
  handle: async ({ db, config }: ApiContext, { params }, _req, res) => {
    const key = params.object_key;
    // Only objects recorded after they were written in full are served; a key is never a path of its own.
    const found = isObjectKey(key) ? (await bulkObjectsByKey(db, [key])).get(key) : undefined;
    if (!found) throw notFound(`No bulk storage object with key ${key}`);
    const stream = await bulkObjectStore(config.bulkStorage)!.read(found.key);
    if (!stream) throw notFound(`No bulk storage object with key ${key}`);
    res.status(200).type('application/octet-stream').setHeader('Content-Length', String(found.sizeBytes));
    await pipeline(stream, res);
  },
});

/** Mounted with the update-history operations (update-routes.ts), where S7 was. */
export const bulkOperations: readonly OperationOf<ApiContext>[] = [listAcs, listUpdates, checksums, progress, download];
