/**
 * The choice contexts of Amulet's token-standard factories and two-step transfers, as Scan's
 * token-standard handlers and ChoiceContextBuilder build them (the hyperledger-labs/splice
 * versions, whose contexts carry the amulet rules and the open round):
 *
 * - transfer factory: amulet-rules, open-round, featured-app-right (of the receiver's preapproval
 *   provider), transfer-preapproval; the factory (ExternalPartyAmuletRules) disclosed last. The
 *   transfer is "self" to oneself, "direct" when the receiver has a preapproval, else an "offer";
 * - allocation factory: amulet-rules, open-round; the factory disclosed last;
 * - a transfer instruction's or an allocation's choices: amulet-rules, open-round, the locked
 *   amulet disclosed, expire-lock true (and for executing an allocation, the executor's
 *   featured-app-right). Once the locked amulet is gone (expired and reclaimed), accept and
 *   execute are a 404, and reject, withdraw and cancel need only expire-lock false.
 *
 * Each context with the rules and the round also names the newest ExternalPartyConfigState, when the
 * DSO keeps its pair (newer Scans: the 24-hour submission delay), right after them.
 *
 * Scan answers a missing AmuletRules or factory with a 500; here they are 404s with a message.
 */
import type { Config } from '../../internal/config';
import type { StoredContract } from '../../domain/contract-json';
import { latestUsableOpenRound, nextRoundOpening } from '../../domain/mining-rounds';
import { SPLICE } from '../../domain/splice-contracts';
import { formatInstant, type Micros } from '../../domain/time';
import {
  activeSynchronizer,
  allocationLock,
  allocationV2Lock,
  latestConfigState,
  nextConfigChange,
  type TwoStepTransfer,
} from '../../domain/token-standard';
import { notFound } from '../../internal/errors';
import {
  findFeaturedAppRight,
  findLiveContractById,
  findLiveContractOfParty,
  findLiveContractsByIds,
  listLiveContracts,
  listLiveRounds,
  payloadOf,
} from '../../store/contract-repository';
import type { Db } from '../../store/pool';
import { apiNow, rulesContract } from '../scan/current-state';
import { ChoiceContextBuilder } from './choice-context';

interface Base {
  now: Micros;
  rules: StoredContract;
  round: StoredContract;
  /** The newest ExternalPartyConfigState, when the DSO keeps its pair. */
  configState: StoredContract | undefined;
  synchronizerId: string;
  /** When the round or the synchronizer chosen at `now` may change with time alone (a round opens, a configuration comes into force). */
  validUntil: Micros | undefined;
}

/** AmuletRules, the newest usable open round, and the active synchronizer, or a 404 naming what is missing. */
async function base(db: Db, config: Config): Promise<Base> {
  const now = await apiNow(db, config);
  const rules = await rulesContract(db, SPLICE.amuletRules, notFound('No active AmuletRules contract'));
  const rounds = await listLiveRounds(db, SPLICE.openMiningRound);
  const withPayloads = rounds.map((contract) => ({ contract, payload: payloadOf(contract) }));
  const round = latestUsableOpenRound(withPayloads, now)?.contract;
  if (!round) throw notFound('No open usable OpenMiningRound found.');
  const rulesPayload = payloadOf(rules);
  const configState = await configStateOf(db);
  const changes = [nextRoundOpening(withPayloads, now), nextConfigChange(rulesPayload, now)].filter((t) => t !== undefined);
  return {
    now,
    rules,
    round,
    configState,
    synchronizerId: activeSynchronizer(rulesPayload, now),
    validUntil: changes.length === 0 ? undefined : changes.reduce((a, b) => (b < a ? b : a)),
  };
}

const factory = (db: Db) => rulesContract(db, SPLICE.externalPartyAmuletRules, notFound('No active ExternalPartyAmuletRules contract'));

const withRulesAndRound = (b: Base) =>
  new ChoiceContextBuilder(b.synchronizerId)
    .addContract('amulet-rules', SPLICE.amuletRules, b.rules)
    .addContract('open-round', SPLICE.openMiningRound, b.round)
    .addOptionalContract('external-party-config-state', SPLICE.externalPartyConfigState, b.configState);

export type TransferKind = 'self' | 'direct' | 'offer';

export async function transferFactory(
  db: Db,
  config: Config,
  transfer: { sender: string; receiver: string },
): Promise<{ factoryId: string; transferKind: TransferKind; context: ChoiceContextBuilder; validUntil: Micros | undefined }> {
  const b = await base(db, config);
  const epar = await factory(db);
  const self = transfer.sender === transfer.receiver;
  const preapproval = self ? undefined : await findLiveContractOfParty(db, SPLICE.transferPreapproval, 'receiver', transfer.receiver);
  const provider = preapproval && (payloadOf(preapproval) as { provider?: unknown }).provider;
  const featured = typeof provider === 'string' ? await findFeaturedAppRight(db, provider) : undefined;
  const context = withRulesAndRound(b)
    .addOptionalContract('featured-app-right', SPLICE.featuredAppRight, featured)
    .addOptionalContract('transfer-preapproval', SPLICE.transferPreapproval, preapproval)
    .disclose(SPLICE.externalPartyAmuletRules, epar);
  return { factoryId: epar.contractId, transferKind: self ? 'self' : preapproval ? 'direct' : 'offer', context, validUntil: b.validUntil };
}

export async function allocationFactory(db: Db, config: Config): Promise<{ factoryId: string; context: ChoiceContextBuilder }> {
  const b = await base(db, config);
  const epar = await factory(db);
  return { factoryId: epar.contractId, context: withRulesAndRound(b).disclose(SPLICE.externalPartyAmuletRules, epar) };
}

/** ChoiceContextBuilder.getTwoStepTransferContext. `description` names the instruction or allocation in messages. */
export async function twoStepTransferContext(
  db: Db,
  config: Config,
  description: string,
  lock: TwoStepTransfer,
  options: { requireLockedAmulet: boolean; featuredProvider?: string },
): Promise<ChoiceContextBuilder> {
  const b = await base(db, config);
  const locked = await findLiveContractById(db, SPLICE.lockedAmulet, lock.lockedAmulet);
  if (!locked) {
    if (options.requireLockedAmulet) {
      throw notFound(`LockedAmulet '${lock.lockedAmulet}' not found for ${description}, which expires on ${formatInstant(lock.expiresAt)}`);
    }
    return new ChoiceContextBuilder(b.synchronizerId).addBool('expire-lock', false);
  }
  const context = withRulesAndRound(b).disclose(SPLICE.lockedAmulet, locked).addBool('expire-lock', true);
  if (options.featuredProvider !== undefined) {
    context.addOptionalContract('featured-app-right', SPLICE.featuredAppRight, await findFeaturedAppRight(db, options.featuredProvider));
  }
  return context;
}

/** The live contract of a token-standard template by id, or Scan's 404 (`<Template> '<id>' not found.`). */
export async function tokenStandardContract(
  db: Db,
  template: typeof SPLICE.amuletTransferInstruction | typeof SPLICE.amuletAllocation,
  contractId: string,
): Promise<StoredContract> {
  const contract = await findLiveContractById(db, template, contractId);
  if (!contract) throw notFound(`${template.qualifiedName.split(':')[1]} '${contractId}' not found.`);
  return contract;
}

/** The newest ExternalPartyConfigState, when the DSO keeps its pair (latestConfigState). */
async function configStateOf(db: Db): Promise<StoredContract | undefined> {
  const live = await listLiveContracts(db, SPLICE.externalPartyConfigState, 3);
  return latestConfigState(live.map((contract) => ({ contract, payload: payloadOf(contract) })));
}

/**
 * A context of the registry's v2 operations: nothing from AmuletRules goes into it but the synchronizer
 * it names as active; the newest ExternalPartyConfigState first, when there is one (the newer Scan's
 * getAmuletRulesTransferContext and getExternalPartyTransferContext).
 */
async function v2Context(db: Db, config: Config): Promise<ChoiceContextBuilder> {
  const now = await apiNow(db, config);
  const rules = await rulesContract(db, SPLICE.amuletRules, notFound('No active AmuletRules contract'));
  return new ChoiceContextBuilder(activeSynchronizer(payloadOf(rules), now)).addOptionalContract(
    'external-party-config-state',
    SPLICE.externalPartyConfigState,
    await configStateOf(db),
  );
}

/**
 * The two-step context of the registry's v2 operations, as the Scan that serves v2 builds it: neither
 * the amulet rules nor the open round go into it (AmuletRules still names the synchronizer), only
 * the newest ExternalPartyConfigState, when there is one, and the locked amulet disclosed with
 * expire-lock true; once the lock is gone, or when there is none
 * (an AmuletAllocationV2 that is a net credit), expire-lock false alone (or the 404 when the choice
 * moves the amulet).
 */
export async function twoStepTransferContextV2(
  db: Db,
  config: Config,
  description: string,
  lock: TwoStepTransfer | undefined,
  options: { requireLockedAmulet: boolean },
): Promise<ChoiceContextBuilder> {
  const context = await v2Context(db, config);
  const locked = lock && (await findLiveContractById(db, SPLICE.lockedAmulet, lock.lockedAmulet));
  if (!locked) {
    if (options.requireLockedAmulet) {
      if (!lock) throw new Error(`${description} has no locked amulet to move`);
      throw notFound(`LockedAmulet '${lock.lockedAmulet}' not found for ${description}, which expires on ${formatInstant(lock.expiresAt)}`);
    }
    // A builder of its own, as Scan's: without the config state.
    return new ChoiceContextBuilder(context.synchronizerId).addBool('expire-lock', false);
  }
  return context.disclose(SPLICE.lockedAmulet, locked).addBool('expire-lock', true);
}

/** The lock behind an allocation that v2 serves: an AmuletAllocationV2's, if it has one, else a v1 AmuletAllocation's; or Scan's 404. */
export async function allocationV2OrV1Lock(db: Db, allocationId: string): Promise<TwoStepTransfer | undefined> {
  const v2 = await findLiveContractById(db, SPLICE.amuletAllocationV2, allocationId);
  if (v2) return allocationV2Lock(payloadOf(v2));
  return allocationLock(payloadOf(await tokenStandardContract(db, SPLICE.amuletAllocation, allocationId)));
}

/**
 * The v2 allocation factory (AllocationFactory_Allocate of AllocationInstructionV2), as the Scan that
 * serves v2 answers it: the newest ExternalPartyConfigState (its one optional entry), then the factory
 * (ExternalPartyAmuletRules) disclosed.
 */
export async function allocationFactoryV2(db: Db, config: Config): Promise<{ factoryId: string; context: ChoiceContextBuilder }> {
  const epar = await factory(db);
  const context = await v2Context(db, config);
  return { factoryId: epar.contractId, context: context.disclose(SPLICE.externalPartyAmuletRules, epar) };
}

/**
 * The settlement factory (SettlementFactory_SettleBatch), as the Scan that serves v2 answers it: the
 * newest ExternalPartyConfigState, the factory (ExternalPartyAmuletRules) disclosed, then the live LockedAmulets behind the batch's
 * allocations, each once: those of the AmuletAllocationV2s among them, then those of the v1
 * AmuletAllocations. Allocations that are not live, or not Amulet's, add nothing.
 */
export async function settlementFactory(
  db: Db,
  config: Config,
  allocationIds: readonly string[],
): Promise<{ factoryId: string; context: ChoiceContextBuilder }> {
  const context = await v2Context(db, config);
  const epar = await factory(db);
  const v2 = await findLiveContractsByIds(db, SPLICE.amuletAllocationV2, allocationIds);
  const v1 = await findLiveContractsByIds(db, SPLICE.amuletAllocation, allocationIds);
  const lockIds = [
    ...v2.flatMap((c) => allocationV2Lock(payloadOf(c))?.lockedAmulet ?? []),
    ...v1.map((c) => allocationLock(payloadOf(c)).lockedAmulet),
  ];
  context.disclose(SPLICE.externalPartyAmuletRules, epar);
  for (const locked of await findLiveContractsByIds(db, SPLICE.lockedAmulet, lockIds)) context.disclose(SPLICE.lockedAmulet, locked);
  return { factoryId: epar.contractId, context };
}
