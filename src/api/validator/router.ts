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
import { z } from 'zod';
import { ansEntryJson, contractJson, contractWithStateJson, maybeCachedContractJson } from '../../domain/contract-json';
import type { Config } from '../../internal/config';
import { notFound } from '../../internal/errors';
import type { ApiContext } from '../context';
import { sendJsonBytes } from '../answer-cache';
import { sendJson } from '../json-response';
import { mountOperations, operation, type AnyOperation, type OperationOf, type ResponseDeclaration } from '../operation';
import { pageLimit } from '../page-limit';
import { rejectNulCharacters } from '../nul-guard';
import { ErrorResponse, jsonObject, str } from '../schema-kit';
import { hotAnswers, type HotAnswers } from '../scan/hot-answers';
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
import { holdingsSummaryV0, holdingsSummaryV1, SUMMARY_COST, type SummaryServices } from '../scan/holdings-routes';
import {
  AnsEntry,
  Contract,
  ContractWithState,
  GetDsoInfoResponse,
  LookupTransferCommandStatusResponse,
  MaybeCachedContractWithState,
} from '../scan/schemas';
import { heavyRequest } from '../fair-access/heavy-requests';
import { registryOperations, registryRouter } from '../registry/router';
import { AnsEntriesQuery, dsoInfoJson } from '../scan/state-routes';

export interface ValidatorRouterOptions {
  /** Verifies the caller (a validator user token); runs before every validator route. */
  auth?: RequestHandler;
}

interface ValidatorServices extends SummaryServices {
  config: Config;
  hot: HotAnswers;
}

/** The answer of every operation here when a verifier is configured and the token is missing or invalid (auth.ts). */
const unauthorized: ResponseDeclaration = {
  description: 'Missing or invalid token, when a verifier is configured (plain text, with a WWW-Authenticate: Bearer challenge).',
  content: { 'text/plain': { schema: { type: 'string' } } },
};
const clientMistake: ResponseDeclaration = { description: 'A client mistake.', body: ErrorResponse };
const notFoundAnswer: ResponseDeclaration = { description: 'Not found.', body: ErrorResponse };
const ok = (body: z.ZodType): ResponseDeclaration => ({ description: 'OK', body });

/** An operation as the proxy serves it: behind its authentication, which may answer 401. */
function behindAuth<S>(declaration: OperationOf<S>): OperationOf<S> {
  return { ...declaration, bearerAuth: true, responses: { ...declaration.responses, '401': unauthorized } };
}

/** The registry's operations as the proxy serves them at /v0/scan-proxy/registry, behind the same authentication. */
export const proxiedRegistryOperations: readonly AnyOperation[] = registryOperations.map(behindAuth);

const AnsEntriesProxyQuery = AnsEntriesQuery.extend({
  page_size: AnsEntriesQuery.shape.page_size.meta({ type: 'integer', format: 'int32', pattern: undefined }),
});
const TransferCommandStatusProxyQuery = TransferCommandStatusQuery.extend({
  nonce: TransferCommandStatusQuery.shape.nonce.meta({ type: 'integer', format: 'int64', pattern: undefined }),
});

const FeaturedAppRightResponse = z.object({ featured_app_right: Contract.nullable() });
const AnsEntryResponse = z.object({ entry: AnsEntry });

export const validatorOperations: readonly OperationOf<ValidatorServices>[] = [
  operation({
    method: 'get',
    path: '/v0/scan-proxy/dso-party-id',
    summary: 'The DSO party.',
    responses: { '200': ok(z.object({ dso_party_id: str() })), '404': notFoundAnswer },
    handle: async ({ hot }: ValidatorServices, _input, _req, res) => {
      const answer = await hot.dsoPartyId();
      if (answer.value === null) throw notFound('No DSO party is known yet: no DsoRules contract has been ingested.');
      sendJsonBytes(
        res,
        answer.bytes('dso-party-id', (id) => ({ dso_party_id: id })),
      );
    },
  }),

  // Forwarded as the Scan app answers it.
  operation({
    method: 'get',
    path: '/v0/scan-proxy/dso',
    summary: "The Scan app's GET /v0/dso.",
    responses: { '200': ok(GetDsoInfoResponse), '404': notFoundAnswer },
    handle: async ({ hot }: ValidatorServices, _input, _req, res) => {
      sendJsonBytes(res, (await hot.dsoInfo()).bytes('dso', dsoInfoJson));
    },
  }),

  operation({
    method: 'get',
    path: '/v0/scan-proxy/featured-apps/{provider_party_id}',
    summary: "A provider's FeaturedAppRight, or null.",
    responses: { '200': ok(FeaturedAppRightResponse), '400': clientMistake },
    handle: async ({ db }: ValidatorServices, { params }, _req, res) => {
      const right = await featuredAppRight(db, requestParty(params.provider_party_id!));
      sendJson(res, { featured_app_right: right ? contractJson(right) : null });
    },
  }),

  // V1: plain arrays sorted by round number (GetSortedOpenAndIssuingMiningRounds), no TTL, no cached entries.
  operation({
    method: 'get',
    path: '/v0/scan-proxy/open-and-issuing-mining-rounds',
    summary: 'V1: open and issuing mining rounds, by round number.',
    responses: {
      '200': ok(z.object({ open_mining_rounds: z.array(ContractWithState), issuing_mining_rounds: z.array(ContractWithState) })),
    },
    handle: async ({ hot }: ValidatorServices, _input, _req, res) => {
      const answer = await hot.miningRounds();
      sendJsonBytes(
        res,
        answer.bytes('proxy', (rounds) => ({
          open_mining_rounds: rounds.open.map(contractWithStateJson),
          issuing_mining_rounds: rounds.issuing.map(contractWithStateJson),
        })),
      );
    },
  }),

  // A GET, and always the whole contract (the proxy caches the rules itself).
  operation({
    method: 'get',
    path: '/v0/scan-proxy/amulet-rules',
    summary: 'The live AmuletRules, always whole.',
    responses: { '200': ok(z.object({ amulet_rules: ContractWithState })) },
    handle: async ({ hot }: ValidatorServices, _input, _req, res) => {
      sendJsonBytes(
        res,
        (await hot.amuletRules()).bytes('proxy', (rules) => ({ amulet_rules: contractWithStateJson(rules) })),
      );
    },
  }),

  // The proxy ignores the client's cached id and always sends the contract (Scan's whole form); the body is not read.
  operation({
    method: 'post',
    path: '/v0/scan-proxy/ans-rules',
    summary: 'The live AnsRules, always whole (the cached id is ignored).',
    request: { body: jsonObject(), bodyParsedBy: 'handler' },
    responses: { '200': ok(z.object({ ans_rules_update: MaybeCachedContractWithState })) },
    handle: async ({ hot }: ValidatorServices, _input, _req, res) => {
      sendJsonBytes(
        res,
        (await hot.ansRules()).bytes('whole', (rules) => ({ ans_rules_update: maybeCachedContractJson(rules, null) })),
      );
    },
  }),

  // V2: unexpired AnsEntry contracts by name, then (if the page is not full) the
  // entries the DSO provides for itself and the SVs, with the same prefix.
  operation({
    method: 'get',
    path: '/v0/scan-proxy/ans-entries',
    summary: 'V2: ANS entries by name (expired ones excluded), then the DSO-provided entries when the page is not full.',
    request: { query: AnsEntriesProxyQuery },
    responses: { '200': ok(z.object({ entries: z.array(AnsEntry) })), '400': clientMistake },
    handle: async ({ db, config }: ValidatorServices, { query }, _req, res) => {
      const entries = await listAnsEntries(db, config, query.name_prefix ?? '', pageLimit(query.page_size));
      sendJson(res, { entries: entries.map(ansEntryJson) });
    },
  }),

  // The validator's own 404 messages (it maps Scan's 404 to "none").
  operation({
    method: 'get',
    path: '/v0/scan-proxy/ans-entries/by-party/{party}',
    summary: 'The first ANS entry of a party.',
    responses: { '200': ok(AnsEntryResponse), '400': clientMistake, '404': notFoundAnswer },
    handle: async ({ db, config }: ValidatorServices, { params }, _req, res) => {
      const party = requestParty(params.party!);
      const entry = await ansEntryByParty(db, config, party);
      if (!entry) throw notFound(`Party ${party} does not have any ANSEntry.`);
      sendJson(res, { entry: ansEntryJson(entry) });
    },
  }),

  operation({
    method: 'get',
    path: '/v0/scan-proxy/ans-entries/by-name/{name}',
    summary: 'The ANS entry of a name.',
    responses: { '200': ok(AnsEntryResponse), '404': notFoundAnswer },
    handle: async ({ db, config }: ValidatorServices, { params }, _req, res) => {
      const name = params.name!;
      const entry = await ansEntryByName(db, config, name);
      if (!entry) throw notFound(`Did not find a AnsEntry with name ${name}`);
      sendJson(res, { entry: ansEntryJson(entry) });
    },
  }),

  // Forwarded as the Scan app answers them, 404 messages included.
  operation({
    method: 'get',
    path: '/v0/scan-proxy/transfer-preapprovals/by-party/{party}',
    summary: "The receiver's live TransferPreapproval.",
    responses: { '200': ok(z.object({ transfer_preapproval: ContractWithState })), '400': clientMistake, '404': notFoundAnswer },
    handle: async ({ db }: ValidatorServices, { params }, _req, res) => {
      sendJson(res, await transferPreapprovalBody(db, params.party!));
    },
  }),

  operation({
    method: 'get',
    path: '/v0/scan-proxy/transfer-command-counter/{party}',
    summary: "The sender's live TransferCommandCounter (404: use 0 for the nonce).",
    responses: { '200': ok(z.object({ transfer_command_counter: ContractWithState })), '400': clientMistake, '404': notFoundAnswer },
    handle: async ({ db }: ValidatorServices, { params }, _req, res) => {
      sendJson(res, await transferCommandCounterBody(db, params.party!));
    },
  }),

  operation({
    method: 'get',
    path: '/v0/scan-proxy/transfer-command/status',
    summary: "The status of the sender's TransferCommands with this nonce, as Scan answers it.",
    request: { query: TransferCommandStatusProxyQuery },
    responses: { '200': ok(LookupTransferCommandStatusResponse), '400': clientMistake, '404': notFoundAnswer },
    handle: async ({ db }: ValidatorServices, { query }, _req, res) => {
      sendJson(res, await transferCommandStatusBody(db, query));
    },
  }),

  operation({
    method: 'get',
    path: '/v0/scan-proxy/unclaimed-development-fund-coupons',
    summary: 'The live UnclaimedDevelopmentFundCoupons.',
    responses: { '200': ok(z.object({ 'unclaimed-development-fund-coupons': z.array(ContractWithState) })) },
    handle: async ({ db }: ValidatorServices, _input, _req, res) => {
      sendJson(res, await unclaimedDevelopmentFundCouponsBody(db));
    },
  }),

  { ...holdingsSummaryV0, path: '/v0/scan-proxy/holdings/summary', summary: "The Scan's /v0/holdings/summary, forwarded." },
  { ...holdingsSummaryV1, path: '/v1/scan-proxy/holdings/summary', summary: "The Scan's /v1/holdings/summary, forwarded." },
].map(behindAuth);

export function validatorRouter(context: ApiContext, options: ValidatorRouterOptions = {}): Router {
  const { db, config } = context;
  const router = Router();
  // Authentication first: a caller without a token learns nothing from how its body parses.
  if (options.auth) router.use(options.auth);
  router.use(express.json({ limit: '1mb' }));
  router.use(rejectNulCharacters);
  const services: ValidatorServices = { db, config, hot: hotAnswers(context), heavySummary: heavyRequest(context, SUMMARY_COST) };
  mountOperations(router, validatorOperations, services);
  // The registry, as the validator proxies the Scan's /registry (behind the same authentication).
  router.use('/v0/scan-proxy/registry', registryRouter(context));
  return router;
}
