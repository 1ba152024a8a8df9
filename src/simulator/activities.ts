/**
 * What users (and occasionally SVs) do when no automation is due: mostly
 * amulet transfers, plus merges, locks, faucet taps, ANS requests, votes,
 * node reconfigurations, price votes, reassignments, transfer preapprovals,
 * external parties' transfer commands, token-standard transfer offers and
 * allocations (and, when enabled, V2 trades), validator liveness records,
 * development fund coupons and the odd rejected submission.
 * Whales are picked far more often than other users, so their history of
 * archived amulets grows long while their live holdings stay few.
 */

import { decimalOf, mulDecimal, type Decimal10 } from '../domain/decimal';
import type { CanonicalItem } from '../domain/items';
import type { OutputSpec } from './amulet';
import type { User } from './identities';
import { Locks } from './locks';
import type { NetworkContext } from './context';
import { WeightedPicker } from './prng';
import { rejectedItem } from './verdicts';

type Activity = () => CanonicalItem | undefined;

/** How much more often a whale acts than an ordinary user. */
const WHALE_ACTIVITY = 40;
/** Share of user transfers submitted by external parties (they carry external_transaction_hash). */
const EXTERNAL_SHARE = 0.05;

export class Activities {
  private readonly users: WeightedPicker<User>;
  private readonly activities: WeightedPicker<Activity>;
  private readonly locks: Locks;

  constructor(private readonly net: NetworkContext) {
    this.locks = new Locks(net);
    this.users = new WeightedPicker(net.who.users.map((u) => [u, u.whale ? WHALE_ACTIVITY : 1] as const));
    const entries: [Activity, number][] = [
      [() => this.transfer(), 62],
      [() => this.merge(), 5],
      [() => this.locks.lock(this.users.pick(net.rng)), 4],
      [() => this.tap(this.users.pick(net.rng)), 3],
      [() => net.ans.request(this.users.pick(net.rng)), 1.5],
      [() => net.votes.randomRequest(), 0.3],
      [() => net.svNodes.randomConfigChange(), 0.3],
      [() => net.svNodes.randomPriceVote(), 0.3],
      [() => net.reassignments.moveAway(), 1],
      [() => net.externalTransfers.preapprove(this.users.pick(net.rng)), 1],
      [() => this.externalTransfer(), 2.5],
      [() => this.tokenStandardTransfer(), 6],
      [() => this.allocation(), 5],
      [() => net.licenses.recordLiveness(), 1],
      [() => net.licenses.fundDevelopment(), 1],
      [() => rejectedItem(net, this.users.pick(net.rng)), 1],
      // Appended, so that without it the picker draws as it always did.
      ...(net.settings.tokenStandardV2 ? ([[() => this.allocationV2(), 5]] as [Activity, number][]) : []),
      ...(net.settings.amuletExpiry ? ([[() => net.expiry.expireDust(net.rng.pick(net.who.users).party), 5]] as [Activity, number][]) : []),
    ];
    this.activities = new WeightedPicker(entries);
  }

  next(): CanonicalItem {
    // An activity that does not apply right now (no funds, too many open votes) gives way to a transfer, then a tap.
    return this.activities.pick(this.net.rng)() ?? this.transfer() ?? this.tap(this.users.pick(this.net.rng));
  }

  private tap(user: User): CanonicalItem {
    return this.net.wallets.tap(user, this.net.rng.bigint(decimalOf(1_000), decimalOf(20_000)));
  }

  /** A transfer of part of the sender's balance to one or two other users, sometimes through an app. */
  private transfer(): CanonicalItem | undefined {
    const net = this.net;
    const rng = net.rng;
    const sender = this.users.pick(rng);
    const balance = net.wallets.balance(sender.party);
    if (balance < decimalOf(100)) return this.tap(sender);
    const outputs: OutputSpec[] = [];
    // One receiver mostly, batch payouts to two or three now and then.
    const r = rng.float();
    for (let n = r < 0.5 ? 1 : r < 0.8 ? 2 : 3; n > 0; n--) {
      const receiver = this.otherUser(sender);
      // Whales send a sliver of their balance, others up to 40% of it; half the amounts are round numbers.
      const share = sender.whale ? BigInt(rng.int(1, 200)) * 1_000_000n : BigInt(rng.int(1, 40)) * 100_000_000n;
      outputs.push({ receiver: receiver.party, amount: roundAmount(mulDecimal(balance, share), rng.chance(0.5)) });
    }
    const provider = rng.chance(0.4) ? rng.pick(net.who.appProviders).party : sender.party;
    return net.wallets.transfer(sender, { sender: sender.party, provider, outputs }, rng.chance(EXTERNAL_SHARE));
  }

  /** An external party sends to another user through a delegate (TransferCommand). */
  private externalTransfer(): CanonicalItem | undefined {
    const sender = this.users.pick(this.net.rng);
    return this.net.externalTransfers.command(sender, this.otherUser(sender));
  }

  /** A token-standard transfer offer (AmuletTransferInstruction). */
  private tokenStandardTransfer(): CanonicalItem | undefined {
    const sender = this.users.pick(this.net.rng);
    return this.net.tokenStandard.offer(sender, this.otherUser(sender));
  }

  /** One leg of a DvP trade (AmuletAllocation). */
  private allocation(): CanonicalItem | undefined {
    const sender = this.users.pick(this.net.rng);
    return this.net.tokenStandard.allocate(sender, this.otherUser(sender));
  }

  /** Both sides of a token-standard V2 DvP trade (AmuletAllocationV2). */
  private allocationV2(): CanonicalItem | undefined {
    const sender = this.users.pick(this.net.rng);
    return this.net.tokenStandard.tradeV2(sender, this.otherUser(sender));
  }

  /** A user with several amulets merges them into one. */
  private merge(): CanonicalItem | undefined {
    const user = this.users.pick(this.net.rng);
    if (this.net.wallets.usable(user.party).length < 3) return undefined;
    return this.net.wallets.transfer(user, { sender: user.party, provider: user.party, outputs: [], consolidateAbove: 0 }, false);
  }

  private otherUser(sender: User): User {
    for (;;) {
      const u = this.users.pick(this.net.rng);
      if (u !== sender) return u;
    }
  }
}

function roundAmount(x: Decimal10, whole: boolean): Decimal10 {
  const floor = whole ? (x / decimalOf(1)) * decimalOf(1) : x;
  return floor > 0n ? floor : decimalOf(1);
}
