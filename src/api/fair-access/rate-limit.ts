/**
 * Per-client rate limits, one limiter per route group mounted in front of its router: a token bucket
 * per client address (RATE_LIMIT_<GROUP>), or per configured API key (RATE_LIMIT_API_KEYS, one bucket
 * for all groups). Over the limit: 429 with Retry-After in whole seconds and the interface's error body,
 * the Scan's `{"error": …}`, or on /v2 Canton's JSON error.
 *
 * The hot path of an admitted request is a Map lookup and a little arithmetic: no allocation beyond the
 * bucket of a new client, no I/O (with the shared store, one database round trip per reservation).
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { ApiKeyLimit, RateLimit, RouteGroup } from '../../internal/config';
import type { ApiContext } from '../context';
import { sendJson } from '../json-response';
import { LedgerApiError, renderLedgerError } from '../ledger/errors';
import { MemoryBuckets, type BucketStore } from './bucket-store';
import { addressKey, apiKeyOf, clientAddress } from './client-identity';
import { GROUP_PATHS, isStreamPath } from './route-groups';
import { SharedBuckets, tableSweeper } from './shared-buckets';
import type { Clock } from './token-bucket';

export interface RateLimits {
  /**
   * The handlers to mount in front of a group's router: none when the group is not limited. The
   * indexer's also limits the streaming group, whose paths lie inside /api/indexer.
   */
  handlersFor(group: Exclude<RouteGroup, 'streaming'>): RequestHandler[];
}

/** Canton's FiniteDuration wording in retryInfo ("1 second", "5 seconds"). */
const seconds = (n: number) => `${n} second${n === 1 ? '' : 's'}`;

const describe = (limit: RateLimit) => `at most ${limit.perSecond} a second, in bursts of ${limit.burst}`;

/** One limiter per process and configuration; `clock` is for tests (default: performance.now). */
export function createRateLimits(context: ApiContext, options: { clock?: Clock } = {}): RateLimits {
  const { config, metrics, logger, db } = context;
  const settings = config.fairAccess;
  if (!settings.enabled) return { handlersFor: () => [] };
  const clock = options.clock ?? (() => performance.now());
  const behindProxies = settings.trustedProxies.length > 0;
  const keys = settings.apiKeys;

  let lastWarning = -Infinity;
  const onStoreError = (err: unknown) => {
    const now = clock();
    if (now - lastWarning < 60_000) return;
    lastWarning = now;
    logger.warn({ err }, 'the shared rate-limit store is unavailable: limiting per process meanwhile');
  };
  const sweep = tableSweeper(db, clock, onStoreError);
  const storeFor = (scope: string): BucketStore => {
    const memory = new MemoryBuckets(clock);
    return settings.store === 'postgres' ? new SharedBuckets(scope, db, clock, memory, onStoreError, sweep) : memory;
  };
  const keyStore = keys.size > 0 ? storeFor('keys') : undefined;

  /** Writes the refusal in the group's error shape. */
  const refuse = (group: RouteGroup, limit: RateLimit, key: ApiKeyLimit | undefined, req: Request, res: Response, wait: number) => {
    metrics.requestsLimited.inc({ group, reason: 'rate' });
    const who = key ? 'with this API key' : `to ${GROUP_PATHS[group]} from this address`;
    const message = `Too many requests ${who}: ${describe(key ?? limit)}. Retry after ${seconds(wait)}.`;
    res.set('Retry-After', String(wait));
    if (group === 'ledger') {
      // Canton's answer when it sheds load: LedgerApiErrors.ParticipantBackpressure (digital-asset/canton,
      // community/ledger/ledger-common/src/main/scala/com/digitalasset/canton/ledger/error/LedgerApiErrors.scala),
      // category ContentionOnSharedResources (2, gRPC ABORTED, retryable), its reason in the context.
      const error = new LedgerApiError(429, 'PARTICIPANT_BACKPRESSURE', 2, 10, `The participant is overloaded: ${message}`, {
        reason: message,
      });
      res.status(429).json({ ...renderLedgerError(req, config.ledger.participantId, error), retryInfo: seconds(wait) });
      return;
    }
    sendJson(res, { error: message }, 429);
  };

  /** Admits or refuses one request against the group's buckets (or its key's). */
  const limitRequest = (group: RouteGroup, limit: RateLimit, store: BucketStore, req: Request, res: Response, next: NextFunction) => {
    const key = keyStore === undefined ? undefined : apiKeyOf(req, keys);
    const wait = key === undefined ? store.take(addressKey(clientAddress(req, behindProxies)), limit) : keyStore!.take(key.name, key);
    if (wait === 0) next();
    else if (typeof wait === 'number') refuse(group, limit, key, req, res, wait);
    else
      wait.then(
        (w) => (w === 0 ? next() : refuse(group, limit, key, req, res, w)),
        (err: unknown) => next(err),
      );
  };

  const handler = (group: RouteGroup): RequestHandler | undefined => {
    const limit = settings.groups[group];
    if (limit === undefined) return undefined;
    const store = storeFor(group);
    return (req, res, next) => limitRequest(group, limit, store, req, res, next);
  };

  return {
    handlersFor(group) {
      if (group !== 'indexer') {
        const only = handler(group);
        return only ? [only] : [];
      }
      const indexer = handler('indexer');
      const streaming = handler('streaming');
      if (!indexer && !streaming) return [];
      return [
        (req, res, next) => {
          const chosen = isStreamPath(req.path) ? streaming : indexer;
          if (chosen) chosen(req, res, next);
          else next();
        },
      ];
    },
  };
}
