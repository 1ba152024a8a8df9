/**
 * Worker CPU and bytes stored per network update of two or more builds of
 * scan-indexer, on one NDJSON feed, in one run: each build's ingest worker
 * (its dist/bench/ingest-child.js, its own process) imports the whole feed
 * into a fresh database of its own migrations, the builds taking turns, so
 * that a shared machine's load falls on all of them alike. CPU time is the
 * worker process's (process.cpuUsage, module loading left out); bytes are
 * what the database grew by, after a checkpoint.
 *
 * Usage (DATABASE_URL: a server whose user may create databases):
 *   node dist/src/cli.js simulate --seed 42 --updates 20000 --migrations 2 --out /tmp/feed.ndjson
 *   node dist/bench/ingest-cpu.js --feed /tmp/feed.ndjson [--runs 2] <build root> <build root> …
 * A build root is a checkout with dist/ built (`npx tsc -p tsconfig.build.json`) and node_modules.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type pg from 'pg';
import { loadConfig } from '../src/internal/config';
import type { createPool } from '../src/store/pool';
import type { BatchLine, DoneLine } from './ingest-child';

interface Build {
  root: string;
  createPool: typeof createPool;
  migrate: (pool: pg.Pool) => Promise<unknown>;
  ensureDatabase: (adminUrl: string, name: string) => Promise<string>;
}

interface RunFigures {
  networkUpdates: number;
  importUpdates: number;
  cpuMicrosPerUpdate: number;
  bytesPerUpdate: number;
  updatesTableBytesPerUpdate: number;
}

async function loadBuild(root: string): Promise<Build> {
  const load = (module: string) => import(path.join(root, 'dist', module)) as Promise<Record<string, unknown>>;
  return {
    root,
    createPool: (await load('src/store/pool')).createPool as Build['createPool'],
    migrate: (await load('src/store/migrator')).migrate as Build['migrate'],
    ensureDatabase: (await load('src/store/embedded-postgres')).ensureDatabase as Build['ensureDatabase'],
  };
}

async function runOnce(build: Build, adminUrl: string, feed: string, name: string): Promise<RunFigures> {
  const admin = build.createPool({ connectionString: adminUrl, max: 1 });
  try {
    await admin.query(`drop database if exists ${name} with (force)`);
    const url = await build.ensureDatabase(adminUrl, name);
    const pool = build.createPool({ connectionString: url, max: 1 });
    try {
      // Each build's own migrations: the database is what that build would write into.
      await build.migrate(pool);
      const size = async () =>
        Number((await pool.query<{ s: string }>('select pg_database_size(current_database())::text as s')).rows[0]!.s);
      const empty = await size();
      const child = spawnSync(process.execPath, [path.join(build.root, 'dist', 'bench', 'ingest-child.js'), url, feed], {
        encoding: 'utf8',
        maxBuffer: 1 << 28,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      if (child.status !== 0) throw new Error(`the worker of ${build.root} exited with ${child.status}`);
      const lines = child.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as BatchLine | DoneLine);
      const done = lines.find((l): l is DoneLine => l.type === 'done')!;
      const batches = lines.filter((l): l is BatchLine => l.type === 'batch');
      const networkUpdates = batches.reduce((n, b) => n + b.updates, 0);
      await pool.query('checkpoint');
      const updatesTable = await pool.query<{ s: string }>(`select pg_total_relation_size('updates')::text as s`);
      return {
        networkUpdates,
        importUpdates: batches.reduce((n, b) => n + b.importUpdates, 0),
        cpuMicrosPerUpdate: ((done.cpuUserMs + done.cpuSystemMs) * 1000) / networkUpdates,
        bytesPerUpdate: ((await size()) - empty) / networkUpdates,
        updatesTableBytesPerUpdate: Number(updatesTable.rows[0]!.s) / networkUpdates,
      };
    } finally {
      await pool.end();
    }
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const value = (flag: string) => {
    const i = args.indexOf(flag);
    return i >= 0 ? args.splice(i, 2)[1] : undefined;
  };
  const feed = value('--feed');
  const runs = Number(value('--runs') ?? '2');
  const roots = args.map((a) => path.resolve(a));
  const { databaseUrl } = loadConfig();
  if (!feed || roots.length === 0 || !Number.isSafeInteger(runs) || runs < 1 || !databaseUrl) {
    throw new Error('usage: DATABASE_URL=… node dist/bench/ingest-cpu.js --feed <NDJSON file> [--runs N] <build root>…');
  }
  const builds = await Promise.all(roots.map(loadBuild));
  const figures = new Map<string, RunFigures[]>(roots.map((r) => [r, []]));
  for (let run = 0; run < runs; run++) {
    for (const [i, build] of builds.entries()) {
      const f = await runOnce(build, databaseUrl, path.resolve(feed), `scan_indexer_bench_cpu_${process.pid}_${i}`);
      figures.get(build.root)!.push(f);
      console.log(
        `run ${run + 1}, ${build.root}: ${f.networkUpdates} network updates (+ ${f.importUpdates} import updates), ` +
          `${f.cpuMicrosPerUpdate.toFixed(0)} µs of worker CPU per update, ${f.bytesPerUpdate.toFixed(0)} bytes per update ` +
          `(updates table ${f.updatesTableBytesPerUpdate.toFixed(0)})`,
      );
    }
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const first = figures.get(roots[0]!)!;
  for (const root of roots) {
    const f = figures.get(root)!;
    const cpu = mean(f.map((x) => x.cpuMicrosPerUpdate));
    const bytes = mean(f.map((x) => x.bytesPerUpdate));
    console.log(
      `${root}: mean ${cpu.toFixed(0)} µs per update (${(cpu / mean(first.map((x) => x.cpuMicrosPerUpdate))).toFixed(2)}× the first), ` +
        `${bytes.toFixed(0)} bytes per update (${(bytes / mean(first.map((x) => x.bytesPerUpdate))).toFixed(3)}×)`,
    );
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
