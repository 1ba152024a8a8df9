/**
 * The cost of attestation: a mirror's ingest rate from N = 4 local upstreams at threshold 2 (every
 * page read four times, decided element by element) against N = 1 (the failover source), from the
 * same upstreams. The upstreams are four API servers of one scan-indexer database holding a
 * simulated network; each mirror writes into a fresh database of the same server.
 */
import type pg from 'pg';
import { createApp } from '../src/api/app';
import { listen, type RunningServer } from '../src/api/server';
import { createAttestedScanSource } from '../src/ingest/sources/attested-scan-source';
import { createScanSource } from '../src/ingest/sources/scan-source';
import { createSimulatorSource } from '../src/ingest/sources/simulator-source';
import type { Source } from '../src/ingest/source';
import { runWorker } from '../src/ingest/worker';
import { loadConfig } from '../src/internal/config';
import { createLogger } from '../src/internal/logger';
import { createMetrics } from '../src/internal/metrics';
import { ensureDatabase } from '../src/store/embedded-postgres';
import { migrate, readMigrationFiles } from '../src/store/migrator';
import { createDb, createPool, type Db } from '../src/store/pool';

export interface MirrorReport {
  updates: number;
  items: number;
  single: { seconds: number; itemsPerSecond: number };
  attested: { seconds: number; itemsPerSecond: number };
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

async function ingest(target: { db: Db; pool: pg.Pool }, source: Source): Promise<{ items: number; seconds: number }> {
  const started = process.hrtime.bigint();
  const result = await runWorker(
    { db: target.db, pool: target.pool, source, logger: createLogger('warn'), batchSize: 500, batchMaxWaitMs: 200 },
    new AbortController().signal,
  );
  return { items: result.items, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

export async function runMirrorBench(options: { adminUrl: string; updates: number; log: (line: string) => void }): Promise<MirrorReport> {
  const { adminUrl, updates, log } = options;
  const suffix = process.pid;
  const upstream = await database(adminUrl, `scan_indexer_bench_mirror_up_${suffix}`);
  const servers: RunningServer[] = [];
  try {
    log(`  upstream: ${updates} simulated network updates`);
    await ingest(upstream, createSimulatorSource({ seed: 42, mode: 'backfill', updates, ratePerSecond: 0.5, migrations: 2 }));
    const config = loadConfig({ LOG_LEVEL: 'warn' });
    for (let i = 0; i < UPSTREAMS; i++) {
      const app = createApp({
        config,
        db: upstream.db,
        pool: upstream.pool,
        logger: createLogger('warn'),
        metrics: createMetrics(),
        migrationFiles: readMigrationFiles(),
      });
      servers.push(await listen(app, '127.0.0.1', 0));
    }
    const urls = servers.map((s) => s.url);
    const logger = createLogger('warn');
    const run = async (name: string, source: Source) => {
      const target = await database(adminUrl, `scan_indexer_bench_mirror_${name}_${suffix}`);
      try {
        const result = await ingest(target, source);
        log(`  ${name}: ${result.items} items in ${result.seconds.toFixed(1)} s, ${Math.round(result.items / result.seconds)} items/s`);
        return result;
      } finally {
        await target.close();
      }
    };
    const single = await run('single', createScanSource({ urls: urls.slice(0, 1), stopAtEnd: true, logger }));
    const attested = await run(
      'attested',
      createAttestedScanSource({ urls, threshold: THRESHOLD, stopAtEnd: true, pollIntervalMs: 100, logger }),
    );
    return {
      updates,
      items: single.items,
      single: { seconds: single.seconds, itemsPerSecond: single.items / single.seconds },
      attested: { seconds: attested.seconds, itemsPerSecond: attested.items / attested.seconds },
    };
  } finally {
    for (const s of servers) await s.close(1000);
    await upstream.close();
  }
}

export function formatMirrorReport(server: string, r: MirrorReport): string {
  const ratio = r.attested.itemsPerSecond / r.single.itemsPerSecond;
  return [
    `mirror on ${server} (${r.items} items of ${r.updates} simulated updates, from ${UPSTREAMS} local upstream servers of one database):`,
    `  N = 1 (failover source):            ${Math.round(r.single.itemsPerSecond)} items/s (${r.single.seconds.toFixed(1)} s)`,
    `  N = ${UPSTREAMS}, threshold ${THRESHOLD} (attested): ${Math.round(r.attested.itemsPerSecond)} items/s (${r.attested.seconds.toFixed(1)} s), ${ratio.toFixed(2)}× the single-upstream rate`,
  ].join('\n');
}
