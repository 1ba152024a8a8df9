/**
 * The JSON Ledger API v2 operations, mounted at /v2: L1 transaction-by-id from
 * the indexed updates, L2 participant-id, and the version Canton clients check.
 * Every operation but /v2/version needs a bearer token (src/api/auth).
 */
import express, { Router } from 'express';
import type { z } from 'zod';
import type { Config } from '../../internal/config';
import { toJsReassignment } from '../../domain/ledger-reassignment';
import { toJsTransaction } from '../../domain/ledger-transaction';
import { findStoredReassignment, findStoredTransaction } from '../../store/ledger-repository';
import type { Db } from '../../store/pool';
import { acceptedOrFromPrimary } from '../../store/read-context';
import { authenticate, authModeFromConfig, principalOf } from '../auth/middleware';
import { AuthFailure, mayRead } from '../auth/verifier';
import type { ApiContext } from '../context';
import { mountOperations, operation, type OperationOf } from '../operation';
import { ledgerErrorHandler, ledgerErrors, ledgerNotFound, rejectAuth } from './errors';
import {
  JsCantonError,
  ParticipantIdResponse,
  TransactionByIdRequest,
  TransactionByIdResponse,
  UpdateByIdRequest,
  UpdateByIdResponse,
  VersionResponse,
} from './schemas';
import { checkUpdateId, decodeTransactionByIdBody, requestedReadRights, validateTransactionByIdBody } from './transaction-request';
import { decodeUpdateByIdBody, updateByIdReadRights, validateUpdateByIdBody } from './update-request';

/**
 * The version we answer as: Canton 3.4, the last line with transaction-by-id
 * as served here (`@canton-network/core-ledger-client` accepts 3.4 and 3.5).
 */
const LEDGER_API_VERSION = '3.4.12';

const VERSION_BODY = {
  version: LEDGER_API_VERSION,
  features: {
    experimental: { staticTime: { supported: false }, commandInspectionService: { supported: false } },
    userManagement: { supported: false, maxRightsPerUser: 0, maxUsersPageSize: 0 },
    partyManagement: { maxPartiesPageSize: 0 },
    offsetCheckpoint: { maxOffsetCheckpointEmissionDelay: { seconds: 0, nanos: 0, unknownFields: { fields: {} } } },
  },
} satisfies z.input<typeof VersionResponse>;

interface LedgerServices {
  config: Config;
  db: Db;
  /** Bearer-token authentication, refusing in the LedgerError shape. */
  auth: express.RequestHandler;
}

const ledgerError = (description: string) => ({ description, body: JsCantonError });

const version = operation({
  method: 'get',
  path: '/version',
  summary: 'The ledger API version and features, as Canton clients expect before other calls.',
  responses: { '200': { description: 'OK', body: VersionResponse }, default: ledgerError('A LedgerError.') },
  handle: (_services: LedgerServices, _input, _req, res) => {
    res.json(VERSION_BODY);
  },
});

const participantId = operation({
  method: 'get',
  path: '/parties/participant-id',
  summary: 'L2: the participant id (LEDGER_PARTICIPANT_ID).',
  bearerAuth: true,
  responses: {
    '200': { description: 'OK', body: ParticipantIdResponse },
    default: ledgerError('A LedgerError: 401 unauthenticated, 403 permission denied.'),
  },
  before: ({ auth }: LedgerServices) => [auth],
  handle: ({ config }: LedgerServices, _input, _req, res) => {
    res.json({ participantId: config.ledger.participantId } satisfies z.input<typeof ParticipantIdResponse>);
  },
});

const transactionById = operation({
  method: 'post',
  path: '/updates/transaction-by-id',
  summary: 'L1: a transaction by update id, filtered to what the requesting parties may see (deprecated in Canton 3.4).',
  deprecated: true,
  bearerAuth: true,
  // Canton checks read rights before the body's fields, and refuses a body that does not decode as text/plain.
  request: { body: TransactionByIdRequest, bodyParsedBy: 'handler' },
  responses: {
    '200': { description: 'OK', body: TransactionByIdResponse },
    '400': {
      description:
        'text/plain when the body does not decode (bad JSON, wrong types); a LedgerError (MISSING_FIELD, INVALID_FIELD, INVALID_ARGUMENT) when it decodes but is invalid.',
      body: JsCantonError,
      content: { 'text/plain': { schema: { type: 'string' } } },
    },
    default: ledgerError('A LedgerError: 401 unauthenticated, 403 permission denied, 404 UPDATE_NOT_FOUND.'),
  },
  before: ({ auth }: LedgerServices) => [auth, express.text({ type: () => true, limit: '1mb' })],
  handle: async ({ db }: LedgerServices, { body: text }, req, res) => {
    const body = decodeTransactionByIdBody(typeof text === 'string' ? text : '');
    if (!mayRead(principalOf(res), requestedReadRights(body))) {
      req.log?.warn({ status: 403, user: principalOf(res).user }, 'request refused: the user may not read as every requested party');
      rejectAuth(res, new AuthFailure(403, 'the user may not read as every requested party'));
      return;
    }
    const request = validateTransactionByIdBody(body);
    const updateId = checkUpdateId(request.updateId);
    // A replica that has not replayed the update yet must not answer UPDATE_NOT_FOUND: the primary decides.
    const stored = await acceptedOrFromPrimary(
      () => findStoredTransaction(db, updateId),
      (found) => found !== undefined,
      'not_found',
    );
    const transaction = stored && toJsTransaction(stored, request.format);
    if (!transaction) throw ledgerErrors.updateNotFound(request.updateId);
    res.json({ transaction } satisfies z.input<typeof TransactionByIdResponse>);
  },
});

const updateById = operation({
  method: 'post',
  path: '/updates/update-by-id',
  summary: "L1: an update by id in the given update format (Canton 3.4's replacement of transaction-by-id).",
  description:
    "Transactions are served from the indexed updates as transaction-by-id serves them. A reassignment asked for with includeReassignments is a JsReassignment with its one event (JsAssignmentEvent or JsUnassignedEvent), shown to the contract's stakeholders; what Scan does not record (commandId, workflowId, assignmentExclusivity) is left unset. Topology transactions are not in Scan history: asked for alone, any id is UPDATE_NOT_FOUND.",
  bearerAuth: true,
  // As transaction-by-id: rights before the body's fields, text/plain for a body that does not decode.
  request: { body: UpdateByIdRequest, bodyParsedBy: 'handler' },
  responses: {
    '200': { description: 'OK', body: UpdateByIdResponse },
    '400': {
      description:
        'text/plain when the body does not decode (bad JSON, wrong types); a LedgerError (MISSING_FIELD, INVALID_FIELD, INVALID_ARGUMENT) when it decodes but is invalid.',
      body: JsCantonError,
      content: { 'text/plain': { schema: { type: 'string' } } },
    },
    default: ledgerError('A LedgerError: 401 unauthenticated, 403 permission denied, 404 UPDATE_NOT_FOUND.'),
  },
  before: ({ auth }: LedgerServices) => [auth, express.text({ type: () => true, limit: '1mb' })],
  handle: async ({ db }: LedgerServices, { body: text }, req, res) => {
    const body = decodeUpdateByIdBody(typeof text === 'string' ? text : '');
    if (!mayRead(principalOf(res), updateByIdReadRights(body))) {
      req.log?.warn({ status: 403, user: principalOf(res).user }, 'request refused: the user may not read as every requested party');
      rejectAuth(res, new AuthFailure(403, 'the user may not read as every requested party'));
      return;
    }
    const request = validateUpdateByIdBody(body);
    const { transactions, reassignments } = request;
    if (transactions) {
      const stored = await acceptedOrFromPrimary(
        () => findStoredTransaction(db, request.updateId),
        (found) => found !== undefined,
        'not_found',
      );
      const transaction = stored && toJsTransaction(stored, transactions);
      if (transaction) {
        res.json({ update: { Transaction: { value: transaction } } } satisfies z.input<typeof UpdateByIdResponse>);
        return;
      }
    }
    if (reassignments) {
      const stored = await acceptedOrFromPrimary(
        () => findStoredReassignment(db, request.updateId),
        (found) => found !== undefined,
        'not_found',
      );
      const reassignment = stored && toJsReassignment(stored, reassignments);
      if (reassignment) {
        res.json({ update: { Reassignment: { value: reassignment } } } satisfies z.input<typeof UpdateByIdResponse>);
        return;
      }
    }
    throw ledgerErrors.updateNotFound(body.updateId ?? request.updateId);
  },
});

export const ledgerOperations: readonly OperationOf<LedgerServices>[] = [version, participantId, transactionById, updateById];

export function ledgerRouter({ config, db }: ApiContext): Router {
  const router = Router();
  const auth = authenticate(authModeFromConfig(config), { reject: rejectAuth });
  mountOperations(router, ledgerOperations, { config, db, auth });
  router.use(ledgerNotFound);
  router.use(ledgerErrorHandler(config.ledger.participantId));
  return router;
}
