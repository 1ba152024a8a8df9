/**
 * A small JSON-over-HTTP client for reading upstream services (Scan, the
 * JSON Ledger API). Every request has its own timeout; transient failures are
 * retried with exponential backoff and full jitter, so that many readers
 * restarting together do not hammer an upstream in lockstep.
 *
 * Transient: 408, 429, 5xx, network errors, timeouts, and bodies that do not
 * parse (a cut-off response looks like a 200 with half a document). Any other
 * status is the caller's mistake or a misconfiguration and fails at once, as does a 5xx the client
 * is told is final (`finalStatuses`).
 *
 * A 503 gets special treatment: Scan answers it while it is still backfilling
 * its history (HttpScanHandler.confirmBackfillingIsCompleteThen), which can last hours, so by
 * default it is waited out without an attempt limit.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { RetryableError } from '../internal/errors';
import type { Logger } from '../internal/logger';

export interface HttpClientOptions {
  /** Limit for one request, body included (default 30 s). */
  timeoutMs?: number;
  /** Attempts before a transient failure is given up as UpstreamError (default 6). */
  maxAttempts?: number;
  /** First backoff ceiling; doubles per attempt (default 250 ms). */
  baseDelayMs?: number;
  /** Largest backoff ceiling (default 30 s). */
  maxDelayMs?: number;
  /** Retry 503 without an attempt limit (default true). */
  waitWhileUnavailable?: boolean;
  /** Statuses retried besides 408, 429 and 5xx (the ledger API asks for 409). */
  retryStatuses?: readonly number[];
  /** 5xx statuses that fail at once instead (the bulk source's 501: an upstream without bulk storage). */
  finalStatuses?: readonly number[];
  /** Replaceable so tests can run without real waits; must reject when `signal` aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Told of every attempt's outcome, by upstream origin (for metrics). */
  observe?: (upstream: string, outcome: RequestOutcome) => void;
}

/** ok: a 2xx answer; retried: a transient failure that is tried again; failed: given up or refused. */
export type RequestOutcome = 'ok' | 'retried' | 'failed';

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid';
  }
}

export interface JsonRequest {
  method: 'GET' | 'POST';
  url: string;
  body?: unknown;
  /** Called before every attempt, so a token provider can hand out a fresh token. */
  headers?: () => Promise<Record<string, string>> | Record<string, string>;
  /** This request's limit instead of the client's (large downloads). */
  timeoutMs?: number;
}

export interface HttpClient {
  /** The parsed JSON body of a 2xx answer; rejects once `signal` aborts. */
  json(request: JsonRequest, signal: AbortSignal): Promise<unknown>;
  /**
   * What `read` makes of the body of a 2xx answer, for a caller that reads the text itself. A
   * SyntaxError from `read` is a body that does not parse (retried, as by `json`); any other error
   * is the caller's and rejects at once.
   */
  text<T>(request: JsonRequest, signal: AbortSignal, read: (text: string) => T): Promise<T>;
  /** The body of a 2xx answer as bytes (bulk storage objects); retried as `json` is, but for parsing. */
  bytes(request: JsonRequest, signal: AbortSignal): Promise<Buffer>;
}

/** A status that retrying will not fix (400, 401, 404, …). */
export class HttpStatusError extends Error {
  constructor(
    readonly method: string,
    readonly url: string,
    readonly status: number,
    readonly bodyText: string,
  ) {
    super(`${method} ${url}: HTTP ${status}: ${bodyText.length > 500 ? `${bodyText.slice(0, 500)}…` : bodyText}`);
    this.name = 'HttpStatusError';
  }
}

/** One failed attempt that is worth repeating. */
class TransientFailure extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly retryAfterMs: number | undefined = undefined,
  ) {
    super(message);
  }
}

/** Transient failures persisted through every attempt; the caller may fail over or try later. */
export class UpstreamError extends RetryableError {
  /** The status of the last attempt, if it got one. */
  readonly status: number | undefined;

  constructor(
    readonly method: string,
    readonly url: string,
    readonly attempts: number,
    cause: TransientFailure,
  ) {
    super(`${method} ${url}: failed ${attempts} times, last: ${cause.message}`, { cause });
    this.status = cause.status;
    this.name = 'UpstreamError';
  }
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  // fetch reports network errors as "fetch failed" with the real reason in `cause`.
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err.message}${cause}`;
}

const defaultSleep = (ms: number, signal: AbortSignal): Promise<void> => delay(ms, undefined, { signal });

/** Retry-After is either delay-seconds or an HTTP date (RFC 9110, section 10.2.3). */
export function parseRetryAfter(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

export function createHttpClient(logger: Logger, options: HttpClientOptions = {}): HttpClient {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxAttempts = options.maxAttempts ?? 6;
  const baseDelayMs = options.baseDelayMs ?? 250;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const waitWhileUnavailable = options.waitWhileUnavailable ?? true;
  const retryStatuses = new Set(options.retryStatuses ?? []);
  const sleep = options.sleep ?? defaultSleep;

  const finalStatuses = new Set(options.finalStatuses ?? []);
  const isTransientStatus = (status: number) =>
    !finalStatuses.has(status) && (status === 408 || status === 429 || status >= 500 || retryStatuses.has(status));

  /** The answer read, or the error `read` threw on it that is not a SyntaxError. */
  type Read<T> = { value: T } | { rejected: unknown };

  /** How a body is read: as text for `read`, or as bytes. */
  type As<B> = B extends string ? 'text' : 'bytes';

  async function attempt<B extends string | Buffer, T>(
    request: JsonRequest,
    signal: AbortSignal,
    as: As<B>,
    read: (body: B) => T,
  ): Promise<Read<T>> {
    const limit = request.timeoutMs ?? timeoutMs;
    const timeout = AbortSignal.timeout(limit);
    const headers: Record<string, string> = {
      accept: as === 'text' ? 'application/json' : 'application/octet-stream',
      ...(await request.headers?.()),
    };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    let status: number;
    let retryAfter: string | null;
    let body: B;
    try {
      const response = await fetch(request.url, {
        method: request.method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        signal: AbortSignal.any([signal, timeout]),
      });
      status = response.status;
      retryAfter = response.headers.get('retry-after');
      // The body is read under the same timeout: a server that stalls mid-body is a hanging request too.
      // A 2xx body is read as asked; an error's as text, to quote it.
      const ok = status >= 200 && status < 300;
      body = (ok && as === 'bytes' ? Buffer.from(await response.arrayBuffer()) : await response.text()) as B;
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (timeout.aborted) throw new TransientFailure(`timed out after ${limit} ms`, undefined);
      throw new TransientFailure(describe(err), undefined);
    }
    if (status >= 200 && status < 300) {
      try {
        return { value: read(body) };
      } catch (err) {
        if (err instanceof SyntaxError) throw new TransientFailure(`unparseable body (${body.length} characters)`, status);
        return { rejected: err };
      }
    }
    const text = body as string;
    if (isTransientStatus(status)) {
      const excerpt = text.length > 200 ? `${text.slice(0, 200)}…` : text;
      throw new TransientFailure(`HTTP ${status}: ${excerpt}`, status, parseRetryAfter(retryAfter));
    }
    throw new HttpStatusError(request.method, request.url, status, text);
  }

  async function send<B extends string | Buffer, T>(
    request: JsonRequest,
    signal: AbortSignal,
    as: As<B>,
    read: (body: B) => T,
  ): Promise<T> {
    // Attempts that count towards the limit; 503s do not while waitWhileUnavailable holds.
    let counted = 0;
    // Consecutive failures, which set the backoff ceiling.
    let failures = 0;
    const observe = (outcome: RequestOutcome) => options.observe?.(originOf(request.url), outcome);
    for (;;) {
      let answer: Read<T>;
      try {
        answer = await attempt(request, signal, as, read);
      } catch (err) {
        if (signal.aborted) throw err;
        if (!(err instanceof TransientFailure)) {
          observe('failed');
          throw err;
        }
        failures += 1;
        const waiting = err.status === 503 && waitWhileUnavailable;
        if (!waiting) counted += 1;
        if (counted >= maxAttempts) {
          observe('failed');
          throw new UpstreamError(request.method, request.url, counted, err);
        }
        observe('retried');
        const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.min(failures - 1, 30));
        const wait = err.retryAfterMs ?? Math.random() * ceiling;
        logger[waiting ? 'info' : 'warn'](
          { url: request.url, attempt: failures, waitMs: Math.round(wait), reason: err.message },
          waiting ? 'upstream unavailable, waiting' : 'upstream request failed, retrying',
        );
        await sleep(wait, signal);
        continue;
      }
      // The request succeeded; what its body holds is the caller's matter.
      observe('ok');
      if ('rejected' in answer) throw answer.rejected;
      return answer.value;
    }
  }

  return {
    json: (request, signal) => send<string, unknown>(request, signal, 'text', (body) => JSON.parse(body) as unknown),
    text: (request, signal, read) => send(request, signal, 'text', read),
    bytes: (request, signal) => send<Buffer, Buffer>(request, signal, 'bytes', (body) => body),
  };
}
