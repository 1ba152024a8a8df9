/**
 * Buckets all API replicas share, in PostgreSQL (RATE_LIMIT_STORE=postgres; rate_limit_buckets). Asking
 * the database on every request would cost a round trip each, so a process reserves a tenth of a
 * client's burst at a time and serves that client from the reservation; requests that arrive while a
 * reservation is under way wait for it rather than start another. A refused reservation is remembered
 * until the bucket has a token again, so a flood of refused requests costs no queries either. Across N
 * replicas a client may get up to N reservations beyond its burst before they are all spent.
 *
 * When the database cannot answer, this process limits on its own (the in-memory fallback) and says so
 * in the log, at most once a minute.
 */
import type { RateLimit } from '../../internal/config';
import type { Db } from '../../store/pool';
import { deleteFullRateBuckets, reserveRateTokens } from '../../store/rate-limit-repository';
import { MAX_CLIENTS_PER_STORE, type BucketStore } from './bucket-store';
import type { Clock } from './token-bucket';

/** Tokens reserved at a time: a tenth of the burst, so about one request in burst/10 asks the database. */
export function reservationSize(limit: RateLimit): number {
  return Math.max(1, Math.floor(limit.burst / 10));
}

/** How often a process deletes buckets that have filled up again. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * Deletes the table's full buckets at most once a minute, called as reservations are made: a process
 * that reserves nothing leaves the table alone (and needs no timer to stop at shutdown).
 */
export function tableSweeper(db: Db, clock: Clock, onError: (err: unknown) => void): () => void {
  let last = clock();
  return () => {
    const now = clock();
    if (now - last < SWEEP_INTERVAL_MS) return;
    last = now;
    deleteFullRateBuckets(db).catch(onError);
  };
}

interface Reserved {
  /** Tokens reserved for this process and not yet used. */
  tokens: number;
  /** Clock time before which the shared bucket has no token (after a refused reservation). */
  deniedUntil: number;
  /** The reservation under way; true when it got an answer from the database. */
  pending: Promise<boolean> | undefined;
}

export class SharedBuckets implements BucketStore {
  private readonly reserved = new Map<string, Reserved>();

  constructor(
    /** Names the store's buckets apart from other groups' (the route group, or "keys"). */
    private readonly scope: string,
    private readonly db: Db,
    private readonly clock: Clock,
    /** Decides while the database cannot. */
    private readonly fallback: BucketStore,
    private readonly onError: (err: unknown) => void,
    /** Called with each reservation (tableSweeper). */
    private readonly sweep: () => void,
    private readonly maxClients = MAX_CLIENTS_PER_STORE,
  ) {}

  take(client: string, limit: RateLimit): number | Promise<number> {
    const reserved = this.reserved.get(client);
    if (reserved !== undefined) {
      if (reserved.tokens >= 1) {
        reserved.tokens -= 1;
        return 0;
      }
      if (reserved.pending === undefined) {
        const wait = reserved.deniedUntil - this.clock();
        if (wait > 0) return Math.max(1, Math.ceil(wait / 1000));
      }
    }
    return this.takeAfterReserving(client, limit, reserved);
  }

  private async takeAfterReserving(client: string, limit: RateLimit, known: Reserved | undefined): Promise<number> {
    let reserved = known;
    if (reserved === undefined) {
      if (this.reserved.size >= this.maxClients) this.forget();
      reserved = { tokens: 0, deniedUntil: 0, pending: undefined };
      this.reserved.set(client, reserved);
    }
    const r = reserved;
    r.pending ??= this.reserve(client, limit, r).finally(() => {
      r.pending = undefined;
    });
    if (!(await r.pending)) return this.fallback.take(client, limit);
    return this.take(client, limit);
  }

  private async reserve(client: string, limit: RateLimit, reserved: Reserved): Promise<boolean> {
    this.sweep();
    try {
      const { granted, tokens } = await reserveRateTokens(this.db, `${this.scope} ${client}`, limit, reservationSize(limit));
      reserved.tokens += granted;
      if (granted === 0) reserved.deniedUntil = this.clock() + ((1 - tokens) / limit.perSecond) * 1000;
      return true;
    } catch (err) {
      this.onError(err);
      return false;
    }
  }

  /** Forgets idle reservations: unused reserved tokens are lost, which only makes the limit stricter once. */
  private forget(): void {
    for (const [client, r] of this.reserved) if (r.pending === undefined) this.reserved.delete(client);
  }
}
