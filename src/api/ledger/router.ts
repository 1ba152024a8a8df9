/**
 * The JSON Ledger API v2 operations, mounted at /v2: L1 transaction-by-id from
 * the indexed updates, L2 participant-id, and the version Canton clients check.
 * Every operation but /v2/version needs a bearer token (src/api/auth).
 */
import express, { Router } from 'express';
import { toJsTransaction } from '../../domain/ledger-transaction';
import { findStoredTransaction } from '../../store/ledger-repository';
import { acceptedOrFromPrimary } from '../../store/read-context';
import { authenticate, authModeFromConfig, principalOf } from '../auth/middleware';
import { AuthFailure, mayRead } from '../auth/verifier';
import type { ApiContext } from '../context';
import { ledgerErrorHandler, ledgerErrors, ledgerNotFound, rejectAuth } from './errors';
import { checkUpdateId, decodeTransactionByIdBody, requestedReadRights, validateTransactionByIdBody } from './transaction-request';

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
};

export function ledgerRouter({ config, db }: ApiContext): Router {
  const router = Router();
  const auth = authenticate(authModeFromConfig(config), { reject: rejectAuth });

  router.get('/version', (_req, res) => {
    res.json(VERSION_BODY);
  });

  router.get('/parties/participant-id', auth, (_req, res) => {
    res.json({ participantId: config.ledger.participantId });
  });

  router.post('/updates/transaction-by-id', auth, express.text({ type: () => true, limit: '1mb' }), async (req, res) => {
    const body = decodeTransactionByIdBody(typeof req.body === 'string' ? req.body : '');
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
    res.json({ transaction });
  });

  router.use(ledgerNotFound);
  router.use(ledgerErrorHandler(config.ledger.participantId));
  return router;
}
