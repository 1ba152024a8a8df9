/**
 * The amulet economy of the simulated network: price, fees and issuance in
 * the USD values of the Splice defaults, converted to amulet at a fixed
 * price, plus the fee arithmetic of Splice.AmuletRules (output fees with a
 * stepped transfer rate, holding fees per round).
 */

import { V, type DamlRecord } from '../domain/daml-value';
import { decimalOf, divDecimal, minDecimal, mulDecimal, parseDecimal, type Decimal10 } from '../domain/decimal';
import { tuple2 } from './splice-values';

export const AMULET_PRICE = parseDecimal('0.005');

const USD = {
  createFee: parseDecimal('0.03'),
  holdingFeeRate: parseDecimal('0.0000190259'),
  transferFeeInitialRate: parseDecimal('0.01'),
  transferFeeSteps: [
    [parseDecimal('100'), parseDecimal('0.001')],
    [parseDecimal('1000'), parseDecimal('0.0001')],
    [parseDecimal('1000000'), parseDecimal('0.00001')],
  ] as const,
  lockHolderFee: parseDecimal('0.005'),
  extraFeaturedAppRewardAmount: parseDecimal('1.0'),
  ansEntryFee: parseDecimal('1.0'),
};

const toAmulet = (usd: Decimal10) => divDecimal(usd, AMULET_PRICE);

/** Fees in amulet at AMULET_PRICE (scaleFees in AmuletRules). */
export const FEES = {
  createFee: toAmulet(USD.createFee),
  holdingFeeRate: toAmulet(USD.holdingFeeRate),
  lockHolderFee: toAmulet(USD.lockHolderFee),
  extraFeaturedAppReward: toAmulet(USD.extraFeaturedAppRewardAmount),
  ansEntryFee: toAmulet(USD.ansEntryFee),
  transferSteps: USD.transferFeeSteps.map(([limit, rate]) => [toAmulet(limit), rate] as const),
};

/** chargeSteppedRate: the initial rate up to the first step, each step's rate above it. */
export function transferFee(amount: Decimal10): Decimal10 {
  let fee = 0n;
  let rate = USD.transferFeeInitialRate;
  let lower = 0n;
  for (const [limit, nextRate] of FEES.transferSteps) {
    if (amount <= limit) return fee + mulDecimal(amount - lower, rate);
    fee += mulDecimal(limit - lower, rate);
    lower = limit;
    rate = nextRate;
  }
  return fee + mulDecimal(amount - lower, rate);
}

/** Holding fee accrued by an amulet from its creation round up to `round`, never more than the amulet. */
export function holdingFee(initialAmount: Decimal10, createdRound: number, round: number): Decimal10 {
  const rounds = round > createdRound ? round - createdRound : 0;
  return minDecimal(initialAmount, mulDecimal(decimalOf(rounds), FEES.holdingFeeRate));
}

/** Splice.AmuletConfig.TransferConfig in USD. */
export function transferConfigUsd(): DamlRecord {
  return V.record({
    createFee: V.record({ fee: V.numeric(USD.createFee) }),
    holdingFee: V.record({ rate: V.numeric(USD.holdingFeeRate) }),
    transferFee: V.record({
      initialRate: V.numeric(USD.transferFeeInitialRate),
      steps: V.list(USD.transferFeeSteps.map(([limit, rate]) => tuple2(V.numeric(limit), V.numeric(rate)))),
    }),
    lockHolderFee: V.record({ fee: V.numeric(USD.lockHolderFee) }),
    extraFeaturedAppRewardAmount: V.numeric(USD.extraFeaturedAppRewardAmount),
    ...transferLimits(),
  });
}

const transferLimits = () => ({ maxNumInputs: V.int64(100), maxNumOutputs: V.int64(100), maxNumLockHolders: V.int64(50) });

/** Splice.AmuletConfig.TransferConfigV2 USD: the part of the transfer config an ExternalPartyConfigState copies. */
export function transferConfigV2Usd(): DamlRecord {
  return V.record({
    holdingFee: V.record({ rate: V.numeric(USD.holdingFeeRate) }),
    ...transferLimits(),
  });
}

/** Splice.Issuance.IssuanceConfig; later points of the curve issue less. */
export function issuanceConfig(amuletToIssuePerYear: string, validatorRewardPercentage: string, appRewardPercentage: string): DamlRecord {
  return V.record({
    amuletToIssuePerYear: V.numeric(parseDecimal(amuletToIssuePerYear)),
    validatorRewardPercentage: V.numeric(parseDecimal(validatorRewardPercentage)),
    appRewardPercentage: V.numeric(parseDecimal(appRewardPercentage)),
    validatorRewardCap: V.numeric(parseDecimal('0.2')),
    featuredAppRewardCap: V.numeric(parseDecimal('100')),
    unfeaturedAppRewardCap: V.numeric(parseDecimal('0.6')),
    optValidatorFaucetCap: V.some(V.numeric(parseDecimal('2.85'))),
  });
}

export const ANS_ENTRY_FEE_USD = USD.ansEntryFee;
