/**
 * What the token-standard registry reads from Amulet's contracts (compact_json payloads): the
 * synchronizer AmuletRules names as active, and the locked amulet and deadline of a transfer
 * instruction or an allocation (Scan's ChoiceContextBuilder and its token-standard handlers).
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
