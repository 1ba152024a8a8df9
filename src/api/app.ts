/** The Express application: request logging and metrics, health, and the three interfaces. */
import express, { type Express, type Request, type Response } from 'express';
import { createAnswerCache, type ApiContext } from './context';
import { docsRoutes } from './docs-routes';
import { healthRoutes } from './health';
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
import { webUiDir } from '../internal/paths';

/** Where the routers are mounted. */
const MOUNTS = ['/api/scan', '/api/validator', '/v2', '/registry', '/api/indexer'];

/**
 * The route template for metric labels: never a raw path, which would hold ids. The mount is
 * remembered on the way in: an error leaves its router before the response is sent.
 */
function routeLabel(req: Request, res: Response): string {
  const route = req.route as { path?: unknown } | undefined;
  const mount = typeof res.locals.mount === 'string' ? res.locals.mount : req.baseUrl;
  return typeof route?.path === 'string' ? `${mount}${route.path}` : 'unmatched';
}

/** `interfaces: false` serves only health, status and metrics (the worker process). */
export function createApp(given: ApiContext, options: { interfaces: boolean } = { interfaces: true }): Express {
  // One answer cache per application, shared by Scan, the scan-proxy and the registry.
  const context: ApiContext = { ...given, answers: given.answers ?? createAnswerCache(given) };
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(securityHeaders());
  app.use(requestLog(context.logger));
  app.use(requestMetrics(context.metrics, routeLabel));

  app.use(MOUNTS, (req, res, next) => {
    res.locals.mount = req.baseUrl;
    next();
  });
  app.use(healthRoutes(context));
  if (options.interfaces) {
    app.use(docsRoutes());
    app.use('/api/scan', scanRouter(context));
    app.use('/api/validator', validatorRouter(context, { auth: validatorAuth(context.config) }));
    app.use('/v2', ledgerRouter(context));
    app.use('/registry', registryRouter(context));
    if (context.config.webUi) app.use(webUiRoutes(webUiDir));
    app.use('/api/indexer', indexerRouter(context));
  }

  // One error handler for the Scan API, the validator proxy and the rest (the ledger router answers its own errors).
  app.use(scanNotFound);
  app.use(scanErrorHandler);
  return app;
}
