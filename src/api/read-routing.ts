/**
 * The API's part in reading from streaming replicas (src/store/routing-pool.ts): each request gets a
 * read context, and an answer a replica may have made wrong only by lagging is made again on the
 * primary. A replica that has not replayed something yet finds nothing where the primary would, so a
 * "not found", a "gone", a backfilling 503 or any other server-side failure of a request that read on
 * a replica is answered by running the request's handler again with every query on the primary.
 * Range reads that a replica may cut short at its own end (pages of the update history) are read
 * again on the primary when short, in their routes; positions that requests name are registered in
 * their routes and services before they query.
 */
import type { RequestHandler } from 'express';
import { HttpError, isRetryable } from '../internal/errors';
import type { Metrics } from '../internal/metrics';
import { currentReadRequest, readAgainOnPrimary, runInReadRequest, type FallbackReason } from '../store/read-context';
import { replicaFault } from '../store/routing-pool';

/** Opens each request's read context and counts its fallbacks to the primary when it ends. */
export function readContext(metrics: Metrics): RequestHandler {
  return (_req, res, next) => {
    runInReadRequest(() => {
      const request = currentReadRequest()!;
      res.on('finish', () => {
        for (const reason of request.fallbacks) metrics.dbReadFallbacks.inc({ reason });
      });
      next();
    });
  };
}

/** Why an error of a request that read on a replica is worth answering again on the primary, or undefined. */
function fallbackFor(err: unknown): FallbackReason | undefined {
  if (err instanceof HttpError) {
    if (err.status === 404 || err.status === 410) return 'not_found';
    // 501 says what this indexer never serves; any other server-side answer may be the replica's.
    return err.status >= 500 && err.status !== 501 ? 'answer_refused' : undefined;
  }
  if (typeof err === 'object' && err !== null && 'status' in err) return undefined; // a client fault (body parser, URIError)
  return replicaFault(err) ?? (isRetryable(err) ? 'replica_unavailable' : undefined);
}

/**
 * Wraps a router mounted in the app: when its request read on a replica and failed as a lagging
 * replica could make it fail, the router handles the request once more with every query on the
 * primary, whose answer is then the answer. The body has been parsed already and is not read again.
 */
export function answeredOnPrimaryWhenReplicaFails(router: RequestHandler): RequestHandler {
  return (req, res, next) => {
    const request = currentReadRequest();
    void router(req, res, (err?: unknown) => {
      const reason = err === undefined || err === 'route' || err === 'router' ? undefined : fallbackFor(err);
      if (reason && request?.usedReplica && !request.primaryOnly && !res.headersSent) {
        readAgainOnPrimary(request, reason);
        void router(req, res, next);
        return;
      }
      next(err);
    });
  };
}
