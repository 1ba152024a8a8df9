/**
 * `npm run bench`: prints figures, each beside its baseline from the same run;
 * asserts nothing (the machines here are shared and noisy).
 *
 *   npm run bench                  full run: 1,000,000 network updates ingested
 *   npm run bench -- --quick       the same measures at small scale (under 5 minutes)
 *   npm run bench -- --tiny        a smoke run at tiny scale (CI)
 *   npm run bench -- --updates N   another ingest size
 *   npm run bench -- --only ingest|reads|simulator|mirror|beside
 *   npm run bench -- --server embedded|external   one server only
 *
 * Every part runs on the embedded PostgreSQL (in a temporary folder) and, when
 * DATABASE_URL is set, on that server too (its user must be allowed to create
 * databases).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/internal/config';
import { ensureDatabase, startEmbeddedPostgres } from '../src/store/embedded-postgres';
import { createPool } from '../src/store/pool';
import { BESIDE_SETTINGS, formatBesideReport, runBesideBench } from './beside-bench';
import { formatIngestReport, runIngestBench } from './ingest-bench';
import { formatMirrorReport, runMirrorBench } from './mirror-bench';
import { formatReadBenchReport, runReadBench } from './read-bench';
import { benchSimulator } from './simulator';

type Scale = 'full' | 'quick' | 'tiny';

interface Plan {
  scale: Scale;
  updates: number;
  feedSample: number;
  warmUp: number;
  simulatorUpdates: number;
  /** Updates of the upstream the mirror part reads. */
  mirrorUpdates: number;
  parts: Set<string>;
  servers: Set<'embedded' | 'external'>;
}

function planFrom(args: string[]): Plan {
  const scale: Scale = args.includes('--tiny') ? 'tiny' : args.includes('--quick') ? 'quick' : 'full';
  const value = (flag: string) => {
    const i = args.indexOf(flag);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const defaults = {
    full: { updates: 1_000_000, feedSample: 200_000, warmUp: 20_000, simulatorUpdates: 20_000, mirrorUpdates: 50_000 },
    quick: { updates: 20_000, feedSample: 20_000, warmUp: 2_000, simulatorUpdates: 5_000, mirrorUpdates: 10_000 },
    tiny: { updates: 2_000, feedSample: 2_000, warmUp: 0, simulatorUpdates: 500, mirrorUpdates: 1_000 },
  }[scale];
  const updates = value('--updates') === undefined ? defaults.updates : Number(value('--updates'));
  if (!Number.isSafeInteger(updates) || updates < 1) throw new Error(`--updates needs a positive integer, got ${value('--updates')}`);
  const only = value('--only');
  const all = ['simulator', 'ingest', 'reads', 'mirror', 'beside'];
  if (only !== undefined && !all.includes(only)) throw new Error(`--only takes one of ${all.join(', ')}`);
  return {
    scale,
    updates,
    feedSample: Math.min(defaults.feedSample, updates),
    warmUp: Math.min(defaults.warmUp, Math.floor(updates / 10)),
    simulatorUpdates: defaults.simulatorUpdates,
    mirrorUpdates: defaults.mirrorUpdates,
    parts: new Set(only ? [only] : all),
    servers: new Set(
      value('--server') === 'embedded' ? ['embedded'] : value('--server') === 'external' ? ['external'] : ['embedded', 'external'],
    ),
  };
}

function machine(): string {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;
}

async function main(): Promise<void> {
  const plan = planFrom(process.argv.slice(2));
  const log = (line: string) => console.log(line);
  log(`scan-indexer benchmark, ${plan.scale} scale, on ${machine()}`);

  if (plan.parts.has('simulator')) {
    const sim = await benchSimulator(plan.simulatorUpdates);
    log(
      `simulator (best of 3 runs of ${plan.simulatorUpdates} updates after a warm-up): ` +
        `${sim.updatesPerSecond} updates/s generated (${sim.cpuUpdatesPerSecond}/s of CPU time), ` +
        `${sim.ndjsonUpdatesPerSecond} updates/s through the NDJSON writer (${sim.ndjsonCpuUpdatesPerSecond}/s of CPU time, ${sim.ndjsonMegabytesPerSecond} MB/s)`,
    );
  }

  const servers: { name: string; adminUrl: string; stop: () => Promise<void> }[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-indexer-bench-'));
  fs.chmodSync(dir, 0o755);
  // Interrupted, the run leaves no embedded PostgreSQL or data behind.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping`);
      void Promise.allSettled(servers.map((server) => server.stop())).then(() => {
        fs.rmSync(dir, { recursive: true, force: true });
        process.exit(130);
      });
    });
  }
  try {
    if (plan.servers.has('embedded')) {
      const embedded = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: 0, ephemeral: true });
      servers.push({ name: 'the embedded PostgreSQL', adminUrl: embedded.url, stop: () => embedded.stop() });
    }
    const { databaseUrl } = loadConfig();
    if (databaseUrl && plan.servers.has('external'))
      servers.push({ name: `DATABASE_URL (${new URL(databaseUrl).host})`, adminUrl: databaseUrl, stop: () => Promise.resolve() });

    for (const server of servers) {
      if (plan.parts.has('ingest')) {
        log(`ingest on ${server.name}:`);
        const report = await runIngestBench({
          adminUrl: server.adminUrl,
          updates: plan.updates,
          feedSample: plan.feedSample,
          warmUp: plan.warmUp,
          log,
        });
        log(formatIngestReport(server.name, report));
      }
      if (plan.parts.has('mirror')) {
        log(`mirror on ${server.name}:`);
        log(formatMirrorReport(server.name, await runMirrorBench({ adminUrl: server.adminUrl, updates: plan.mirrorUpdates, log })));
      }
      if (plan.parts.has('beside')) {
        log(`API beside ingestion on ${server.name}:`);
        log(
          formatBesideReport(server.name, await runBesideBench({ adminUrl: server.adminUrl, settings: BESIDE_SETTINGS[plan.scale], log })),
        );
      }
      if (plan.parts.has('reads')) {
        log(`reads on ${server.name}:`);
        const name = `scan_indexer_bench_reads_${process.pid}`;
        const url = await ensureDatabase(server.adminUrl, name);
        try {
          const report = await runReadBench({ databaseUrl: url, scale: plan.scale, log: (line) => log(line) });
          log(`reads on ${server.name}:`);
          log(formatReadBenchReport(report));
        } finally {
          const admin = createPool({ connectionString: server.adminUrl, max: 1 });
          await admin.query(`drop database if exists ${name} with (force)`);
          await admin.end();
        }
      }
    }
  } finally {
    for (const server of servers) await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
