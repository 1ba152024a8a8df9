/**
 * The validator scan-proxy, mounted at /api/validator (Splice
 * scan-proxy.yaml, HttpScanProxyHandler; docs/interfaces.md, "Validator scan-proxy"). A validator answers these from its BFT
 * connection to the SVs' scans; we answer them from our own ACS, in the
 * shapes the validator serves.
 *
 * Authentication: the validator requires a user token. The verifier is passed
 * in as `auth` and runs before every route; without it the routes are open.
 */
import express, { Router, type RequestHandler } from 'express';
import { ansEntryJson, contractJson, contractWithStateJson, maybeCachedContractJson } from '../../domain/contract-json';
import { notFound } from '../../internal/errors';
import type { ApiContext } from '../context';
import { sendJsonBytes } from '../answer-cache';
import { sendJson } from '../json-response';
import { pageLimit } from '../page-limit';
import { rejectNulCharacters } from '../nul-guard';
import { parseInput } from '../validation';
import { hotAnswers } from '../scan/hot-answers';
import {
  ansEntryByName,
  ansEntryByParty,
  featuredAppRight,
  listAnsEntries,
  requestParty,
  transferCommandCounterBody,
  TransferCommandStatusQuery,
  transferCommandStatusBody,
  transferPreapprovalBody,
  unclaimedDevelopmentFundCouponsBody,
} from '../scan/current-state';
import { holdingsSummaryV0, holdingsSummaryV1, SUMMARY_COST } from '../scan/holdings-routes';
import { heavyRequest } from '../fair-access/heavy-requests';
import { registryRouter } from '../registry/router';
import { AnsEntriesQuery, dsoInfoJson } from '../scan/state-routes';

export interface ValidatorRouterOptions {
  /** Verifies the caller (a validator user token); runs before every validator route. */
  auth?: RequestHandler;
}

export function validatorRouter(context: ApiContext, options: ValidatorRouterOptions = {}): Router {
  const { db, config } = context;
  const hot = hotAnswers(context);
  const router = Router();
  // Authentication first: a caller without a token learns nothing from how its body parses.
  if (options.auth) router.use(options.auth);
  router.use(express.json({ limit: '1mb' }));
  router.use(rejectNulCharacters);

  router.get('/v0/scan-proxy/dso-party-id', async (_req, res) => {
    const answer = await hot.dsoPartyId();
    if (answer.value === null) throw notFound('No DSO party is known yet: no DsoRules contract has been ingested.');
    sendJsonBytes(
      res,
      answer.bytes('dso-party-id', (id) => ({ dso_party_id: id })),
    );
  });

  // Forwarded as the Scan app answers it.
  router.get('/v0/scan-proxy/dso', async (_req, res) => {
    sendJsonBytes(res, (await hot.dsoInfo()).bytes('dso', dsoInfoJson));
  });

  router.get('/v0/scan-proxy/featured-apps/:provider_party_id', async (req, res) => {
    const right = await featuredAppRight(db, requestParty(req.params.provider_party_id));
    sendJson(res, { featured_app_right: right ? contractJson(right) : null });
  });

  // V1: plain arrays sorted by round number (GetSortedOpenAndIssuingMiningRounds), no TTL, no cached entries.
  router.get('/v0/scan-proxy/open-and-issuing-mining-rounds', async (_req, res) => {
    const answer = await hot.miningRounds();
    sendJsonBytes(
      res,
      answer.bytes('proxy', (rounds) => ({
        open_mining_rounds: rounds.open.map(contractWithStateJson),
        issuing_mining_rounds: rounds.issuing.map(contractWithStateJson),
      })),
    );
  });

  // A GET, and always the whole contract (the proxy caches the rules itself).
  router.get('/v0/scan-proxy/amulet-rules', async (_req, res) => {
    sendJsonBytes(
      res,
      (await hot.amuletRules()).bytes('proxy', (rules) => ({ amulet_rules: contractWithStateJson(rules) })),
    );
  });

  // The proxy ignores the client's cached id and always sends the contract (Scan's whole form).
  router.post('/v0/scan-proxy/ans-rules', async (_req, res) => {
    sendJsonBytes(
      res,
      (await hot.ansRules()).bytes('whole', (rules) => ({ ans_rules_update: maybeCachedContractJson(rules, null) })),
    );
  });

  // V2: unexpired AnsEntry contracts by name, then (if the page is not full) the
  // entries the DSO provides for itself and the SVs, with the same prefix.
  router.get('/v0/scan-proxy/ans-entries', async (req, res) => {
    const query = parseInput(AnsEntriesQuery, req.query, 'query');
    const entries = await listAnsEntries(db, config, query.name_prefix ?? '', pageLimit(query.page_size));
    sendJson(res, { entries: entries.map(ansEntryJson) });
  });

  // The validator's own 404 messages (it maps Scan's 404 to "none").
  router.get('/v0/scan-proxy/ans-entries/by-party/:party', async (req, res) => {
    const party = requestParty(req.params.party);
    const entry = await ansEntryByParty(db, config, party);
    if (!entry) throw notFound(`Party ${party} does not have any ANSEntry.`);
    sendJson(res, { entry: ansEntryJson(entry) });
  });

  router.get('/v0/scan-proxy/ans-entries/by-name/:name', async (req, res) => {
    const entry = await ansEntryByName(db, config, req.params.name);
    if (!entry) throw notFound(`Did not find a AnsEntry with name ${req.params.name}`);
    sendJson(res, { entry: ansEntryJson(entry) });
  });

  // Forwarded as the Scan app answers them, 404 messages included.
  router.get('/v0/scan-proxy/transfer-preapprovals/by-party/:party', async (req, res) => {
    sendJson(res, await transferPreapprovalBody(db, req.params.party));
  });

  router.get('/v0/scan-proxy/transfer-command-counter/:party', async (req, res) => {
    sendJson(res, await transferCommandCounterBody(db, req.params.party));
  });

  router.get('/v0/scan-proxy/transfer-command/status', async (req, res) => {
    sendJson(res, await transferCommandStatusBody(db, parseInput(TransferCommandStatusQuery, req.query, 'query')));
  });

  router.get('/v0/scan-proxy/unclaimed-development-fund-coupons', async (_req, res) => {
    sendJson(res, await unclaimedDevelopmentFundCouponsBody(db));
  });

  const heavySummary = heavyRequest(context, SUMMARY_COST);
  router.post('/v0/scan-proxy/holdings/summary', heavySummary, holdingsSummaryV0(db));
  router.post('/v1/scan-proxy/holdings/summary', heavySummary, holdingsSummaryV1(db));
  // The registry, as the validator proxies the Scan's /registry (behind the same authentication).
  router.use('/v0/scan-proxy/registry', registryRouter(context));

  return router;
}
