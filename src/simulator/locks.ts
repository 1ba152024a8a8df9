/**
 * Locked amulet: a user locks part of its holdings to an app provider until
 * an expiry (a LockedAmulet created by a transfer to itself with a lock);
 * later the holders release it (LockedAmulet_Unlock) or, once expired, the
 * owner takes it back (LockedAmulet_OwnerExpireLock). Either way the amulet
 * inside reappears unchanged as an Amulet.
 */

import { V } from '../domain/daml-value';
import { decimalOf, mulDecimal, type Decimal10 } from '../domain/decimal';
import type { CanonicalItem } from '../domain/items';
import { AMULET_PRICE, FEES } from './economics';
import type { User } from './identities';
import type { NetworkContext } from './context';
import { amuletRecord, metadata, roundValue } from './splice-values';
import { TEMPLATES } from './templates';

interface LockedHolding {
  readonly cid: string;
  readonly owner: User;
  readonly holders: readonly string[];
  readonly amount: Decimal10;
  readonly createdRound: number;
}

/** Share of locks the holders release before expiry; the rest expire and are reclaimed by the owner. */
const RELEASE_SHARE = 0.6;
/** With amuletExpiry, the share of the expired locks the DSO expires (LockedAmulet_ExpireAmulet) instead. */
const DSO_EXPIRE_SHARE = 0.5;

export class Locks {
  private settlement = 0;

  constructor(private readonly net: NetworkContext) {}

  /** A user locks 5–30% of its balance for an app provider for one to four ticks. */
  lock(user: User): CanonicalItem | undefined {
    const net = this.net;
    const provider = net.rng.pick(net.who.appProviders);
    const balance = net.wallets.balance(user.party);
    if (provider.party === user.party || balance < decimalOf(200)) return undefined;
    const amount = mulDecimal(balance, BigInt(net.rng.int(5, 30)) * 100_000_000n);
    const expiresAt = net.now + net.ticks(net.rng.int(1, 4));
    const plan = net.wallets.plan({
      sender: user.party,
      provider: provider.party,
      outputs: [
        {
          receiver: user.party,
          amount,
          lock: { holders: [provider.party], expiresAt, context: `allocation for settlement ${++this.settlement}` },
        },
      ],
    });
    if (!plan) return undefined;
    return net.submit(net.userSubmitter(user), (tx) => {
      const cid = net.wallets.emit(tx, null, plan).outputCids[0] as string;
      const locked: LockedHolding = { cid, owner: user, holders: [provider.party], amount, createdRound: plan.round };
      if (net.rng.chance(RELEASE_SHARE)) {
        const lockedFor = expiresAt - net.now;
        net.after(lockedFor / 4n + BigInt(net.rng.int(0, Number(lockedFor / 2n))), () => this.release(locked, 'LockedAmulet_Unlock'));
      } else if (net.settings.amuletExpiry && net.rng.chance(DSO_EXPIRE_SHARE)) {
        net.at(expiresAt + BigInt(net.rng.int(1, Number(net.settings.tickMicros / 2n))), () =>
          net.expiry.expireLocked({ cid, owner: user.party, amount, createdRound: plan.round }),
        );
      } else {
        net.at(expiresAt + BigInt(net.rng.int(1, Number(net.settings.tickMicros / 2n))), () =>
          this.release(locked, 'LockedAmulet_OwnerExpireLock'),
        );
      }
      if (net.gov.featuredRights.has(provider.party)) return { featuredProvider: provider.party };
    });
  }

  /** Unlock (owner and holders) or owner-expire: the LockedAmulet is archived and its amulet recreated. */
  private release(locked: LockedHolding, choice: 'LockedAmulet_Unlock' | 'LockedAmulet_OwnerExpireLock'): CanonicalItem {
    const net = this.net;
    const owner = locked.owner.party;
    const acting = choice === 'LockedAmulet_Unlock' ? [owner, ...locked.holders] : [owner];
    return net.submit(net.userSubmitter(locked.owner, acting), (tx) => {
      const dso = net.who.dso;
      const round = net.rounds.current();
      const node = tx.exercise(null, locked.cid, choice, V.record({ openRoundCid: V.contractId(round.cid) }), acting, true);
      const cid = tx.create(node, TEMPLATES.amulet, amuletRecord(dso, owner, locked.amount, locked.createdRound, FEES.holdingFeeRate), [
        dso,
        owner,
      ]);
      net.wallets.add({ cid, owner, amount: locked.amount, createdRound: locked.createdRound, away: false });
      node.result = V.record({
        amuletSum: V.record({ amulet: V.contractId(cid), amuletPrice: V.numeric(AMULET_PRICE), round: roundValue(round.number) }),
        meta: V.some(
          metadata({ 'tx-kind': 'unlock', reason: choice === 'LockedAmulet_Unlock' ? 'holders released lock' : 'lock expired' }),
        ),
      });
    });
  }
}
