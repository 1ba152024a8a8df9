/**
 * The bound on expensive requests per process (HEAVY_REQUEST_CONCURRENCY). The cost rule: a request is
 * expensive when it asks for a page of HEAVY_REQUEST_PAGE_SIZE items or more (history, ACS and holdings
 * pages: page_size, limit, count) or names HEAVY_REQUEST_PARTIES parties or more (holdings summaries
 * and pages, ACS pages); such requests read, inflate and render up to a thousand items or sum holdings
 * per party, where others read a row. Past the bound the answer is 503 with Retry-After at once: a
 * queue would only turn into timeouts, while the client can retry or ask for less.
 *
 * Put in front of a route's handler, after the body is parsed: `router.post(path, heavyRequest(context, rule), handler)`.
 */
import type { Request, RequestHandler } from 'express';
import type { Config } from '../../internal/config';
import type { ApiContext } from '../context';
import { sendJson } from '../json-response';
import { groupOfPath } from './route-groups';

/** Which body fields make a request expensive; 'always' for operations that are expensive at any size (exports). */
export type CostRule = { pageSize?: string; parties?: string } | 'always';

/** Marks the handlers, so that a test finds every bounded route and its documented 503. */
export const HEAVY_REQUEST_BOUND = Symbol('heavy request bound');

/** In flight per configuration: one count for every router of an app, as the auth mode is kept. */
const inFlight = new WeakMap<Config['fairAccess'], { count: number }>();

function isHeavy(body: unknown, rule: CostRule, thresholds: Config['fairAccess']['heavy']): boolean {
  if (rule === 'always') return true;
  if (typeof body !== 'object' || body === null) return false;
  const fields = body as Record<string, unknown>;
  if (rule.pageSize !== undefined) {
    const size = fields[rule.pageSize];
    if (typeof size === 'number' && size >= thresholds.pageSize) return true;
  }
  if (rule.parties !== undefined) {
    const parties = fields[rule.parties];
    if (Array.isArray(parties) && parties.length >= thresholds.parties) return true;
  }
  return false;
}

export function heavyRequest(context: ApiContext, rule: CostRule): RequestHandler {
  const { fairAccess } = context.config;
  const { concurrency } = fairAccess.heavy;
  let state = inFlight.get(fairAccess);
  if (!state) inFlight.set(fairAccess, (state = { count: 0 }));
  const counted = state;
  const busy =
    `This server is serving as many large requests as it allows at once (pages of ${fairAccess.heavy.pageSize} or more, ` +
    `or ${fairAccess.heavy.parties} parties or more); retry in a moment, or ask for less.`;
  const handler: RequestHandler = (req: Request, res, next) => {
    if (concurrency === 0 || !isHeavy(req.body, rule, fairAccess.heavy)) {
      next();
      return;
    }
    if (counted.count >= concurrency) {
      context.metrics.requestsLimited.inc({ group: groupOfPath(req.baseUrl) ?? 'other', reason: 'concurrency' });
      res.set('Retry-After', '1');
      sendJson(res, { error: busy }, 503);
      return;
    }
    counted.count += 1;
    context.metrics.heavyRequestsInFlight.inc();
    // 'close' comes once the response is sent or the connection is gone, whichever happens.
    res.once('close', () => {
      counted.count -= 1;
      context.metrics.heavyRequestsInFlight.dec();
    });
    next();
  };
  return Object.assign(handler, { [HEAVY_REQUEST_BOUND]: true });
}
