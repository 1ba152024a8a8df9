/**
 * Errors of the ledger interface in Canton's shapes (docs/interfaces.md,
 * "Ledger API: errors"): the JSON `LedgerError` (JsCantonError) with all ten keys, and the
 * `400 text/plain` of requests that do not decode (tapir's DefaultDecodeFailureHandler).
 */
import crypto from 'node:crypto';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { isRetryable } from '../../internal/errors';
import type { AuthFailure } from '../auth/verifier';

export interface LedgerErrorBody {
  code: string;
  cause: string;
  correlationId: string | null;
  traceId: string | null;
  context: Record<string, string>;
  resources: [string, string][];
  errorCategory: number;
  grpcCodeValue: number | null;
  retryInfo: string | null;
  definiteAnswer: boolean | null;
}

/** A Canton error with its category (ErrorCategory); the body is rendered per request (trace id, participant). */
export class LedgerApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly category: number,
    readonly grpcCode: number,
    cause: string,
    readonly extraContext: Record<string, string> = {},
    readonly resources: [string, string][] = [],
  ) {
    super(cause);
    this.name = 'LedgerApiError';
  }
}

/** A request that did not decode: 400 text/plain "Invalid value for: body (…)". */
export class UndecodableRequest extends Error {
  constructor(readonly detail: string | undefined) {
    super(detail ? `Invalid value for: body (${detail})` : 'Invalid value for: body');
    this.name = 'UndecodableRequest';
  }
}

const INVALID_ARGUMENTS = 'The submitted request has invalid arguments: ';

/** Canton cuts a cause at 512 characters and marks the cut with "..." (ErrorCode.truncateCause). */
const MAX_CAUSE_LENGTH = 512;

function truncateCause(cause: string): string {
  return cause.length > MAX_CAUSE_LENGTH ? `${cause.slice(0, MAX_CAUSE_LENGTH)}...` : cause;
}

export const ledgerErrors = {
  missingField: (field: string) =>
    new LedgerApiError(400, 'MISSING_FIELD', 8, 3, `The submitted command is missing a mandatory field: ${field}`, { field_name: field }),
  invalidField: (field: string, message: string) =>
    new LedgerApiError(
      400,
      'INVALID_FIELD',
      8,
      3,
      `The submitted command has a field with invalid value: Invalid field ${field}: ${message}`,
      {
        field_name: field,
      },
    ),
  invalidArgument: (message: string) => new LedgerApiError(400, 'INVALID_ARGUMENT', 8, 3, `${INVALID_ARGUMENTS}${message}`),
  /** The database cannot be reached: Canton's index-database transient error (category 1, 503, retry in 1 s). */
  transientDatabaseError: (message: string) =>
    new LedgerApiError(
      503,
      'INDEX_DB_SQL_TRANSIENT_ERROR',
      1,
      14,
      `Processing the request failed due to a transient database error: ${message}`,
    ),
  updateNotFound: (updateId: string) =>
    new LedgerApiError(404, 'UPDATE_NOT_FOUND', 11, 5, 'Update not found, or not visible.', {}, [['ErrorResource(UPDATE_ID)', updateId]]),
};

/** Categories Canton marks retryable, with its retry delay of one second (ErrorCategory). */
const RETRYABLE_CATEGORIES = new Set([1, 2, 3, 12]);

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The W3C trace id of the request's traceparent, or a fresh one. */
function traceIdOf(req: Request): string {
  const header = req.headers.traceparent;
  const given = typeof header === 'string' ? TRACEPARENT.exec(header.trim())?.[1] : undefined;
  return given && !/^0+$/.test(given) ? given : crypto.randomBytes(16).toString('hex');
}

export function renderLedgerError(req: Request, participantId: string, err: LedgerApiError): LedgerErrorBody {
  const tid = traceIdOf(req);
  const participant = participantId.split('::')[0] ?? participantId;
  return {
    code: err.code,
    cause: truncateCause(err.message),
    correlationId: null,
    traceId: tid,
    context: { ...err.extraContext, participant: `'${participant}'`, category: String(err.category), definite_answer: 'false', tid },
    resources: err.resources,
    errorCategory: err.category,
    grpcCodeValue: err.grpcCode,
    retryInfo: RETRYABLE_CATEGORIES.has(err.category) ? '1 second' : null,
    definiteAnswer: null,
  };
}

/**
 * 401 and 403 as Canton redacts them (BaseError.RedactedMessage): code "NA", no detail. An unknown
 * user gets Canton's `ledger_api_error` context, which says no more than that.
 */
export function rejectAuth(res: Response, failure: AuthFailure): void {
  const tid = traceIdOf(res.req);
  const body: LedgerErrorBody = {
    code: 'NA',
    cause: 'A security-sensitive error has been received',
    correlationId: tid,
    traceId: tid,
    context: failure.unknownUser ? { ledger_api_error: 'invalid token' } : {},
    resources: [],
    errorCategory: -1,
    grpcCodeValue: failure.status === 401 ? 16 : 7,
    retryInfo: null,
    definiteAnswer: null,
  };
  res.status(failure.status).json(body);
}

/** Unknown paths under /v2: pekko-http's plain 404. */
export const ledgerNotFound: RequestHandler = (_req, res) => {
  res.status(404).type('text/plain').send('The requested resource could not be found.');
};

/**
 * An error a middleware raised for the client's request: body-parser's (too
 * large, bad charset, bad or unsupported Content-Encoding, including raw zlib
 * errors it tags with status 400), or any http-errors 4xx.
 */
function isClientError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { status, statusCode, expose } = err as { status?: unknown; statusCode?: unknown; expose?: unknown };
  const code = typeof status === 'number' ? status : statusCode;
  return (typeof code === 'number' && code >= 400 && code <= 499) || expose === true;
}

export function ledgerErrorHandler(participantId: string): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (err instanceof LedgerApiError) {
      req.log?.info({ status: err.status, code: err.code, error: err.message }, 'client error');
      res.status(err.status).json(renderLedgerError(req, participantId, err));
      return;
    }
    // Before the generic client errors: the router's URIError carries status 400 too.
    if (err instanceof URIError) {
      // A malformed percent-escape in the path: pekko-http refuses such a URI with a plain 400.
      req.log?.info({ status: 400, error: err.message }, 'client error');
      res.status(400).type('text/plain').send('Illegal request-target');
      return;
    }
    if (err instanceof UndecodableRequest || isClientError(err)) {
      const text = err instanceof UndecodableRequest ? err.message : 'Invalid value for: body';
      req.log?.info({ status: 400, error: text, cause: (err as Error).message }, 'client error');
      res.status(400).type('text/plain').send(text);
      return;
    }
    if (isRetryable(err) && !res.headersSent) {
      const unavailable = ledgerErrors.transientDatabaseError((err as Error).message);
      req.log?.warn({ status: 503, error: (err as Error).message }, 'database unavailable');
      // The header says what the body's retryInfo says: Canton's retry delay of one second.
      res
        .status(503)
        .set('Retry-After', '1')
        .json(renderLedgerError(req, participantId, unavailable));
      return;
    }
    req.log?.error({ err }, 'unexpected error');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // Canton's catch-all in its JSON layer (docs/interfaces.md, "Ledger API: errors"): LEDGER_API_INTERNAL_ERROR, redacted like every category-4 error.
    const tid = traceIdOf(req);
    res.status(500).json({
      code: 'NA',
      cause: 'A security-sensitive error has been received',
      correlationId: tid,
      traceId: tid,
      context: {},
      resources: [],
      errorCategory: -1,
      grpcCodeValue: 13,
      retryInfo: null,
      definiteAnswer: null,
    } satisfies LedgerErrorBody);
  };
}
