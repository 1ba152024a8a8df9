/**
 * GET /v0/amulet-config-for-round: the fees of one round in Amulet, as the Scan app's tx log records
 * them when the OpenMiningRound is created (ScanTxLogParser.fromOpenMiningRoundCreate): the round's
 * transferConfigUsd, each USD amount divided by the round's amuletPrice with Daml's Numeric 10
 * division (SpliceUtil.dollarsToCC); the rates stay as they are.
 */
import { divDecimal, formatDecimal, parseDecimal, type Decimal10 } from './decimal';
import { member, PayloadShapeError } from './dso-state';
import type { Json } from './json';

const T = 'OpenMiningRound';

export type RoundAmuletConfig = {
  amulet_create_fee: string;
  holding_fee: string;
  lock_holder_fee: string;
  transfer_fee: { initial: string; steps: { amount: string; rate: string }[] };
};

function decimalAt(value: Json | undefined, path: string[]): Decimal10 {
  const v = member(T, value, path);
  if (typeof v !== 'string') throw new PayloadShapeError(T, path.join('.'), 'a decimal');
  try {
    return parseDecimal(v);
  } catch {
    throw new PayloadShapeError(T, path.join('.'), 'a decimal');
  }
}

/** A stepped-rate step: a record {_1, _2} in compact JSON, or a pair. */
function step(entry: Json | undefined): [Json | undefined, Json | undefined] {
  return Array.isArray(entry) ? [entry[0], entry[1]] : [member(T, entry, ['_1']), member(T, entry, ['_2'])];
}

/** The config of the round, from its OpenMiningRound payload (compact JSON). */
export function roundAmuletConfig(payload: Json): RoundAmuletConfig {
  const price = decimalAt(payload, ['amuletPrice']);
  const toAmulet = (usd: Decimal10) => formatDecimal(divDecimal(usd, price));
  const config = member(T, payload, ['transferConfigUsd']);
  const steps = member(T, config, ['transferFee', 'steps']);
  if (!Array.isArray(steps)) throw new PayloadShapeError(T, 'transferConfigUsd.transferFee.steps', 'a list');
  return {
    amulet_create_fee: toAmulet(decimalAt(config, ['createFee', 'fee'])),
    holding_fee: toAmulet(decimalAt(config, ['holdingFee', 'rate'])),
    lock_holder_fee: toAmulet(decimalAt(config, ['lockHolderFee', 'fee'])),
    transfer_fee: {
      initial: formatDecimal(decimalAt(config, ['transferFee', 'initialRate'])),
      steps: steps.map((entry) => {
        const [amount, rate] = step(entry);
        return { amount: toAmulet(decimalAt(amount, [])), rate: formatDecimal(decimalAt(rate, [])) };
      }),
    },
  };
}
