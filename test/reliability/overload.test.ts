/**
 * Overload: many more concurrent requests than the database pool serves, while slow requests hold
 * every connection and the process is stopped for a while (SIGSTOP, as a starved process is). Every
 * request gets an HTTP answer: served, or a 503 with Retry-After (a request that gets no connection
 * within DATABASE_WAIT_MS is answered "busy" at once); none ends in a reset or a hang.
 *
 * Figures: requests without an HTTP answer (0, each kept with its error's name and code); 503s
 * without Retry-After or the documented body (0); requests answered "busy" (some); requests answered
 * after the load (all).
 */
import { useTestDatabase } from '../support/database/database';
import { ingestThroughWorker, simulatedItems } from '../support/items/simulated-network';
import { recordFigure, recordZero } from './figures';
import { startServerProcess, type ServerProcess } from './server-process';

jest.setTimeout(600_000);

const PART = 'overload';
const POOL = 2;
const WAIT_MS = 300;
const STATEMENT_TIMEOUT_MS = 5_000;
const SLOW = 20;
const OTHERS = 100;
const STOPPED_MS = 2_000;
/** The documented 503s, by body: busy (no connection in time) and stopped at the statement timeout. */
const BUSY = JSON.stringify({ error: 'The server is busy at the moment; try again shortly.' });
const TOO_SLOW = JSON.stringify({
  error: 'The request took longer than this server allows and was stopped; narrow it or try again later.',
});

interface Outcome {
  status?: number;
  body?: string;
  retryAfter?: string | null;
  /** Set when there was no HTTP answer: the error's name and code, each of its cause chain. */
  failed?: string;
}

function describeError(err: unknown): string {
  const parts: string[] = [];
  for (let e = err, depth = 0; e !== undefined && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { name, code, message } = e as { name?: unknown; code?: unknown; message?: unknown };
    parts.push(`${String(name)}${typeof code === 'string' ? ` ${code}` : ''}: ${typeof message === 'string' ? message : ''}`);
  }
  return parts.join(' <- ');
}

async function get(url: string): Promise<Outcome> {
  try {
    // Far longer than any answer should take: a request still without one is a hang.
    const res = await fetch(url, { signal: AbortSignal.timeout(60_000) });
    return { status: res.status, body: await res.text(), retryAfter: res.headers.get('retry-after') };
  } catch (err) {
    return { failed: describeError(err) };
  }
}

describe('overload', () => {
  const t = useTestDatabase();
  let server: ServerProcess;
  beforeAll(async () => {
    await ingestThroughWorker(t, simulatedItems({ seed: 'overload', updates: 200 }));
    server = await startServerProcess('serve', {
      DATABASE_URL: t.url,
      LEDGER_AUTH_DISABLED: 'true',
      DATABASE_POOL_SIZE: String(POOL),
      DATABASE_WAIT_MS: String(WAIT_MS),
      DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('answers every request, with a 503 and Retry-After where it cannot serve it, never a reset or a hang', async () => {
    const slowUrl = (i: number) => `${server.url}/api/scan/v2/updates/1220${String(i).padStart(64, '0')}`;
    // Another session holds the updates table: lookups there wait until the statement timeout stops them.
    const holder = await t.pool.connect();
    let outcomes: Outcome[];
    try {
      await holder.query('begin');
      await holder.query('lock table updates in access exclusive mode');
      const slow = Array.from({ length: SLOW }, (_, i) => get(slowUrl(i)));
      await new Promise((r) => setTimeout(r, 100));
      const others = Array.from({ length: OTHERS }, () => get(`${server.url}/api/scan/v0/closed-rounds`));
      // The process starved in the middle of it: requests arrive while it cannot run.
      process.kill(server.child.pid!, 'SIGSTOP');
      try {
        await new Promise((r) => setTimeout(r, STOPPED_MS));
      } finally {
        process.kill(server.child.pid!, 'SIGCONT');
      }
      outcomes = await Promise.all([...slow, ...others]);
    } finally {
      await holder.query('rollback');
      holder.release();
    }
    const noAnswer = outcomes.filter((o) => o.failed !== undefined).map((o) => o.failed);
    const undocumented = outcomes
      .filter((o) => o.status !== undefined && !(o.status === 200 || o.status === 404))
      .filter((o) => !(o.status === 503 && [BUSY, TOO_SLOW].includes(o.body!) && /^\d+$/.test(o.retryAfter ?? '')))
      .map((o) => `${o.status} (Retry-After ${o.retryAfter}) ${o.body?.slice(0, 200)}`);
    const busy = outcomes.filter((o) => o.status === 503 && o.body === BUSY).length;
    // Afterwards: the pool is whole, and every request is served.
    const after = await Promise.all(Array.from({ length: POOL * 5 }, (_, i) => get(slowUrl(i))));
    const servedAfter = after.filter((o) => o.status === 404).length;

    recordZero(PART, `requests without an HTTP answer (of ${outcomes.length}, pool of ${POOL}, stopped ${STOPPED_MS} ms)`, noAnswer.length);
    recordZero(PART, '503s without Retry-After or the documented body, other statuses', undocumented.length);
    recordFigure({
      part: PART,
      figure: `requests answered busy after ${WAIT_MS} ms without a connection`,
      value: busy,
      target: 'some',
      ok: busy > 0,
    });
    recordFigure({
      part: PART,
      figure: 'requests answered after the load (pool whole)',
      value: `${servedAfter} of ${after.length}`,
      target: 'all',
      ok: servedAfter === after.length,
    });
    recordZero(PART, 'process exits', server.exits.length);

    expect(noAnswer).toEqual([]);
    expect(undocumented).toEqual([]);
    expect(busy).toBeGreaterThan(0);
    expect(servedAfter).toBe(after.length);
    expect(server.exits).toEqual([]);
  });
});
