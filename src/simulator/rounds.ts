/**
 * Mining rounds. Every tick the SVs advance the open rounds (the oldest of
 * three becomes a SummarizingMiningRound, a new one opens a tick later),
 * start issuing the round summarized at the previous tick (through
 * confirmations), close issuing rounds past their target close time, expire
 * the reward coupons of closed rounds, and archive closed rounds two ticks
 * after closing. Several open rounds are active at once, as on the real
 * network.
 */

import { V, type DamlValue } from '../domain/daml-value';
import { decimalOf, mulDecimal, parseDecimal, type Decimal10 } from '../domain/decimal';
import type { CanonicalItem } from '../domain/items';
import type { Micros } from '../domain/time';
import { AMULET_PRICE, issuanceConfig, transferConfigUsd } from './economics';
import { amuletRulesAction } from './governance';
import type { SuperValidator } from './identities';
import type { NetworkContext } from './context';
import { fieldlessResult, relTime, roundValue } from './splice-values';
import { TEMPLATES } from './templates';
import type { ExerciseNode, TxBuilder } from './transaction';

declare module './context' {
  interface Subsystems {
    readonly rounds: Rounds;
  }
}

export interface OpenRound {
  readonly cid: string;
  readonly number: number;
  readonly opensAt: Micros;
  readonly issuingFor: Micros;
}

interface Coupon {
  readonly cid: string;
  readonly kind: 'validator' | 'app';
  readonly amount: Decimal10;
  readonly featured: boolean;
}

interface Issuance {
  readonly validator: Decimal10;
  readonly featuredApp: Decimal10;
  readonly unfeaturedApp: Decimal10;
  readonly sv: Decimal10;
  readonly faucet: Decimal10;
}

/** Reward coupons expired per DsoRules_ClaimExpiredRewards transaction. */
const COUPONS_PER_CLAIM = 20;
/** Closed rounds stay active this many ticks before they are archived. */
const CLOSED_ROUND_TICKS = 2;
const UNCLAIMED_MERGE_THRESHOLD = 10;

export class Rounds {
  private open: OpenRound[] = [];
  private readonly summarizing: { cid: string; number: number }[] = [];
  private readonly issuing: { cid: string; number: number; targetClosesAt: Micros; issuance: Issuance }[] = [];
  private readonly closed: { cid: string; number: number; archiveAfter: Micros }[] = [];
  private readonly coupons = new Map<number, Coupon[]>();
  private unclaimedRewards: { cid: string; amount: Decimal10 }[] = [];
  private nextTick: Micros | undefined;

  constructor(private readonly net: NetworkContext) {}

  /** The open round transfers use: the newest one that has opened. */
  current(): OpenRound {
    const now = this.net.now;
    for (let i = this.open.length - 1; i > 0; i--) {
      const r = this.open[i] as OpenRound;
      if (r.opensAt <= now) return r;
    }
    const first = this.open[0];
    if (!first) throw new Error('no open mining round');
    return first;
  }

  /** The newest open round number, as SVs report it in their status. */
  latestNumber(): number {
    return this.open[this.open.length - 1]?.number ?? 0;
  }

  addCoupon(round: number, coupon: Coupon): void {
    let list = this.coupons.get(round);
    if (!list) this.coupons.set(round, (list = []));
    list.push(coupon);
  }

  /** AmuletRules_Bootstrap_Rounds: rounds 0 and 1 open now, round 2 a tick later. */
  bootstrap(founder: SuperValidator): CanonicalItem {
    const net = this.net;
    const tick = net.settings.tickMicros;
    return net.submit(net.dsoSubmitter(founder), (tx) => {
      const now = tx.effectiveAt;
      const node = tx.exercise(
        null,
        net.gov.amuletRulesCid,
        'AmuletRules_Bootstrap_Rounds',
        V.record({ amuletPrice: V.numeric(AMULET_PRICE), round0Duration: relTime(tick) }),
        [net.who.dso],
      );
      const closes0 = now + tick;
      this.open = [
        this.createOpenRound(tx, node, 0, now, closes0, 0n),
        this.createOpenRound(tx, node, 1, now, closes0 + tick, tick),
        this.createOpenRound(tx, node, 2, closes0, closes0 + 2n * tick, 2n * tick),
      ];
      node.result = V.record({ openMiningRoundCid: V.contractId((this.open[2] as OpenRound).cid) });
      this.nextTick = net.now + tick;
    });
  }

  private createOpenRound(
    tx: TxBuilder,
    parent: ExerciseNode,
    number: number,
    opensAt: Micros,
    targetClosesAt: Micros,
    issuingFor: Micros,
  ): OpenRound {
    const net = this.net;
    const cid = tx.create(
      parent,
      TEMPLATES.openMiningRound,
      V.record({
        dso: V.party(net.who.dso),
        round: roundValue(number),
        amuletPrice: V.numeric(AMULET_PRICE),
        opensAt: V.timestamp(opensAt),
        targetClosesAt: V.timestamp(targetClosesAt),
        issuingFor: relTime(issuingFor),
        transferConfigUsd: transferConfigUsd(),
        issuanceConfig: issuanceConfig('40000000000', '0.05', '0.15'),
        tickDuration: relTime(net.settings.tickMicros),
        rewardAccountingVersion: V.none(),
      }),
      [net.who.dso],
    );
    return { cid, number, opensAt, issuingFor };
  }

  /** Called with every record time; at each tick boundary it schedules the round automation. */
  onTime(now: Micros): void {
    if (this.nextTick === undefined || now < this.nextTick) return;
    const tick = this.net.settings.tickMicros;
    // After a pause (a hard migration) missed ticks are skipped rather than replayed.
    this.nextTick = this.nextTick + tick > now ? this.nextTick + tick : now + tick;
    this.scheduleTick(now);
  }

  private scheduleTick(now: Micros): void {
    const net = this.net;
    for (const round of this.summarizing.splice(0)) this.startIssuing(round);
    net.soon(() => this.advance());
    // Rounds are handled oldest first, so each kind of round is created in round order.
    for (const round of takeWhere(this.issuing, (r) => r.targetClosesAt <= now)) net.soon(() => this.close(round));
    for (const round of takeWhere(this.closed, (r) => r.archiveAfter <= now)) this.archiveClosed(round.cid);
    net.svNodes.scheduleStatusReports();
  }

  /** DsoRules_AdvanceOpenMiningRounds: the oldest open round is summarized, a new one is opened. */
  private advance(): CanonicalItem | null {
    const net = this.net;
    const [oldest, middle, latest] = this.open;
    if (!oldest || !middle || !latest) return null;
    const sv = net.randomSv();
    const dso = net.who.dso;
    const tick = net.settings.tickMicros;
    return net.submit(net.svSubmitter(sv), (tx) => {
      const cids = {
        roundToArchiveCid: V.contractId(oldest.cid),
        middleRoundCid: V.contractId(middle.cid),
        latestRoundCid: V.contractId(latest.cid),
      };
      const outer = tx.exercise(
        null,
        net.gov.dsoRulesCid,
        'DsoRules_AdvanceOpenMiningRounds',
        V.record({
          amuletRulesCid: V.contractId(net.gov.amuletRulesCid),
          ...cids,
          amuletPriceVoteCids: V.list(net.svNodes.priceVoteCids().map((cid) => V.contractId(cid))),
          sv: V.some(V.party(sv.party)),
        }),
        [sv.party],
      );
      const inner = tx.exercise(
        outer,
        net.gov.amuletRulesCid,
        'AmuletRules_AdvanceOpenMiningRounds',
        V.record({ amuletPrice: V.numeric(AMULET_PRICE), ...cids }),
        [dso],
      );
      tx.archive(inner, oldest.cid, [dso]);
      const summarizingCid = tx.create(
        inner,
        TEMPLATES.summarizingMiningRound,
        V.record({
          dso: V.party(dso),
          round: roundValue(oldest.number),
          amuletPrice: V.numeric(AMULET_PRICE),
          issuanceConfig: issuanceConfig('40000000000', '0.05', '0.15'),
          tickDuration: relTime(tick),
        }),
        [dso],
      );
      const opensAt = (tx.effectiveAt > latest.opensAt ? tx.effectiveAt : latest.opensAt) + tick;
      const next = this.createOpenRound(tx, inner, latest.number + 1, opensAt, opensAt + 2n * tick, latest.issuingFor + tick);
      this.open = [middle, latest, next];
      this.summarizing.push({ cid: summarizingCid, number: oldest.number });
      inner.result = V.record({ summarizingRoundCid: V.contractId(summarizingCid), openRoundCid: V.contractId(next.cid) });
      outer.result = V.record({ summarizingRound: V.contractId(summarizingCid), openRound: V.contractId(next.cid) });
    });
  }

  /** CRARC_MiningRound_StartIssuing through confirmations: the summarized round starts issuing. */
  private startIssuing(round: { cid: string; number: number }): void {
    const net = this.net;
    const coupons = this.coupons.get(round.number) ?? [];
    let validatorTotal = 0n;
    let featuredTotal = 0n;
    let unfeaturedTotal = 0n;
    for (const c of coupons) {
      if (c.kind === 'validator') validatorTotal += c.amount;
      else if (c.featured) featuredTotal += c.amount;
      else unfeaturedTotal += c.amount;
    }
    const choiceArg = V.record({
      miningRoundCid: V.contractId(round.cid),
      summary: V.record({
        totalValidatorRewardCoupons: V.numeric(validatorTotal),
        totalFeaturedAppRewardCoupons: V.numeric(featuredTotal),
        totalUnfeaturedAppRewardCoupons: V.numeric(unfeaturedTotal),
        totalSvRewardWeight: V.int64(net.who.svs.length * 20_000),
        optTotalValidatorFaucetCoupons: V.some(V.int64(net.settings.validators)),
      }),
    });
    const issuance: Issuance = {
      validator: parseDecimal('0.2'),
      featuredApp: parseDecimal('100'),
      unfeaturedApp: parseDecimal('0.6'),
      sv: parseDecimal('2.5') + BigInt(net.rng.int(0, 99_999_999)) * 100n,
      faucet: parseDecimal('2.85'),
    };
    net.gov.confirmAndExecute(amuletRulesAction('CRARC_MiningRound_StartIssuing', choiceArg), (tx, parent) => {
      const dso = net.who.dso;
      const tick = net.settings.tickMicros;
      const node = tx.exercise(parent, net.gov.amuletRulesCid, 'AmuletRules_MiningRound_StartIssuing', choiceArg, [dso]);
      tx.archive(node, round.cid, [dso]);
      this.recordUnclaimedReward(tx, node, decimalOf(net.rng.int(10, 5000)));
      const opensAt = tx.effectiveAt + tick;
      const targetClosesAt = opensAt + 2n * tick;
      const cid = tx.create(
        node,
        TEMPLATES.issuingMiningRound,
        V.record({
          dso: V.party(dso),
          round: roundValue(round.number),
          ...issuanceFields(issuance),
          opensAt: V.timestamp(opensAt),
          targetClosesAt: V.timestamp(targetClosesAt),
          optIssuancePerValidatorFaucetCoupon: V.some(V.numeric(issuance.faucet)),
        }),
        [dso],
      );
      this.issuing.push({ cid, number: round.number, targetClosesAt, issuance });
      node.result = V.record({ issuingRoundCid: V.contractId(cid) });
    });
  }

  /** DsoRules_MiningRound_Close: the issuing round becomes a ClosedMiningRound; its coupons are then expired. */
  private close(round: Rounds['issuing'][number]): CanonicalItem {
    const net = this.net;
    const sv = net.randomSv();
    const dso = net.who.dso;
    return net.submit(net.svSubmitter(sv), (tx) => {
      const outer = tx.exercise(
        null,
        net.gov.dsoRulesCid,
        'DsoRules_MiningRound_Close',
        V.record({
          amuletRulesCid: V.contractId(net.gov.amuletRulesCid),
          issuingRoundCid: V.contractId(round.cid),
          sv: V.some(V.party(sv.party)),
        }),
        [sv.party],
      );
      const inner = tx.exercise(
        outer,
        net.gov.amuletRulesCid,
        'AmuletRules_MiningRound_Close',
        V.record({ issuingRoundCid: V.contractId(round.cid) }),
        [dso],
      );
      tx.archive(inner, round.cid, [dso]);
      const cid = tx.create(
        inner,
        TEMPLATES.closedMiningRound,
        V.record({
          dso: V.party(dso),
          round: roundValue(round.number),
          ...issuanceFields(round.issuance),
          optIssuancePerValidatorFaucetCoupon: V.some(V.numeric(round.issuance.faucet)),
        }),
        [dso],
      );
      inner.result = V.record({ closedRoundCid: V.contractId(cid) });
      outer.result = V.record({ closedRound: V.contractId(cid) });
      this.closed.push({ cid, number: round.number, archiveAfter: net.now + net.ticks(CLOSED_ROUND_TICKS) });
      const coupons = this.coupons.get(round.number) ?? [];
      this.coupons.delete(round.number);
      for (let i = 0; i < coupons.length; i += COUPONS_PER_CLAIM) {
        const chunk = coupons.slice(i, i + COUPONS_PER_CLAIM);
        net.soon(() => this.claimExpiredRewards(cid, round.issuance, chunk));
      }
    });
  }

  /** DsoRules_ClaimExpiredRewards: unclaimed coupons of a closed round become an UnclaimedReward. */
  private claimExpiredRewards(closedRoundCid: string, issuance: Issuance, coupons: readonly Coupon[]): CanonicalItem {
    const net = this.net;
    const sv = net.randomSv();
    const dso = net.who.dso;
    const closed = V.record({ closedRoundCid: V.contractId(closedRoundCid) });
    return net.submit(net.svSubmitter(sv), (tx) => {
      const validatorCoupons = coupons.filter((c) => c.kind === 'validator');
      const appCoupons = coupons.filter((c) => c.kind === 'app');
      const node = tx.exercise(
        null,
        net.gov.dsoRulesCid,
        'DsoRules_ClaimExpiredRewards',
        V.record({
          amuletRulesCid: V.contractId(net.gov.amuletRulesCid),
          choiceArg: V.record({
            closedRoundCid: V.contractId(closedRoundCid),
            validatorRewardCouponCids: V.list(validatorCoupons.map((c) => V.contractId(c.cid))),
            appCouponCids: V.list(appCoupons.map((c) => V.contractId(c.cid))),
            svRewardCouponCids: V.list([]),
            optValidatorFaucetCouponCids: V.none(),
            optValidatorLivenessActivityRecordCids: V.none(),
          }),
          sv: V.some(V.party(sv.party)),
        }),
        [sv.party],
      );
      let amount = 0n;
      for (const c of validatorCoupons) {
        const expire = tx.exercise(node, c.cid, 'ValidatorRewardCoupon_DsoExpire', closed, [dso], true);
        expire.result = V.record({ amount: V.numeric(c.amount) });
        amount += mulDecimal(c.amount, issuance.validator);
      }
      for (const c of appCoupons) {
        const expire = tx.exercise(node, c.cid, 'AppRewardCoupon_DsoExpire', closed, [dso], true);
        expire.result = V.record({ featured: V.bool(c.featured), amount: V.numeric(c.amount) });
        amount += mulDecimal(c.amount, c.featured ? issuance.featuredApp : issuance.unfeaturedApp);
      }
      const cid = amount > 0n ? this.recordUnclaimedReward(tx, node, amount) : null;
      node.result = V.record({ unclaimedReward: V.optional(cid === null ? null : V.contractId(cid)) });
    });
  }

  /** CRARC_MiningRound_Archive through confirmations: a closed round is done. */
  private archiveClosed(closedRoundCid: string): void {
    const net = this.net;
    const choiceArg = V.record({ closedRoundCid: V.contractId(closedRoundCid) });
    net.gov.confirmAndExecute(amuletRulesAction('CRARC_MiningRound_Archive', choiceArg), (tx, parent) => {
      const dso = net.who.dso;
      const node = tx.exercise(parent, net.gov.amuletRulesCid, 'AmuletRules_MiningRound_Archive', choiceArg, [dso]);
      tx.archive(node, closedRoundCid, [dso]);
      node.result = fieldlessResult('AmuletRules_MiningRound_ArchiveResult');
    });
  }

  /** DsoRules_MergeUnclaimedRewards: many small UnclaimedReward contracts become one. */
  private mergeUnclaimedRewards(): CanonicalItem | null {
    const net = this.net;
    if (this.unclaimedRewards.length <= UNCLAIMED_MERGE_THRESHOLD) return null;
    const merged = this.unclaimedRewards;
    this.unclaimedRewards = [];
    const sv = net.randomSv();
    const dso = net.who.dso;
    return net.submit(net.svSubmitter(sv), (tx) => {
      const cids = V.list(merged.map((r) => V.contractId(r.cid)));
      const outer = tx.exercise(
        null,
        net.gov.dsoRulesCid,
        'DsoRules_MergeUnclaimedRewards',
        V.record({ amuletRulesCid: V.contractId(net.gov.amuletRulesCid), unclaimedRewardCids: cids, sv: V.some(V.party(sv.party)) }),
        [sv.party],
      );
      const inner = tx.exercise(
        outer,
        net.gov.amuletRulesCid,
        'AmuletRules_MergeUnclaimedRewards',
        V.record({ unclaimedRewardCids: cids }),
        [dso],
      );
      let total = 0n;
      for (const r of merged) {
        tx.archive(inner, r.cid, [dso]);
        total += r.amount;
      }
      const cid = this.recordUnclaimedReward(tx, inner, total);
      inner.result = V.record({ unclaimedRewardCid: V.contractId(cid) });
      outer.result = V.record({ unclaimedReward: V.contractId(cid) });
    });
  }

  /** Creates an UnclaimedReward; once there are more than the DsoRules threshold, the SVs merge them. */
  private recordUnclaimedReward(tx: TxBuilder, parent: ExerciseNode, amount: Decimal10): string {
    const dso = this.net.who.dso;
    const cid = tx.create(parent, TEMPLATES.unclaimedReward, V.record({ dso: V.party(dso), amount: V.numeric(amount) }), [dso]);
    this.unclaimedRewards.push({ cid, amount });
    if (this.unclaimedRewards.length === UNCLAIMED_MERGE_THRESHOLD + 1) this.net.soon(() => this.mergeUnclaimedRewards());
    return cid;
  }
}

/** Removes the elements matching `p` from `list` and returns them in their order. */
function takeWhere<T>(list: T[], p: (x: T) => boolean): T[] {
  const taken = list.filter(p);
  const kept = list.filter((x) => !p(x));
  list.splice(0, list.length, ...kept);
  return taken;
}

function issuanceFields(i: Issuance): Record<string, DamlValue> {
  return {
    issuancePerValidatorRewardCoupon: V.numeric(i.validator),
    issuancePerFeaturedAppRewardCoupon: V.numeric(i.featuredApp),
    issuancePerUnfeaturedAppRewardCoupon: V.numeric(i.unfeaturedApp),
    issuancePerSvRewardCoupon: V.numeric(i.sv),
  };
}
