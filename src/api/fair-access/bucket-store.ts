/**
 * Where the buckets of one route group (or of the API keys) live. `take` answers 0 when the client may
 * go on, else the whole seconds until it may; the in-memory store answers at once, the shared one
 * sometimes after a database round trip (a Promise).
 */
import type { RateLimit } from '../../internal/config';
import { isFull, takeToken, type Bucket, type Clock } from './token-bucket';

export interface BucketStore {
  take(client: string, limit: RateLimit): number | Promise<number>;
}

/**
 * Clients remembered per store. Past it, buckets that have filled up again are forgotten (which changes
 * nothing), then the oldest: a client forgotten that way starts with a full bucket, so a flood of
 * addresses can make the limiter lenient for others, never strict.
 */
export const MAX_CLIENTS_PER_STORE = 50_000;

/** Buckets in this process's memory: no shared state, no I/O. */
export class MemoryBuckets implements BucketStore {
  /** One object per client: its bucket and the limit it refills at (for forgetting full ones). */
  private readonly buckets = new Map<string, Bucket & { limit: RateLimit }>();

  constructor(
    private readonly clock: Clock,
    private readonly maxClients = MAX_CLIENTS_PER_STORE,
  ) {}

  take(client: string, limit: RateLimit): number {
    const now = this.clock();
    let bucket = this.buckets.get(client);
    if (bucket === undefined) {
      if (this.buckets.size >= this.maxClients) this.forget(now);
      bucket = { tokens: limit.burst, at: now, limit };
      this.buckets.set(client, bucket);
    }
    return takeToken(bucket, limit, now);
  }

  /** Clients remembered now (for tests). */
  get size(): number {
    return this.buckets.size;
  }

  private forget(now: number): void {
    for (const [client, bucket] of this.buckets) if (isFull(bucket, bucket.limit, now)) this.buckets.delete(client);
    // Still full of active clients: drop the oldest tenth (a Map iterates in insertion order).
    let drop = this.buckets.size >= this.maxClients ? Math.ceil(this.maxClients / 10) : 0;
    for (const client of this.buckets.keys()) {
      if (drop-- <= 0) break;
      this.buckets.delete(client);
    }
  }
}
