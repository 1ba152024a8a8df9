/**
 * ExternalPartyConfigState (only with the `tokenStandardV2` option): what token-standard transfers,
 * allocations, traffic purchases and taps read instead of the open round, so that a transaction may be
 * prepared a day before it is executed (the 24-hour submission delay CIP). The DSO keeps two, created a
 * tick duration apart, each copying the price, the round and the transfer limits of the newest open
 * round and meant to live two tick durations (`targetArchiveAfter`). Once the older one's time is up, an
 * SV's automation exercises DsoRules_UpdateExternalPartyConfigStates, which archives it and creates the
 * next (Splice's UpdateExternalPartyConfigStateTrigger).
 *
 * Simplifications: the tick duration is CONFIG_STATE_TICKS of the network's ticks, not 24 hours, so that
 * short networks rotate; the choice's argument names the rules and the two config states, without the
 * open round triple; the optional fields newer versions add (reward version, switch-over times, traffic
 * price and its synchronizers, the minimum top-up) are None.
 */
import { V } from '../domain/daml-value';
import type { CanonicalItem } from '../domain/items';
import type { Micros } from '../domain/time';
import type { NetworkContext } from './context';
import { AMULET_PRICE, transferConfigV2Usd } from './economics';
import type { SuperValidator } from './identities';
import { roundValue } from './splice-values';
import { TEMPLATES } from './templates';
import type { ExerciseNode, TxBuilder } from './transaction';

declare module './context' {
  interface Subsystems {
    readonly configStates: ConfigStates;
  }
}

/** The tick duration of the config states, in the network's ticks. */
const CONFIG_STATE_TICKS = 6;

interface ConfigState {
  readonly cid: string;
  readonly archiveAfter: Micros;
}

export class ConfigStates {
  /** The two live config states, oldest first. */
  private live: ConfigState[] = [];

  constructor(private readonly net: NetworkContext) {}

  /** The newer of the pair, which the registry names in V2 contexts; none before genesis creates them. */
  newest(): string | undefined {
    return this.live[1]?.cid;
  }

  /** The DSO creates the first two at genesis, a tick duration apart in their targetArchiveAfter. */
  bootstrap(founder: SuperValidator): CanonicalItem {
    const net = this.net;
    const period = net.ticks(CONFIG_STATE_TICKS);
    return net.submit(net.dsoSubmitter(founder), (tx) => {
      this.live = [this.create(tx, null, net.now + period), this.create(tx, null, net.now + 2n * period)];
      net.at(net.now + period + 1n, () => this.update());
    });
  }

  /** DsoRules_UpdateExternalPartyConfigStates: the older one archived, the next created; again a tick duration later. */
  private update(): CanonicalItem {
    const net = this.net;
    const [oldest, newest] = this.live as [ConfigState, ConfigState];
    const sv = net.who.svs[0] as SuperValidator;
    return net.submit(net.dsoSubmitter(sv), (tx) => {
      const node = tx.exercise(
        null,
        net.gov.dsoRulesCid,
        'DsoRules_UpdateExternalPartyConfigStates',
        V.record({
          amuletRulesCid: V.contractId(net.gov.amuletRulesCid),
          oldestConfigStateCid: V.contractId(oldest.cid),
          newestConfigStateCid: V.contractId(newest.cid),
          sv: V.party(sv.party),
        }),
        [net.who.dso],
      );
      tx.archive(node, oldest.cid, [net.who.dso]);
      const next = this.create(tx, node, newest.archiveAfter + net.ticks(CONFIG_STATE_TICKS));
      node.result = V.record({ newConfigStateCid: V.contractId(next.cid) });
      this.live = [newest, next];
      net.at(newest.archiveAfter + 1n, () => this.update());
    });
  }

  private create(tx: TxBuilder, parent: ExerciseNode | null, archiveAfter: Micros): ConfigState {
    const net = this.net;
    const cid = tx.create(
      parent,
      TEMPLATES.externalPartyConfigState,
      V.record({
        dso: V.party(net.who.dso),
        holdingFeesOpenRoundNumber: roundValue(net.rounds.current().number),
        amuletPrice: V.numeric(AMULET_PRICE),
        transferConfig: transferConfigV2Usd(),
        targetArchiveAfter: V.timestamp(archiveAfter),
        rewardCalculationVersion: V.none(),
        amuletSwitchOverTimes: V.none(),
        trafficPrice: V.none(),
        requiredSynchronizers: V.none(),
        minTrafficTopupAmount: V.none(),
      }),
      [net.who.dso],
    );
    return { cid, archiveAfter };
  }
}
