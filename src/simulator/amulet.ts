/**
 * Amulet holdings and AmuletRules_Transfer. Each user's unlocked amulets are
 * tracked with their initial amount and creation round, so transfers archive
 * real inputs, pay output, holding and change fees as AmuletRules computes
 * them, create outputs and change in the current open round, and issue the
 * validator and app reward coupons the round automation later expires.
 */

import { V, type DamlValue } from '../domain/daml-value';
import { decimalOf, mulDecimal, type Decimal10 } from '../domain/decimal';
import type { CanonicalItem } from '../domain/items';
import type { Micros } from '../domain/time';
import { AMULET_PRICE, FEES, holdingFee, transferFee } from './economics';
import type { User } from './identities';
import type { NetworkContext } from './context';
import { amuletRecord, damlMap, metadata, roundValue, timeLock } from './splice-values';
import { TEMPLATES } from './templates';
import type { ExerciseNode, TxBuilder } from './transaction';

declare module './context' {
  interface Subsystems {
    readonly wallets: AmuletWallets;
  }
}

export interface Holding {
  readonly cid: string;
  readonly owner: string;
  readonly amount: Decimal10;
  readonly createdRound: number;
  /** On another synchronizer (or on its way there): not usable in transactions here. */
  away: boolean;
}

interface LockSpec {
  readonly holders: readonly string[];
  readonly expiresAt: Micros;
  readonly context: string;
}

export interface OutputSpec {
  readonly receiver: string;
  readonly amount: Decimal10;
  readonly lock?: LockSpec;
}

export interface TransferSpec {
  readonly sender: string;
  readonly provider: string;
  readonly outputs: readonly OutputSpec[];
  /** Extra small inputs are merged in when the sender holds more than this many amulets (default 3). */
  readonly consolidateAbove?: number;
}

export interface TransferPlan {
  readonly spec: TransferSpec;
  readonly round: number;
  readonly roundCid: string;
  readonly inputs: readonly Holding[];
  readonly outputFees: readonly Decimal10[];
  readonly holdingFees: Decimal10;
  readonly senderChangeFee: Decimal10;
  readonly change: Decimal10;
}

export interface TransferOutcome {
  /** Created outputs in the order of the spec: amulet or locked amulet contract ids. */
  readonly outputCids: readonly string[];
  /** The sender's change amulet, if any. */
  readonly changeCid: string | null;
}

const MAX_INPUTS = 8;

export class AmuletWallets {
  private readonly holdings = new Map<string, Holding[]>();

  constructor(private readonly net: NetworkContext) {}

  /** Opening balance of a user: whales hold millions, most users a few thousand. */
  genesisAmount(user: User): Decimal10 {
    const rng = this.net.rng;
    if (user.whale) return rng.bigint(decimalOf(5_000_000), decimalOf(50_000_000));
    if (this.net.who.appProviders.includes(user)) return rng.bigint(decimalOf(100_000), decimalOf(1_000_000));
    const tier = rng.float();
    if (tier < 0.7) return rng.bigint(decimalOf(500), decimalOf(20_000));
    if (tier < 0.95) return rng.bigint(decimalOf(20_000), decimalOf(500_000));
    return rng.bigint(decimalOf(500_000), decimalOf(2_000_000));
  }

  usable(party: string): Holding[] {
    return (this.holdings.get(party) ?? []).filter((h) => !h.away);
  }

  /** What the party could spend now: unlocked, present amulets net of holding fees. */
  balance(party: string): Decimal10 {
    const round = this.net.rounds.current().number;
    let total = 0n;
    for (const h of this.usable(party)) total += h.amount - holdingFee(h.amount, h.createdRound, round);
    return total;
  }

  add(h: Holding): void {
    if (!this.net.isUser(h.owner)) return;
    let list = this.holdings.get(h.owner);
    if (!list) this.holdings.set(h.owner, (list = []));
    list.push(h);
  }

  private remove(h: Holding): void {
    const list = this.holdings.get(h.owner);
    const i = list ? list.indexOf(h) : -1;
    if (!list || i < 0) throw new Error(`holding ${h.cid} is not in the wallet of ${h.owner}`);
    list.splice(i, 1);
  }

  /** Takes a holding out of its owner's wallet (the DSO expires it). */
  drop(h: Holding): void {
    this.remove(h);
  }

  /** A random user's random holding, for reassignment. */
  randomHolding(): Holding | undefined {
    const user = this.net.rng.pick(this.net.who.users);
    const usable = this.usable(user.party);
    return usable.length > 1 ? this.net.rng.pick(usable) : undefined;
  }

  /** AmuletRules_DevNet_Tap: mints fresh amulet for a user. */
  tap(user: User, amount: Decimal10): CanonicalItem {
    const net = this.net;
    return net.submit(net.userSubmitter(user), (tx) => {
      const dso = net.who.dso;
      const round = net.rounds.current();
      const arg = V.record({ receiver: V.party(user.party), amount: V.numeric(amount), openRound: V.contractId(round.cid) });
      const tapNode = tx.exercise(null, net.gov.amuletRulesCid, 'AmuletRules_DevNet_Tap', arg, [user.party]);
      const mint = tx.exercise(tapNode, net.gov.amuletRulesCid, 'AmuletRules_Mint', arg, [dso, user.party]);
      const cid = tx.create(mint, TEMPLATES.amulet, amuletRecord(dso, user.party, amount, round.number, FEES.holdingFeeRate), [
        dso,
        user.party,
      ]);
      this.add({ cid, owner: user.party, amount, createdRound: round.number, away: false });
      const amuletSum = V.record({ amulet: V.contractId(cid), amuletPrice: V.numeric(AMULET_PRICE), round: roundValue(round.number) });
      mint.result = V.record({ amuletSum });
      tapNode.result = V.record({ amuletSum, meta: V.some(metadata({ 'tx-kind': 'mint', reason: 'tapped faucet' })) });
    });
  }

  /**
   * Chooses inputs for a transfer, largest first, merging in small ones when
   * the sender holds many; undefined when the sender cannot pay.
   */
  plan(spec: TransferSpec): TransferPlan | undefined {
    const current = this.net.rounds.current();
    const round = current.number;
    const outputFees = spec.outputs.map(
      (o) =>
        FEES.createFee +
        FEES.lockHolderFee * BigInt(o.lock?.holders.length ?? 0) +
        (o.receiver === spec.sender ? 0n : transferFee(o.amount)),
    );
    let needed = FEES.createFee;
    spec.outputs.forEach((o, i) => (needed += o.amount + (outputFees[i] as Decimal10)));

    const candidates = this.usable(spec.sender)
      .map((h) => ({ h, value: h.amount - holdingFee(h.amount, h.createdRound, round) }))
      .filter((c) => c.value > 0n)
      .sort((a, b) => (a.value > b.value ? -1 : a.value < b.value ? 1 : 0));
    const inputs: Holding[] = [];
    let value = 0n;
    while (value < needed && inputs.length < MAX_INPUTS && inputs.length < candidates.length) {
      const c = candidates[inputs.length] as (typeof candidates)[number];
      inputs.push(c.h);
      value += c.value;
    }
    if (value < needed) return undefined;
    // Merge the smallest holdings in as well, as wallets do, to keep the number of amulets down.
    if (candidates.length > (spec.consolidateAbove ?? 3)) {
      const firstUnused = inputs.length;
      for (let i = candidates.length - 1; i >= firstUnused && inputs.length < MAX_INPUTS; i--) {
        const c = candidates[i] as (typeof candidates)[number];
        inputs.push(c.h);
        value += c.value;
      }
    }

    let holdingFees = 0n;
    for (const h of inputs) holdingFees += holdingFee(h.amount, h.createdRound, round);
    const leftOver = value - (needed - FEES.createFee);
    const senderChangeFee = leftOver < FEES.createFee ? leftOver : FEES.createFee;
    return { spec, round, roundCid: current.cid, inputs, outputFees, holdingFees, senderChangeFee, change: leftOver - senderChangeFee };
  }

  /** Emits the AmuletRules_Transfer exercise of a plan under `parent` (null for a root). */
  emit(tx: TxBuilder, parent: ExerciseNode | null, plan: TransferPlan): TransferOutcome {
    const net = this.net;
    const dso = net.who.dso;
    const { spec, round } = plan;
    const featuredRight = net.gov.featuredRights.get(spec.provider);
    const controllers = [spec.sender, spec.provider, ...spec.outputs.flatMap((o) => [o.receiver, ...(o.lock?.holders ?? [])])];
    const argument = V.record({
      transfer: V.record({
        sender: V.party(spec.sender),
        provider: V.party(spec.provider),
        inputs: V.list(plan.inputs.map((h) => V.variant('InputAmulet', V.contractId(h.cid)))),
        outputs: V.list(
          spec.outputs.map((o) =>
            V.record({
              receiver: V.party(o.receiver),
              receiverFeeRatio: V.numeric(0n),
              amount: V.numeric(o.amount),
              lock: V.optional(o.lock && timeLock(o.lock.holders, o.lock.expiresAt, o.lock.context)),
            }),
          ),
        ),
        beneficiaries: V.none(),
      }),
      context: V.record({
        openMiningRound: V.contractId(plan.roundCid),
        issuingMiningRounds: V.genMap([]),
        validatorRights: V.genMap([]),
        featuredAppRight: V.optional(featuredRight === undefined ? null : V.contractId(featuredRight)),
      }),
      expectedDso: V.some(V.party(dso)),
    });
    const node = tx.exercise(parent, net.gov.amuletRulesCid, 'AmuletRules_Transfer', argument, controllers);

    for (const h of plan.inputs) {
      tx.archive(node, h.cid, [dso, spec.sender]);
      this.remove(h);
    }

    let usageFees = 0n;
    for (const f of plan.outputFees) usageFees += f;
    if (usageFees > 0n) this.issueRewards(tx, node, spec, round, usageFees, featuredRight !== undefined);

    const createdAmulets: DamlValue[] = [];
    const outputCids = spec.outputs.map((o) => {
      const amulet = amuletRecord(dso, o.receiver, o.amount, round, FEES.holdingFeeRate);
      if (o.lock) {
        const cid = tx.create(
          node,
          TEMPLATES.lockedAmulet,
          V.record({ amulet, lock: timeLock(o.lock.holders, o.lock.expiresAt, o.lock.context) }),
          [dso, o.receiver, ...o.lock.holders],
        );
        createdAmulets.push(V.variant('TransferResultLockedAmulet', V.contractId(cid)));
        return cid;
      }
      const cid = tx.create(node, TEMPLATES.amulet, amulet, [dso, o.receiver]);
      this.add({ cid, owner: o.receiver, amount: o.amount, createdRound: round, away: false });
      createdAmulets.push(V.variant('TransferResultAmulet', V.contractId(cid)));
      return cid;
    });

    let changeCid: string | null = null;
    if (plan.change > 0n) {
      changeCid = tx.create(node, TEMPLATES.amulet, amuletRecord(dso, spec.sender, plan.change, round, FEES.holdingFeeRate), [
        dso,
        spec.sender,
      ]);
      this.add({ cid: changeCid, owner: spec.sender, amount: plan.change, createdRound: round, away: false });
    }

    node.result = this.transferResult(plan, usageFees, createdAmulets, changeCid);
    return { outputCids, changeCid };
  }

  /** A user-submitted transfer as a root transaction; undefined when the sender cannot pay. */
  transfer(sender: User, spec: TransferSpec, externallySigned: boolean): CanonicalItem | undefined {
    const plan = this.plan(spec);
    if (!plan) return undefined;
    const net = this.net;
    const featured = net.gov.featuredRights.has(spec.provider);
    return net.submit(net.userSubmitter(sender), (tx) => {
      this.emit(tx, null, plan);
      return { externallySigned, ...(featured ? { featuredProvider: spec.provider } : {}) };
    });
  }

  /** issueRewards: a validator reward coupon for the sender, an app reward coupon for the provider. */
  private issueRewards(
    tx: TxBuilder,
    node: ExerciseNode,
    spec: TransferSpec,
    round: number,
    usageFees: Decimal10,
    featured: boolean,
  ): void {
    const net = this.net;
    const dso = net.who.dso;
    const validatorCid = tx.create(
      node,
      TEMPLATES.validatorRewardCoupon,
      V.record({ dso: V.party(dso), user: V.party(spec.sender), amount: V.numeric(usageFees), round: roundValue(round) }),
      [dso],
      [spec.sender],
    );
    net.rounds.addCoupon(round, { cid: validatorCid, kind: 'validator', amount: usageFees, featured: false });
    const appAmount = usageFees + (featured ? FEES.extraFeaturedAppReward : 0n);
    const appCid = tx.create(
      node,
      TEMPLATES.appRewardCoupon,
      V.record({
        dso: V.party(dso),
        provider: V.party(spec.provider),
        featured: V.bool(featured),
        amount: V.numeric(appAmount),
        round: roundValue(round),
        beneficiary: V.some(V.party(spec.provider)),
      }),
      [dso],
      [spec.provider],
    );
    net.rounds.addCoupon(round, { cid: appCid, kind: 'app', amount: appAmount, featured });
  }

  /** Splice.AmuletRules.TransferResult with its TransferSummary. */
  private transferResult(plan: TransferPlan, usageFees: Decimal10, createdAmulets: DamlValue[], changeCid: string | null): DamlValue {
    const { spec, round } = plan;
    const rate = FEES.holdingFeeRate;
    const roundZeroAdjustment = mulDecimal(decimalOf(round), rate);
    const changes = new Map<string, { amount: Decimal10; rate: Decimal10 }>();
    const addChange = (party: string, amount: Decimal10, rateChange: Decimal10) => {
      const c = changes.get(party) ?? { amount: 0n, rate: 0n };
      changes.set(party, { amount: c.amount + amount, rate: c.rate + rateChange });
    };
    let inputAmount = 0n;
    let archivedAsOfRoundZero = 0n;
    for (const h of plan.inputs) {
      inputAmount += h.amount;
      archivedAsOfRoundZero += h.amount + mulDecimal(decimalOf(h.createdRound), rate);
    }
    const inputRate = rate * BigInt(plan.inputs.length);
    if (plan.change > 0n) addChange(spec.sender, plan.change + roundZeroAdjustment - archivedAsOfRoundZero, rate - inputRate);
    else addChange(spec.sender, -archivedAsOfRoundZero, -inputRate);
    for (const o of spec.outputs) addChange(o.receiver, o.amount + roundZeroAdjustment, rate);

    const balanceChanges = damlMap(
      [...changes].map(
        ([party, c]) =>
          [
            party,
            V.record({ changeToInitialAmountAsOfRoundZero: V.numeric(c.amount), changeToHoldingFeesRate: V.numeric(c.rate) }),
          ] as const,
      ),
      V.party,
    );
    const mergeSplit = spec.outputs.every((o) => o.receiver === spec.sender && (o.lock?.holders ?? []).every((p) => p === spec.sender));
    const burned = plan.holdingFees + usageFees + plan.senderChangeFee;
    return V.record({
      round: roundValue(round),
      summary: V.record({
        inputAppRewardAmount: V.numeric(0n),
        inputValidatorRewardAmount: V.numeric(0n),
        inputSvRewardAmount: V.numeric(0n),
        inputAmuletAmount: V.numeric(inputAmount),
        balanceChanges,
        holdingFees: V.numeric(plan.holdingFees),
        outputFees: V.list(plan.outputFees.map(V.numeric)),
        senderChangeFee: V.numeric(plan.senderChangeFee),
        senderChangeAmount: V.numeric(plan.change),
        amuletPrice: V.numeric(AMULET_PRICE),
        inputValidatorFaucetAmount: V.some(V.numeric(0n)),
      }),
      createdAmulets: V.list(createdAmulets),
      senderChangeAmulet: V.optional(changeCid === null ? null : V.contractId(changeCid)),
      meta: V.some(
        metadata(
          mergeSplit
            ? { 'tx-kind': 'merge-split', burned: formatBurn(burned) }
            : { 'tx-kind': 'transfer', sender: spec.sender, burned: formatBurn(burned) },
        ),
      ),
    });
  }
}

function formatBurn(x: Decimal10): string {
  // Metadata values are Daml `show` of a Decimal: no trailing zeros.
  const whole = x / 10_000_000_000n;
  const fraction = (x % 10_000_000_000n).toString().padStart(10, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : `${whole}.0`;
}
