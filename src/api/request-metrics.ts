/**
 * Request counts and durations by method, route template and status code; the reasons for refused
 * authentication and page tokens, which handlers leave in res.locals.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { Metrics } from '../internal/metrics';

export function requestMetrics(metrics: Metrics, routeLabel: (req: Request, res: Response) => string): RequestHandler {
  return (req, res, next) => {
    const end = metrics.httpRequestDuration.startTimer();
    res.on('finish', () => {
      const labels = { method: req.method, route: routeLabel(req, res), status_code: String(res.statusCode) };
      end(labels);
      metrics.httpRequestsTotal.inc(labels);
      if (typeof res.locals.authRefusal === 'string') metrics.authRefusals.inc({ reason: res.locals.authRefusal });
      if (res.locals.pageTokenRejected === true) metrics.pageTokenRejections.inc();
    });
    next();
  };
}
