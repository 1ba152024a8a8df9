/** The Express application: request logging and metrics, health, and the three interfaces. */
import express, { type Express, type Request, type RequestHandler, type Response, type Router } from 'express';
import { createAnswerCache, type ApiContext } from './context';
import { docsRoutes } from './docs-routes';
import { createRateLimits } from './fair-access/rate-limit';
import type { Clock } from './fair-access/token-bucket';
import { healthRoutes } from './health';
import { hotPath } from './hot-path';
import { indexerRouter } from './indexer/router';
import { requestLog } from './request-log';
import { requestMetrics } from './request-metrics';
import { scanErrorHandler, scanNotFound } from './scan-errors';
import { securityHeaders } from './security-headers';
import { ledgerRouter } from './ledger/router';
import { registryRouter } from './registry/router';
import { scanRouter } from './scan/router';
import { validatorAuth } from './validator/auth';
import { validatorRouter } from './validator/router';
import { webUiRoutes } from './web-ui';
import { onServerClose } from './server';
import { answeredOnPrimaryWhenReplicaFails, readContext } from './read-routing';
import { webUiDir } from '../internal/paths';

/** Where the routers are mounted. */
const MOUNTS = ['/api/scan', '/api/validator', '/v2', '/registry', '/api/indexer'];

/**
 * The route template for metric labels: never a raw path, which would hold ids. The mount is
 * remembered on the way in: an error leaves its router before the response is sent.
 */
function routeLabel(req: Request, res: Response): string {
  // The hot path (hot-path.ts) names the template Express would have matched.
  if (typeof res.locals.route === 'string') return res.locals.route;
  const route = req.route as { path?: unknown } | undefined;
  const mount = typeof res.locals.mount === 'string' ? res.locals.mount : req.baseUrl;
  return typeof route?.path === 'string' ? `${mount}${route.path}` : 'unmatched';
}

export interface AppOptions {
  /** false serves only health, status and metrics (the worker process). */
  interfaces: boolean;
  /** The rate limits' clock (milliseconds), for tests that move time by hand. */
  clock?: Clock;
  /** false: every request walks the routers (tests compare the hot path's answers with theirs). */
  hotPath?: boolean;
}

export function createApp(given: ApiContext, options: AppOptions = { interfaces: true }): Express {
  // One answer cache per application, shared by Scan, the scan-proxy and the registry.
  const context: ApiContext = { ...given, answers: given.answers ?? createAnswerCache(given) };
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // The client address (req.ip) is read from X-Forwarded-For only when it comes from a trusted proxy.
  const { trustedProxies } = context.config.fairAccess;
  if (trustedProxies.length > 0) app.set('trust proxy', [...trustedProxies]);
  app.use(securityHeaders());
  app.use(requestLog(context.logger));
  app.use(requestMetrics(context.metrics, routeLabel));

  app.use(MOUNTS, (req, res, next) => {
    res.locals.mount = req.baseUrl;
    next();
  });
  // With read replicas, each request carries where its queries may go, and an answer a lagging replica
  // may have made wrong (not found, backfilling) is made again on the primary.
  const { replicas } = context;
  const replicated = replicas !== undefined;
  if (replicated) {
    context.metrics.observeReplicas(() => replicas.states);
    app.use(readContext(context.metrics));
  }
  const reads = (router: Router): RequestHandler => (replicated ? answeredOnPrimaryWhenReplicaFails(router) : router);
  // Rate limits sit in front of each router, after health and the documents, which are never limited.
  // One limiter per group, shared with the hot path: one set of buckets.
  const limits = options.interfaces ? createRateLimits(context, { clock: options.clock }) : undefined;
  const limited = limits && {
    scan: limits.handlersFor('scan'),
    'scan-proxy': limits.handlersFor('scan-proxy'),
    registry: limits.handlersFor('registry'),
  };
  const proxyAuth = validatorAuth(context.config);
  if (limited && !replicated && options.hotPath !== false) {
    app.use(hotPath(context, { limits: limited, proxyAuth, served: () => context.metrics.hotPathRequests.inc() }));
  }
  app.use(healthRoutes(context));
  if (limits && limited) {
    app.use(docsRoutes());
    app.use('/api/scan', ...limited.scan, reads(scanRouter(context)));
    app.use('/api/validator', ...limited['scan-proxy'], reads(validatorRouter(context, { auth: proxyAuth })));
    // The ledger router answers its own errors; its one lookup asks the primary itself (ledger/router.ts).
    app.use('/v2', ...limits.handlersFor('ledger'), ledgerRouter(context));
    app.use('/registry', ...limited.registry, reads(registryRouter(context)));
    if (context.config.webUi) app.use(webUiRoutes(webUiDir));
    app.use('/api/indexer', ...limits.handlersFor('indexer'), reads(indexerRouter(context)));
    const { streams } = context;
    if (streams) onServerClose(app, () => streams.close());
  }

  // One error handler for the Scan API, the validator proxy and the rest (the ledger router answers its own errors).
  app.use(scanNotFound);
  app.use(scanErrorHandler);
  return app;
}
