/**
 * Request ids and request logs: the lines pino-http writes, made only when they are written.
 *
 * Every request gets an id (the client's `x-request-id` when it is a plain token, else a UUID),
 * sent back as `x-request-id`. `req.log` is a logger bound to the request (`req`, serialized as
 * pino-http does), and a line is logged when the response is done: `request completed` at info, or
 * `request errored` at error for a status of 500 or more, with `res` and `responseTime`, except for
 * the health and metrics paths. pino-http binds the request to a child logger before every request,
 * which serializes it, even at levels where nothing is logged; here the child is made when a line
 * is logged (or req.log is used), from the request as it was when it arrived.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import pino from 'pino';
import type { Logger } from '../internal/logger';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const UNLOGGED = new Set(['/livez', '/readyz', '/metrics']);

declare module 'http' {
  interface IncomingMessage {
    /** This request's id. */
    id: string | number | object;
    /** A logger bound to this request. */
    log: Logger;
  }
}

/** Where a request keeps what its logger is made from (a symbol: no other code sees it). */
const LOG = Symbol('request log');

/**
 * A request's logger, made on first use from the request as it was when it arrived (Express
 * changes `url` and `params` while routing), so that its line is the same whenever it is made.
 */
class RequestLogState {
  private bound: Logger | undefined;
  private readonly params: unknown;
  private readonly remoteAddress: string | undefined;
  private readonly remotePort: number | undefined;

  constructor(
    private readonly base: Logger,
    private readonly req: Request,
    readonly startedAt: number,
  ) {
    this.params = req.params;
    this.remoteAddress = req.socket.remoteAddress;
    this.remotePort = req.socket.remotePort;
  }

  isLevelEnabled(level: string): boolean {
    return this.base.isLevelEnabled(level);
  }

  get logger(): Logger {
    return (this.bound ??= this.base.child({ req: this.arrived() }));
  }

  set logger(value: Logger) {
    this.bound = value;
  }

  /** What the request serializer reads. */
  private arrived() {
    const req = this.req;
    return {
      id: req.id,
      method: req.method,
      originalUrl: req.originalUrl,
      // Express's parse of the query string, which routing leaves as it is.
      query: req.query as unknown,
      params: this.params,
      headers: req.headers,
      socket: { remoteAddress: this.remoteAddress, remotePort: this.remotePort },
      raw: req,
    };
  }
}

type LoggedRequest = IncomingMessage & { [LOG]?: RequestLogState };

/**
 * `req.log`, as a getter of the application's request prototype (Express gives each application its
 * own): defining a property on every request would cost more than the rest.
 */
const withLogGetter = new WeakSet<object>();
function defineLogGetter(proto: object): void {
  if (withLogGetter.has(proto)) return;
  withLogGetter.add(proto);
  Object.defineProperty(proto, 'log', {
    configurable: true,
    enumerable: false,
    get(this: LoggedRequest): Logger | undefined {
      return this[LOG]?.logger;
    },
    set(this: LoggedRequest, value: Logger) {
      const state = this[LOG];
      if (state) state.logger = value;
    },
  });
}

export function requestLog(logger: Logger): RequestHandler {
  // pino-http's child: the standard serializers of requests, responses and errors.
  const { req: reqSerializer, res: resSerializer, err: errSerializer } = pino.stdSerializers;
  const base = logger.child({}, { serializers: { req: reqSerializer, res: resSerializer, err: errSerializer } });
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader('x-request-id', id);
    req.id = id;
    defineLogGetter(Object.getPrototypeOf(req) as object);
    const state = new RequestLogState(base, req, Date.now());
    (req as LoggedRequest)[LOG] = state;
    if (!UNLOGGED.has(req.url)) logWhenDone(req, res, state);
    next();
  };
}

/** The line of a finished, errored or aborted response, once, at the level pino-http would give it. */
function logWhenDone(req: IncomingMessage, res: Response, state: RequestLogState): void {
  const done = (err?: Error) => {
    res.off('close', done);
    res.off('finish', done);
    res.off('error', done);
    const failed = err !== undefined || res.statusCode >= 500;
    if (!state.isLevelEnabled(failed ? 'error' : 'info')) return;
    const responseTime = Date.now() - state.startedAt;
    if (failed) {
      const error = err ?? new Error(`failed with status code ${res.statusCode}`);
      state.logger.error({ res, err: error, responseTime }, 'request errored');
      return;
    }
    state.logger.info({ res, responseTime }, !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted');
  };
  res.on('close', done);
  res.on('finish', done);
  res.on('error', done);
}
