/**
 * Update history (docs/interfaces.md, "Scan: update history", "Scan: events"):
 *   S4  GET  /v2/updates/hash/{hash}
 *   S5  GET  /v0/events/{update_id}
 *       POST /v2/updates, GET /v2/updates/{update_id}
 *       POST /v0/events
 *       GET  /v0/events/latest-record-time        (up to when /v0/events has every event)
 *       POST /v0/backfilling/import-updates        (what a mirror needs after a hard migration)
 *       POST /v0/backfilling/updates-before        (how a peer Scan backfills: newest first)
 * and the five bulk storage operations, S7 among them (bulk-routes.ts).
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
import { mountOperations, operation, type OperationOf } from '../operation';
import { pageLimit } from '../page-limit';
import { dateTime } from '../schema-kit';
import { bulkOperations } from './bulk-routes';
import { scanErrors } from './error-answers';
import { int64, requestTimestamp } from './params';
import { DamlValueEncoding, EventHistoryItem, UpdateHistoryItem } from './schemas';

/** An int64 field of a body, documented as the integer it is (int32 for page sizes). */
const integer = (format: 'int32' | 'int64') => int64.meta({ type: 'integer', format });
const timestamp = () => z.string({ error: 'expected a string' }).meta({ format: 'date-time' });

export const EncodingQuery = z.object({
  daml_value_encoding: DamlValueEncoding.optional().describe('Encoding of create_arguments, choice_argument and exercise_result.'),
});
// Absent and null are the same for optional body fields, as Scan's decoders read them.

const Cursor = z.object({
  after_migration_id: integer('int64'),
  after_record_time: z.string({ error: 'expected a string' }).describe('Record time of the last item of the previous page.'),
});

export const HistoryRequest = z.object({
  page_size: integer('int32'),
  after: Cursor.nullish(),
  daml_value_encoding: DamlValueEncoding.nullish(),
});

const ImportUpdatesRequest = z.object({
  migration_id: integer('int64'),
  after_update_id: z.string({ error: 'expected a string' }),
  limit: integer('int32'),
  /** Extension: Scan always answers protobuf_json; a mirror also needs compact_json. */
  daml_value_encoding: DamlValueEncoding.meta({
    default: 'protobuf_json',
    description: 'As the Scan app: protobuf_json unless asked.',
  }).nullish(),
});

const UpdatesBeforeRequest = z.object({
  migration_id: integer('int64'),
  synchronizer_id: z.string({ error: 'expected a string' }),
  before: timestamp(),
  at_or_after: timestamp().nullish(),
  count: integer('int32'),
  /** Extension, as for import updates: Scan always answers protobuf_json. */
  daml_value_encoding: DamlValueEncoding.meta({
    default: 'protobuf_json',
    description: 'Extension, as for import updates: the Scan app answers protobuf_json.',
  }).nullish(),
});

export const TransactionsPage = z.object({ transactions: z.array(UpdateHistoryItem) });
const EventsPage = z.object({ events: z.array(EventHistoryItem) });

/** `after_record_time` is parsed like Instant.parse; digits beyond microseconds are floored. */
export function historyCursor(after: z.infer<typeof Cursor> | null | undefined): HistoryCursor | undefined {
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
export async function confirmHistoryComplete(context: ApiContext): Promise<void> {
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
export const v2Item = (u: StoredUpdate) => withExternalHash(storedJson(u), u.externalTransactionHash);

/** A /v0/events item as the list serves it (the live stream sends the same bytes). */
export function eventJson(row: EventRow): string {
  return eventItemJson({
    update: row.update ? v2Item(row.update) : null,
    verdict: row.verdictJson,
    trafficSummary: row.trafficJson,
    appActivityRecords: row.appActivityJson,
  });
}

/** A page of the update history as /v2/updates reads it, each update rendered by `render` (v2, or the older v1 items). */
export async function updateHistoryPage(
  context: ApiContext,
  body: z.output<typeof HistoryRequest>,
  render: (u: StoredUpdate) => string,
): Promise<RawJson> {
  const { db } = context;
  const limit = pageLimit(body.page_size);
  const after = historyCursor(body.after);
  await confirmHistoryComplete(context);
  await refuseDroppedHistory(db, after?.recordTime);
  const found = await fullOrFromPrimary(limit, () => listUpdates(db, after, limit, body.daml_value_encoding ?? 'compact_json'));
  return new RawJson(jsonArrayObject('transactions', found.map(render)));
}

const HEX = /^(?:[0-9a-fA-F]{2})+$/;

const ok = (body: z.ZodType) => ({ '200': { description: 'OK', body } });
const encodingQuery = { query: EncodingQuery };
export const UpdateIdParams = z.object({ update_id: z.string() });

const updates = operation({
  method: 'post',
  path: '/v2/updates',
  summary: 'Update history in (migration_id, record_time) order.',
  request: { body: HistoryRequest },
  responses: { ...ok(TransactionsPage), ...scanErrors(400, 410, 500, 501, 503) },
  before: (context: ApiContext) => [heavyRequest(context, { pageSize: 'page_size' })],
  handle: async (context: ApiContext, { body }, _req, res) => {
    sendJson(res, await updateHistoryPage(context, body, v2Item));
  },
});

const updateByHash = operation({
  method: 'get',
  path: '/v2/updates/hash/{hash}',
  summary: 'S4: the transaction of an externally signed, prepared transaction hash.',
  request: { params: z.object({ hash: z.string() }), ...encodingQuery },
  responses: { ...ok(UpdateHistoryItem), ...scanErrors(400, 404, 500, 501) },
  handle: async ({ db }: ApiContext, { params, query }, _req, res) => {
    const encodingParam = query.daml_value_encoding ?? 'compact_json';
    const hash = params.hash;
    // Canton's HexString: non-hex (or empty) input names no transaction.
    const found = HEX.test(hash) ? await findTransactionByHash(db, hash.toLowerCase(), encodingParam) : undefined;
    if (!found) throw await notFoundInHistory(db, `Transaction with hash ${hash} not found`);
    // UpdateHistoryItemV2WithHash: the hash is required and always present.
    sendJson(res, new RawJson(withExternalHash(storedJson(found), found.externalTransactionHash)));
  },
});

const updateById = operation({
  method: 'get',
  path: '/v2/updates/{update_id}',
  summary: 'One update by id.',
  request: { params: UpdateIdParams, ...encodingQuery },
  responses: { ...ok(UpdateHistoryItem), ...scanErrors(400, 404, 500, 501) },
  handle: async ({ db }: ApiContext, { params, query }, _req, res) => {
    const updateId = params.update_id;
    const found = await findTransactionById(db, updateId, query.daml_value_encoding ?? 'compact_json');
    if (!found) throw await notFoundInHistory(db, `Transaction with id ${updateId} not found`);
    sendJson(res, new RawJson(v2Item(found)));
  },
});

const events = operation({
  method: 'post',
  path: '/v0/events',
  summary: 'Events (update, verdict, traffic summary, app activity) in (migration_id, record_time) order.',
  request: { body: HistoryRequest },
  responses: { ...ok(EventsPage), ...scanErrors(400, 410, 500, 501, 503) },
  before: (context: ApiContext) => [heavyRequest(context, { pageSize: 'page_size' })],
  handle: async (context: ApiContext, { body }, _req, res) => {
    const { db } = context;
    const limit = pageLimit(body.page_size);
    const after = historyCursor(body.after);
    await confirmHistoryComplete(context);
    await refuseDroppedHistory(db, after?.recordTime);
    const found = await fullOrFromPrimary(limit, () => listEvents(db, after, limit, body.daml_value_encoding ?? 'compact_json'));
    sendJson(res, new RawJson(jsonArrayObject('events', found.map(eventJson))));
  },
});

const LatestRecordTime = z.object({ record_time: dateTime('The record_time of the latest event.') });

const latestEvent = operation({
  method: 'get',
  path: '/v0/events/latest-record-time',
  summary:
    'The record time up to which /v0/events has every event of the newest migration (where it holds updates and verdicts, the older of their newest record times). 404 "No events found" when it has none.',
  responses: { ...ok(LatestRecordTime), ...scanErrors(404, 500) },
  handle: async ({ db }: ApiContext, _input, _req, res) => {
    const latest = await latestEventRecordTime(db);
    if (latest === undefined) throw notFound('No events found');
    sendJson(res, { record_time: formatDateTime(latest) } satisfies z.input<typeof LatestRecordTime>);
  },
});

const eventById = operation({
  method: 'get',
  path: '/v0/events/{update_id}',
  summary: 'S5: one event by update id.',
  request: { params: UpdateIdParams, ...encodingQuery },
  responses: { ...ok(EventHistoryItem), ...scanErrors(400, 404, 500, 501) },
  handle: async ({ db }: ApiContext, { params, query }, _req, res) => {
    const updateId = params.update_id;
    const event = await findEvent(db, updateId, query.daml_value_encoding ?? 'compact_json');
    if (!event) throw await notFoundInHistory(db, `Event with id ${updateId} not found`);
    sendJson(res, new RawJson(eventJson(event)));
  },
});

const importUpdates = operation({
  method: 'post',
  path: '/v0/backfilling/import-updates',
  summary: 'Import updates of a migration (the ACS carried over a hard migration), by update id; for mirrors.',
  request: { body: ImportUpdatesRequest },
  responses: { ...ok(TransactionsPage), ...scanErrors(400, 500, 501) },
  before: (context: ApiContext) => [heavyRequest(context, { pageSize: 'limit' })],
  handle: async ({ db }: ApiContext, { body }, _req, res) => {
    const limit = pageLimit(body.limit);
    // Import updates come first in a migration's stream: a replica holding any other update of it holds them all.
    needPosition({ kind: 'records', migrationId: body.migration_id, recordTime: IMPORT_RECORD_TIME + 1n });
    const found = await fullOrFromPrimary(limit, () =>
      listImportUpdates(db, body.migration_id, body.after_update_id, limit, body.daml_value_encoding ?? 'protobuf_json'),
    );
    // UpdateHistoryItem (v1): the constant offset; import updates carry no external hash.
    sendJson(
      res,
      new RawJson(
        jsonArrayObject(
          'transactions',
          found.map((u) => toV1Transaction(v2Item(u))),
        ),
      ),
    );
  },
});

const updatesBefore = operation({
  method: 'post',
  path: '/v0/backfilling/updates-before',
  summary:
    'Updates of one migration and synchronizer with a record time before `before` (and at or after `at_or_after`, which without it leaves out import updates), newest first; how a peer Scan backfills.',
  request: { body: UpdatesBeforeRequest },
  responses: { ...ok(TransactionsPage), ...scanErrors(400, 410, 500, 501) },
  before: (context: ApiContext) => [heavyRequest(context, { pageSize: 'count' })],
  handle: async ({ db }: ApiContext, { body }, _req, res) => {
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
    const found = await fullOrFromPrimary(limit, () => listUpdatesBefore(db, query, limit, body.daml_value_encoding ?? 'protobuf_json'));
    if (found.length === 0) await refuseDroppedHistory(db, query.atOrAfter);
    // UpdateHistoryItem (v1), as Scan encodes them for its peers: transactions get the constant offset.
    sendJson(
      res,
      new RawJson(
        jsonArrayObject(
          'transactions',
          found.map((u) => (u.kind === 'transaction' ? toV1Transaction(v2Item(u)) : v2Item(u))),
        ),
      ),
    );
  },
});

/** In the order a request walks them: /v0/events/latest-record-time before /v0/events/{update_id}, which would take it as an id. */
export const updateOperations: readonly OperationOf<ApiContext>[] = [
  updates,
  updateByHash,
  updateById,
  events,
  latestEvent,
  eventById,
  importUpdates,
  updatesBefore,
  ...bulkOperations,
];

export function updateRoutes(context: ApiContext): Router {
  return mountOperations(Router(), updateOperations, context);
}
