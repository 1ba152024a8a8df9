/**
 * What the token-standard registry reads from Amulet's contracts (compact_json payloads): the
 * synchronizer AmuletRules names as active, and the locked amulet and deadline of a transfer
 * instruction or an allocation (Scan's ChoiceContextBuilder and its token-standard handlers); and
 * the limits Scan sets on the size of the V2 allocations and settlements it serves factories for
 * (its TokenStandardConfig.SettlementConfig); and which ExternalPartyConfigState a context names.
 */
import type { Json } from './json';
import { member, PayloadShapeError, text } from './dso-state';
import { parseTimestamp, type Micros } from './time';

/**
 * AmuletConfigSchedule.getConfigAsOf(now).decentralizedSynchronizer.activeSynchronizer: the
 * configuration in force is the last future value whose time has come, else the initial one.
 * Future values are (time, config) tuples: records {_1, _2}, or pairs.
 */
export function activeSynchronizer(amuletRules: Json, now: Micros): string {
  const T = 'AmuletRules';
  let config = member(T, amuletRules, ['configSchedule', 'initialValue']);
  const future = member(T, amuletRules, ['configSchedule', 'futureValues']);
  if (!Array.isArray(future)) throw new PayloadShapeError(T, 'configSchedule.futureValues', 'a list');
  let latest: Micros | undefined;
  for (const entry of future) {
    const [at, value] = Array.isArray(entry) ? [entry[0], entry[1]] : [member(T, entry, ['_1']), member(T, entry, ['_2'])];
    if (typeof at !== 'string') throw new PayloadShapeError(T, 'configSchedule.futureValues._1', 'a time');
    const t = parseTimestamp(at);
    if (t <= now && (latest === undefined || t >= latest)) {
      latest = t;
      config = value;
    }
  }
  return text(T, config, ['decentralizedSynchronizer', 'activeSynchronizer']);
}

/** The first time after `now` at which a future value of the schedule comes into force, when activeSynchronizer may change. */
export function nextConfigChange(amuletRules: Json, now: Micros): Micros | undefined {
  const T = 'AmuletRules';
  const future = member(T, amuletRules, ['configSchedule', 'futureValues']);
  if (!Array.isArray(future)) throw new PayloadShapeError(T, 'configSchedule.futureValues', 'a list');
  let next: Micros | undefined;
  for (const entry of future) {
    const at = Array.isArray(entry) ? entry[0] : member(T, entry, ['_1']);
    if (typeof at !== 'string') throw new PayloadShapeError(T, 'configSchedule.futureValues._1', 'a time');
    const t = parseTimestamp(at);
    if (t > now && (next === undefined || t < next)) next = t;
  }
  return next;
}

/**
 * The ExternalPartyConfigState a transfer context names (Scan's lookupLatestExternalPartyConfigState):
 * the DSO keeps a pair, and the newer of the two by `targetArchiveAfter` is the one; with any other
 * number live (one, or three while a rotation's archive is pending elsewhere) there is none.
 */
export function latestConfigState<T>(live: readonly { contract: T; payload: Json }[]): T | undefined {
  if (live.length !== 2) return undefined;
  const at = (c: { payload: Json }) => parseTimestamp(text('ExternalPartyConfigState', c.payload, ['targetArchiveAfter']));
  const [a, b] = live as [{ contract: T; payload: Json }, { contract: T; payload: Json }];
  return at(b) >= at(a) ? b.contract : a.contract;
}

/** A two-step transfer's lock: the LockedAmulet and the deadline the messages quote. */
export interface TwoStepTransfer {
  lockedAmulet: string;
  expiresAt: Micros;
}

/** AmuletTransferInstruction: `lockedAmulet`, and `transfer.executeBefore`. */
export function transferInstructionLock(payload: Json): TwoStepTransfer {
  const T = 'AmuletTransferInstruction';
  return { lockedAmulet: text(T, payload, ['lockedAmulet']), expiresAt: parseTimestamp(text(T, payload, ['transfer', 'executeBefore'])) };
}

/** AmuletAllocation: `lockedAmulet`, `allocation.settlement.settleBefore`, and the settlement's executor. */
export function allocationLock(payload: Json): TwoStepTransfer & { executor: string } {
  const T = 'AmuletAllocation';
  return {
    lockedAmulet: text(T, payload, ['lockedAmulet']),
    expiresAt: parseTimestamp(text(T, payload, ['allocation', 'settlement', 'settleBefore'])),
    executor: text(T, payload, ['allocation', 'settlement', 'executor']),
  };
}

/**
 * AmuletAllocationV2: its `lockedAmulet`, none when the authorizer's side is a net credit, and its
 * `expiresAt` (the lock's expiry as well).
 */
export function allocationV2Lock(payload: Json): TwoStepTransfer | undefined {
  const T = 'AmuletAllocationV2';
  const lockedAmulet = member(T, payload, ['lockedAmulet']);
  if (lockedAmulet === null || lockedAmulet === undefined) return undefined;
  if (typeof lockedAmulet !== 'string') throw new PayloadShapeError(T, 'lockedAmulet', 'a contract id or null');
  return { lockedAmulet, expiresAt: parseTimestamp(text(T, payload, ['expiresAt'])) };
}

/** Scan's limits on a V2 allocation or settlement: transfer legs, and distinct account owners. */
export interface SettlementLimits {
  maxLegs: number;
  maxParties: number;
}

/** An account of token standard V2; `owner` is none for the registry's special accounts (mint, burn). */
interface AccountV2 {
  owner?: string | null;
}

/** SettlementFactory_SettleBatch: its transfer legs, and the distinct owners of their senders and receivers. */
export function settleBatchSize(transferLegs: readonly { sender: AccountV2; receiver: AccountV2 }[]): { legs: number; parties: number } {
  const owners = transferLegs.flatMap((leg) => [leg.sender.owner, leg.receiver.owner]);
  return { legs: transferLegs.length, parties: new Set(owners.filter((o) => o != null)).size };
}

/** AllocationFactory_Allocate: the allocation's transfer-leg sides, and the distinct owners of their other sides (the authorizer is not counted). */
export function allocateSize(transferLegSides: readonly { otherside: AccountV2 }[]): { legs: number; parties: number } {
  const owners = transferLegSides.map((side) => side.otherside.owner);
  return { legs: transferLegSides.length, parties: new Set(owners.filter((o) => o != null)).size };
}

/** Scan's refusal of a V2 allocation or settlement over the limits (legs first), or undefined; Scan words both as a "settle batch". */
export function sizeRefusal(size: { legs: number; parties: number }, limits: SettlementLimits): string | undefined {
  if (size.legs > limits.maxLegs) return `Too many transfer legs in the settle batch: ${size.legs}. Maximum allowed: ${limits.maxLegs}`;
  if (size.parties > limits.maxParties)
    return `Too many parties in the settle batch: ${size.parties}. Maximum allowed: ${limits.maxParties}`;
  return undefined;
}
