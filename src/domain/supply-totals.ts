/**
 * Cumulative supply flows (issue #29, Splice issue 179): what was minted by kind, burned with its parts,
 * and allowed to be minted by the issuance curve, summed over a stretch of history. Totals at an instant
 * are a snapshot's stored totals plus the flows since it (src/store/supply-totals-repository.ts).
 */
import { member, PayloadShapeError } from './dso-state';
import { decimalOf, divDecimal, parseDecimal, type Decimal10 } from './decimal';
import type { Json } from './json';

/** The activity kinds that mint, as the daily mint-burn series and GET /v0/network/supply count them. */
export const MINTED_KINDS = ['mint', 'tap', 'app_reward', 'validator_reward', 'sv_reward', 'validator_faucet'] as const;
export type MintedKind = (typeof MINTED_KINDS)[number];

export interface SupplyTotals {
  minted: Record<MintedKind, Decimal10>;
  /** Every burn of the activities' leg 0 (burned column), whatever the kind. */
  burned: Decimal10;
  /** Parts of burned: the holding fees of the amulet spent by transfers and traffic purchases, */
  holdingFees: Decimal10;
  /** the amulet paid for traffic, */
  traffic: Decimal10;
  /** ANS entry fees, */
  ans: Decimal10;
  /** and the initial amounts of the amulets the DSO expired. The rest is transfer and traffic purchase fees. */
  expired: Decimal10;
  /** What the issuance curve let the rounds that started issuing mint; null: a round's configuration could not be read. */
  allowedMint: Decimal10 | null;
  issuingRounds: number;
}

export const zeroTotals = (): SupplyTotals => ({
  minted: { mint: 0n, tap: 0n, app_reward: 0n, validator_reward: 0n, sv_reward: 0n, validator_faucet: 0n },
  burned: 0n,
  holdingFees: 0n,
  traffic: 0n,
  ans: 0n,
  expired: 0n,
  allowedMint: 0n,
  issuingRounds: 0,
});

export function addTotals(a: SupplyTotals, b: SupplyTotals): SupplyTotals {
  const minted = { ...a.minted };
  for (const k of MINTED_KINDS) minted[k] += b.minted[k];
  return {
    minted,
    burned: a.burned + b.burned,
    holdingFees: a.holdingFees + b.holdingFees,
    traffic: a.traffic + b.traffic,
    ans: a.ans + b.ans,
    expired: a.expired + b.expired,
    allowedMint: a.allowedMint === null || b.allowedMint === null ? null : a.allowedMint + b.allowedMint,
    issuingRounds: a.issuingRounds + b.issuingRounds,
  };
}

export const totalMinted = (t: SupplyTotals): Decimal10 => MINTED_KINDS.reduce((s, k) => s + t.minted[k], 0n);

/** One activity kind's sums over leg 0 (amount, burned, holding fees), as decimal text. */
export interface KindSums {
  kind: string;
  amount: string;
  burned: string;
  holdingFees: string;
}

/** The flows of a stretch of activities, from their sums per kind (no issuing rounds). */
export function flowsOfKinds(sums: readonly KindSums[]): SupplyTotals {
  const t = zeroTotals();
  for (const s of sums) {
    if ((MINTED_KINDS as readonly string[]).includes(s.kind)) t.minted[s.kind as MintedKind] += parseDecimal(s.amount);
    t.burned += parseDecimal(s.burned);
    // As the daily series splits a burn: holding fees and the traffic price of transfers and traffic purchases.
    if (s.kind === 'transfer' || s.kind === 'traffic_purchase') t.holdingFees += parseDecimal(s.holdingFees);
    if (s.kind === 'traffic_purchase') t.traffic += parseDecimal(s.amount);
    if (s.kind === 'ans_entry') t.ans += parseDecimal(s.burned);
    if (s.kind === 'expire') t.expired += parseDecimal(s.burned);
  }
  return t;
}

const YEAR_MICROS = 365n * 86_400n * 1_000_000n;

function positiveInt(template: string, payload: Json, path: string[]): bigint {
  const v = member(template, payload, path);
  if (typeof v !== 'string' || !/^\d+$/.test(v) || BigInt(v) === 0n)
    throw new PayloadShapeError(template, path.join('.'), 'a positive Int64');
  return BigInt(v);
}

/**
 * What the issuance curve lets a round issue in all (Splice.Issuance.computeIssuingRoundParameters'
 * amuletsToIssueInRound, before it is split into the validator, app, SV and development fund tranches):
 * amuletToIssuePerYear / (365 days / tickDuration), in Daml Decimal arithmetic (each division rounded
 * half-even to 10 digits), from the round's SummarizingMiningRound (or OpenMiningRound) payload, whose
 * issuanceConfig and tickDuration AmuletRules_MiningRound_StartIssuing reads.
 */
export function roundIssuance(template: string, payload: Json): Decimal10 {
  const tick = positiveInt(template, payload, ['tickDuration', 'microseconds']);
  const perYear = member(template, payload, ['issuanceConfig', 'amuletToIssuePerYear']);
  if (typeof perYear !== 'string') throw new PayloadShapeError(template, 'issuanceConfig.amuletToIssuePerYear', 'a decimal');
  let amount: Decimal10;
  try {
    amount = parseDecimal(perYear);
  } catch {
    throw new PayloadShapeError(template, 'issuanceConfig.amuletToIssuePerYear', 'a decimal');
  }
  const roundsPerYear = divDecimal(decimalOf(YEAR_MICROS), decimalOf(tick));
  return divDecimal(amount, roundsPerYear);
}
