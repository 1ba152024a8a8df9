/**
 * Limits: slow requests end at the statement timeout with a clear 503 while
 * other requests are still answered, and the pool is whole afterwards; every
 * POST operation of the OpenAPI document refuses a body over its limit as
 * documented (413 on Scan and the proxy, Canton's 400 on the ledger API),
 * never a 5xx.
 *
 * Figures: slow requests stopped with the documented answer, other requests
 * answered meanwhile (and their slowest), requests answered after, oversized
 * bodies not refused as documented (0).
 */
import { useTestDatabase } from '../support/database/database';
import { ingestThroughWorker, simulatedItems } from '../support/items/simulated-network';
import { recordFigure, recordZero } from './figures';
import { startServerProcess, type ServerProcess } from './server-process';

// Full-scale runs take minutes.
jest.setTimeout(600_000);

const PART = 'limits';
const TIMEOUT_MS = 1_000;
const POOL = 4;
const SLOW = POOL * 2;
const STOPPED = { error: 'The request took longer than this server allows and was stopped; narrow it or try again later.' };

async function get(url: string, init: RequestInit = {}): Promise<{ status: number; text: string; ms: number; type: string | null }> {
  const started = performance.now();
  try {
    const res = await fetch(url, init);
    const text = await res.text();
    return { status: res.status, text, ms: performance.now() - started, type: res.headers.get('content-type') };
  } catch (err) {
    return { status: 0, text: String((err as Error).cause ?? err), ms: performance.now() - started, type: null };
  }
}

describe('limits', () => {
  const t = useTestDatabase();
  let server: ServerProcess;
  beforeAll(async () => {
    await ingestThroughWorker(t, simulatedItems({ seed: 'limits', updates: 200 }));
    server = await startServerProcess('serve', {
      DATABASE_URL: t.url,
      LEDGER_AUTH_DISABLED: 'true',
      DATABASE_POOL_SIZE: String(POOL),
      DATABASE_STATEMENT_TIMEOUT_MS: String(TIMEOUT_MS),
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('stops slow requests at the statement timeout, still answering others, and leaves the pool whole', async () => {
    // Another session holds the updates table: every lookup there waits until the timeout stops it.
    const holder = await t.pool.connect();
    let slow: Awaited<ReturnType<typeof get>>[];
    let others: Awaited<ReturnType<typeof get>>[];
    try {
      await holder.query('begin');
      await holder.query('lock table updates in access exclusive mode');
      const slowRequests = Array.from({ length: SLOW }, (_, i) =>
        get(`${server.url}/api/scan/v2/updates/1220${String(i).padStart(64, '0')}`),
      );
      await new Promise((r) => setTimeout(r, 100));
      // Requests on other tables, while the slow ones hold every connection of the pool in turn.
      const otherRequests = Array.from({ length: 8 }, () => get(`${server.url}/api/scan/v0/closed-rounds`));
      [slow, others] = await Promise.all([Promise.all(slowRequests), Promise.all(otherRequests)]);
    } finally {
      await holder.query('rollback');
      holder.release();
    }
    const stopped = slow.filter((r) => r.status === 503 && r.text === JSON.stringify(STOPPED)).length;
    const answered = others.filter((r) => r.status === 200).length;
    const slowestOther = Math.max(...others.map((r) => r.ms));
    // Afterwards: as many concurrent requests as the pool has connections, and more, all answered.
    const after = await Promise.all(
      Array.from({ length: POOL * 3 }, (_, i) => get(`${server.url}/api/scan/v2/updates/1220${String(i).padStart(64, '0')}`)),
    );
    const answeredAfter = after.filter((r) => r.status === 404).length;

    recordFigure({
      part: PART,
      figure: `slow requests stopped at the ${TIMEOUT_MS} ms timeout with the documented 503`,
      value: `${stopped} of ${SLOW}`,
      target: `${SLOW} of ${SLOW}`,
      ok: stopped === SLOW,
    });
    recordFigure({
      part: PART,
      figure: 'other requests answered meanwhile (slowest, ms)',
      value: `${answered} of ${others.length} (${Math.round(slowestOther)})`,
      target: `all, < ${(SLOW / POOL + 1) * TIMEOUT_MS}`,
      ok: answered === others.length && slowestOther < (SLOW / POOL + 1) * TIMEOUT_MS,
    });
    recordFigure({
      part: PART,
      figure: 'requests answered after (pool whole)',
      value: `${answeredAfter} of ${after.length}`,
      target: 'all',
      ok: answeredAfter === after.length,
    });
    expect(stopped).toBe(SLOW);
    expect(answered).toBe(others.length);
    expect(answeredAfter).toBe(after.length);
  });

  it('refuses an oversized body as documented on every POST operation', async () => {
    const doc = (await (await fetch(`${server.url}/docs/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const posts = Object.entries(doc.paths)
      .filter(([, methods]) => 'post' in methods)
      .map(([path]) => path.replace(/\{[^}]+\}/g, 'x'));
    expect(posts.length).toBeGreaterThan(20);
    const oversized = `{"x":"${'a'.repeat(2 << 20)}"}`;
    const wrong: string[] = [];
    for (const path of posts) {
      const res = await get(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: oversized });
      // Scan and the proxy: 413 `{"error": …}`. The ledger API: Canton's 400 text/plain "Invalid value for: body", as for any body it cannot read.
      const ok = path.startsWith('/v2/')
        ? res.status === 400 && (res.type ?? '').startsWith('text/plain') && res.text.startsWith('Invalid value for: body')
        : res.status === 413 && typeof (JSON.parse(res.text || '{}') as { error?: unknown }).error === 'string';
      if (!ok) wrong.push(`${path}: ${res.status} ${res.type} ${res.text.slice(0, 200)}`);
    }
    recordFigure({ part: PART, figure: 'POST operations sent a 2 MB body', value: posts.length, target: '', ok: true });
    recordZero(PART, 'oversized bodies not refused as documented', wrong.length);
    recordZero(PART, 'process exits', server.exits.length);
    expect(wrong).toEqual([]);
  });
});
