/**
 * Per-SV state contracts: SvNodeState (the SV's CometBFT, sequencer,
 * mediator and scan nodes per synchronizer; `/v0/scans` is built from the
 * scan public URLs), SvStatusReport, the heartbeat every SV submits each
 * tick, and AmuletPriceVote, the SV's desired amulet price (none until the SV
 * first votes). After a hard migration each SV points its sequencer at the
 * new migration id.
 */

import { V, type DamlRecord } from '../domain/daml-value';
import { mulDecimal, type Decimal10 } from '../domain/decimal';
import type { CanonicalItem } from '../domain/items';
import type { Micros } from '../domain/time';
import type { SuperValidator } from './identities';
import type { NetworkContext } from './context';
import { AMULET_PRICE } from './economics';
import { roundValue } from './splice-values';
import { TEMPLATES } from './templates';

declare module './context' {
  interface Subsystems {
    readonly svNodes: SvNodes;
  }
}

interface NodeState {
  nodeStateCid: string;
  reportCid: string;
  reportNumber: number;
  sequencerMigrationId: number;
  sequencerAvailableAfter: Micros;
  votingPower: number;
  priceVoteCid: string;
}

export class SvNodes {
  private readonly nodes = new Map<string, NodeState>();

  constructor(private readonly net: NetworkContext) {}

  /** Creates every SV's node state and an empty status report. */
  bootstrap(founder: SuperValidator): CanonicalItem {
    const net = this.net;
    return net.submit(net.dsoSubmitter(founder), (tx) => {
      const dso = net.who.dso;
      for (const sv of net.who.svs) {
        const state: NodeState = {
          nodeStateCid: '',
          reportCid: '',
          reportNumber: 0,
          sequencerMigrationId: net.migrationId,
          sequencerAvailableAfter: tx.effectiveAt,
          votingPower: 1,
          priceVoteCid: '',
        };
        state.nodeStateCid = tx.create(null, TEMPLATES.svNodeState, this.nodeStateArgs(sv, state), [dso]);
        state.reportCid = tx.create(
          null,
          TEMPLATES.svStatusReport,
          V.record({ dso: V.party(dso), sv: V.party(sv.party), svName: V.text(sv.name), number: V.int64(0), status: V.none() }),
          [dso],
        );
        state.priceVoteCid = tx.create(null, TEMPLATES.amuletPriceVote, this.priceVoteArgs(sv, null, tx.effectiveAt), [dso]);
        this.nodes.set(sv.party, state);
      }
    });
  }

  /** The live AmuletPriceVote of every SV, for the median price of a new open round. */
  priceVoteCids(): string[] {
    return [...this.nodes.values()].map((state) => state.priceVoteCid);
  }

  /** DsoRules_UpdateAmuletPriceVote: an SV moves its desired price within 2% of the reference price. */
  randomPriceVote(): CanonicalItem {
    const net = this.net;
    const sv = net.randomSv();
    const state = this.state(sv);
    const price = mulDecimal(AMULET_PRICE, BigInt(net.rng.int(9_800, 10_200)) * 1_000_000n);
    return net.submit(net.svSubmitter(sv), (tx) => {
      const node = tx.exercise(
        null,
        net.gov.dsoRulesCid,
        'DsoRules_UpdateAmuletPriceVote',
        V.record({ sv: V.party(sv.party), voteCid: V.contractId(state.priceVoteCid), amuletPrice: V.numeric(price) }),
        [sv.party],
      );
      tx.archive(node, state.priceVoteCid, [net.who.dso]);
      state.priceVoteCid = tx.create(node, TEMPLATES.amuletPriceVote, this.priceVoteArgs(sv, price, tx.effectiveAt), [net.who.dso]);
      node.result = V.record({ amuletPriceVote: V.contractId(state.priceVoteCid) });
    });
  }

  private priceVoteArgs(sv: SuperValidator, price: Decimal10 | null, at: Micros): DamlRecord {
    return V.record({
      dso: V.party(this.net.who.dso),
      sv: V.party(sv.party),
      amuletPrice: V.optional(price === null ? null : V.numeric(price)),
      lastUpdatedAt: V.timestamp(at),
    });
  }

  scheduleStatusReports(): void {
    for (const sv of this.net.who.svs) this.net.soon(() => this.reportStatus(sv));
  }

  /** After a hard migration every SV reconfigures its sequencer for the new migration id. */
  announceMigration(): void {
    for (const sv of this.net.who.svs) {
      this.net.soon(() =>
        this.setNodeConfig(sv, (state) => {
          state.sequencerMigrationId = this.net.migrationId;
          state.sequencerAvailableAfter = this.net.now;
        }),
      );
    }
  }

  /** An SV changes its CometBFT node's voting power (DevNet operators do this when testing nodes). */
  randomConfigChange(): CanonicalItem {
    return this.setNodeConfig(this.net.randomSv(), (state) => {
      state.votingPower = state.votingPower === 1 ? 0 : 1;
    });
  }

  private state(sv: SuperValidator): NodeState {
    const state = this.nodes.get(sv.party);
    if (!state) throw new Error(`no node state for ${sv.name}`);
    return state;
  }

  private reportStatus(sv: SuperValidator): CanonicalItem {
    const net = this.net;
    const state = this.state(sv);
    return net.submit(net.svSubmitter(sv), (tx) => {
      const dso = net.who.dso;
      const now = tx.effectiveAt;
      const status = V.record({
        createdAt: V.timestamp(now),
        cometBftHeight: V.int64((now - net.settings.startTime) / 1_000_000n + 1000n),
        mediatorSynchronizerTime: V.timestamp(now - BigInt(net.rng.int(1000, 900_000))),
        participantSynchronizerTime: V.timestamp(now - BigInt(net.rng.int(1000, 900_000))),
        latestOpenRound: roundValue(net.rounds.latestNumber()),
      });
      const node = tx.exercise(
        null,
        net.gov.dsoRulesCid,
        'DsoRules_SubmitStatusReport',
        V.record({ sv: V.party(sv.party), previousReportCid: V.contractId(state.reportCid), status }),
        [sv.party],
      );
      tx.archive(node, state.reportCid, [dso]);
      state.reportNumber++;
      state.reportCid = tx.create(
        node,
        TEMPLATES.svStatusReport,
        V.record({
          dso: V.party(dso),
          sv: V.party(sv.party),
          svName: V.text(sv.name),
          number: V.int64(state.reportNumber),
          status: V.some(status),
        }),
        [dso],
      );
      node.result = V.record({ newReport: V.contractId(state.reportCid) });
    });
  }

  /** DsoRules_SetSynchronizerNodeConfig: the SV's node state is replaced by an updated one. */
  private setNodeConfig(sv: SuperValidator, change: (state: NodeState) => void): CanonicalItem {
    const net = this.net;
    const state = this.state(sv);
    return net.submit(net.svSubmitter(sv), (tx) => {
      const dso = net.who.dso;
      const previous = state.nodeStateCid;
      change(state);
      const node = tx.exercise(
        null,
        net.gov.dsoRulesCid,
        'DsoRules_SetSynchronizerNodeConfig',
        V.record({
          sv: V.party(sv.party),
          synchronizerId: V.text(net.who.globalSynchronizer),
          newNodeConfig: this.nodeConfig(sv, state),
          nodeStateCid: V.contractId(previous),
        }),
        [sv.party],
      );
      tx.archive(node, previous, [dso]);
      state.nodeStateCid = tx.create(node, TEMPLATES.svNodeState, this.nodeStateArgs(sv, state), [dso]);
      node.result = V.record({ svNodeState: V.contractId(state.nodeStateCid) });
    });
  }

  private nodeStateArgs(sv: SuperValidator, state: NodeState): DamlRecord {
    const net = this.net;
    return V.record({
      dso: V.party(net.who.dso),
      sv: V.party(sv.party),
      svName: V.text(sv.name),
      state: V.record({
        synchronizerNodes: V.genMap([[V.text(net.who.globalSynchronizer), this.nodeConfig(sv, state)]]),
      }),
    });
  }

  /** Splice.DSO.DecentralizedSynchronizer.SynchronizerNodeConfig */
  private nodeConfig(sv: SuperValidator, state: NodeState): DamlRecord {
    return V.record({
      cometBft: V.record({
        nodes: V.genMap([
          [V.text(sv.cometBftNodeId), V.record({ validatorPubKey: V.text(sv.cometBftPubKey), votingPower: V.int64(state.votingPower) })],
        ]),
        governanceKeys: V.list([V.record({ pubKey: V.text(sv.cometBftPubKey) })]),
        sequencingKeys: V.list([V.record({ pubKey: V.text(sv.cometBftPubKey) })]),
      }),
      sequencer: V.some(
        V.record({
          migrationId: V.int64(state.sequencerMigrationId),
          sequencerId: V.text(sv.sequencerId),
          url: V.text(sv.sequencerUrl),
          availableAfter: V.some(V.timestamp(state.sequencerAvailableAfter)),
        }),
      ),
      mediator: V.some(V.record({ mediatorId: V.text(sv.mediatorId) })),
      scan: V.some(V.record({ publicUrl: V.text(sv.scanUrl) })),
      legacySequencerConfigs: V.none(),
    });
  }
}
