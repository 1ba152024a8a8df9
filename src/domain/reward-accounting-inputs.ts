/**
 * CIP-0104 reward accounting reads its per-round inputs from the round's OpenMiningRound: besides the
 * issuance configuration and amulet price every round has, the `trafficPrice` and `rewardConfig`
 * (app reward coupon threshold, batch size) that CIP-0104 added as optional fields. Splice builds a
 * round's reward inputs only when both are present; rounds before CIP-0104 have neither.
 */
import type { Json } from './json';

const CIP_0104_FIELDS = ['trafficPrice', 'rewardConfig'] as const;

/** The CIP-0104 fields an OpenMiningRound's create arguments (compact JSON) lack: absent or None. */
export function missingRewardInputs(openMiningRound: Json): string[] {
  const fields = openMiningRound !== null && typeof openMiningRound === 'object' && !Array.isArray(openMiningRound) ? openMiningRound : {};
  return CIP_0104_FIELDS.filter((name) => fields[name] === undefined || fields[name] === null);
}
