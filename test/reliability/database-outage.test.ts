/**
 * A database outage under load: the service as `npm start` runs it (API and
 * worker, the simulator as source) on a PostgreSQL this test started itself
 * (an embedded one, never a server it did not start). In the middle of the
 * import and under API load, that server is stopped (fast shutdown) and
 * started again after a pause.
 *
 * Figures: process exits (0); answers during the outage that are neither a
 * success nor the documented 503 with Retry-After (0), network errors (0,
 * each kept with its error's name and code), hangs (0); /readyz red during the
 * outage and green after; the time from the restart until /readyz is green
 * and until ingestion moves again; updates lost (0) and tables differing
 * from an uninterrupted import of the same network (0).
 */
import { sql } from 'kysely';
import { ensureDatabase, freePort } from '../../src/store/embedded-postgres';
import { createDb, createPool } from '../../src/store/pool';
import { tableDigests } from '../support/database/dump';
import { atScale, recordFigure, recordZero } from './figures';
import { startPostgresProcess, type PostgresProcess } from './postgres-process';
import { startServerProcess, type ServerProcess } from './server-process';

// Full-scale runs take minutes.
jest.setTimeout(1_800_000);

const PART = 'database outage';
// Enough that the import is still running when the database goes away (it imports over 1,000 updates a second).
const UPDATES = atScale(15_000, 100_000);
const OUTAGE_MS = atScale(3_000, 10_000);
const UNAVAILABLE = JSON.stringify({ error: 'The database is unavailable at the moment; try again shortly.' });
const RETRY_AFTER = '5';
const SIMULATOR = {
  SOURCE: 'simulator',
  SIMULATOR_MODE: 'backfill',
  SIMULATOR_RATE: '5',
  SIMULATOR_SEED: '11',
  SIMULATOR_UPDATES: String(UPDATES),
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A request that got no HTTP answer: a hang (no answer in time), or the network error, with its name and code. */
interface NoAnswer {
  failed: 'hang' | 'network error';
  /** E.g. "TypeError: fetch failed <- Error ECONNRESET: read ECONNRESET": each error of the cause chain. */
  detail: string;
}

/** Each error of the cause chain as "name code: message". */
function describeError(err: unknown): string {
  const parts: string[] = [];
  for (let e = err, depth = 0; e !== undefined && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { name, code, message } = e as { name?: unknown; code?: unknown; message?: unknown };
    parts.push(
      `${typeof name === 'string' ? name : typeof e}${typeof code === 'string' ? ` ${code}` : ''}: ${typeof message === 'string' ? message : ''}`,
    );
  }
  return parts.join(' <- ');
}

interface Answered {
  status: number;
  text: string;
  retryAfter: string | null;
}

async function fetchWithin(url: string, ms: number): Promise<Answered | NoAnswer> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(ms) });
    return { status: res.status, text: await res.text(), retryAfter: res.headers.get('retry-after') };
  } catch (err) {
    return { failed: (err as Error).name === 'TimeoutError' ? 'hang' : 'network error', detail: describeError(err) };
  }
}

const answered = (res: Answered | NoAnswer): res is Answered => !('failed' in res);

async function itemsApplied(url: string): Promise<number | undefined> {
  const res = await fetchWithin(`${url}/status`, 5_000);
  if (!answered(res) || res.status !== 200) return undefined;
  const status = JSON.parse(res.text) as { streams: { items_applied: number }[] };
  return status.streams.reduce((sum, s) => sum + Number(s.items_applied), 0);
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs: number): Promise<T> {
  if (process.env.RELIABILITY_VERBOSE) process.stderr.write(`[outage] waiting for ${what}\n`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe('a database outage under load', () => {
  let postgres: PostgresProcess;
  let server: ServerProcess | undefined;
  afterAll(async () => {
    if (process.env.RELIABILITY_VERBOSE && server) process.stderr.write(`[outage] server output:\n${server.output().slice(-4000)}\n`);
    await server?.stop();
    await postgres?.destroy();
  });

  it('keeps the process up, answers 503 meanwhile, and resumes ingestion where it stopped', async () => {
    postgres = await startPostgresProcess(await freePort());
    const outageUrl = await ensureDatabase(postgres.url, 'outage');
    const plainUrl = await ensureDatabase(postgres.url, 'plain');
    server = await startServerProcess('start', {
      DATABASE_URL: outageUrl,
      LEDGER_AUTH_DISABLED: 'true',
      API_CLOCK: 'ledger',
      ...SIMULATOR,
    });
    const url = server.url;
    await waitFor('a third of the import', async () => ((await itemsApplied(url)) ?? 0) >= UPDATES / 3, 120_000);

    // API load: a few clients asking over and over, each answer classified.
    const answers = { ok: 0, unavailable: 0, other: [] as string[], hangs: [] as string[] };
    let loading = true;
    const client = async () => {
      while (loading) {
        const res = await fetchWithin(`${url}/api/scan/v0/dso-party-id`, 10_000);
        if (!answered(res)) (res.failed === 'hang' ? answers.hangs : answers.other).push(`${res.failed}: ${res.detail}`);
        else if (res.status === 200) answers.ok += 1;
        else if (res.status === 503 && res.text === UNAVAILABLE && res.retryAfter === RETRY_AFTER) answers.unavailable += 1;
        else answers.other.push(`${res.status} (Retry-After ${res.retryAfter}) ${res.text.slice(0, 200)}`);
        await sleep(20);
      }
    };
    const clients = Array.from({ length: 4 }, client);
    await sleep(500);

    const beforeOutage = (await itemsApplied(url))!;
    await postgres.stop();
    const redSeen = await waitFor(
      '/readyz to go red',
      async () => {
        const res = await fetchWithin(`${url}/readyz`, 5_000);
        return answered(res) && res.status !== 200;
      },
      OUTAGE_MS + 5_000,
    ).catch(() => false);
    await sleep(OUTAGE_MS);
    await postgres.start();
    const restarted = Date.now();
    await waitFor(
      '/readyz to go green',
      async () => {
        const res = await fetchWithin(`${url}/readyz`, 5_000);
        return answered(res) && res.status === 200;
      },
      120_000,
    );
    const readyAfterMs = Date.now() - restarted;
    const movedAt = await waitFor(
      'ingestion to move again',
      async () => (((await itemsApplied(url)) ?? 0) > beforeOutage ? Date.now() : undefined),
      120_000,
    );
    const ingestingAfterMs = movedAt - restarted;
    loading = false;
    await Promise.all(clients);

    await waitFor('the import to finish', async () => ((await itemsApplied(url)) ?? 0) >= UPDATES, 600_000);
    const exits = server.exits.length;
    await server.stop();
    server = undefined;

    // The same network imported without an outage, for comparison.
    // `ingest` ends when its source does.
    const plain = await startServerProcess('ingest', { DATABASE_URL: plainUrl, ...SIMULATOR });
    await waitFor('the uninterrupted import', async () => plain.exits.length > 0, 600_000);
    expect(plain.exits).toEqual([{ code: 0, signal: null }]);

    const outagePool = createPool({ connectionString: outageUrl, max: 2 });
    const plainPool = createPool({ connectionString: plainUrl, max: 2 });
    const [outageDb, plainDb] = [createDb(outagePool), createDb(plainPool)];
    try {
      const [got, expected] = await Promise.all([tableDigests(outageDb), tableDigests(plainDb)]);
      const counts = (
        await sql<{
          n: number;
          distinct: number;
        }>`select count(*)::int as n, count(distinct update_id)::int as distinct from updates`.execute(outageDb)
      ).rows[0]!;
      const differing = Object.keys(expected).filter((t) => expected[t]!.digest !== got[t]!.digest);

      recordZero(PART, 'process exits', exits);
      recordFigure({
        part: PART,
        figure: `API answers during the test (ok / documented 503)`,
        value: `${answers.ok} / ${answers.unavailable}`,
        target: 'some of each',
        ok: answers.ok > 0 && answers.unavailable > 0,
      });
      recordZero(PART, 'other answers (5xx, network errors)', answers.other.length);
      recordZero(PART, 'hung requests (no answer in 10 s)', answers.hangs.length);
      recordFigure({
        part: PART,
        figure: '/readyz red during the outage, green after',
        value: redSeen ? 'yes' : 'no',
        target: 'yes',
        ok: Boolean(redSeen),
      });
      recordFigure({
        part: PART,
        figure: `recovery after a ${OUTAGE_MS / 1000} s outage: ready / ingesting (ms)`,
        value: `${readyAfterMs} / ${ingestingAfterMs}`,
        target: '< 30000 / < 60000',
        ok: readyAfterMs < 30_000 && ingestingAfterMs < 60_000,
      });
      recordZero(PART, 'updates lost', expected.updates!.rows - counts.distinct);
      recordZero(PART, 'tables differing from an uninterrupted import', differing.length);

      expect(exits).toBe(0);
      expect(answers.other).toEqual([]);
      expect(answers.hangs).toEqual([]);
      expect(answers.unavailable).toBeGreaterThan(0);
      expect(redSeen).toBe(true);
      expect(differing).toEqual([]);
      expect(counts.n).toBe(counts.distinct);
    } finally {
      await outagePool.end();
      await plainPool.end();
    }
  });
});
