/**
 * Crash safety during live ingestion: `scan-indexer ingest` (the worker as
 * operators run it) killed with SIGKILL at random moments and started again,
 * reading from the simulator, and mirroring a local upstream Scan through the
 * scan source. Each must end with the tables of a run never interrupted: the
 * simulator's with those of an uninterrupted `ingest` of the same network,
 * the mirror's with the upstream's own.
 *
 * Figures, per source: kills survived; updates lost (0); tables differing (0).
 */
import { runCli } from '../support/cli-process';
import { createTestDatabase, destroyTestDatabase, type TestDatabase } from '../support/database/database';
import { dumpTables, emptyIngestedTables, tableDigests, updateCounts } from '../support/database/dump';
import { startTestApi, type TestApi } from '../support/http/http';
import { ingestThroughWorker, simulatedItems } from '../support/items/simulated-network';
import { atScale, recordFigure, recordZero } from './figures';
import { runThroughKills } from './kills';

// Full-scale runs take minutes.
jest.setTimeout(3_600_000);

const PART = 'crash safety (live)';
const SIMULATED = atScale(3_000, 50_000);
const MIRRORED = atScale(1_500, 20_000);
const KILLS = atScale(3, 10);

const ingest = (t: TestDatabase, env: Record<string, string>, killAfterMs?: number) =>
  runCli(['ingest'], { HOST: '127.0.0.1', PORT: '0', INGEST_BATCH_SIZE: '200', DATABASE_URL: t.url, ...env }, killAfterMs);

describe('crash safety during live ingestion', () => {
  const databases: TestDatabase[] = [];
  const fresh = async () => {
    const t = await createTestDatabase();
    databases.push(t);
    return t;
  };
  let upstreamApi: TestApi | undefined;
  afterAll(async () => {
    await upstreamApi?.close();
    for (const t of databases) await destroyTestDatabase(t);
  });

  /**
   * Ingests once without a kill (which times the kill points), then into a fresh database through the
   * kills, and records the figures of `label`; `compare` names the tables that differ from what the
   * killed run must hold and the updates it must have.
   */
  async function killedIngest(
    label: string,
    env: Record<string, string>,
    compare: (uninterrupted: TestDatabase, killed: TestDatabase) => Promise<{ updates: number; differing: string[] }>,
  ): Promise<void> {
    const uninterrupted = await fresh();
    const started = Date.now();
    expect(await ingest(uninterrupted, env)).toMatchObject({ code: 0 });
    const killed = await fresh();
    const { kills } = await runThroughKills((killAfter) => ingest(killed, env, killAfter), {
      kills: KILLS,
      spanMs: (Date.now() - started) / 3,
      seed: `${label} kills`,
      reset: () => emptyIngestedTables(killed.db),
    });
    const counts = await updateCounts(killed.db);
    const { updates, differing } = await compare(uninterrupted, killed);
    recordFigure({ part: PART, figure: `kills survived, ${label}`, value: kills, target: `${KILLS}`, ok: kills === KILLS });
    recordZero(PART, `updates lost or duplicated, ${label}`, Math.abs(updates - counts.distinct) + (counts.n - counts.distinct));
    recordZero(PART, `tables differing, ${label}`, differing.length);
    expect(updates).toBeGreaterThan(0);
    expect(kills).toBe(KILLS);
    expect(differing).toEqual([]);
  }

  it(`from the simulator: ${SIMULATED} updates, killed ${KILLS} times`, async () => {
    const simulator = {
      SOURCE: 'simulator',
      SIMULATOR_MODE: 'backfill',
      SIMULATOR_RATE: '5',
      SIMULATOR_SEED: '23',
      SIMULATOR_UPDATES: String(SIMULATED),
    };
    await killedIngest(`simulator (${SIMULATED} updates)`, simulator, async (plain, killed) => {
      const [expected, got] = await Promise.all([tableDigests(plain.db), tableDigests(killed.db)]);
      return {
        updates: expected.updates!.rows,
        differing: Object.keys(expected).filter((table) => expected[table]!.digest !== got[table]!.digest),
      };
    });
  });

  it(`mirroring a local upstream Scan: ${MIRRORED} updates, killed ${KILLS} times`, async () => {
    const upstream = await fresh();
    await ingestThroughWorker(upstream, simulatedItems({ seed: 'live-mirror', updates: MIRRORED, migrations: 2, meanUpdateGapMs: 20_000 }));
    upstreamApi = await startTestApi(upstream);
    const scan = { SOURCE: 'scan', SCAN_SOURCE_URLS: upstreamApi.url, INGEST_STOP_AT_END: 'true' };
    // The uninterrupted mirror only times the kills: the killed one must hold the upstream's own tables.
    await killedIngest(`mirror (${MIRRORED} updates)`, scan, async (_uninterrupted, mirror) => {
      const [expected, got] = await Promise.all([dumpTables(upstream.db), dumpTables(mirror.db)]);
      return {
        updates: (await updateCounts(upstream.db)).n,
        // Blobs are copied apart from the stream, only those of contracts the upstream's endpoints serve.
        differing: Object.keys(expected).filter((table) => table !== 'contract_blobs' && expected[table] !== got[table]),
      };
    });
  });
});
