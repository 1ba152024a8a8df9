/**
 * What validators and wallets read first, from the current ACS (the live
 * contracts of the newest migration): the rules contracts, the mining rounds,
 * the DSO's state, ANS entries and featured apps (and, from the history, the
 * status of transfer commands), with the Scan app's choices
 * and error messages (HttpScanHandler, ScanStore). Shared by the Scan routes
 * and the validator's scan-proxy routes, which differ only in shape.
 */
import { z } from 'zod';
import type { Config } from '../../internal/config';
import { contractJson, contractWithStateJson, type AnsEntryView, type StoredContract } from '../../domain/contract-json';
import type { JsonBody } from '../../domain/raw-json';
import { dsoAnsEntries, readDsoRules, readSvNodeState, type DsoRulesFacts } from '../../domain/dso-state';
import { latestOfOpenRoundTriple, requiredVotes, roundNumber, roundsTimeToLive } from '../../domain/mining-rounds';
import { partyIdProblem } from '../../domain/party-id';
import { SPLICE, type TemplateKey } from '../../domain/splice-contracts';
import { nowMicros, type Micros } from '../../domain/time';
import { transferCommandStatusJson, type TransferCommandState } from '../../domain/transfer-commands';
import { badRequest, notFound } from '../../internal/errors';
import {
  findAnsEntryByName,
  findAnsEntryByUser,
  findFeaturedAppRight,
  findLatestLiveContract,
  findLiveContractOfParty,
  latestRecordTime,
  latestTransferCommands,
  listLiveAnsEntries,
  listLiveContracts,
  payloadOf,
} from '../../store/contract-repository';
import type { Db } from '../../store/pool';
import { queryInteger } from './params';

/** "Now" for expiry: the wall clock (as Scan), or the newest ingested record time (API_CLOCK=ledger). */
export async function apiNow(db: Db, config: Config): Promise<Micros> {
  return config.scanApp.clock === 'ledger' ? ((await latestRecordTime(db)) ?? nowMicros()) : nowMicros();
}

/** A party id from a request, or Canton's 400 (PartyId.tryFromProtoPrimitive). */
export function requestParty(text: string): string {
  const problem = partyIdProblem(text);
  if (problem) throw badRequest(problem);
  return text;
}

/** The live contract of a rules template; `missing` is the Scan app's answer when there is none. */
export async function rulesContract(db: Db, template: TemplateKey, missing: Error): Promise<StoredContract> {
  const contract = await findLatestLiveContract(db, template);
  if (!contract) throw missing;
  return contract;
}

// Lookups the Scan app does with .get on an Option: no contract is a 500, not a 404.
export const amuletRules = (db: Db) => rulesContract(db, SPLICE.amuletRules, new Error('found no amuletrules instance'));
export const ansRules = (db: Db) => rulesContract(db, SPLICE.ansRules, new Error('found no ansrules instance'));
export const externalPartyAmuletRules = (db: Db) =>
  rulesContract(db, SPLICE.externalPartyAmuletRules, notFound('No active ExternalPartyAmuletRules contract'));

const byRound = (template: string) => (a: StoredContract, b: StoredContract) => {
  const x = roundNumber(template, payloadOf(a));
  const y = roundNumber(template, payloadOf(b));
  return x < y ? -1 : x > y ? 1 : 0;
};

export interface MiningRounds {
  /** In ingestion order (the Scan store's event number), which is ascending round order. */
  open: StoredContract[];
  issuing: StoredContract[];
  /** The time a client may cache them; undefined when there is no round at all. */
  timeToLive: bigint | undefined;
}

/** The live open and issuing rounds, with how long they may be cached (HttpScanHandler.getOpenAndIssuingMiningRounds). */
export async function miningRounds(db: Db): Promise<MiningRounds> {
  const [issuing, open, summarizing] = await Promise.all([
    listLiveContracts(db, SPLICE.issuingMiningRound),
    listLiveContracts(db, SPLICE.openMiningRound),
    listLiveContracts(db, SPLICE.summarizingMiningRound),
  ]);
  return {
    open: open.sort(byRound('OpenMiningRound')),
    issuing: issuing.sort(byRound('IssuingMiningRound')),
    timeToLive: roundsTimeToLive(open.map(payloadOf), summarizing.map(payloadOf), issuing.map(payloadOf)),
  };
}

export interface DsoInfo {
  svUser: string;
  svPartyId: string;
  dsoPartyId: string;
  votingThreshold: number;
  latestMiningRound: StoredContract;
  amuletRules: StoredContract;
  dsoRules: StoredContract;
  svNodeStates: StoredContract[];
  initialRound: string;
}

/** The live DsoRules and its facts, or the Scan app's 404. */
async function dsoRules(db: Db): Promise<{ contract: StoredContract; facts: DsoRulesFacts }> {
  const contract = await rulesContract(db, SPLICE.dsoRules, notFound('No active DsoRules contract'));
  return { contract, facts: readDsoRules(payloadOf(contract)) };
}

/** Canton's short form of a party in messages: name::<first 12 characters of the fingerprint>... */
const prettyParty = (party: string) => {
  const at = party.indexOf('::');
  return at < 0 ? party : `${party.slice(0, at + 2)}${party.slice(at + 2, at + 14)}...`;
};

/** GET /v0/dso (HttpScanHandler.getDsoInfo), each part read in the Scan app's order with its 404. */
export async function dsoInfo(db: Db, config: Config): Promise<DsoInfo> {
  const open = await listLiveContracts(db, SPLICE.openMiningRound);
  const latest = latestOfOpenRoundTriple(
    open.map((contract) => ({ contract, payload: payloadOf(contract), synchronizerId: contract.synchronizerId })),
  );
  if (!latest) throw notFound('No active OpenMiningRound contract');
  const rules = await rulesContract(db, SPLICE.amuletRules, notFound('No active AmuletRules contract'));
  const dso = await dsoRules(db);
  const states = new Map<string, StoredContract>();
  for (const state of await listLiveContracts(db, SPLICE.svNodeState)) states.set(readSvNodeState(payloadOf(state)).sv, state);
  const svNodeStates = dso.facts.svs.map((sv) => {
    const state = states.get(sv.party);
    if (!state) throw notFound(`No SvNodeState found for ${prettyParty(sv.party)}`);
    return state;
  });
  return {
    svUser: config.scanApp.svUser,
    svPartyId: config.scanApp.svPartyId ?? dso.facts.svs[0]?.party ?? dso.facts.dso,
    dsoPartyId: dso.facts.dso,
    votingThreshold: requiredVotes(dso.facts.svs.length),
    latestMiningRound: latest.contract,
    amuletRules: rules,
    dsoRules: dso.contract,
    svNodeStates,
    initialRound: config.scanApp.initialRound,
  };
}

/** GET /v0/ans-entries: unexpired entries by name, then, if the page is not full, the DSO's own entries (DsoAnsResolver). */
export async function listAnsEntries(db: Db, config: Config, prefix: string, pageSize: number): Promise<AnsEntryView[]> {
  const entries = await listLiveAnsEntries(db, prefix, await apiNow(db, config), pageSize);
  const room = pageSize - entries.length;
  if (room > 0) {
    const rules = await findLatestLiveContract(db, SPLICE.dsoRules);
    if (rules) entries.push(...dsoAnsEntries(readDsoRules(payloadOf(rules)), config.scanApp.ansAcronym, prefix).slice(0, room));
  }
  return entries;
}

/** The entry of a name: the DSO's own names first, then the live AnsEntry; undefined when none. 404 without DsoRules. */
export async function ansEntryByName(db: Db, config: Config, name: string): Promise<AnsEntryView | undefined> {
  const facts = readDsoRules(payloadOf(await rulesContract(db, SPLICE.dsoRules, notFound('No DsoRules contract found'))));
  const own = dsoAnsEntries(facts, config.scanApp.ansAcronym, '').find((e) => e.name === name);
  return own ?? (await findAnsEntryByName(db, name, await apiNow(db, config)));
}

/** The entry of a party: the DSO's or an SV's own, else its first live AnsEntry by name; undefined when none. 404 without DsoRules. */
export async function ansEntryByParty(db: Db, config: Config, party: string): Promise<AnsEntryView | undefined> {
  const facts = readDsoRules(payloadOf(await rulesContract(db, SPLICE.dsoRules, notFound('No DsoRules contract found'))));
  const own = dsoAnsEntries(facts, config.scanApp.ansAcronym, '').find((e) => e.user === party);
  return own ?? (await findAnsEntryByUser(db, party, await apiNow(db, config)));
}

/** The live FeaturedAppRights, in ingestion order (at most the Scan store's 1000). */
export const featuredApps = (db: Db) => listLiveContracts(db, SPLICE.featuredAppRight);

/** A live FeaturedAppRight of the provider, if any. */
export const featuredAppRight = (db: Db, provider: string) => findFeaturedAppRight(db, provider);

/** The receiver's live TransferPreapproval (ScanStore.lookupTransferPreapprovalByParty), if any. */
const transferPreapproval = (db: Db, receiver: string) => findLiveContractOfParty(db, SPLICE.transferPreapproval, 'receiver', receiver);

/** The sender's live TransferCommandCounter (ScanStore.lookupTransferCommandCounterByParty), if any. */
const transferCommandCounter = (db: Db, sender: string) => findLiveContractOfParty(db, SPLICE.transferCommandCounter, 'sender', sender);

/** The live UnclaimedDevelopmentFundCoupons, in ingestion order (at most the Scan store's 1000). */
const unclaimedDevelopmentFundCoupons = (db: Db) => listLiveContracts(db, SPLICE.unclaimedDevelopmentFundCoupon);

/** GET transfer-preapprovals/by-party/{party}, on Scan and the scan-proxy alike (same body, same 404). */
export async function transferPreapprovalBody(db: Db, partyText: string): Promise<JsonBody> {
  const party = requestParty(partyText);
  const preapproval = await transferPreapproval(db, party);
  if (!preapproval) throw notFound(`No TransferPreapproval found for party: ${party}`);
  return { transfer_preapproval: contractWithStateJson(preapproval) };
}

/** GET transfer-command-counter/{party}, on Scan and the scan-proxy alike. */
export async function transferCommandCounterBody(db: Db, partyText: string): Promise<JsonBody> {
  const party = requestParty(partyText);
  const counter = await transferCommandCounter(db, party);
  if (!counter) throw notFound(`No TransferCommandCounter found for party: ${party}, use 0 for the nonce`);
  return { transfer_command_counter: contractWithStateJson(counter) };
}

/** The Scan app's bound on the commands one status lookup returns. */
const MAX_TRANSFER_COMMAND_CONTRACTS = 100;

export const TransferCommandStatusQuery = z.object({
  sender: z.string({ error: 'expected a party id' }),
  nonce: queryInteger('an integer nonce'),
});

/** GET transfer-command/status?sender&nonce, on Scan and the scan-proxy alike: each command with its latest status. */
export async function transferCommandStatusBody(db: Db, query: z.output<typeof TransferCommandStatusQuery>): Promise<JsonBody> {
  const sender = requestParty(query.sender);
  const commands = await latestTransferCommands(db, sender, query.nonce, MAX_TRANSFER_COMMAND_CONTRACTS);
  if (commands.length === 0) {
    throw notFound(`Couldn't find transfer command for sender ${sender} with nonce ${query.nonce} created in the last 24h`);
  }
  // fromEntries defines own keys, whatever a contract id spells (even __proto__).
  const byContractId = Object.fromEntries(
    commands.map((c) => [
      c.contract.contractId,
      { contract: contractJson(c.contract), status: transferCommandStatusJson(c.state as TransferCommandState, c.reason) },
    ]),
  );
  return { transfer_commands_by_contract_id: byContractId };
}

/** GET unclaimed-development-fund-coupons, on Scan and the scan-proxy alike. */
export async function unclaimedDevelopmentFundCouponsBody(db: Db): Promise<JsonBody> {
  const coupons = await unclaimedDevelopmentFundCoupons(db);
  return { 'unclaimed-development-fund-coupons': coupons.map(contractWithStateJson) };
}
