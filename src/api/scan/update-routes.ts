/**
 * Update history (docs/interfaces.md, "Scan: update history", "Scan: events"):
 *   S4  GET  /v2/updates/hash/{hash}
 *   S5  GET  /v0/events/{update_id}
 *   S7  POST /v0/history/bulk/checksums            (501: no bulk storage)
 *       POST /v2/updates, GET /v2/updates/{update_id}
 *       POST /v0/events
 *       GET  /v0/events/latest-record-time        (up to when /v0/events has every event)
 *       POST /v0/backfilling/import-updates        (what a mirror needs after a hard migration)
 *       POST /v0/backfilling/updates-before        (how a peer Scan backfills: newest first)
 *
 * Answers are the stored JSON text concatenated (domain/update-rendering.ts).
 * `external_transaction_hash` is served wherever the update has one (by hash,
 * by id, in lists and events) and omitted when it has none: the stored stream
 * is what the source served, and a mirror must see the hash to store it.
 *
 * With read replicas: a cursor registers the history it continues from, so that only a replica that
 * has replayed it serves the page; a page a replica ends short is read again on the primary (its end
 * may be only the replica's), and a full one is the primary's too, since history is stored in its
 * order. Lookups by id or hash that find nothing on a replica are answered on the primary (app.ts).
 */
import { Router } from 'express';
import { z } from 'zod';
import { eventItemJson, jsonArrayObject, toV1Transaction, withExternalHash } from '../../domain/update-rendering';
import { partyIdProblem } from '../../domain/party-id';
import { formatDateTime, IMPORT_RECORD_TIME } from '../../domain/time';
import type { DamlValueEncoding } from '../../domain/value-encoding';
import { badRequest, HttpError, notFound } from '../../internal/errors';
import {
  findEvent,
  findTransactionByHash,
  findTransactionById,
  historyIncomplete,
  latestEventRecordTime,
  listEvents,
  listImportUpdates,
  listUpdates,
  listUpdatesBefore,
  type EventRow,
  type HistoryCursor,
  type StoredUpdate,
} from '../../store/update-repository';
import { acceptedOrFromPrimary, needPosition } from '../../store/read-context';
import type { ApiContext } from '../context';
import { notFoundInHistory, refuseDroppedHistory } from '../history-start';
import { RawJson } from '../../domain/raw-json';
import { heavyRequest } from '../fair-access/heavy-requests';
import { sendJson } from '../json-response';
import { pageLimit } from '../page-limit';
import { parseInput } from '../validation';
import { int64, requestTimestamp } from './params';

const ENCODINGS = ['compact_json', 'protobuf_json'] as const;
const encoding = z.enum(ENCODINGS, { error: `expected one of ${ENCODINGS.join(', ')}` });

const EncodingQuery = z.object({ daml_value_encoding: encoding.optional() });
// Absent and null are the same for optional body fields, as Scan's decoders read them.

const Cursor = z.object({
  after_migration_id: int64,
  after_record_time: z.string({ error: 'expected a string' }),
});

const HistoryRequest = z.object({
  page_size: int64,
  after: Cursor.nullish(),
  daml_value_encoding: encoding.nullish(),
});

const ImportUpdatesRequest = z.object({
  migration_id: int64,
  after_update_id: z.string({ error: 'expected a string' }),
  limit: int64,
  /** Extension: Scan always answers protobuf_json; a mirror also needs compact_json. */
  daml_value_encoding: encoding.nullish(),
});

const UpdatesBeforeRequest = z.object({
  migration_id: int64,
  synchronizer_id: z.string({ error: 'expected a string' }),
  before: z.string({ error: 'expected a string' }),
  at_or_after: z.string({ error: 'expected a string' }).nullish(),
  count: int64,
  /** Extension, as for import updates: Scan always answers protobuf_json. */
  daml_value_encoding: encoding.nullish(),
});

/** `after_record_time` is parsed like Instant.parse; digits beyond microseconds are floored. */
function historyCursor(after: z.infer<typeof Cursor> | null | undefined): HistoryCursor | undefined {
  if (!after) return undefined;
  const cursor = { migrationId: after.after_migration_id, recordTime: requestTimestamp(after.after_record_time) };
  // A replica serves the page only if it holds something after the cursor: at its end, its page would be
  // empty and read again on the primary anyway (the usual case of a client following the tip).
  needPosition({ kind: 'records', migrationId: cursor.migrationId, recordTime: cursor.recordTime + 1n });
  return cursor;
}

/** A page as the primary would serve it: one a replica ends short may end there only because the replica does. */
const fullOrFromPrimary = <T>(limit: number, read: () => Promise<T[]>): Promise<T[]> =>
  acceptedOrFromPrimary(read, (page) => page.length >= limit, 'short_page');

const BACKFILLING_MESSAGE =
  'This scan instance has not yet replicated all data. This process can take an extended period of time to complete. Wait until replication is complete, or connect to a different scan instance.';

/** The backfilling gate of the list endpoints (HttpScanHandler.confirmBackfillingIsCompleteThen). */
async function confirmHistoryComplete(context: ApiContext): Promise<void> {
  if (await historyIncomplete(context.db)) throw new HttpError(503, BACKFILLING_MESSAGE);
}

/** The stored rendering, or a 501 when the source gave no protobuf_json for it (never a mislabelled compact one). */
function storedJson(u: StoredUpdate): string {
  if (u.json === null) {
    throw new HttpError(
      501,
      `protobuf_json is not available for update ${u.updateId}: it was ingested without that encoding. Use compact_json.`,
    );
  }
  return u.json;
}

/** A v2 item: the stored JSON with the hash appended when the update has one. */
const v2Item = (u: StoredUpdate) => withExternalHash(storedJson(u), u.externalTransactionHash);

function eventJson(row: EventRow): string {
  return eventItemJson({
    update: row.update ? v2Item(row.update) : null,
    verdict: row.verdictJson,
    trafficSummary: row.trafficJson,
    appActivityRecords: row.appActivityJson,
  });
}

const HEX = /^(?:[0-9a-fA-F]{2})+$/;

export function updateRoutes(context: ApiContext): Router {
  const { db } = context;
  const router = Router();

  const queryEncoding = (query: unknown): DamlValueEncoding =>
    parseInput(EncodingQuery, query, 'query').daml_value_encoding ?? 'compact_json';

  const heavyPage = heavyRequest(context, { pageSize: 'page_size' });
  router.post('/v2/updates', heavyPage, async (req, res) => {
    const body = parseInput(HistoryRequest, req.body, 'body');
    const limit = pageLimit(body.page_size);
    const after = historyCursor(body.after);
    await confirmHistoryComplete(context);
    await refuseDroppedHistory(db, after?.recordTime);
    const updates = await fullOrFromPrimary(limit, () => listUpdates(db, after, limit, body.daml_value_encoding ?? 'compact_json'));
    sendJson(res, new RawJson(jsonArrayObject('transactions', updates.map(v2Item))));
  });

  router.get('/v2/updates/hash/:hash', async (req, res) => {
    const encodingParam = queryEncoding(req.query);
    const hash = req.params.hash;
    // Canton's HexString: non-hex (or empty) input names no transaction.
    const found = HEX.test(hash) ? await findTransactionByHash(db, hash.toLowerCase(), encodingParam) : undefined;
    if (!found) throw await notFoundInHistory(db, `Transaction with hash ${hash} not found`);
    // UpdateHistoryItemV2WithHash: the hash is required and always present.
    sendJson(res, new RawJson(withExternalHash(storedJson(found), found.externalTransactionHash)));
  });

  router.get('/v2/updates/:update_id', async (req, res) => {
    const encodingParam = queryEncoding(req.query);
    const updateId = req.params.update_id;
    const found = await findTransactionById(db, updateId, encodingParam);
    if (!found) throw await notFoundInHistory(db, `Transaction with id ${updateId} not found`);
    sendJson(res, new RawJson(v2Item(found)));
  });

  router.post('/v0/events', heavyPage, async (req, res) => {
    const body = parseInput(HistoryRequest, req.body, 'body');
    const limit = pageLimit(body.page_size);
    const after = historyCursor(body.after);
    await confirmHistoryComplete(context);
    await refuseDroppedHistory(db, after?.recordTime);
    const events = await fullOrFromPrimary(limit, () => listEvents(db, after, limit, body.daml_value_encoding ?? 'compact_json'));
    sendJson(res, new RawJson(jsonArrayObject('events', events.map(eventJson))));
  });

  // Registered before /v0/events/:update_id, which would otherwise take it as an update id.
  router.get('/v0/events/latest-record-time', async (_req, res) => {
    const latest = await latestEventRecordTime(db);
    if (latest === undefined) throw notFound('No events found');
    sendJson(res, { record_time: formatDateTime(latest) });
  });

  router.get('/v0/events/:update_id', async (req, res) => {
    const encodingParam = queryEncoding(req.query);
    const updateId = req.params.update_id;
    const event = await findEvent(db, updateId, encodingParam);
    if (!event) throw await notFoundInHistory(db, `Event with id ${updateId} not found`);
    sendJson(res, new RawJson(eventJson(event)));
  });

  router.post('/v0/backfilling/import-updates', heavyRequest(context, { pageSize: 'limit' }), async (req, res) => {
    const body = parseInput(ImportUpdatesRequest, req.body, 'body');
    const limit = pageLimit(body.limit);
    // Import updates come first in a migration's stream: a replica holding any other update of it holds them all.
    needPosition({ kind: 'records', migrationId: body.migration_id, recordTime: IMPORT_RECORD_TIME + 1n });
    const updates = await fullOrFromPrimary(limit, () =>
      listImportUpdates(db, body.migration_id, body.after_update_id, limit, body.daml_value_encoding ?? 'protobuf_json'),
    );
    // UpdateHistoryItem (v1): the constant offset; import updates carry no external hash.
    sendJson(
      res,
      new RawJson(
        jsonArrayObject(
          'transactions',
          updates.map((u) => toV1Transaction(v2Item(u))),
        ),
      ),
    );
  });

  router.post('/v0/backfilling/updates-before', heavyRequest(context, { pageSize: 'count' }), async (req, res) => {
    const body = parseInput(UpdatesBeforeRequest, req.body, 'body');
    const problem = partyIdProblem(body.synchronizer_id);
    if (problem) throw badRequest(problem);
    const query = {
      migrationId: body.migration_id,
      synchronizerId: body.synchronizer_id,
      before: requestTimestamp(body.before),
      atOrAfter: body.at_or_after == null ? undefined : requestTimestamp(body.at_or_after),
    };
    const limit = pageLimit(body.count);
    // A page that ends before the history start is served as far as it goes; one with nothing left is refused.
    await refuseDroppedHistory(db, query.before);
    // Newest first: only a replica holding the history up to `before` has the newest updates before it.
    needPosition({ kind: 'records', migrationId: query.migrationId, recordTime: query.before });
    const updates = await fullOrFromPrimary(limit, () => listUpdatesBefore(db, query, limit, body.daml_value_encoding ?? 'protobuf_json'));
    if (updates.length === 0) await refuseDroppedHistory(db, query.atOrAfter);
    // UpdateHistoryItem (v1), as Scan encodes them for its peers: transactions get the constant offset.
    sendJson(
      res,
      new RawJson(
        jsonArrayObject(
          'transactions',
          updates.map((u) => (u.kind === 'transaction' ? toV1Transaction(v2Item(u)) : v2Item(u))),
        ),
      ),
    );
  });

  router.post('/v0/history/bulk/checksums', () => {
    // The interface lists 501: this indexer has no bulk storage (scan.yaml).
    throw new HttpError(501, 'Bulk storage is not configured');
  });

  return router;
}
