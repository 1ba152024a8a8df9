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
import type { Config } from '../../internal/config';
import type { Db } from '../../store/pool';
import type { ApiContext } from '../context';
import { sendJsonBytes } from '../answer-cache';
import { sendJson } from '../json-response';
import { mountOperations, operation, type OperationOf } from '../operation';
import { MAX_PAGE_SIZE, pageLimit } from '../page-limit';
import { int64 } from '../schema-kit';
import { SPLICE } from '../../domain/splice-contracts';
import { RawJson } from '../../domain/raw-json';
import { listLiveContractsOfParties, pageLiveContracts, payloadOf } from '../../store/contract-repository';
import { validatorReceivedFaucets } from '../../domain/validator-faucets';
import { scanErrors } from './error-answers';
import { queryInteger } from './params';
import { hotAnswers, type HotAnswers } from './hot-answers';
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
import {
  AnsEntry,
  Contract,
  ContractWithState,
  GetDsoInfoResponse,
  LookupTransferCommandStatusResponse,
  MaybeCachedContractWithState,
} from './schemas';

const contractId = z.string({ error: 'expected a contract id string' });
/** One party id per `validator_ids` parameter (repeated for several). */
const FaucetsQuery = z.object({
  validator_ids: z
    .preprocess(
      (v) => (typeof v === 'string' ? [v] : v),
      z.array(z.string({ error: 'expected a party id' }), { error: 'expected party ids' }),
    )
    .meta({ type: 'array', items: { type: 'string' } })
    .describe('A validator party id; repeat the parameter for several.'),
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
  after: queryInteger('an integer page token').optional().describe('next_page_token of the previous page.'),
  limit: queryInteger('an integer')
    .transform(Number)
    .optional()
    .meta({ format: 'int32' })
    .describe(`At most this many licenses (1..${MAX_PAGE_SIZE}, default ${MAX_PAGE_SIZE}).`),
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
    .refine((n) => n >= -(2 ** 31) && n < 2 ** 31, { error: 'expected a 32-bit integer' })
    .meta({ type: 'integer', format: 'int32', pattern: undefined }),
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

interface StateServices {
  db: Db;
  config: Config;
  hot: HotAnswers;
}

const rulesUpdate = <K extends string>(key: K) =>
  z.object({ [key]: MaybeCachedContractWithState } as Record<K, typeof MaybeCachedContractWithState>);
const AmuletRulesResponse = rulesUpdate('amulet_rules_update');
const ExternalRulesResponse = rulesUpdate('external_party_amulet_rules_update');
const AnsRulesResponse = rulesUpdate('ans_rules_update');
const RoundsResponse = z.object({
  time_to_live_in_microseconds: int64(),
  open_mining_rounds: z.record(z.string(), MaybeCachedContractWithState),
  issuing_mining_rounds: z.record(z.string(), MaybeCachedContractWithState),
});
const AnsEntriesResponse = z.object({ entries: z.array(AnsEntry) });
const AnsEntryResponse = z.object({ entry: AnsEntry });
const FeaturedAppsResponse = z.object({ featured_apps: z.array(Contract) });
const FeaturedAppResponse = z.object({ featured_app_right: Contract.nullable() });
const PreapprovalResponse = z.object({ transfer_preapproval: ContractWithState });
const CounterResponse = z.object({ transfer_command_counter: ContractWithState });
const LicensesResponse = z.object({ validator_licenses: z.array(Contract), next_page_token: int64().nullable() });
const FaucetsResponse = z.object({
  validatorsReceivedFaucets: z.array(
    z.object({
      validator: z.string(),
      numRoundsCollected: int64(),
      numRoundsMissed: int64(),
      firstCollectedInRound: int64(),
      lastCollectedInRound: int64(),
    }),
  ),
});
const CouponsResponse = z.object({ 'unclaimed-development-fund-coupons': z.array(ContractWithState) });

const ok = (body: z.ZodType) => ({ '200': { description: 'OK', body } });

const amuletRulesOperation = operation({
  method: 'post',
  path: '/v0/amulet-rules',
  summary: 'The live AmuletRules; contract is null when it is the one the client has cached.',
  request: { body: AmuletRulesRequest },
  responses: { ...ok(AmuletRulesResponse), ...scanErrors(400, 500) },
  handle: async ({ hot }: StateServices, { body }, _req, res) => {
    const cached = body.cached_amulet_rules_contract_id;
    const answer = await hot.amuletRules();
    const form = rulesForm(answer.value, cached);
    sendJsonBytes(
      res,
      answer.bytes(form, (rules) => ({ amulet_rules_update: maybeCachedContractJson(rules, cached) })),
    );
  },
});

const externalRulesOperation = operation({
  method: 'post',
  path: '/v0/external-party-amulet-rules',
  summary: 'The live ExternalPartyAmuletRules; contract is null when cached.',
  request: { body: ExternalRulesRequest },
  responses: { ...ok(ExternalRulesResponse), ...scanErrors(400, 404, 500) },
  handle: async ({ hot }: StateServices, { body }, _req, res) => {
    const cached = body.cached_external_party_amulet_rules_contract_id;
    const answer = await hot.externalPartyAmuletRules();
    const form = rulesForm(answer.value, cached);
    sendJsonBytes(
      res,
      answer.bytes(form, (rules) => ({ external_party_amulet_rules_update: maybeCachedContractJson(rules, cached) })),
    );
  },
});

const ansRulesOperation = operation({
  method: 'post',
  path: '/v0/ans-rules',
  summary: 'The live AnsRules; contract is null when cached.',
  request: { body: AnsRulesRequest },
  responses: { ...ok(AnsRulesResponse), ...scanErrors(400, 500) },
  handle: async ({ hot }: StateServices, { body }, _req, res) => {
    const cached = body.cached_ans_rules_contract_id;
    const answer = await hot.ansRules();
    const form = rulesForm(answer.value, cached);
    sendJsonBytes(
      res,
      answer.bytes(form, (rules) => ({ ans_rules_update: maybeCachedContractJson(rules, cached) })),
    );
  },
});

// Every live round keyed by contract id, in ascending round order; a round the client has cached is sent without its contract.
const roundsOperation = operation({
  method: 'post',
  path: '/v0/open-and-issuing-mining-rounds',
  summary:
    'The live open and issuing mining rounds keyed by contract id, in round order (contract null for cached ones), and how long to cache them.',
  request: { body: RoundsRequest },
  responses: { ...ok(RoundsResponse), ...scanErrors(400, 500) },
  handle: async ({ hot }: StateServices, { body }, _req, res) => {
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
  },
});

const dsoOperation = operation({
  method: 'get',
  path: '/v0/dso',
  summary: 'The DSO: rules, the newest of three consecutive open rounds, SV node states, voting threshold.',
  responses: { ...ok(GetDsoInfoResponse), ...scanErrors(404, 500) },
  handle: async ({ hot }: StateServices, _input, _req, res) => {
    sendJsonBytes(res, (await hot.dsoInfo()).bytes('dso', dsoInfoJson));
  },
});

const ansEntriesOperation = operation({
  method: 'get',
  path: '/v0/ans-entries',
  summary: 'Unexpired ANS entries by name with the prefix, then the DSO-provided ones when the page is not full.',
  request: { query: AnsEntriesQuery },
  responses: { ...ok(AnsEntriesResponse), ...scanErrors(400, 500) },
  handle: async ({ db, config }: StateServices, { query }, _req, res) => {
    const entries = await listAnsEntries(db, config, query.name_prefix ?? '', pageLimit(query.page_size));
    sendJson(res, { entries: entries.map(ansEntryJson) });
  },
});

const ansEntryByPartyOperation = operation({
  method: 'get',
  path: '/v0/ans-entries/by-party/{party}',
  summary: 'The first ANS entry of a party by name (the DSO and SVs have their own).',
  responses: { ...ok(AnsEntryResponse), ...scanErrors(400, 404, 500) },
  handle: async ({ db, config }: StateServices, { params }, _req, res) => {
    const party = requestParty(params.party!);
    const entry = await ansEntryByParty(db, config, party);
    if (!entry) throw notFound(`No ans entry found for party: ${party}`);
    sendJson(res, { entry: ansEntryJson(entry) });
  },
});

const ansEntryByNameOperation = operation({
  method: 'get',
  path: '/v0/ans-entries/by-name/{name}',
  summary: 'The ANS entry of a name.',
  responses: { ...ok(AnsEntryResponse), ...scanErrors(404, 500) },
  handle: async ({ db, config }: StateServices, { params }, _req, res) => {
    const entry = await ansEntryByName(db, config, params.name!);
    if (!entry) throw notFound(`No ans entry found for name: ${params.name}`);
    sendJson(res, { entry: ansEntryJson(entry) });
  },
});

const featuredAppsOperation = operation({
  method: 'get',
  path: '/v0/featured-apps',
  summary: 'The live FeaturedAppRight contracts.',
  responses: { ...ok(FeaturedAppsResponse), ...scanErrors(500) },
  handle: async ({ db }: StateServices, _input, _req, res) => {
    sendJson(res, { featured_apps: (await featuredApps(db)).map(contractJson) });
  },
});

// Always 200: a provider without a right gets null.
const featuredAppOperation = operation({
  method: 'get',
  path: '/v0/featured-apps/{provider_party_id}',
  summary: "A provider's FeaturedAppRight, or null.",
  responses: { ...ok(FeaturedAppResponse), ...scanErrors(400, 500) },
  handle: async ({ db }: StateServices, { params }, _req, res) => {
    const right = await featuredAppRight(db, requestParty(params.provider_party_id!));
    sendJson(res, { featured_app_right: right ? contractJson(right) : null });
  },
});

const preapprovalOperation = operation({
  method: 'get',
  path: '/v0/transfer-preapprovals/by-party/{party}',
  summary: "The receiver's live TransferPreapproval.",
  responses: { ...ok(PreapprovalResponse), ...scanErrors(400, 404, 500) },
  handle: async ({ db }: StateServices, { params }, _req, res) => {
    sendJson(res, await transferPreapprovalBody(db, params.party!));
  },
});

const counterOperation = operation({
  method: 'get',
  path: '/v0/transfer-command-counter/{party}',
  summary: "The sender's live TransferCommandCounter (404: use 0 for the nonce).",
  responses: { ...ok(CounterResponse), ...scanErrors(400, 404, 500) },
  handle: async ({ db }: StateServices, { params }, _req, res) => {
    sendJson(res, await transferCommandCounterBody(db, params.party!));
  },
});

// No authentication on Scan despite "admin" in the path.
const licensesOperation = operation({
  method: 'get',
  path: '/v0/admin/validator/licenses',
  summary: 'The live ValidatorLicenses in ingestion order, paged; no authentication (as on Scan).',
  request: { query: LicensesQuery },
  responses: { ...ok(LicensesResponse), ...scanErrors(400, 500) },
  handle: async ({ db }: StateServices, { query }, _req, res) => {
    const page = await pageLiveContracts(db, SPLICE.validatorLicense, query.after, pageLimit(query.limit ?? MAX_PAGE_SIZE));
    sendJson(res, {
      validator_licenses: page.contracts.map(contractJson),
      next_page_token: page.next === undefined ? null : new RawJson(page.next.toString()),
    });
  },
});

const faucetsOperation = operation({
  method: 'get',
  path: '/v0/validators/validator-faucets',
  summary:
    "Faucet rounds collected by each named validator with a live ValidatorLicense (unknown parties are ignored), in the licenses' ingestion order.",
  request: { query: FaucetsQuery },
  responses: { ...ok(FaucetsResponse), ...scanErrors(400, 500) },
  handle: async ({ db }: StateServices, { query }, _req, res) => {
    const validators = query.validator_ids.map(requestParty);
    const licenses = await listLiveContractsOfParties(db, SPLICE.validatorLicense, 'validator', [...new Set(validators)]);
    sendJson(res, {
      validatorsReceivedFaucets: licenses.map((license) => validatorReceivedFaucets(payloadOf(license))),
    } satisfies z.input<typeof FaucetsResponse>);
  },
});

const transferCommandStatusOperation = operation({
  method: 'get',
  path: '/v0/transfer-command/status',
  summary:
    "The sender's TransferCommands with this nonce (at most 100), each with its contract and the status of its latest event (created, sent, or failed: failed, withdrawn or expired), from the history.",
  request: { query: TransferCommandStatusQuery },
  responses: { ...ok(LookupTransferCommandStatusResponse), ...scanErrors(400, 404, 500) },
  handle: async ({ db }: StateServices, { query }, _req, res) => {
    sendJson(res, await transferCommandStatusBody(db, query));
  },
});

const couponsOperation = operation({
  method: 'get',
  path: '/v0/unclaimed-development-fund-coupons',
  summary: 'The live UnclaimedDevelopmentFundCoupons, in ingestion order (at most 1000).',
  responses: { ...ok(CouponsResponse), ...scanErrors(500) },
  handle: async ({ db }: StateServices, _input, _req, res) => {
    sendJson(res, await unclaimedDevelopmentFundCouponsBody(db));
  },
});

/** In the order a request walks them. */
export const stateOperations: readonly OperationOf<StateServices>[] = [
  amuletRulesOperation,
  externalRulesOperation,
  ansRulesOperation,
  roundsOperation,
  dsoOperation,
  ansEntriesOperation,
  ansEntryByPartyOperation,
  ansEntryByNameOperation,
  featuredAppsOperation,
  featuredAppOperation,
  preapprovalOperation,
  counterOperation,
  licensesOperation,
  faucetsOperation,
  transferCommandStatusOperation,
  couponsOperation,
];

export function stateRoutes(context: ApiContext): Router {
  const { db, config } = context;
  return mountOperations(Router(), stateOperations, { db, config, hot: hotAnswers(context) });
}
