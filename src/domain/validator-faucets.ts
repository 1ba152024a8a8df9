/**
 * What `/v0/validators/validator-faucets` reports of a ValidatorLicense: the
 * rounds its validator collected a faucet coupon for, from the license's
 * faucetState (Scan's FaucetProcessor). A license without a faucet state has
 * collected nothing: every figure is 0.
 */
import type { Json } from './json';

export type ValidatorReceivedFaucets = {
  validator: string;
  numRoundsCollected: number;
  numRoundsMissed: number;
  firstCollectedInRound: number;
  lastCollectedInRound: number;
};

interface FaucetState {
  firstReceivedFor: { number: string };
  lastReceivedFor: { number: string };
  numCouponsMissed: string;
}

/** From a ValidatorLicense payload in compact_json (int64 as strings, None as null). */
export function validatorReceivedFaucets(payload: Json): ValidatorReceivedFaucets {
  const license = payload as { validator: string; faucetState?: FaucetState | null };
  const state = license.faucetState ?? null;
  if (state === null) {
    return { validator: license.validator, numRoundsCollected: 0, numRoundsMissed: 0, firstCollectedInRound: 0, lastCollectedInRound: 0 };
  }
  const first = Number(state.firstReceivedFor.number);
  const last = Number(state.lastReceivedFor.number);
  const missed = Number(state.numCouponsMissed);
  return {
    validator: license.validator,
    // Collected and missed together cover every round from the first to the last.
    numRoundsCollected: last - first - missed + 1,
    numRoundsMissed: missed,
    firstCollectedInRound: first,
    lastCollectedInRound: last,
  };
}
