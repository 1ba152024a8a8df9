/**
 * The upstream HTTP client on a real socket: what is retried and what is
 * not, how long it waits, and that a 503 is waited out beyond the attempt
 * limit only when asked to.
 */
import pino from 'pino';
import { createHttpClient, HttpStatusError, parseRetryAfter, UpstreamError, type HttpClientOptions } from '../../../src/ingest/http-client';
import { isRetryable } from '../../../src/internal/errors';
import { startFakeServer, type FakeServer } from '../../support/fakes/fake-server';

const logger = pino({ level: 'silent' });

describe('http client', () => {
  let server: FakeServer;
  const waits: number[] = [];
  const client = (options: HttpClientOptions = {}) =>
    createHttpClient(logger, {
      baseDelayMs: 1,
      maxDelayMs: 4,
      timeoutMs: 200,
      maxAttempts: 3,
      sleep: async (ms) => {
        waits.push(ms);
      },
      ...options,
    });
  const get = (options?: HttpClientOptions) =>
    client(options).json({ method: 'GET', url: `${server.url}/x` }, new AbortController().signal);

  beforeEach(async () => {
    waits.length = 0;
    server = await startFakeServer((request) => ({ body: { ok: true, echo: request.body ?? null } }));
  });
  afterEach(() => server.close());

  it('posts JSON with the headers of each attempt', async () => {
    let calls = 0;
    server.faults = [{ status: 500 }];
    const headers = () => ({ authorization: `Bearer t${++calls}` });
    const body = await client().json({ method: 'POST', url: `${server.url}/x`, body: { a: 1 }, headers }, new AbortController().signal);
    expect(body).toEqual({ ok: true, echo: { a: 1 } });
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer t1', 'Bearer t2']);
    expect(server.requests[1]?.headers['content-type']).toBe('application/json');
  });

  it('retries 429, 5xx, timeouts, cut-off and truncated bodies with backoff under the ceiling', async () => {
    server.faults = [{ status: 429 }, { status: 502 }, null];
    await expect(get()).resolves.toEqual({ ok: true, echo: null });
    server.faults = ['hang', 'truncate', null, 'cut', null];
    await expect(get()).resolves.toEqual({ ok: true, echo: null });
    await expect(get()).resolves.toEqual({ ok: true, echo: null });
    expect(waits).toHaveLength(5);
    // Full jitter: anywhere from 0 to min(maxDelay, base * 2^(n-1)).
    expect(waits[0]).toBeLessThanOrEqual(1);
    expect(waits[1]).toBeLessThanOrEqual(2);
    for (const w of waits) expect(w).toBeGreaterThanOrEqual(0);
  });

  it('waits as long as Retry-After says', async () => {
    server.faults = [
      { status: 429, headers: { 'retry-after': '2' } },
      { status: 503, headers: { 'retry-after': new Date(Date.now() + 60_000).toUTCString() } },
    ];
    await get();
    expect(waits[0]).toBe(2000);
    expect(waits[1]).toBeGreaterThan(55_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  it('gives up after the attempt limit with a retryable error that names the last failure', async () => {
    server.faults = [{ status: 500 }, 'truncate', { status: 504, body: { error: 'gateway timeout' } }];
    const error = await get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(isRetryable(error)).toBe(true);
    expect((error as UpstreamError).status).toBe(504);
    expect((error as Error).message).toMatch(
      /GET http:\/\/127\.0\.0\.1:\d+\/x: failed 3 times, last: HTTP 504: \{"error":"gateway timeout"\}/,
    );
  });

  it('fails at once on other client errors', async () => {
    server.faults = [{ status: 404, body: { error: 'Transaction with id x not found' } }];
    const error = await get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect((error as HttpStatusError).status).toBe(404);
    expect((error as Error).message).toMatch(/HTTP 404: \{"error":"Transaction with id x not found"\}/);
    expect(server.requests).toHaveLength(1);
  });

  it('fails at once on a 5xx it is told is final, and still retries it otherwise', async () => {
    const notServed = { status: 501, body: { error: 'Bulk storage is not configured' } };
    server.faults = [notServed];
    const error = await get({ finalStatuses: [501] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect((error as Error).message).toBe(`GET ${server.url}/x: HTTP 501: {"error":"Bulk storage is not configured"}`);
    expect(server.requests).toHaveLength(1);
    expect(waits).toEqual([]);
    server.faults = [notServed, null];
    await expect(get()).resolves.toEqual({ ok: true, echo: null });
    expect(server.requests).toHaveLength(3);
    expect(waits).toHaveLength(1);
  });

  it('downloads bytes as served, retrying a cut-off body or a request past its own limit, and quotes an error body', async () => {
    const expected = Buffer.from(JSON.stringify({ ok: true, echo: null }));
    const bytes = (timeoutMs?: number) =>
      client().bytes({ method: 'GET', url: `${server.url}/object`, ...(timeoutMs && { timeoutMs }) }, new AbortController().signal);
    server.faults = ['cut', null];
    expect((await bytes()).equals(expected)).toBe(true);
    expect(server.requests.map((r) => r.headers.accept)).toEqual(['application/octet-stream', 'application/octet-stream']);
    // The request's own limit, not the client's 200 ms: given up after three hanging attempts of 20 ms.
    server.faults = ['hang', 'hang', 'hang'];
    const started = Date.now();
    const error = await bytes(20).catch((e: unknown) => e);
    expect((error as Error).message).toBe(`GET ${server.url}/object: failed 3 times, last: timed out after 20 ms`);
    expect(Date.now() - started).toBeLessThan(600);
    server.faults = [{ status: 404, body: { error: 'No bulk storage object with key k' } }];
    const notFound = await bytes().catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(HttpStatusError);
    expect((notFound as HttpStatusError).bodyText).toBe('{"error":"No bulk storage object with key k"}');
  });

  it('reports every attempt by upstream origin: ok, retried, failed', async () => {
    const seen: string[] = [];
    const observe = (upstream: string, outcome: string) => seen.push(`${upstream} ${outcome}`);
    server.faults = [{ status: 502 }, null, { status: 500 }, { status: 500 }, { status: 500 }, { status: 404 }];
    await get({ observe });
    await get({ observe }).catch(() => undefined);
    await get({ observe }).catch(() => undefined);
    const origin = new URL(server.url).origin;
    expect(seen).toEqual([
      `${origin} retried`,
      `${origin} ok`,
      `${origin} retried`,
      `${origin} retried`,
      `${origin} failed`,
      `${origin} failed`,
    ]);
  });

  it('waits out 503 beyond the attempt limit, unless told to count it', async () => {
    const unavailable = () => Array.from({ length: 6 }, () => ({ status: 503 }));
    server.faults = unavailable();
    await expect(get()).resolves.toEqual({ ok: true, echo: null });
    server.faults = unavailable();
    await expect(get({ waitWhileUnavailable: false })).rejects.toThrow(UpstreamError);
  });

  it('stops waiting when the caller aborts', async () => {
    server.faults = Array.from({ length: 10 }, () => ({ status: 500 }));
    const abort = new AbortController();
    const pending = createHttpClient(logger, { baseDelayMs: 60_000, maxDelayMs: 60_000 }).json(
      { method: 'GET', url: `${server.url}/x` },
      abort.signal,
    );
    setTimeout(() => abort.abort(), 20);
    const started = Date.now();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
