/**
 * Amulet expiry (option `amuletExpiry`): the DSO, through one SV's automation, archives amulet whose
 * holding fees have eaten it, as Splice's ExpiredAmuletTrigger and ExpiredLockedAmuletTrigger do:
 * DsoRules_Amulet_Expire over Amulet_Expire, DsoRules_LockedAmulet_ExpireAmulet over
 * LockedAmulet_ExpireAmulet, and, with `tokenStandardV2` too, for half of them the V2 forms
 * (Amulet_ExpireV2, LockedAmulet_ExpireAmuletV2), whose result names the burned amount in its metadata.
 * The simulated network's amulet is not yet worthless when it is expired (its fees are not charged
 * until spent): only the shape and the accounting matter here, never the rule that allows it.
 */

import { V, type DamlValue } from '../domain/daml-value';
import { formatDecimal, type Decimal10 } from '../domain/decimal';
import type { CanonicalItem } from '../domain/items';
import type { Holding } from './amulet';
import type { NetworkContext } from './context';
import { FEES } from './economics';
import { fieldlessResult, metadata, roundValue } from './splice-values';

declare module './context' {
  interface Subsystems {
    readonly expiry: AmuletExpiry;
  }
}

/** An amulet to expire: its contract, owner, initial amount and creation round. */
interface Expiring {
  readonly cid: string;
  readonly owner: string;
  readonly amount: Decimal10;
  readonly createdRound: number;
}

export class AmuletExpiry {
  constructor(private readonly net: NetworkContext) {}

  /**
   * A user's oldest amulet (the one its fees have eaten most; the smallest of those), expired by the DSO;
   * a user without one is left for a transfer or a tap.
   */
  expireDust(owner: string): CanonicalItem | undefined {
    const usable = this.net.wallets.usable(owner);
    if (usable.length === 0) return undefined;
    let oldest: Holding = usable[0]!;
    for (const h of usable) {
      if (h.createdRound < oldest.createdRound || (h.createdRound === oldest.createdRound && h.amount < oldest.amount)) oldest = h;
    }
    this.net.wallets.drop(oldest);
    return this.expire(oldest, false);
  }

  /** A LockedAmulet left past its lock's expiry, expired by the DSO instead of reclaimed by its owner. */
  expireLocked(locked: Expiring): CanonicalItem {
    return this.expire(locked, true);
  }

  private expire(a: Expiring, locked: boolean): CanonicalItem {
    const net = this.net;
    const sv = net.randomSv();
    const dso = net.who.dso;
    const v2 = net.settings.tokenStandardV2 && net.rng.chance(0.5);
    const choice = `${locked ? 'LockedAmulet_ExpireAmulet' : 'Amulet_Expire'}${v2 ? 'V2' : ''}`;
    const outer = `${locked ? 'DsoRules_LockedAmulet_ExpireAmulet' : 'DsoRules_Amulet_Expire'}${v2 ? 'V2' : ''}`;
    return net.submit(net.svSubmitter(sv), (tx) => {
      const round = net.rounds.current();
      const arg: DamlValue = v2
        ? V.record({
            externalPartyConfigState0Cid: V.contractId(net.ids.contractId()),
            externalPartyConfigState1Cid: V.contractId(net.ids.contractId()),
          })
        : V.record({ roundCid: V.contractId(round.cid) });
      const root = tx.exercise(
        null,
        net.gov.dsoRulesCid,
        outer,
        V.record({ cid: V.contractId(a.cid), choiceArg: arg, sv: V.some(V.party(sv.party)) }),
        [sv.party],
      );
      const node = tx.exercise(root, a.cid, choice, arg, [dso], true);
      const rate = FEES.holdingFeeRate;
      node.result = v2
        ? V.record({
            expireSum: V.record({ owner: V.party(a.owner) }),
            meta: metadata({ 'tx-kind': 'expire-dust', burned: formatDecimal(a.amount) }),
          })
        : V.record({
            expireSum: V.record({
              owner: V.party(a.owner),
              round: roundValue(round.number),
              changeToInitialAmountAsOfRoundZero: V.numeric(-(a.amount + BigInt(a.createdRound) * rate)),
              changeToHoldingFeesRate: V.numeric(-rate),
            }),
            // As before the V2 forms: no metadata, so the amount is the archived contract's.
            meta: V.none(),
          });
      root.result = fieldlessResult(`${outer}Result`);
    });
  }
}
