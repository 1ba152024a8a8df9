/**
 * What external parties' wallets do through Scan: transfer preapprovals and
 * the (legacy) TransferCommand workflow.
 *
 * - A user asks an app provider to preapprove incoming transfers
 *   (AmuletRules_CreateTransferPreapproval creates a TransferPreapproval for
 *   90 days); later the provider renews it (TransferPreapproval_Renew: a new
 *   contract, a later expiry).
 * - An external party sends through a delegate: the DSO first gives the sender
 *   a TransferCommandCounter; the sender signs
 *   ExternalPartyAmuletRules_CreateTransferCommand with the counter's next
 *   nonce, creating a TransferCommand; a little later the delegate runs
 *   TransferCommand_Send, which moves the amulet when the receiver has a
 *   preapproval and the sender the funds, and fails with the reason
 *   otherwise; either way the counter moves to the next nonce. Some commands
 *   are withdrawn by the sender instead, and some expire unsent; their nonce
 *   is used again by the sender's next command.
 */

import { decimalOf, type Decimal10 } from '../domain/decimal';
import { V } from '../domain/daml-value';
import type { CanonicalItem } from '../domain/items';
import type { Micros } from '../domain/time';
import type { NetworkContext } from './context';
import type { User } from './identities';
import { TEMPLATES } from './templates';

declare module './context' {
  interface Subsystems {
    readonly externalTransfers: ExternalTransfers;
  }
}

interface Preapproval {
  cid: string;
  readonly provider: User;
  validFrom: Micros;
  expiresAt: Micros;
}

interface Counter {
  cid: string;
  nextNonce: number;
}

const DAY: Micros = 86_400_000_000n;
const PREAPPROVAL_LIFETIME: Micros = 90n * DAY;
/** How long a command may wait for its delegate. */
const COMMAND_LIFETIME: Micros = 600_000_000n;

export class ExternalTransfers {
  private readonly preapprovals = new Map<string, Preapproval>();
  private readonly counters = new Map<string, Counter>();
  /** Senders with a command waiting: one at a time each. */
  private readonly pending = new Set<string>();

  constructor(private readonly net: NetworkContext) {}

  /** A user gets a preapproval from an app provider, or has the one it has renewed. */
  preapprove(receiver: User): CanonicalItem {
    const net = this.net;
    const dso = net.who.dso;
    const existing = this.preapprovals.get(receiver.party);
    const provider = existing?.provider ?? net.rng.pick(net.who.appProviders);
    return net.submit(net.userSubmitter(provider, [provider.party, receiver.party]), (tx) => {
      const node = existing
        ? tx.exercise(
            null,
            existing.cid,
            'TransferPreapproval_Renew',
            V.record({ newExpiresAt: V.timestamp(net.now + PREAPPROVAL_LIFETIME) }),
            [provider.party],
            true,
          )
        : tx.exercise(
            null,
            net.gov.amuletRulesCid,
            'AmuletRules_CreateTransferPreapproval',
            V.record({
              receiver: V.party(receiver.party),
              provider: V.party(provider.party),
              expiresAt: V.timestamp(net.now + PREAPPROVAL_LIFETIME),
            }),
            [receiver.party, provider.party],
          );
      const preapproval: Preapproval = existing ?? { cid: '', provider, validFrom: net.now, expiresAt: 0n };
      preapproval.expiresAt = net.now + PREAPPROVAL_LIFETIME;
      preapproval.cid = tx.create(
        node,
        TEMPLATES.transferPreapproval,
        V.record({
          receiver: V.party(receiver.party),
          provider: V.party(provider.party),
          dso: V.party(dso),
          validFrom: V.timestamp(preapproval.validFrom),
          lastRenewedAt: V.timestamp(net.now),
          expiresAt: V.timestamp(preapproval.expiresAt),
          description: V.none(),
        }),
        [receiver.party, provider.party],
        [dso],
      );
      node.result = V.record({ transferPreapprovalCid: V.contractId(preapproval.cid) });
      this.preapprovals.set(receiver.party, preapproval);
    });
  }

  /** An external party starts a transfer through a delegate (after getting its counter); undefined while one waits. */
  command(sender: User, receiver: User): CanonicalItem | undefined {
    const net = this.net;
    if (this.pending.has(sender.party)) return undefined;
    const dso = net.who.dso;
    const counter = this.counters.get(sender.party);
    if (!counter) {
      // The sender's first command: the DSO creates its counter, and the command follows a few seconds later.
      const item = net.submit(net.dsoSubmitter(net.randomSv()), (tx) => {
        const created: Counter = { cid: '', nextNonce: 0 };
        created.cid = tx.create(null, TEMPLATES.transferCommandCounter, this.counterArgs(sender.party, 0), [dso], [sender.party]);
        this.counters.set(sender.party, created);
      });
      net.after(BigInt(net.rng.int(2, 20)) * 1_000_000n, () => this.command(sender, receiver) ?? null);
      return item;
    }
    const delegate = net.rng.pick(net.who.appProviders);
    const amount = net.rng.bigint(decimalOf(5), decimalOf(500));
    const nonce = counter.nextNonce;
    const expiresAt = net.now + COMMAND_LIFETIME;
    let commandCid = '';
    const item = net.submit(net.userSubmitter(sender), (tx) => {
      const fields = {
        sender: V.party(sender.party),
        receiver: V.party(receiver.party),
        delegate: V.party(delegate.party),
        amount: V.numeric(amount),
        expiresAt: V.timestamp(expiresAt),
        nonce: V.int64(nonce),
        description: V.none(),
      };
      const node = tx.exercise(
        null,
        net.gov.externalPartyAmuletRulesCid,
        'ExternalPartyAmuletRules_CreateTransferCommand',
        V.record(fields),
        [sender.party],
      );
      commandCid = tx.create(
        node,
        TEMPLATES.transferCommand,
        V.record({ dso: V.party(dso), ...fields }),
        [sender.party],
        [dso, delegate.party],
      );
      node.result = V.record({ transferCommandCid: V.contractId(commandCid) });
      return { externallySigned: true };
    });
    this.pending.add(sender.party);
    const fate = net.rng.float();
    const command = { cid: commandCid, sender, receiver, delegate, amount, nonce };
    if (fate < 0.1) net.after(net.ticks(1) / 4n, () => this.withdraw(command));
    else if (fate < 0.15) net.at(expiresAt + 1n, () => this.expire(command));
    else net.after(BigInt(net.rng.int(5, 60)) * 1_000_000n, () => this.send(command));
    return item;
  }

  private counterArgs(sender: string, nextNonce: number) {
    return V.record({ dso: V.party(this.net.who.dso), sender: V.party(sender), nextNonce: V.int64(nextNonce) });
  }

  /** TransferCommand_Send by the delegate: the transfer through the receiver's preapproval, or the reason it failed. */
  private send(c: Command): CanonicalItem {
    const net = this.net;
    const dso = net.who.dso;
    const counter = this.counters.get(c.sender.party) as Counter;
    const preapproval = this.preapprovals.get(c.receiver.party);
    const plan =
      preapproval && preapproval.expiresAt > net.now
        ? net.wallets.plan({
            sender: c.sender.party,
            provider: preapproval.provider.party,
            outputs: [{ receiver: c.receiver.party, amount: c.amount }],
          })
        : undefined;
    this.pending.delete(c.sender.party);
    return net.submit(net.userSubmitter(c.delegate), (tx) => {
      const node = tx.exercise(
        null,
        c.cid,
        'TransferCommand_Send',
        V.record({
          transferPreapprovalCidO: V.optional(preapproval ? V.contractId(preapproval.cid) : null),
          transferCounterCid: V.contractId(counter.cid),
        }),
        [c.delegate.party],
        true,
      );
      const bump = tx.exercise(node, counter.cid, 'TransferCommandCounter_Bump', V.emptyRecord(), [dso], true);
      counter.nextNonce = c.nonce + 1;
      counter.cid = tx.create(
        bump,
        TEMPLATES.transferCommandCounter,
        this.counterArgs(c.sender.party, counter.nextNonce),
        [dso],
        [c.sender.party],
      );
      let outcome;
      if (plan) {
        net.wallets.emit(tx, node, plan);
        outcome = V.variant('TransferCommandResultSuccess', V.record({ sender: V.party(c.sender.party) }));
      } else {
        const reason = !preapproval
          ? V.variant('ITR_Other', V.record({ description: V.text(`No TransferPreapproval for receiver '${c.receiver.party}'`) }))
          : V.variant('ITR_InsufficientFunds', V.record({ missingAmount: V.numeric(c.amount) }));
        outcome = V.variant('TransferCommandResultFailure', V.record({ reason }));
      }
      node.result = V.record({ result: outcome, sender: V.party(c.sender.party), nonce: V.int64(c.nonce) });
    });
  }

  /** TransferCommand_Withdraw by the sender before the delegate sends. */
  private withdraw(c: Command): CanonicalItem {
    const net = this.net;
    this.pending.delete(c.sender.party);
    return net.submit(net.userSubmitter(c.sender), (tx) => {
      const node = tx.exercise(null, c.cid, 'TransferCommand_Withdraw', V.emptyRecord(), [c.sender.party], true);
      node.result = V.record({ sender: V.party(c.sender.party), nonce: V.int64(c.nonce) });
      return { externallySigned: true };
    });
  }

  /** TransferCommand_Expire by the delegate once the command is past its expiry. */
  private expire(c: Command): CanonicalItem {
    const net = this.net;
    this.pending.delete(c.sender.party);
    return net.submit(net.userSubmitter(c.delegate), (tx) => {
      const node = tx.exercise(null, c.cid, 'TransferCommand_Expire', V.emptyRecord(), [c.delegate.party], true);
      node.result = V.record({ sender: V.party(c.sender.party), nonce: V.int64(c.nonce) });
    });
  }
}

interface Command {
  readonly cid: string;
  readonly sender: User;
  readonly receiver: User;
  readonly delegate: User;
  readonly amount: Decimal10;
  readonly nonce: number;
}
