/**
 * The short way to what every validator polls (issue #27, "Hot answers"): a request whose method and
 * URL are exactly those of a hot operation (the rules, the rounds, the DSO, the DSO party id, the
 * transfer factory; on Scan, the scan-proxy and the registry) skips Express's walk through the routers
 * in front of it and runs, in the same order, the same steps its router would: the route group's rate
 * limiter (the same buckets), the scan-proxy's authentication, the JSON body parser, the NUL check,
 * and the operation's own declaration and handler (the answer cache and its freshness rule included).
 * It is mounted after the security headers, the request log and the metrics, so those are the
 * common chain's; an error goes to the application's error handler, as from the router. Anything
 * else (another method, a query string, another spelling of the path) goes on to Express unchanged.
 * Not mounted with read replicas, whose per-request routing and retry on the primary live in the
 * routers' wrappers (read-routing.ts).
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { RouteGroup } from '../internal/config';
import { answerCacheOf, type ApiContext } from './context';
import { heavyRequest } from './fair-access/heavy-requests';
import { rejectNulCharacters } from './nul-guard';
import type { OperationOf } from './operation';
import { transferInstructionOperations } from './registry/transfer-instruction-routes';
import type { RegistryServices } from './registry/registry-operations';
import { SUMMARY_COST } from './scan/holdings-routes';
import { hotAnswers } from './scan/hot-answers';
import { networkOperations } from './scan/network-routes';
import { stateOperations } from './scan/state-routes';
import { parseInput } from './validation';
import { validatorOperations } from './validator/router';

/** The limiters as mounted in front of each group's router (one instance each, so one set of buckets). */
type GroupLimits = Record<Extract<RouteGroup, 'scan' | 'scan-proxy' | 'registry'>, RequestHandler[]>;

export interface HotPathParts {
  limits: GroupLimits;
  /** The scan-proxy's authentication, as its router runs it; undefined when the proxy is open. */
  proxyAuth: RequestHandler | undefined;
  /** Counts requests served here (for tests and metrics); called once the route is known. */
  served?: () => void;
}

interface HotRoute {
  steps: RequestHandler[];
}

/** The hot operations of each router: method and path as declared. */
const SCAN_PATHS = [
  'POST /v0/amulet-rules',
  'POST /v0/external-party-amulet-rules',
  'POST /v0/ans-rules',
  'POST /v0/open-and-issuing-mining-rounds',
  'GET /v0/dso',
  'GET /v0/dso-party-id',
];
const PROXY_PATHS = [
  'GET /v0/scan-proxy/dso-party-id',
  'GET /v0/scan-proxy/dso',
  'GET /v0/scan-proxy/open-and-issuing-mining-rounds',
  'GET /v0/scan-proxy/amulet-rules',
  'POST /v0/scan-proxy/ans-rules',
];
const FACTORY_PATH = 'POST /transfer-factory';

function declared<S>(operations: readonly OperationOf<S>[], wanted: string): OperationOf<S> {
  const found = operations.find((op) => `${op.method.toUpperCase()} ${op.path}` === wanted);
  if (!found) throw new Error(`hot path: no operation ${wanted}`);
  return found;
}

/**
 * The route's last step, as mountOperations' handler runs it: the declared body schema, then the
 * handler. `label` is the route template Express would have matched (metrics read it at the end).
 * None of these operations declares path parameters or a query.
 */
function handlerStep<S>(declaration: OperationOf<S>, services: S, label: string): RequestHandler {
  const body = declaration.request?.bodyParsedBy === 'handler' ? undefined : declaration.request?.body;
  return (req, res, next) => {
    res.locals.route = label;
    try {
      const input = { params: {}, query: {}, body: body ? (parseInput(body, req.body, 'body') as unknown) : (req.body as unknown) };
      Promise.resolve(declaration.handle(services, input, req, res)).catch(next);
    } catch (err) {
      next(err);
    }
  };
}

/** Runs `steps` in turn as Express would: an error, or a step that answers, ends the request's walk. */
function runSteps(steps: RequestHandler[], index: number, req: Request, res: Response, next: NextFunction): void {
  const step = steps[index]!;
  const last = index === steps.length - 1;
  void step(req, res, (err?: unknown) => {
    if (err !== undefined && err !== null) next(err);
    else if (!last) runSteps(steps, index + 1, req, res, next);
    else next();
  });
}

export function hotPath(context: ApiContext, parts: HotPathParts): RequestHandler {
  const { db, config } = context;
  const hot = hotAnswers(context);
  const scanServices = { db, config, hot };
  // The proxy's services as its router builds them (its hot operations use only `hot`).
  const proxyServices = { ...scanServices, heavySummary: heavyRequest(context, SUMMARY_COST) };
  const registryServices: RegistryServices = { db, config, answers: answerCacheOf(context) };
  // The routers' parser and check, with their settings: the same answers to the same bodies.
  const bodySteps: RequestHandler[] = [express.json({ limit: '1mb' }), rejectNulCharacters];
  const proxyFront = [...parts.limits['scan-proxy'], ...(parts.proxyAuth ? [parts.proxyAuth] : []), ...bodySteps];

  const routes = new Map<string, HotRoute>();
  const add = (method: string, path: string, steps: RequestHandler[]) => routes.set(`${method} ${path}`, { steps });
  for (const wanted of SCAN_PATHS) {
    const [method, path] = wanted.split(' ') as [string, string];
    const declaration = declared([...stateOperations, ...networkOperations], wanted);
    add(method, `/api/scan${path}`, [...parts.limits.scan, ...bodySteps, handlerStep(declaration, scanServices, `/api/scan${path}`)]);
  }
  for (const wanted of PROXY_PATHS) {
    const [method, path] = wanted.split(' ') as [string, string];
    const declaration = declared(validatorOperations, wanted);
    add(method, `/api/validator${path}`, [...proxyFront, handlerStep(declaration, proxyServices, `/api/validator${path}`)]);
  }
  // The registry's routes are templates of their part's router (registry/router.ts): `/transfer-factory`.
  const factory = declared(transferInstructionOperations, FACTORY_PATH);
  add('POST', '/registry/transfer-instruction/v1/transfer-factory', [
    ...parts.limits.registry,
    ...bodySteps,
    handlerStep(factory, registryServices, '/registry/transfer-factory'),
  ]);
  add('POST', '/api/validator/v0/scan-proxy/registry/transfer-instruction/v1/transfer-factory', [
    ...proxyFront,
    handlerStep(factory, registryServices, '/api/validator/transfer-factory'),
  ]);

  const byUrl = { GET: new Map<string, HotRoute>(), POST: new Map<string, HotRoute>() };
  for (const [key, route] of routes) {
    const [method, url] = key.split(' ') as ['GET' | 'POST', string];
    byUrl[method].set(url, route);
  }
  return (req, res, next) => {
    // Exactly the URL, no query string: any other spelling is Express's to match.
    const route = req.method === 'GET' ? byUrl.GET.get(req.url) : req.method === 'POST' ? byUrl.POST.get(req.url) : undefined;
    if (route === undefined) {
      next();
      return;
    }
    parts.served?.();
    runSteps(route.steps, 0, req, res, next);
  };
}
