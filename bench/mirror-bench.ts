/**
 * The cost of attestation: a mirror's ingest rate from N = 4 local upstreams at threshold 2 (every
 * page read four times, decided element by element) against N = 1 (the failover source), from the
 * same upstreams. The upstreams are four `scan-indexer serve` processes over one database holding a
 * simulated network; each mirror writes into a fresh database of the same server. On this machine
 * the upstreams share the CPUs with the mirror, so the wall-clock rate of N = 4 also pays four
 * upstreams' work; the mirror's own CPU time per item is reported apart, and so is the upstreams'.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import type pg from 'pg';
import { createAttestedScanSource } from '../src/ingest/sources/attested-scan-source';
import { createScanSource } from '../src/ingest/sources/scan-source';
import { createSimulatorSource } from '../src/ingest/sources/simulator-source';
import type { Source } from '../src/ingest/source';
import { runWorker } from '../src/ingest/worker';
import { createLogger } from '../src/internal/logger';
import { ensureDatabase } from '../src/store/embedded-postgres';
import { migrate } from '../src/store/migrator';
import { createDb, createPool, type Db } from '../src/store/pool';
import { spawnCli } from './support/cli-child';

interface Run {
  seconds: number;
  itemsPerSecond: number;
  /** CPU time of the mirror's process (source, attestation and writer; not the upstreams') per item. */
  cpuMicrosPerItem: number;
  /** CPU time of the upstream `serve` processes per item (undefined where /proc cannot tell). */
  upstreamCpuMicrosPerItem: number | undefined;
}

export interface MirrorReport {
  updates: number;
  items: number;
  single: Run;
  attested: Run;
}

const UPSTREAMS = 4;
const THRESHOLD = 2;

async function database(adminUrl: string, name: string): Promise<{ url: string; pool: pg.Pool; db: Db; close: () => Promise<void> }> {
  const admin = createPool({ connectionString: adminUrl, max: 1 });
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
  const url = await ensureDatabase(adminUrl, name);
  const pool = createPool({ connectionString: url, max: 8 });
  await migrate(pool);
  const db = createDb(pool);
  return {
    url,
    pool,
    db,
    close: async () => {
      await db.destroy();
      const drop = createPool({ connectionString: adminUrl, max: 1 });
      await drop.query(`drop database if exists ${name} with (force)`);
      await drop.end();
    },
  };
}

async function ingest(target: { db: Db; pool: pg.Pool }, source: Source): Promise<{ items: number; seconds: number; cpuSeconds: number }> {
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const result = await runWorker(
    { db: target.db, pool: target.pool, source, logger: createLogger('warn'), batchSize: 500, batchMaxWaitMs: 200 },
    new AbortController().signal,
  );
  const used = process.cpuUsage(cpu);
  return { items: result.items, seconds: Number(process.hrtime.bigint() - started) / 1e9, cpuSeconds: (used.user + used.system) / 1e6 };
}

/** Clock ticks per second of /proc/<pid>/stat's CPU times, or undefined off Linux. */
const clockTicks = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || undefined;
  } catch {
    return undefined;
  }
})();

/** CPU time (user and system) of child processes so far, in microseconds, or undefined where /proc cannot tell. */
function childrenCpuMicros(children: ChildProcess[]): number | undefined {
  if (clockTicks === undefined) return undefined;
  try {
    let ticks = 0;
    for (const child of children) {
      // Fields after the command name (in parentheses): utime and stime are the 12th and 13th.
      const fields = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    }
    return (ticks * 1e6) / clockTicks;
  } catch {
    return undefined;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** `scan-indexer serve` over the database, ready when /readyz answers 200. */
async function serve(databaseUrl: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawnCli(['serve'], {
    // Only the Scan API is read; the ledger API's authentication does not matter here.
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      LEDGER_AUTH_DISABLED: 'true',
      // The mirrors read from 127.0.0.1 as fast as they can: the upstream does not limit them.
      RATE_LIMIT_ENABLED: 'false',
      HEAVY_REQUEST_CONCURRENCY: '0',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`scan-indexer serve exited with ${child.exitCode}`);
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return { url, child };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error('scan-indexer serve did not become ready in 30 s');
}

export async function runMirrorBench(options: { adminUrl: string; updates: number; log: (line: string) => void }): Promise<MirrorReport> {
  const { adminUrl, updates, log } = options;
  const suffix = process.pid;
  const upstream = await database(adminUrl, `scan_indexer_bench_mirror_up_${suffix}`);
  const servers: { url: string; child: ChildProcess }[] = [];
  try {
    log(`  upstream: ${updates} simulated network updates`);
    await ingest(upstream, createSimulatorSource({ seed: 42, mode: 'backfill', updates, ratePerSecond: 0.5, migrations: 2 }));
    for (let i = 0; i < UPSTREAMS; i++) servers.push(await serve(upstream.url));
    const urls = servers.map((s) => s.url);
    const logger = createLogger('warn');
    const run = async (name: string, source: Source) => {
      const target = await database(adminUrl, `scan_indexer_bench_mirror_${name}_${suffix}`);
      try {
        const upstreamCpu = childrenCpuMicros(servers.map((s) => s.child));
        const result = await ingest(target, source);
        const upstreamCpuAfter = childrenCpuMicros(servers.map((s) => s.child));
        log(`  ${name}: ${result.items} items in ${result.seconds.toFixed(1)} s, ${Math.round(result.items / result.seconds)} items/s`);
        return {
          items: result.items,
          run: {
            seconds: result.seconds,
            itemsPerSecond: result.items / result.seconds,
            cpuMicrosPerItem: (result.cpuSeconds * 1e6) / result.items,
            upstreamCpuMicrosPerItem:
              upstreamCpu === undefined || upstreamCpuAfter === undefined ? undefined : (upstreamCpuAfter - upstreamCpu) / result.items,
          },
        };
      } finally {
        await target.close();
      }
    };
    const single = await run('single', createScanSource({ urls: urls.slice(0, 1), stopAtEnd: true, logger }));
    const attested = await run(
      'attested',
      createAttestedScanSource({ urls, threshold: THRESHOLD, stopAtEnd: true, pollIntervalMs: 100, logger }),
    );
    return { updates, items: single.items, single: single.run, attested: attested.run };
  } finally {
    for (const s of servers) s.child.kill('SIGTERM');
    await Promise.all(servers.map((s) => new Promise((r) => (s.child.exitCode !== null ? r(null) : s.child.once('exit', r)))));
    await upstream.close();
  }
}

export function formatMirrorReport(server: string, r: MirrorReport): string {
  const ratio = r.attested.itemsPerSecond / r.single.itemsPerSecond;
  const upstreams = (run: Run) =>
    run.upstreamCpuMicrosPerItem === undefined ? '' : `, upstreams' CPU ${Math.round(run.upstreamCpuMicrosPerItem)} µs per item`;
  return [
    `mirror on ${server} (${r.items} items of ${r.updates} simulated updates, from ${UPSTREAMS} local \`serve\` processes over one database):`,
    `  N = 1 (failover source):            ${Math.round(r.single.itemsPerSecond)} items/s (${r.single.seconds.toFixed(1)} s), mirror CPU ${Math.round(r.single.cpuMicrosPerItem)} µs per item${upstreams(r.single)}`,
    `  N = ${UPSTREAMS}, threshold ${THRESHOLD} (attested): ${Math.round(r.attested.itemsPerSecond)} items/s (${r.attested.seconds.toFixed(1)} s), ${ratio.toFixed(2)}× the single-upstream rate; mirror CPU ${Math.round(r.attested.cpuMicrosPerItem)} µs per item (${(r.attested.cpuMicrosPerItem / r.single.cpuMicrosPerItem).toFixed(2)}×)${upstreams(r.attested)}`,
  ].join('\n');
}
