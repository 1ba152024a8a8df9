/** The Express application: request logging and metrics, health, and the three interfaces. */
import { randomUUID } from 'node:crypto';
import express, { type Express, type Request, type Response } from 'express';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import { createAnswerCache, type ApiContext } from './context';
import { docsRoutes } from './docs-routes';
import { healthRoutes } from './health';
import { indexerRouter } from './indexer/router';
import { scanErrorHandler, scanNotFound } from './scan-errors';
import { ledgerRouter } from './ledger/router';
import { registryRouter } from './registry/router';
import { scanRouter } from './scan/router';
import { validatorAuth } from './validator/auth';
import { validatorRouter } from './validator/router';
import { webUiRoutes } from './web-ui';
import { webUiDir } from '../internal/paths';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

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
  // Security headers for a JSON API: nothing here may be framed, run as a script or style,
  // or sniffed as another type; HSTS for deployments behind TLS.
  app.use(
    helmet({
      contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
      frameguard: { action: 'deny' },
      crossOriginResourcePolicy: { policy: 'cross-origin' },
    }),
  );

  app.use(
    pinoHttp({
      logger: context.logger,
      genReqId: (req, res) => {
        const given = req.headers['x-request-id'];
        const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
        res.setHeader('x-request-id', id);
        return id;
      },
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
      autoLogging: { ignore: (req) => req.url === '/livez' || req.url === '/readyz' || req.url === '/metrics' },
    }),
  );

  app.use((req, res, next) => {
    const end = context.metrics.httpRequestDuration.startTimer();
    res.on('finish', () => {
      const labels = { method: req.method, route: routeLabel(req, res), status_code: String(res.statusCode) };
      end(labels);
      context.metrics.httpRequestsTotal.inc(labels);
      if (typeof res.locals.authRefusal === 'string') context.metrics.authRefusals.inc({ reason: res.locals.authRefusal });
      if (res.locals.pageTokenRejected === true) context.metrics.pageTokenRejections.inc();
    });
    next();
  });

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
