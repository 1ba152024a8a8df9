/**
 * The current state validators and wallets read first (Splice scan.yaml):
 *   POST /v0/amulet-rules, /v0/external-party-amulet-rules, /v0/ans-rules
 *   POST /v0/open-and-issuing-mining-rounds
 *   GET  /v0/dso
 *   GET  /v0/ans-entries, /v0/ans-entries/by-party/{party}, /v0/ans-entries/by-name/{name}
 *   GET  /v0/featured-apps, /v0/featured-apps/{provider_party_id}
 *   GET  /v0/transfer-preapprovals/by-party/{party}, /v0/transfer-command-counter/{party}
 *   GET  /v0/transfer-command/status                (the latest event of each command, from the history)
 *   GET  /v0/unclaimed-development-fund-coupons
 *   GET  /v0/admin/validator/licenses             (paged by ingestion number, as Scan by event number)
 *   GET  /v0/validators/validator-faucets         (from the licenses of the named validators)
 * A rules request naming the contract the client has cached gets `contract: null`.
 */
import { Router } from 'express';
import { z } from 'zod';
import {
  ansEntryJson,
  contractJson,
  contractWithStateJson,
  maybeCachedContractJson,
  type StoredContract,
} from '../../domain/contract-json';
import type { JsonBody } from '../../domain/raw-json';
import { badRequest, notFound } from '../../internal/errors';
import type { ApiContext } from '../context';
import { sendJsonBytes } from '../answer-cache';
import { sendJson } from '../json-response';
import { MAX_PAGE_SIZE, pageLimit } from '../page-limit';
import { SPLICE } from '../../domain/splice-contracts';
import { RawJson } from '../../domain/raw-json';
import { listLiveContractsOfParties, pageLiveContracts, payloadOf } from '../../store/contract-repository';
import { validatorReceivedFaucets } from '../../domain/validator-faucets';
import { parseInput } from '../validation';
import { queryInteger } from './params';
import { hotAnswers } from './hot-answers';
import {
  ansEntryByName,
  ansEntryByParty,
  featuredAppRight,
  featuredApps,
  listAnsEntries,
  requestParty,
  transferCommandCounterBody,
  TransferCommandStatusQuery,
  transferCommandStatusBody,
  transferPreapprovalBody,
  unclaimedDevelopmentFundCouponsBody,
  type DsoInfo,
  type MiningRounds,
} from './current-state';

const contractId = z.string({ error: 'expected a contract id string' });
/** One party id per `validator_ids` parameter (repeated for several). */
const FaucetsQuery = z.object({
  validator_ids: z.preprocess(
    (v) => (typeof v === 'string' ? [v] : v),
    z.array(z.string({ error: 'expected a party id' }), { error: 'expected party ids' }),
  ),
});
const nullable = <T extends z.ZodType>(t: T) => t.nullish();

const AmuletRulesRequest = z.object({
  cached_amulet_rules_contract_id: nullable(contractId),
  cached_amulet_rules_domain_id: nullable(z.string()),
});
const ExternalRulesRequest = z.object({
  cached_external_party_amulet_rules_contract_id: nullable(contractId),
  cached_external_party_amulet_rules_domain_id: nullable(z.string()),
});
const AnsRulesRequest = z.object({ cached_ans_rules_contract_id: nullable(contractId), cached_ans_rules_domain_id: nullable(z.string()) });
const RoundsRequest = z.object({
  cached_open_mining_round_contract_ids: z.array(contractId, { error: 'expected an array of contract ids' }),
  cached_issuing_round_contract_ids: z.array(contractId, { error: 'expected an array of contract ids' }),
});

const MAX_CACHED_IDS = 1000;

const LicensesQuery = z.object({
  after: queryInteger('an integer page token').optional(),
  limit: queryInteger('an integer').transform(Number).optional(),
});

/** Scan bounds the prefix as a String2066 (the longest template id). */
const MAX_NAME_PREFIX_LENGTH = 2066;

export const AnsEntriesQuery = z.object({
  name_prefix: z
    .string({ error: 'expected a single string' })
    .max(MAX_NAME_PREFIX_LENGTH, { error: `at most ${MAX_NAME_PREFIX_LENGTH} characters are allowed` })
    .optional(),
  page_size: z
    .string({ error: 'expected a single integer' })
    .regex(/^[+-]?\d+$/, { error: 'expected an integer' })
    .transform(Number)
    .refine((n) => n >= -(2 ** 31) && n < 2 ** 31, { error: 'expected a 32-bit integer' }),
});

/** GetDsoInfoResponse, keys in the order of the Scan app's encoder. */
export function dsoInfoJson(info: DsoInfo): JsonBody {
  return {
    sv_user: info.svUser,
    sv_party_id: info.svPartyId,
    dso_party_id: info.dsoPartyId,
    voting_threshold: info.votingThreshold,
    latest_mining_round: contractWithStateJson(info.latestMiningRound),
    amulet_rules: contractWithStateJson(info.amuletRules),
    dso_rules: contractWithStateJson(info.dsoRules),
    sv_node_states: info.svNodeStates.map(contractWithStateJson),
    initial_round: info.initialRound,
  };
}

/** The form of a rules answer: whole, or without the contract when the client has it cached. */
const rulesForm = (rules: StoredContract, cachedId: string | null | undefined) => (rules.contractId === cachedId ? 'cached' : 'whole');

/**
 * The rounds answer's form: which live rounds the client has cached (a flag per round, in order),
 * which is all the answer takes from the request.
 */
const roundsForm = (rounds: MiningRounds, cachedOpen: Set<string>, cachedIssuing: Set<string>) =>
  `${rounds.open.map((c) => (cachedOpen.has(c.contractId) ? '1' : '0')).join('')}/${rounds.issuing
    .map((c) => (cachedIssuing.has(c.contractId) ? '1' : '0'))
    .join('')}`;

export function stateRoutes(context: ApiContext): Router {
  const { db, config } = context;
  const hot = hotAnswers(context);
  const router = Router();

  router.post('/v0/amulet-rules', async (req, res) => {
    const cached = parseInput(AmuletRulesRequest, req.body, 'body').cached_amulet_rules_contract_id;
    const answer = await hot.amuletRules();
    const form = rulesForm(answer.value, cached);
    sendJsonBytes(
      res,
      answer.bytes(form, (rules) => ({ amulet_rules_update: maybeCachedContractJson(rules, cached) })),
    );
  });

  router.post('/v0/external-party-amulet-rules', async (req, res) => {
    const cached = parseInput(ExternalRulesRequest, req.body, 'body').cached_external_party_amulet_rules_contract_id;
    const answer = await hot.externalPartyAmuletRules();
    const form = rulesForm(answer.value, cached);
    sendJsonBytes(
      res,
      answer.bytes(form, (rules) => ({ external_party_amulet_rules_update: maybeCachedContractJson(rules, cached) })),
    );
  });

  router.post('/v0/ans-rules', async (req, res) => {
    const cached = parseInput(AnsRulesRequest, req.body, 'body').cached_ans_rules_contract_id;
    const answer = await hot.ansRules();
    const form = rulesForm(answer.value, cached);
    sendJsonBytes(
      res,
      answer.bytes(form, (rules) => ({ ans_rules_update: maybeCachedContractJson(rules, cached) })),
    );
  });

  // Every live round keyed by contract id, in ascending round order; a round the client has cached is sent without its contract.
  router.post('/v0/open-and-issuing-mining-rounds', async (req, res) => {
    const body = parseInput(RoundsRequest, req.body, 'body');
    // The newest Scan's bound on request lists (HttpRequestLimits in HttpScanHandler).
    for (const [field, ids] of Object.entries(body)) {
      if (ids.length > MAX_CACHED_IDS)
        throw badRequest(`Expected '${field}' to contain at most ${MAX_CACHED_IDS} items, but contained ${ids.length}.`);
    }
    const answer = await hot.miningRounds();
    const rounds = answer.value;
    // No round at all: the Scan app's minimum of nothing is a 500.
    if (rounds.timeToLive === undefined) throw new Error('no open, summarizing or issuing mining round to compute a time to live from');
    const timeToLive = Number(rounds.timeToLive);
    const cachedOpen = new Set(body.cached_open_mining_round_contract_ids);
    const cachedIssuing = new Set(body.cached_issuing_round_contract_ids);
    const keyed = (list: typeof rounds.open, skip: Set<string>) =>
      Object.fromEntries(list.map((c) => [c.contractId, maybeCachedContractJson(c, skip.has(c.contractId) ? c.contractId : null)]));
    sendJsonBytes(
      res,
      answer.bytes(`scan ${roundsForm(rounds, cachedOpen, cachedIssuing)}`, () => ({
        time_to_live_in_microseconds: timeToLive,
        open_mining_rounds: keyed(rounds.open, cachedOpen),
        issuing_mining_rounds: keyed(rounds.issuing, cachedIssuing),
      })),
    );
  });

  router.get('/v0/dso', async (_req, res) => {
    sendJsonBytes(res, (await hot.dsoInfo()).bytes('dso', dsoInfoJson));
  });

  router.get('/v0/ans-entries', async (req, res) => {
    const query = parseInput(AnsEntriesQuery, req.query, 'query');
    const entries = await listAnsEntries(db, config, query.name_prefix ?? '', pageLimit(query.page_size));
    sendJson(res, { entries: entries.map(ansEntryJson) });
  });

  router.get('/v0/ans-entries/by-party/:party', async (req, res) => {
    const party = requestParty(req.params.party);
    const entry = await ansEntryByParty(db, config, party);
    if (!entry) throw notFound(`No ans entry found for party: ${party}`);
    sendJson(res, { entry: ansEntryJson(entry) });
  });

  router.get('/v0/ans-entries/by-name/:name', async (req, res) => {
    const entry = await ansEntryByName(db, config, req.params.name);
    if (!entry) throw notFound(`No ans entry found for name: ${req.params.name}`);
    sendJson(res, { entry: ansEntryJson(entry) });
  });

  router.get('/v0/featured-apps', async (_req, res) => {
    sendJson(res, { featured_apps: (await featuredApps(db)).map(contractJson) });
  });

  // Always 200: a provider without a right gets null.
  router.get('/v0/featured-apps/:provider_party_id', async (req, res) => {
    const right = await featuredAppRight(db, requestParty(req.params.provider_party_id));
    sendJson(res, { featured_app_right: right ? contractJson(right) : null });
  });

  router.get('/v0/transfer-preapprovals/by-party/:party', async (req, res) => {
    sendJson(res, await transferPreapprovalBody(db, req.params.party));
  });

  router.get('/v0/transfer-command-counter/:party', async (req, res) => {
    sendJson(res, await transferCommandCounterBody(db, req.params.party));
  });

  // No authentication on Scan despite "admin" in the path.
  router.get('/v0/admin/validator/licenses', async (req, res) => {
    const query = parseInput(LicensesQuery, req.query, 'query');
    const page = await pageLiveContracts(db, SPLICE.validatorLicense, query.after, pageLimit(query.limit ?? MAX_PAGE_SIZE));
    sendJson(res, {
      validator_licenses: page.contracts.map(contractJson),
      next_page_token: page.next === undefined ? null : new RawJson(page.next.toString()),
    });
  });

  router.get('/v0/validators/validator-faucets', async (req, res) => {
    const query = parseInput(FaucetsQuery, req.query, 'query');
    const validators = query.validator_ids.map(requestParty);
    const licenses = await listLiveContractsOfParties(db, SPLICE.validatorLicense, 'validator', [...new Set(validators)]);
    sendJson(res, { validatorsReceivedFaucets: licenses.map((license) => validatorReceivedFaucets(payloadOf(license))) });
  });

  router.get('/v0/transfer-command/status', async (req, res) => {
    sendJson(res, await transferCommandStatusBody(db, parseInput(TransferCommandStatusQuery, req.query, 'query')));
  });

  router.get('/v0/unclaimed-development-fund-coupons', async (_req, res) => {
    sendJson(res, await unclaimedDevelopmentFundCouponsBody(db));
  });

  return router;
}
