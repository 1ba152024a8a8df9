/**
 * What token-standard wallets do with Amulet: two-step transfers and DvP allocations, each a
 * LockedAmulet (held by the DSO until the deadline) wrapped by a contract the other side acts on.
 *
 * - A transfer offer: the sender exercises TransferFactory_Transfer on ExternalPartyAmuletRules,
 *   which locks the amount and creates an AmuletTransferInstruction for the receiver. The
 *   receiver accepts (the amount becomes the receiver's amulet) or rejects, or the sender
 *   withdraws (the amount returns to the sender); some are left alone, and once the deadline has
 *   passed the sender reclaims the locked amulet while the instruction stays, stale.
 * - An allocation: the sender exercises AllocationFactory_Allocate for one leg of a trade settled
 *   by an app provider, locking the amount until the settlement deadline in an AmuletAllocation.
 *   The executor settles it (the amount goes to the receiver) or cancels it, or the sender
 *   withdraws it; some are left to expire in the same way.
 *
 * - A V2 trade (only with the `tokenStandardV2` option): each side of a one-leg DvP allocates with the
 *   V2 AllocationFactory_Allocate. The sender's AmuletAllocationV2 is backed by a LockedAmulet (held by
 *   the DSO until the settlement deadline); the receiver's, a net credit, has none. The executor
 *   settles both with SettlementFactory_SettleBatch (the lock is archived and the amount becomes the
 *   receiver's amulet) or cancels both, or the sender withdraws its allocation; the rest are left, and
 *   past the deadline the sender reclaims the lock while the allocations stay, stale.
 *
 * Simplifications: the exercises on the factory and on the instruction or allocation carry no
 * interface id, settlement charges no fees, and a lock is released with the LockedAmulet choices of
 * the simulated package version. The V2 choices' contexts name the newest ExternalPartyConfigState
 * (config-states.ts), as the registry's V2 answers do.
 */
import { V, type DamlValue } from '../domain/daml-value';
import { decimalOf, mulDecimal, type Decimal10 } from '../domain/decimal';
import type { CanonicalItem } from '../domain/items';
import type { Micros } from '../domain/time';
import { AMULET_PRICE, FEES } from './economics';
import type { NetworkContext } from './context';
import type { User } from './identities';
import type { TransferPlan } from './amulet';
import type { ExerciseNode, TxBuilder } from './transaction';
import { amuletRecord, metadata, roundValue } from './splice-values';
import { TEMPLATES } from './templates';

declare module './context' {
  interface Subsystems {
    readonly tokenStandard: TokenStandard;
  }
}

/** A lock of a two-step transfer: the LockedAmulet, and what it holds. */
interface Lock {
  readonly cid: string;
  readonly owner: User;
  readonly amount: Decimal10;
  readonly createdRound: number;
  readonly expiresAt: Micros;
}

/** One side of a V2 trade: its AmuletAllocationV2, the leg's amount, and the lock behind it (the sender's only). */
interface AllocationV2 {
  readonly cid: string;
  readonly authorizer: User;
  readonly amount: Decimal10;
  readonly lock: Lock | undefined;
}

const HOUR: Micros = 3_600_000_000n;
const TRANSFER_WINDOW: Micros = 24n * HOUR;

const emptyMeta = () => V.record({ values: V.textMap([]) });
const contextValues = (entries: [string, string][]) =>
  V.record({ values: V.textMap(entries.map(([k, cid]) => [k, V.variant('AV_ContractId', V.contractId(cid))] as const)) });
const instrumentId = (dso: string) => V.record({ admin: V.party(dso), id: V.text('Amulet') });
/** Splice.Api.Token.HoldingV2.Account: a basic account, the owner's default one. */
const basicAccount = (owner: string) => V.record({ owner: V.some(V.party(owner)), provider: V.none(), id: V.text('') });
/** The V2 choices' extra arguments: the registry's V2 contexts name the DSO's newest ExternalPartyConfigState. */
const v2ExtraArgs = (configState: string | undefined) =>
  V.record({
    context: V.record({
      values: V.textMap(
        configState === undefined ? [] : [['external-party-config-state', V.variant('AV_ContractId', V.contractId(configState))]],
      ),
    }),
    meta: emptyMeta(),
  });

type SettlingChoice =
  | 'TransferInstruction_Accept'
  | 'TransferInstruction_Reject'
  | 'TransferInstruction_Withdraw'
  | 'Allocation_ExecuteTransfer'
  | 'Allocation_Cancel'
  | 'Allocation_Withdraw';

/** The token-standard result of a settling choice whose amulet (the receiver's, or the sender's returned one) is `amuletCid`. */
function choiceResult(choice: SettlingChoice, amuletCid: string) {
  const holdings = V.list([V.contractId(amuletCid)]);
  switch (choice) {
    case 'TransferInstruction_Accept':
      return V.record({
        output: V.variant('TransferInstructionResult_Completed', V.record({ receiverHoldingCids: holdings })),
        senderChangeCids: V.list([]),
        meta: emptyMeta(),
      });
    case 'TransferInstruction_Reject':
    case 'TransferInstruction_Withdraw':
      return V.record({
        output: V.variant('TransferInstructionResult_Failed', V.emptyRecord()),
        senderChangeCids: holdings,
        meta: emptyMeta(),
      });
    case 'Allocation_ExecuteTransfer':
      return V.record({ senderHoldingCids: V.list([]), receiverHoldingCids: holdings, meta: emptyMeta() });
    case 'Allocation_Cancel':
    case 'Allocation_Withdraw':
      return V.record({ senderHoldingCids: holdings, meta: emptyMeta() });
  }
}

export class TokenStandard {
  private settlements = 0;

  constructor(private readonly net: NetworkContext) {}

  /** The extra arguments wallets pass to a factory choice: the context the registry gave (rules and round). */
  private factoryExtraArgs(roundCid: string) {
    return V.record({
      context: contextValues([
        ['amulet-rules', this.net.gov.amuletRulesCid],
        ['open-round', roundCid],
      ]),
      meta: emptyMeta(),
    });
  }

  /** Emits the lock of a planned two-step transfer under the factory choice `node`; with the sender's change, if any. */
  private lock(
    tx: TxBuilder,
    node: ExerciseNode,
    sender: User,
    plan: TransferPlan,
    expiresAt: Micros,
  ): Lock & { changeCid: string | null } {
    const { outputCids, changeCid } = this.net.wallets.emit(tx, node, plan);
    return {
      cid: outputCids[0] as string,
      owner: sender,
      amount: plan.spec.outputs[0]!.amount,
      createdRound: plan.round,
      expiresAt,
      changeCid,
    };
  }

  /** A transfer of 5–30% of the sender's balance to itself, locked to the DSO until `expiresAt`; undefined when it cannot pay. */
  private planLock(sender: User, expiresAt: Micros, context: string): TransferPlan | undefined {
    const net = this.net;
    const balance = net.wallets.balance(sender.party);
    if (balance < decimalOf(200)) return undefined;
    const amount = mulDecimal(balance, BigInt(net.rng.int(5, 30)) * 100_000_000n);
    return net.wallets.plan({
      sender: sender.party,
      provider: sender.party,
      outputs: [{ receiver: sender.party, amount, lock: { holders: [net.who.dso], expiresAt, context } }],
    });
  }

  /** The sender offers part of its balance to the receiver (an AmuletTransferInstruction). */
  offer(sender: User, receiver: User): CanonicalItem | undefined {
    const net = this.net;
    const dso = net.who.dso;
    // Wallets give a day by default (the wallet SDK's executeBefore); some senders give a few hours.
    const executeBefore = net.now + (net.rng.chance(0.3) ? BigInt(net.rng.int(1, 4)) * HOUR : TRANSFER_WINDOW);
    const plan = this.planLock(sender, executeBefore, `transfer to ${receiver.party}`);
    if (!plan) return undefined;
    const amount = plan.spec.outputs[0]!.amount;
    let lock: Lock | undefined;
    let instructionCid = '';
    const item = net.submit(net.userSubmitter(sender), (tx) => {
      const transfer = (inputs: string[]) =>
        V.record({
          sender: V.party(sender.party),
          receiver: V.party(receiver.party),
          amount: V.numeric(amount),
          instrumentId: instrumentId(dso),
          requestedAt: V.timestamp(net.now - 1_000_000n),
          executeBefore: V.timestamp(executeBefore),
          inputHoldingCids: V.list(inputs.map(V.contractId)),
          meta: metadata({ reason: 'token-standard transfer' }),
        });
      const node = tx.exercise(
        null,
        net.gov.externalPartyAmuletRulesCid,
        'TransferFactory_Transfer',
        V.record({
          expectedAdmin: V.party(dso),
          transfer: transfer(plan.inputs.map((h) => h.cid)),
          extraArgs: this.factoryExtraArgs(plan.roundCid),
        }),
        [sender.party],
      );
      lock = this.lock(tx, node, sender, plan, executeBefore);
      instructionCid = tx.create(
        node,
        TEMPLATES.amuletTransferInstruction,
        V.record({ lockedAmulet: V.contractId(lock.cid), transfer: transfer([lock.cid]) }),
        [dso, sender.party],
        [receiver.party],
      );
      node.result = V.record({
        output: V.variant('TransferInstructionResult_Pending', V.record({ transferInstructionCid: V.contractId(instructionCid) })),
        senderChangeCids: V.list([]),
        meta: emptyMeta(),
      });
      return { externallySigned: true };
    });
    const locked = lock!;
    const fate = net.rng.float();
    const before = () => BigInt(net.rng.int(1, Number((executeBefore - net.now) / 1_000_000n) - 1)) * 1_000_000n;
    if (fate < 0.5) net.after(before(), () => this.settle(instructionCid, 'TransferInstruction_Accept', receiver, locked, receiver));
    else if (fate < 0.65) net.after(before(), () => this.settle(instructionCid, 'TransferInstruction_Reject', receiver, locked, sender));
    else if (fate < 0.8) net.after(before(), () => this.settle(instructionCid, 'TransferInstruction_Withdraw', sender, locked, sender));
    else net.at(executeBefore + BigInt(net.rng.int(1, 600)) * 1_000_000n, () => this.reclaim(locked));
    return item;
  }

  /** One leg of a trade settled by an app provider: the sender allocates the amount (an AmuletAllocation). */
  allocate(sender: User, receiver: User): CanonicalItem | undefined {
    const net = this.net;
    const dso = net.who.dso;
    const executor = net.rng.pick(net.who.appProviders);
    if (executor.party === sender.party || executor.party === receiver.party) return undefined;
    const allocateBefore = net.now + HOUR;
    const settleBefore = allocateBefore + BigInt(net.rng.int(1, 6)) * HOUR;
    const settlementId = `settlement-${++this.settlements}`;
    const plan = this.planLock(sender, settleBefore, `allocation for ${settlementId}`);
    if (!plan) return undefined;
    const amount = plan.spec.outputs[0]!.amount;
    let lock: Lock | undefined;
    let allocationCid = '';
    const specification = V.record({
      settlement: V.record({
        executor: V.party(executor.party),
        settlementRef: V.record({ id: V.text(settlementId), cid: V.none() }),
        requestedAt: V.timestamp(net.now - 1_000_000n),
        allocateBefore: V.timestamp(allocateBefore),
        settleBefore: V.timestamp(settleBefore),
        meta: emptyMeta(),
      }),
      transferLegId: V.text('leg-0'),
      transferLeg: V.record({
        sender: V.party(sender.party),
        receiver: V.party(receiver.party),
        amount: V.numeric(amount),
        instrumentId: instrumentId(dso),
        meta: emptyMeta(),
      }),
    });
    const item = net.submit(net.userSubmitter(sender), (tx) => {
      const node = tx.exercise(
        null,
        net.gov.externalPartyAmuletRulesCid,
        'AllocationFactory_Allocate',
        V.record({
          expectedAdmin: V.party(dso),
          allocation: specification,
          requestedAt: V.timestamp(net.now - 1_000_000n),
          inputHoldingCids: V.list(plan.inputs.map((h) => V.contractId(h.cid))),
          extraArgs: this.factoryExtraArgs(plan.roundCid),
        }),
        [sender.party],
      );
      lock = this.lock(tx, node, sender, plan, settleBefore);
      allocationCid = tx.create(
        node,
        TEMPLATES.amuletAllocation,
        V.record({ lockedAmulet: V.contractId(lock.cid), allocation: specification }),
        [dso, sender.party],
        [executor.party],
      );
      node.result = V.record({
        output: V.variant('AllocationInstructionResult_Completed', V.record({ allocationCid: V.contractId(allocationCid) })),
        senderChangeCids: V.list([]),
        meta: emptyMeta(),
      });
    });
    const locked = lock!;
    const fate = net.rng.float();
    const before = () => BigInt(net.rng.int(1, Number((settleBefore - net.now) / 1_000_000n) - 1)) * 1_000_000n;
    if (fate < 0.5) net.after(before(), () => this.settle(allocationCid, 'Allocation_ExecuteTransfer', executor, locked, receiver));
    else if (fate < 0.65) net.after(before(), () => this.settle(allocationCid, 'Allocation_Cancel', executor, locked, sender));
    else if (fate < 0.8) net.after(before(), () => this.settle(allocationCid, 'Allocation_Withdraw', sender, locked, sender));
    else net.at(settleBefore + BigInt(net.rng.int(1, 600)) * 1_000_000n, () => this.reclaim(locked));
    return item;
  }

  /**
   * A choice on an instruction or allocation by `actor`: it is archived, the locked amulet unlocked,
   * and the amount becomes an amulet of `recipient` (the receiver on accept and execute, else the sender).
   */
  private settle(cid: string, choice: SettlingChoice, actor: User, lock: Lock, recipient: User): CanonicalItem {
    const net = this.net;
    return net.submit(net.userSubmitter(actor), (tx) => {
      const round = net.rounds.current();
      const node = tx.exercise(
        null,
        cid,
        choice,
        V.record({
          extraArgs: V.record({
            context: V.record({
              values: V.textMap([
                ['amulet-rules', V.variant('AV_ContractId', V.contractId(net.gov.amuletRulesCid))],
                ['expire-lock', V.variant('AV_Bool', V.bool(true))],
                ['open-round', V.variant('AV_ContractId', V.contractId(round.cid))],
              ]),
            }),
            meta: emptyMeta(),
          }),
        }),
        [actor.party],
        true,
      );
      node.result = choiceResult(choice, this.unlock(tx, node, lock, recipient));
    });
  }

  /** Unlocks `lock` under `parent`: its amount becomes an amulet of `recipient`, whose id is returned. */
  private unlock(tx: TxBuilder, parent: ExerciseNode, lock: Lock, recipient: User): string {
    const net = this.net;
    const dso = net.who.dso;
    const round = net.rounds.current();
    const unlock = tx.exercise(parent, lock.cid, 'LockedAmulet_Unlock', V.record({ openRoundCid: V.contractId(round.cid) }), [dso], true);
    const moved = recipient.party !== lock.owner.party;
    const createdRound = moved ? round.number : lock.createdRound;
    const amuletCid = tx.create(
      unlock,
      TEMPLATES.amulet,
      amuletRecord(dso, recipient.party, lock.amount, createdRound, FEES.holdingFeeRate),
      [dso, recipient.party],
    );
    net.wallets.add({ cid: amuletCid, owner: recipient.party, amount: lock.amount, createdRound, away: false });
    unlock.result = V.record({
      amuletSum: V.record({ amulet: V.contractId(amuletCid), amuletPrice: V.numeric(AMULET_PRICE), round: roundValue(round.number) }),
      meta: V.some(metadata({ 'tx-kind': 'unlock' })),
    });
    return amuletCid;
  }

  /**
   * Both sides of a one-leg DvP trade under token standard V2, settled by an app provider: the sender
   * allocates now, locking the amount until the settlement deadline; the receiver allocates within half
   * an hour; the trade's fate comes after both.
   */
  tradeV2(sender: User, receiver: User): CanonicalItem | undefined {
    const net = this.net;
    const dso = net.who.dso;
    const executor = net.rng.pick(net.who.appProviders);
    if (executor.party === sender.party || executor.party === receiver.party) return undefined;
    const deadline = net.now + BigInt(net.rng.int(2, 8)) * HOUR;
    const settlementId = `settlement-${++this.settlements}`;
    // Amulet's lock context for an allocation (AmuletAllocation.mkAllocationLockContext).
    const plan = this.planLock(sender, deadline, `allocation for settlement of ${settlementId}`);
    if (!plan) return undefined;
    const amount = plan.spec.outputs[0]!.amount;
    const settlement = V.record({
      executors: V.list([V.party(executor.party)]),
      id: V.text(settlementId),
      cid: V.none(),
      meta: emptyMeta(),
    });
    const legId = V.text('leg-0');
    // An allocation's expiry is its settlement deadline, which is well within Amulet's longest allocation TTL.
    const specification = (authorizer: User, side: 'SenderSide' | 'ReceiverSide', other: User) =>
      V.record({
        admin: V.party(dso),
        authorizer: basicAccount(authorizer.party),
        transferLegSides: V.list([
          V.record({
            transferLegId: legId,
            side: V.enum(side),
            otherside: basicAccount(other.party),
            amount: V.numeric(amount),
            instrumentId: V.text('Amulet'),
            meta: emptyMeta(),
          }),
        ]),
        settlementDeadline: V.some(V.timestamp(deadline)),
        nextIterationFunding: V.none(),
        committed: V.bool(false),
        meta: emptyMeta(),
      });
    const sides: AllocationV2[] = [];
    const item = this.allocateV2(
      sender,
      executor,
      settlement,
      specification(sender, 'SenderSide', receiver),
      deadline,
      amount,
      sides,
      plan,
    );
    const receiverIn = BigInt(net.rng.int(60, 1800)) * 1_000_000n;
    net.after(receiverIn, () =>
      this.allocateV2(receiver, executor, settlement, specification(receiver, 'ReceiverSide', sender), deadline, amount, sides),
    );
    const transferLeg = V.record({
      transferLegId: legId,
      sender: basicAccount(sender.party),
      receiver: basicAccount(receiver.party),
      amount: V.numeric(amount),
      instrumentId: V.text('Amulet'),
      meta: emptyMeta(),
    });
    const fate = net.rng.float();
    const later = () => receiverIn + BigInt(net.rng.int(1, Number((deadline - net.now - receiverIn) / 1_000_000n) - 1)) * 1_000_000n;
    if (fate < 0.45) net.after(later(), () => this.settleV2(executor, settlement, transferLeg, sides));
    else if (fate < 0.6) net.after(later(), () => this.endV2('Allocation_Cancel', executor, sides));
    else if (fate < 0.75) net.after(later(), () => this.endV2('Allocation_Withdraw', sender, sides.slice(0, 1)));
    else net.at(deadline + BigInt(net.rng.int(1, 600)) * 1_000_000n, () => this.reclaim(sides[0]!.lock!));
    return item;
  }

  /** One side of a V2 trade: the authorizer exercises the V2 AllocationFactory_Allocate; a plan funds the sender's side. */
  private allocateV2(
    authorizer: User,
    executor: User,
    settlement: DamlValue,
    specification: DamlValue,
    deadline: Micros,
    amount: Decimal10,
    sides: AllocationV2[],
    plan?: TransferPlan,
  ): CanonicalItem {
    const net = this.net;
    const dso = net.who.dso;
    const requestedAt = net.now - 1_000_000n;
    let allocation: AllocationV2 | undefined;
    const item = net.submit(net.userSubmitter(authorizer), (tx) => {
      const node = tx.exercise(
        null,
        net.gov.externalPartyAmuletRulesCid,
        'AllocationFactory_Allocate',
        V.record({
          settlement,
          allocation: specification,
          requestedAt: V.timestamp(requestedAt),
          inputHoldingCids: V.list((plan?.inputs ?? []).map((h) => V.contractId(h.cid))),
          extraArgs: v2ExtraArgs(net.configStates.newest()),
          actors: V.list([V.party(authorizer.party)]),
        }),
        [authorizer.party],
      );
      const locked = plan && this.lock(tx, node, authorizer, plan, deadline);
      const cid = tx.create(
        node,
        TEMPLATES.amuletAllocationV2,
        V.record({
          lockedAmulet: V.optional(locked ? V.contractId(locked.cid) : null),
          settlement,
          allocation: specification,
          expiresAt: V.timestamp(deadline),
          numIterations: V.int64(0),
          createdAt: V.timestamp(requestedAt),
        }),
        [dso, authorizer.party],
        [executor.party],
      );
      // Without funding, the inputs come back as the change: there are none.
      const change = locked?.changeCid ? [V.contractId(locked.changeCid)] : [];
      node.result = V.record({
        output: V.variant('AllocationInstructionResult_Completed', V.record({ allocationCid: V.contractId(cid) })),
        authorizerChangeCids: V.textMap([['Amulet', V.list(change)]]),
        meta: emptyMeta(),
      });
      allocation = { cid, authorizer, amount, lock: locked };
    });
    sides.push(allocation!);
    return item;
  }

  /**
   * The executor settles a V2 trade (SettlementFactory_SettleBatch): each allocation is settled and
   * archived; the sender's lock is archived, and the receiver's net credit becomes its amulet.
   */
  private settleV2(executor: User, settlement: DamlValue, transferLeg: DamlValue, sides: readonly AllocationV2[]): CanonicalItem {
    const net = this.net;
    const dso = net.who.dso;
    return net.submit(net.userSubmitter(executor), (tx) => {
      const batch = tx.exercise(
        null,
        net.gov.externalPartyAmuletRulesCid,
        'SettlementFactory_SettleBatch',
        V.record({
          settlement,
          transferLegs: V.list([transferLeg]),
          allocations: V.list(
            sides.map((a) =>
              V.record({ allocationCid: V.contractId(a.cid), extraTransferLegSides: V.list([]), nextIterationFunding: V.none() }),
            ),
          ),
          actors: V.list([V.party(executor.party)]),
          extraArgs: v2ExtraArgs(net.configStates.newest()),
        }),
        [executor.party],
      );
      const round = net.rounds.current().number;
      const results = sides.map((a) => {
        const acting = [dso, executor.party];
        const node = tx.exercise(
          batch,
          a.cid,
          'Allocation_Settle',
          V.record({
            actors: V.list(acting.map(V.party)),
            extraTransferLegSides: V.list([]),
            nextIterationFunding: V.none(),
            extraArgs: v2ExtraArgs(net.configStates.newest()),
          }),
          acting,
        );
        tx.archive(node, a.cid, [dso, a.authorizer.party]);
        const paid: string[] = [];
        if (a.lock) {
          tx.archive(node, a.lock.cid, [dso, a.authorizer.party]);
        } else {
          const owner = a.authorizer.party;
          const cid = tx.create(node, TEMPLATES.amulet, amuletRecord(dso, owner, a.amount, round, FEES.holdingFeeRate), [dso, owner]);
          net.wallets.add({ cid, owner, amount: a.amount, createdRound: round, away: false });
          paid.push(cid);
        }
        node.result = V.record({
          output: V.variant('AllocationResult_Settled', V.record({ nextIterationAllocationCid: V.none() })),
          authorizerHoldingCids: V.textMap(paid.length > 0 ? [['Amulet', V.list(paid.map(V.contractId))]] : []),
          meta: emptyMeta(),
        });
        return node.result;
      });
      batch.result = V.record({ allocationSettleResults: V.list(results), meta: emptyMeta() });
    });
  }

  /** The executor cancels, or the sender withdraws, V2 allocations: each is archived and its lock, if any, unlocked to its authorizer. */
  private endV2(choice: 'Allocation_Cancel' | 'Allocation_Withdraw', actor: User, allocations: readonly AllocationV2[]): CanonicalItem {
    const net = this.net;
    const dso = net.who.dso;
    return net.submit(net.userSubmitter(actor), (tx) => {
      for (const a of allocations) {
        const node = tx.exercise(
          null,
          a.cid,
          choice,
          V.record({
            actors: V.list([V.party(actor.party)]),
            // The V2 context: whether to expire the lock, which a lockless allocation does not have.
            extraArgs: V.record({
              context: V.record({ values: V.textMap([['expire-lock', V.variant('AV_Bool', V.bool(a.lock !== undefined))]]) }),
              meta: emptyMeta(),
            }),
          }),
          [actor.party],
        );
        tx.archive(node, a.cid, [dso, a.authorizer.party]);
        const returned = a.lock ? [this.unlock(tx, node, a.lock, a.authorizer)] : [];
        node.result = V.record({
          output: V.variant(choice === 'Allocation_Cancel' ? 'AllocationResult_Cancelled' : 'AllocationResult_Withdrawn', V.emptyRecord()),
          authorizerHoldingCids: V.textMap(returned.length > 0 ? [['Amulet', V.list(returned.map(V.contractId))]] : []),
          meta: emptyMeta(),
        });
      }
    });
  }

  /** Past the deadline, the sender takes the locked amount back; the instruction or allocation stays. */
  private reclaim(lock: Lock): CanonicalItem {
    const net = this.net;
    const dso = net.who.dso;
    return net.submit(net.userSubmitter(lock.owner), (tx) => {
      const round = net.rounds.current();
      const node = tx.exercise(
        null,
        lock.cid,
        'LockedAmulet_OwnerExpireLock',
        V.record({ openRoundCid: V.contractId(round.cid) }),
        [lock.owner.party],
        true,
      );
      const cid = tx.create(
        node,
        TEMPLATES.amulet,
        amuletRecord(dso, lock.owner.party, lock.amount, lock.createdRound, FEES.holdingFeeRate),
        [dso, lock.owner.party],
      );
      net.wallets.add({ cid, owner: lock.owner.party, amount: lock.amount, createdRound: lock.createdRound, away: false });
      node.result = V.record({
        amuletSum: V.record({ amulet: V.contractId(cid), amuletPrice: V.numeric(AMULET_PRICE), round: roundValue(round.number) }),
        meta: V.some(metadata({ 'tx-kind': 'unlock', reason: 'lock expired' })),
      });
    });
  }
}
