/**
 * Scan-style error handling: `{"error": "..."}` with the right status, never a
 * stack trace. Client faults are logged at info; an unreachable or busy
 * database, and a query stopped by the statement timeout, are 503s with
 * Retry-After logged in one line at warn; other system faults in full at error.
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { HttpError, isRetryable } from '../internal/errors';
import { DatabaseBusyError } from '../store/pool';
import { PageTokenError } from './page-token';

/** The Scan app's message for unexpected failures (HttpErrorHandler). */
const UNEXPECTED_ERROR = 'An unexpected error occurred.';
const ROUTE_NOT_FOUND = 'The requested resource could not be found.';
/** PostgreSQL's query_canceled, which the statement timeout raises. */
const QUERY_CANCELED = '57014';
const REQUEST_TOO_SLOW = 'The request took longer than this server allows and was stopped; narrow it or try again later.';
/** While the database cannot be reached. */
const DATABASE_UNAVAILABLE = 'The database is unavailable at the moment; try again shortly.';
/** While every database connection is in use for longer than a request may wait (DATABASE_WAIT_MS). */
const SERVER_BUSY = 'The server is busy at the moment; try again shortly.';

/**
 * Retry-After (seconds) of the 503s that say "try again": a busy server soon has a connection free;
 * a database that is away, or a query stopped at the statement timeout, needs longer.
 */
const RETRY_AFTER_BUSY_SECONDS = 1;
const RETRY_AFTER_UNAVAILABLE_SECONDS = 5;

/** An error message longer than this is cut in its middle: messages may echo input, which may be megabytes. */
const MAX_ERROR_MESSAGE = 1000;
const KEPT_TAIL = 200;

/** The message, or its head and tail around an ellipsis, so that the fixed text after an echoed value survives. */
function boundedMessage(message: string): string {
  if (message.length <= MAX_ERROR_MESSAGE) return message;
  return `${message.slice(0, MAX_ERROR_MESSAGE - KEPT_TAIL - 1)}…${message.slice(-KEPT_TAIL)}`;
}

export const scanNotFound: RequestHandler = (_req, res) => {
  res.status(404).json({ error: ROUTE_NOT_FOUND });
};

interface BodyParserError {
  type?: string;
  status: number;
  message: string;
}

function bodyParserError(err: unknown): BodyParserError | undefined {
  const e = err as BodyParserError;
  return typeof e === 'object' && e !== null && typeof e.type === 'string' && typeof e.status === 'number' ? e : undefined;
}

/** PostgreSQL's complaints about text it cannot hold: only client input gets there. */
const UNSTORABLE_TEXT_CODES = new Set(['22021', '22P05']);

/**
 * Client faults raised outside our handlers: the router's URIError for a
 * malformed percent-escape in the path (status 400, no `type`), a body that
 * does not decompress as labelled, and text PostgreSQL refuses (a backstop:
 * inputs are checked before the database).
 */
function otherClientError(err: unknown): { status: number; message: string } | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { status?: unknown; type?: unknown; code?: unknown };
  if (err instanceof URIError && e.status === 400) return { status: 400, message: 'Malformed percent-encoding in the request path.' };
  // body-parser's decompression failures (zlib, brotli): marked 400 and carrying the codec's errno, no `type`.
  if (e.status === 400 && typeof (err as { errno?: unknown }).errno === 'number') {
    return { status: 400, message: 'The request body could not be decompressed as its Content-Encoding says.' };
  }
  if (typeof e.code === 'string' && UNSTORABLE_TEXT_CODES.has(e.code)) {
    return { status: 400, message: 'The request contains text that cannot be stored or compared, such as a NUL character.' };
  }
  return undefined;
}

export const scanErrorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const log = req.log;
  if (err instanceof HttpError) {
    if (err instanceof PageTokenError) res.locals.pageTokenRejected = true;
    const message = boundedMessage(err.message);
    log?.info({ status: err.status, error: message }, 'client error');
    res.status(err.status).json({ error: message });
    return;
  }
  const clientFault = otherClientError(err);
  if (clientFault) {
    log?.info({ status: clientFault.status, error: clientFault.message }, 'client error');
    res.status(clientFault.status).json({ error: clientFault.message });
    return;
  }
  const parserError = bodyParserError(err);
  if (parserError && parserError.status < 500) {
    const message =
      parserError.type === 'entity.parse.failed'
        ? boundedMessage(`Malformed JSON body: ${parserError.message}`)
        : parserError.type === 'entity.too.large'
          ? 'Request body too large.'
          : parserError.message;
    log?.info({ status: parserError.status, error: message }, 'client error');
    res.status(parserError.status).json({ error: message });
    return;
  }
  // The statement timeout stopped the request's query: the client learns so, the rest is served as usual.
  if ((err as { code?: unknown }).code === QUERY_CANCELED && !res.headersSent) {
    log?.warn({ status: 503, error: (err as Error).message }, 'request stopped at the statement timeout');
    res.status(503).set('Retry-After', String(RETRY_AFTER_UNAVAILABLE_SECONDS)).json({ error: REQUEST_TOO_SLOW });
    return;
  }
  // Every connection stayed busy for as long as a request may wait: overload, answered at once.
  if (err instanceof DatabaseBusyError && !res.headersSent) {
    log?.warn({ status: 503, error: err.message }, 'database busy');
    res.status(503).set('Retry-After', String(RETRY_AFTER_BUSY_SECONDS)).json({ error: SERVER_BUSY });
    return;
  }
  // The database is away (refused, dropped, shutting down): a 503 the client may retry, and one log line.
  if (isRetryable(err)) {
    log?.warn({ status: 503, error: (err as Error).message }, 'database unavailable');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.status(503).set('Retry-After', String(RETRY_AFTER_UNAVAILABLE_SECONDS)).json({ error: DATABASE_UNAVAILABLE });
    return;
  }
  log?.error({ err }, 'unexpected error');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.status(500).json({ error: UNEXPECTED_ERROR });
};
