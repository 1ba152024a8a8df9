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
import { spawn } from 'node:child_process';
import path from 'node:path';
import { sql } from 'kysely';
import { projectRoot } from '../../src/internal/paths';
import { Prng } from '../../src/simulator/prng';
import { createTestDatabase, destroyTestDatabase, type TestDatabase } from '../support/database/database';
import { dumpTables, tableDigests } from '../support/database/dump';
import { startTestApi, type TestApi } from '../support/http/http';
import { ingestThroughWorker, simulatedItems } from '../support/items/simulated-network';
import { atScale, recordFigure, recordZero } from './figures';

// Full-scale runs take minutes.
jest.setTimeout(3_600_000);

const PART = 'crash safety (live)';
const CLI = path.join(projectRoot, 'dist/src/cli.js');
const SIMULATED = atScale(3_000, 50_000);
const MIRRORED = atScale(1_500, 20_000);
const KILLS = atScale(3, 10);

function ingest(
  env: Record<string, string>,
  killAfterMs?: number,
): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'ingest'], {
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'error', HOST: '127.0.0.1', PORT: '0', INGEST_BATCH_SIZE: '200', ...env },
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

/**
 * Runs `ingest`, killing it `kills` times at moments within `spanMs` of each start, until it ends by
 * itself after the last kill; a run that ends before its kill starts over on an emptied database.
 * Returns the kills it survived.
 */
async function ingestWithKills(t: TestDatabase, env: Record<string, string>, kills: number, spanMs: number, seed: string): Promise<number> {
  const rng = new Prng(seed);
  let killed = 0;
  for (;;) {
    const killAfter = killed < kills ? 500 + rng.int(0, Math.max(1, Math.floor(spanMs / 3))) : undefined;
    const result = await ingest({ DATABASE_URL: t.url, ...env }, killAfter);
    if (result.signal === 'SIGKILL') {
      killed += 1;
      continue;
    }
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    if (killed >= kills) return killed;
    await sql`truncate updates, contracts, contract_stakeholders, verdicts, traffic_summaries, app_activity_records, acs_deltas,
      acs_snapshots, vote_results, transfer_command_events, contract_blobs, ingest_checkpoints, migrations, migration_synchronizers`.execute(
      t.db,
    );
  }
}

const updateCount = async (t: TestDatabase) =>
  (
    await sql<{ n: number; distinct: number }>`select count(*)::int as n, count(distinct update_id)::int as distinct from updates`.execute(
      t.db,
    )
  ).rows[0]!;

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

  it(`from the simulator: ${SIMULATED} updates, killed ${KILLS} times`, async () => {
    const simulator = {
      SOURCE: 'simulator',
      SIMULATOR_MODE: 'backfill',
      SIMULATOR_RATE: '5',
      SIMULATOR_SEED: '23',
      SIMULATOR_UPDATES: String(SIMULATED),
    };
    const plain = await fresh();
    const started = Date.now();
    expect(await ingest({ DATABASE_URL: plain.url, ...simulator })).toMatchObject({ code: 0 });
    const spanMs = Date.now() - started;
    const killed = await fresh();
    const kills = await ingestWithKills(killed, simulator, KILLS, spanMs, 'live kills');

    const [expected, got] = await Promise.all([tableDigests(plain.db), tableDigests(killed.db)]);
    const differing = Object.keys(expected).filter((table) => expected[table]!.digest !== got[table]!.digest);
    const counts = await updateCount(killed);
    recordFigure({
      part: PART,
      figure: `kills survived, simulator (${SIMULATED} updates)`,
      value: kills,
      target: `${KILLS}`,
      ok: kills === KILLS,
    });
    recordZero(
      PART,
      'updates lost or duplicated, simulator',
      Math.abs(expected.updates!.rows - counts.distinct) + (counts.n - counts.distinct),
    );
    recordZero(PART, 'tables differing from an uninterrupted run, simulator', differing.length);
    expect(kills).toBe(KILLS);
    expect(differing).toEqual([]);
  });

  it(`mirroring a local upstream Scan: ${MIRRORED} updates, killed ${KILLS} times`, async () => {
    const upstream = await fresh();
    await ingestThroughWorker(upstream, simulatedItems({ seed: 'live-mirror', updates: MIRRORED, migrations: 2, meanUpdateGapMs: 20_000 }));
    upstreamApi = await startTestApi(upstream);
    const scan = { SOURCE: 'scan', SCAN_SOURCE_URLS: upstreamApi.url, INGEST_STOP_AT_END: 'true' };
    const probe = await fresh();
    const started = Date.now();
    expect(await ingest({ DATABASE_URL: probe.url, ...scan })).toMatchObject({ code: 0 });
    const spanMs = Date.now() - started;
    const mirror = await fresh();
    const kills = await ingestWithKills(mirror, scan, KILLS, spanMs, 'mirror kills');

    const [expected, got] = await Promise.all([dumpTables(upstream.db), dumpTables(mirror.db)]);
    // Blobs are copied apart from the stream, only those of contracts the upstream's endpoints serve.
    const differing = Object.keys(expected).filter((table) => table !== 'contract_blobs' && expected[table] !== got[table]);
    const counts = await updateCount(mirror);
    const upstreamCounts = await updateCount(upstream);
    recordFigure({
      part: PART,
      figure: `kills survived, mirror (${MIRRORED} updates)`,
      value: kills,
      target: `${KILLS}`,
      ok: kills === KILLS,
    });
    recordZero(PART, 'updates lost or duplicated, mirror', Math.abs(upstreamCounts.n - counts.distinct) + (counts.n - counts.distinct));
    recordZero(PART, 'tables differing from the upstream, mirror', differing.length);
    expect(kills).toBe(KILLS);
    expect(differing).toEqual([]);
  });
});
