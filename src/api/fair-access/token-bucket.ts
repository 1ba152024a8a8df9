/**
 * The token bucket: `burst` tokens at most, refilled at `perSecond`; a request takes one. Pure, with the
 * time passed in (milliseconds of a monotonic clock), so refill is tested without waiting.
 */
import type { RateLimit } from '../../internal/config';

/** Milliseconds of a monotonic clock (performance.now in the service; a hand-moved one in tests). */
export type Clock = () => number;

export interface Bucket {
  /** Tokens as of `at`, a fraction while refilling. */
  tokens: number;
  at: number;
}

/** Whole seconds to wait, at least 1, until a bucket holding `tokens` has one (Retry-After). */
function secondsUntilToken(tokens: number, perSecond: number): number {
  return Math.max(1, Math.ceil((1 - tokens) / perSecond));
}

/** Takes a token: 0 when taken, else the whole seconds until one is there. */
export function takeToken(bucket: Bucket, limit: RateLimit, now: number): number {
  if (now > bucket.at) {
    bucket.tokens = Math.min(limit.burst, bucket.tokens + ((now - bucket.at) * limit.perSecond) / 1000);
    bucket.at = now;
  }
  if (bucket.tokens >= 1) {
    bucket.tokens -= 1;
    return 0;
  }
  return secondsUntilToken(bucket.tokens, limit.perSecond);
}

/** Whether the bucket has refilled completely by `now`: forgetting it then changes nothing. */
export function isFull(bucket: Bucket, limit: RateLimit, now: number): boolean {
  return bucket.tokens + ((now - bucket.at) * limit.perSecond) / 1000 >= limit.burst;
}
