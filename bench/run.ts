/**
 * Benchmarks (`npm run bench`): simulator generation rate and ingest rate into
 * a real PostgreSQL (DATABASE_URL, or the embedded one in a temporary folder).
 * Prints figures; asserts nothing, as the machines here are shared and noisy.
 * Usage: npm run bench [-- <updates>] (default 20000 updates over 2 migrations);
 * `npm run bench -- <updates> --simulator-only` stops after the simulator figures.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateItems } from '../src/simulator';
import { benchSimulator } from './simulator';
import { loadConfig } from '../src/internal/config';
import { createLogger } from '../src/internal/logger';
import { createFileSource } from '../src/ingest/sources/file-source';
import { runWorker } from '../src/ingest/worker';
import { ensureDatabase, startEmbeddedPostgres } from '../src/store/embedded-postgres';
import { migrate } from '../src/store/migrator';
import { createDb, createPool } from '../src/store/pool';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const simulatorOnly = args.includes('--simulator-only');
  const updates = Number(args.find((a) => !a.startsWith('--')) ?? 20000);
  const options = { seed: 42, updates, migrations: 2 };

  const sim = await benchSimulator(updates);
  console.log(
    `simulator (best of 3 runs of ${updates} updates after a warm-up): ` +
      `${sim.updatesPerSecond} updates/s generated (${sim.cpuUpdatesPerSecond}/s of CPU time), ` +
      `${sim.ndjsonUpdatesPerSecond} updates/s through the NDJSON writer (${sim.ndjsonCpuUpdatesPerSecond}/s of CPU time, ${sim.ndjsonMegabytesPerSecond} MB/s); ` +
      `load average ${(os.loadavg()[0] ?? 0).toFixed(2)} on ${os.cpus().length} CPUs`,
  );
  if (simulatorOnly) return;

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-indexer-bench-'));
  fs.chmodSync(dir, 0o755);
  const file = path.join(dir, 'items.ndjson');
  fs.writeFileSync(file, [...generateItems(options)].map((i) => `${JSON.stringify(i)}\n`).join(''));

  const { databaseUrl } = loadConfig();
  const embedded = databaseUrl ? undefined : await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: 0, ephemeral: true });
  const url = await ensureDatabase(databaseUrl ?? embedded!.url, `scan_indexer_bench_${process.pid}`);
  const pool = createPool({ connectionString: url, max: 4 });
  const db = createDb(pool);
  try {
    await migrate(pool);
    const start = process.hrtime.bigint();
    const result = await runWorker(
      { db, pool, source: createFileSource(file), logger: createLogger('warn'), batchSize: 500, batchMaxWaitMs: 1000 },
      new AbortController().signal,
    );
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    console.log(`ingest: ${result.items} items, ${result.updates} updates in ${seconds.toFixed(2)} s = ${Math.round(result.updates / seconds)} updates/s`);
    console.log(`memory: rss ${Math.round(process.memoryUsage().rss / 2 ** 20)} MiB`);
  } finally {
    await db.destroy();
    const admin = createPool({ connectionString: databaseUrl ?? embedded!.url, max: 1 });
    await admin.query(`drop database if exists scan_indexer_bench_${process.pid} with (force)`);
    await admin.end();
    await embedded?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
