/**
 * The deprecated update-history operations older clients still call (scan.yaml, tag `deprecated`):
 *       POST /v1/updates, GET /v1/updates/{update_id}
 *       POST /v0/updates, GET /v0/updates/{update_id}
 *
 * v1 is v2 with the v1 item shape (HttpScanHandler: the same reads, `ScanHttpEncodings.V1`): a
 * transaction carries the constant offset "000000000000000001" before `root_event_ids`; a
 * reassignment is the same item in both. v0 renders each transaction as the SV's participant saw it
 * (its local offset and `#`-prefixed event ids, `ScanHttpEncodings.V0`), which no v1 or v2 answer
 * carries, so this indexer cannot know it: those two answer 501 for what they would return.
 *       GET  /v0/acs/{party}                       (501: a participant's ACS export)
 */
import { Router } from 'express';
import { z } from 'zod';
import { RawJson } from '../../domain/raw-json';
import { toV1Transaction } from '../../domain/update-rendering';
import { HttpError } from '../../internal/errors';
import { findTransactionById, type StoredUpdate } from '../../store/update-repository';
import type { ApiContext } from '../context';
import { heavyRequest } from '../fair-access/heavy-requests';
import { notFoundInHistory } from '../history-start';
import { sendJson } from '../json-response';
import { mountOperations, operation, type OperationOf } from '../operation';
import { pageLimit } from '../page-limit';
import { ErrorResponse } from '../schema-kit';
import { requestParty } from './current-state';
import { scanErrors } from './error-answers';
import { int64, requestTimestamp } from './params';
import { UpdateHistoryItem } from './schemas';
import {
  confirmHistoryComplete,
  EncodingQuery,
  historyCursor,
  HistoryRequest,
  TransactionsPage,
  UpdateIdParams,
  updateHistoryPage,
  v2Item,
} from './update-routes';

/** The v1 item (UpdateHistoryItem): transactions with the constant offset, reassignments as in v2. */
const v1Item = (u: StoredUpdate) => (u.kind === 'transaction' ? toV1Transaction(v2Item(u)) : v2Item(u));

const V0_UNKNOWN =
  "this indexer ingests the Scan app's cross-SV consistent history, which does not carry the SV participant's local offsets and event ids that v0 items are made of";

const v0NotImplemented = {
  '501': {
    description: 'Always for what exists: v0 items carry the SV participant’s local offsets and event ids, which this indexer cannot know.',
    body: ErrorResponse,
  },
};

const ok = (body: z.ZodType) => ({ '200': { description: 'OK', body } });

/** UpdateHistoryRequest: v0 chose the encoding with `lossless` (true: protobuf_json). */
const V0HistoryRequest = z.object({
  after: HistoryRequest.shape.after,
  page_size: int64.meta({ type: 'integer', format: 'int32' }),
  lossless: z.boolean({ error: 'expected a boolean' }).nullish(),
});

const LosslessQuery = z.object({
  lossless: z
    .enum(['true', 'false'], { error: 'expected true or false' })
    .optional()
    .describe('true for protobuf_json, else compact_json.'),
});

const updatesV1 = operation({
  method: 'post',
  path: '/v1/updates',
  summary: 'Deprecated (use /v2/updates): update history in (migration_id, record_time) order, as v1 items.',
  deprecated: true,
  request: { body: HistoryRequest },
  responses: { ...ok(TransactionsPage), ...scanErrors(400, 410, 500, 501, 503) },
  before: (context: ApiContext) => [heavyRequest(context, { pageSize: 'page_size' })],
  handle: async (context: ApiContext, { body }, _req, res) => {
    sendJson(res, await updateHistoryPage(context, body, v1Item));
  },
});

const updateByIdV1 = operation({
  method: 'get',
  path: '/v1/updates/{update_id}',
  summary: 'Deprecated (use /v2/updates/{update_id}): one transaction by id, as a v1 item.',
  deprecated: true,
  request: { params: UpdateIdParams, query: EncodingQuery },
  responses: { ...ok(UpdateHistoryItem), ...scanErrors(400, 404, 500, 501) },
  handle: async ({ db }: ApiContext, { params, query }, _req, res) => {
    const updateId = params.update_id;
    const found = await findTransactionById(db, updateId, query.daml_value_encoding ?? 'compact_json');
    if (!found) throw await notFoundInHistory(db, `Transaction with id ${updateId} not found`);
    sendJson(res, new RawJson(v1Item(found)));
  },
});

const updatesV0 = operation({
  method: 'post',
  path: '/v0/updates',
  summary: 'Deprecated (use /v2/updates): update history with import updates, as the SV participant saw it. 501 here.',
  deprecated: true,
  request: { body: V0HistoryRequest },
  responses: { ...ok(TransactionsPage), ...scanErrors(400, 500, 503), ...v0NotImplemented },
  handle: async (context: ApiContext, { body }) => {
    pageLimit(body.page_size);
    historyCursor(body.after);
    await confirmHistoryComplete(context);
    throw new HttpError(501, `POST /v0/updates is not available: ${V0_UNKNOWN}. Use POST /v2/updates.`);
  },
});

const updateByIdV0 = operation({
  method: 'get',
  path: '/v0/updates/{update_id}',
  summary:
    'Deprecated (use /v2/updates/{update_id}): one transaction as the SV participant saw it. 404 for an id not in the history, else 501.',
  deprecated: true,
  request: { params: UpdateIdParams, query: LosslessQuery },
  responses: { ...ok(UpdateHistoryItem), ...scanErrors(400, 404, 500), ...v0NotImplemented },
  handle: async ({ db }: ApiContext, { params, query }) => {
    const updateId = params.update_id;
    const found = await findTransactionById(db, updateId, query.lossless === 'true' ? 'protobuf_json' : 'compact_json');
    if (!found) throw await notFoundInHistory(db, `Transaction with id ${updateId} not found`);
    throw new HttpError(501, `The v0 rendering of transaction ${updateId} is not available: ${V0_UNKNOWN}. Use /v2/updates/${updateId}.`);
  },
});

const AcsSnapshotParams = z.object({ party: z.string() });
const AcsSnapshotQuery = z.object({
  record_time: z.string({ error: 'expected a string' }).optional().meta({ format: 'date-time' }).describe('The snapshot time.'),
});

const acsSnapshotOfParty = operation({
  method: 'get',
  path: '/v0/acs/{party}',
  summary:
    "The party's contracts, as the SV participant's gzipped ACS export (Canton's ActiveContract protobuf), for a validator's disaster recovery. 501 here.",
  request: { params: AcsSnapshotParams, query: AcsSnapshotQuery },
  responses: {
    ...scanErrors(400, 500),
    '501': {
      description: 'Always for a valid request: the export is made by the SV participant’s admin API, which this indexer does not have.',
      body: ErrorResponse,
    },
  },
  handle: (_context: ApiContext, { params, query }) => {
    const party = requestParty(params.party);
    if (query.record_time !== undefined) requestTimestamp(query.record_time);
    throw new HttpError(
      501,
      `The ACS snapshot of ${party} is not available: it is an export of the SV participant's ACS (Canton's ActiveContract protobuf, from the participant's admin API), which this indexer does not have.`,
    );
  },
});

export const legacyHistoryOperations: readonly OperationOf<ApiContext>[] = [
  updatesV1,
  updateByIdV1,
  updatesV0,
  updateByIdV0,
  acsSnapshotOfParty,
];

export function legacyHistoryRoutes(context: ApiContext): Router {
  return mountOperations(Router(), legacyHistoryOperations, context);
}
