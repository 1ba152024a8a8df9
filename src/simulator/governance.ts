/**
 * The DSO's rules contracts (DsoRules, AmuletRules, AnsRules), the genesis
 * of the network, featured app rights, and the confirm-then-execute path by
 * which SV automation runs actions that need the DSO party's authority.
 */

import { V, type DamlRecord, type DamlValue } from '../domain/daml-value';
import { parseDecimal } from '../domain/decimal';
import type { CanonicalItem } from '../domain/items';
import type { Micros } from '../domain/time';
import { ANS_ENTRY_FEE_USD, issuanceConfig, transferConfigUsd } from './economics';
import type { SuperValidator, User } from './identities';
import type { NetworkContext } from './context';
import { damlMap, fieldlessResult, relTime, roundValue, textSet, tuple2 } from './splice-values';
import { TEMPLATES } from './templates';
import type { ExerciseNode, TxBuilder } from './transaction';

declare module './context' {
  interface Subsystems {
    readonly gov: Governance;
  }
}

export interface UpgradeSchedule {
  readonly time: Micros;
  readonly migrationId: number;
}

const SECOND = 1_000_000n;
const HOUR = 3600n * SECOND;

/** How long votes stay open, in ticks; short enough that some expire in a short run. */
export const VOTE_REQUEST_TICKS = 6;
/** ANS entries live this many ticks and may be renewed in the last RENEWAL ticks. */
export const ANS_ENTRY_TICKS = 6;
export const ANS_RENEWAL_TICKS = 2;

export class Governance {
  dsoRulesCid = '';
  amuletRulesCid = '';
  externalPartyAmuletRulesCid = '';
  ansRulesCid = '';
  upgradeSchedule: UpgradeSchedule | null = null;
  /** Provider party → its FeaturedAppRight contract. */
  readonly featuredRights = new Map<string, string>();
  private readonly svWeights = new Map<string, number>();

  constructor(private readonly net: NetworkContext) {
    net.who.svs.forEach((sv, i) => this.svWeights.set(sv.party, 10_000 * (1 + (i % 3))));
  }

  /** Schedules the genesis of the network: rules, rounds, SV state, featured apps, first holdings. */
  bootstrap(upgradeSchedule: Micros | undefined): void {
    const net = this.net;
    const founder = net.who.svs[0] as SuperValidator;
    if (upgradeSchedule !== undefined) this.upgradeSchedule = { time: upgradeSchedule, migrationId: net.migrationId + 1 };
    net.soon(() =>
      net.submit(net.dsoSubmitter(founder), (tx) => {
        const dso = [net.who.dso];
        this.dsoRulesCid = tx.create(null, TEMPLATES.dsoRules, this.dsoRulesArgs(), dso);
        this.amuletRulesCid = tx.create(null, TEMPLATES.amuletRules, this.amuletRulesArgs(), dso);
        this.externalPartyAmuletRulesCid = tx.create(
          null,
          TEMPLATES.externalPartyAmuletRules,
          V.record({ dso: V.party(net.who.dso) }),
          dso,
        );
        this.ansRulesCid = tx.create(null, TEMPLATES.ansRules, this.ansRulesArgs(), dso);
      }),
    );
    net.soon(() => net.licenses.bootstrap(founder));
    net.soon(() => net.rounds.bootstrap(founder));
    net.soon(() => net.svNodes.bootstrap(founder));
    if (net.settings.tokenStandardV2) net.soon(() => net.configStates.bootstrap(founder));
    net.who.appProviders.forEach((provider, i) => {
      if (i % 2 === 0) net.soon(() => this.featureAppOnDevNet(provider));
    });
    for (const user of net.who.users) net.soon(() => net.wallets.tap(user, net.wallets.genesisAmount(user)));
  }

  requiredVotes(): number {
    const n = this.net.who.svs.length;
    return Math.min(n, Math.floor((2 * n) / 3) + 1);
  }

  dsoRulesConfig(schedule: UpgradeSchedule | null): DamlRecord {
    const net = this.net;
    const sync = net.who.globalSynchronizer;
    return V.record({
      numUnclaimedRewardsThreshold: V.int64(10),
      numMemberTrafficContractsThreshold: V.int64(10),
      actionConfirmationTimeout: relTime(HOUR),
      svOnboardingRequestTimeout: relTime(HOUR),
      svOnboardingConfirmedTimeout: relTime(HOUR),
      voteRequestTimeout: relTime(net.ticks(VOTE_REQUEST_TICKS)),
      dsoDelegateInactiveTimeout: relTime(70n * SECOND),
      synchronizerNodeConfigLimits: V.record({
        cometBft: V.record({
          maxNumCometBftNodes: V.int64(2),
          maxNumGovernanceKeys: V.int64(2),
          maxNumSequencingKeys: V.int64(2),
          maxNodeIdLength: V.int64(50),
          maxPubKeyLength: V.int64(256),
        }),
      }),
      maxTextLength: V.int64(1024),
      decentralizedSynchronizer: V.record({
        synchronizers: V.genMap([
          [
            V.text(sync),
            V.record({
              state: V.enum('DS_Operational'),
              cometBftGenesisJson: V.text('{"chain_id":"global-domain"}'),
              acsCommitmentReconciliationInterval: V.some(V.int64(1800)),
            }),
          ],
        ]),
        lastSynchronizerId: V.text(sync),
        activeSynchronizerId: V.text(sync),
      }),
      nextScheduledSynchronizerUpgrade: V.optional(
        schedule && V.record({ time: V.timestamp(schedule.time), migrationId: V.int64(schedule.migrationId) }),
      ),
      voteCooldownTime: V.none(),
    });
  }

  private dsoRulesArgs(): DamlRecord {
    const net = this.net;
    const svInfos = net.who.svs.map(
      (sv) =>
        [
          sv.party,
          V.record({
            name: V.text(sv.name),
            joinedAsOfRound: roundValue(0),
            svRewardWeight: V.int64(this.svWeights.get(sv.party) ?? 0),
            participantId: V.text(sv.participant.uid),
          }),
        ] as const,
    );
    return V.record({
      dso: V.party(net.who.dso),
      epoch: V.int64(0),
      svs: damlMap(svInfos, V.party),
      offboardedSvs: V.genMap([]),
      dsoDelegate: V.party((net.who.svs[0] as SuperValidator).party),
      config: this.dsoRulesConfig(this.upgradeSchedule),
      initialTrafficState: V.genMap([]),
      isDevNet: V.bool(true),
    });
  }

  private amuletRulesArgs(): DamlRecord {
    const net = this.net;
    const sync = net.who.globalSynchronizer;
    const year = 365n * 24n * HOUR;
    const amuletConfig = V.record({
      transferConfig: transferConfigUsd(),
      issuanceCurve: V.record({
        initialValue: issuanceConfig('40000000000', '0.05', '0.15'),
        futureValues: V.list([
          tuple2(relTime(year / 2n), issuanceConfig('20000000000', '0.12', '0.4')),
          tuple2(relTime(year + year / 2n), issuanceConfig('10000000000', '0.18', '0.62')),
        ]),
      }),
      decentralizedSynchronizer: V.record({
        requiredSynchronizers: textSet([sync]),
        activeSynchronizer: V.text(sync),
        fees: V.record({
          baseRateTrafficLimits: V.record({ burstAmount: V.int64(400_000), burstWindow: relTime(20n * 60n * SECOND) }),
          extraTrafficPrice: V.numeric(parseDecimal('16.67')),
          readVsWriteScalingFactor: V.int64(4),
          minTopupAmount: V.int64(200_000),
        }),
      }),
      tickDuration: relTime(net.settings.tickMicros),
      packageConfig: V.record({
        amulet: V.text('0.1.9'),
        amuletNameService: V.text('0.1.9'),
        dsoGovernance: V.text('0.1.13'),
        validatorLifecycle: V.text('0.1.3'),
        wallet: V.text('0.1.9'),
        walletPayments: V.text('0.1.9'),
      }),
      transferPreapprovalFee: V.none(),
      featuredAppActivityMarkerAmount: V.none(),
    });
    return V.record({
      dso: V.party(net.who.dso),
      configSchedule: V.record({ initialValue: amuletConfig, futureValues: V.list([]) }),
      isDevNet: V.bool(true),
    });
  }

  private ansRulesArgs(): DamlRecord {
    const net = this.net;
    return V.record({
      dso: V.party(net.who.dso),
      config: V.record({
        renewalDuration: relTime(net.ticks(ANS_RENEWAL_TICKS)),
        entryLifetime: relTime(net.ticks(ANS_ENTRY_TICKS)),
        entryFee: V.numeric(ANS_ENTRY_FEE_USD),
        descriptionPrefix: V.text('ANS entry: '),
      }),
    });
  }

  /** DsoRules_SetConfig: replaces the DsoRules contract with one carrying the new schedule. */
  setUpgradeSchedule(tx: TxBuilder, parent: ExerciseNode | null, schedule: UpgradeSchedule | null): void {
    const base = this.dsoRulesConfig(this.upgradeSchedule);
    const next = this.dsoRulesConfig(schedule);
    this.replaceDsoRules(tx, parent, 'DsoRules_SetConfig', V.record({ newConfig: next, baseConfig: V.some(base) }), () => {
      this.upgradeSchedule = schedule;
    });
  }

  updateSvRewardWeight(tx: TxBuilder, parent: ExerciseNode | null, svParty: string, weight: number): void {
    const arg = V.record({ svParty: V.party(svParty), newRewardWeight: V.int64(weight) });
    this.replaceDsoRules(tx, parent, 'DsoRules_UpdateSvRewardWeight', arg, () => this.svWeights.set(svParty, weight));
  }

  private replaceDsoRules(tx: TxBuilder, parent: ExerciseNode | null, choice: string, arg: DamlValue, change: () => void): void {
    const dso = this.net.who.dso;
    const node = tx.exercise(parent, this.dsoRulesCid, choice, arg, [dso], true);
    change();
    this.dsoRulesCid = tx.create(node, TEMPLATES.dsoRules, this.dsoRulesArgs(), [dso]);
    node.result = V.record({ newDsoRules: V.contractId(this.dsoRulesCid) });
  }

  grantFeaturedAppRight(tx: TxBuilder, parent: ExerciseNode | null, provider: string): void {
    const dso = this.net.who.dso;
    const node = tx.exercise(parent, this.dsoRulesCid, 'DsoRules_GrantFeaturedAppRight', V.record({ provider: V.party(provider) }), [dso]);
    const cid = tx.create(
      node,
      TEMPLATES.featuredAppRight,
      V.record({ dso: V.party(dso), provider: V.party(provider) }),
      [dso],
      [provider],
    );
    this.featuredRights.set(provider, cid);
    node.result = V.record({ featuredAppRight: V.contractId(cid) });
  }

  /** AmuletRules_DevNet_FeatureApp: on DevNet a provider can feature itself. */
  featureAppOnDevNet(provider: User): CanonicalItem {
    const net = this.net;
    return net.submit(net.userSubmitter(provider), (tx) => {
      const dso = net.who.dso;
      const node = tx.exercise(
        null,
        this.amuletRulesCid,
        'AmuletRules_DevNet_FeatureApp',
        V.record({ provider: V.party(provider.party) }),
        [provider.party],
      );
      const cid = tx.create(
        node,
        TEMPLATES.featuredAppRight,
        V.record({ dso: V.party(dso), provider: V.party(provider.party) }),
        [dso],
        [provider.party],
      );
      this.featuredRights.set(provider.party, cid);
      node.result = V.record({ featuredAppRightCid: V.contractId(cid) });
    });
  }

  /**
   * DsoRules_ConfirmAction by a quorum of SVs (one transaction each), then
   * DsoRules_ExecuteConfirmedAction, which archives the confirmations and runs
   * `execute` under the DSO party.
   */
  confirmAndExecute(action: DamlValue, execute: (tx: TxBuilder, parent: ExerciseNode) => void): void {
    const net = this.net;
    const svs = net.who.svs;
    const start = net.rng.int(0, svs.length - 1);
    const confirmers = Array.from({ length: this.requiredVotes() }, (_, i) => svs[(start + i) % svs.length] as SuperValidator);
    const confirmations: string[] = [];
    for (const sv of confirmers) {
      net.soon(() =>
        net.submit(net.svSubmitter(sv), (tx) => {
          const dso = net.who.dso;
          const node = tx.exercise(null, this.dsoRulesCid, 'DsoRules_ConfirmAction', V.record({ confirmer: V.party(sv.party), action }), [
            sv.party,
          ]);
          const cid = tx.create(
            node,
            TEMPLATES.confirmation,
            V.record({
              dso: V.party(dso),
              confirmer: V.party(sv.party),
              action,
              expiresAt: V.timestamp(tx.effectiveAt + HOUR),
            }),
            [dso],
          );
          confirmations.push(cid);
          node.result = V.record({ confirmation: V.contractId(cid) });
        }),
      );
    }
    const executor = confirmers[0] as SuperValidator;
    net.soon(() =>
      net.submit(net.svSubmitter(executor), (tx) => {
        const dso = net.who.dso;
        const node = tx.exercise(
          null,
          this.dsoRulesCid,
          'DsoRules_ExecuteConfirmedAction',
          V.record({
            action,
            amuletRulesCid: V.some(V.contractId(this.amuletRulesCid)),
            confirmationCids: V.list(confirmations.map(V.contractId)),
            sv: V.some(V.party(executor.party)),
          }),
          [executor.party],
        );
        for (const cid of confirmations) tx.archive(node, cid, [dso]);
        execute(tx, node);
        node.result = fieldlessResult('DsoRules_ExecuteConfirmedActionResult');
      }),
    );
  }
}

/** ActionRequiringConfirmation.ARC_AmuletRules wrapping an AmuletRules action. */
export const amuletRulesAction = (tag: string, value: DamlValue): DamlValue =>
  V.variant('ARC_AmuletRules', V.record({ amuletRulesAction: V.variant(tag, value) }));

/** ActionRequiringConfirmation.ARC_DsoRules wrapping a DsoRules action. */
export const dsoRulesAction = (tag: string, value: DamlValue): DamlValue =>
  V.variant('ARC_DsoRules', V.record({ dsoAction: V.variant(tag, value) }));
