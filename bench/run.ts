/**
 * `npm run bench`: prints figures, each beside its baseline from the same run;
 * asserts nothing (the machines here are shared and noisy).
 *
 *   npm run bench                  full run: 1,000,000 network updates ingested
 *   npm run bench -- --quick       the same measures at small scale (under 5 minutes)
 *   npm run bench -- --tiny        a smoke run at tiny scale (CI)
 *   npm run bench -- --updates N   another ingest size
 *   npm run bench -- --only ingest|reads|simulator|mirror|hot|beside|holdings
 *   npm run bench -- --server embedded|external   one server only
 *   npm run bench -- --only csv    a party's CSV export of 1,000,000 activities streamed through serve,
 *                                  its RSS sampled (bench/csv-bench.ts); only when asked for
 *   npm run bench -- --only scale  the stream ingested into an empty database and on top of a large
 *                                  generated history (bench/scale-bench.ts); only when asked for. Its
 *                                  options: --history-updates N, --history-days D,
 *                                  --contracts-per-update C, --active-share S, --holders N,
 *                                  --index-build after|during, --sample-updates N, --assume-free-gb N
 *                                  (for a server whose disk this process cannot see); --updates N
 *                                  sets the stream (200,000 at full scale)
 *   npm run bench -- --only stream the live stream (bench/stream-bench.ts): subscribers on one `start`
 *                                  process, and catch-up against paging; only when asked for. Its
 *                                  options: --subscribers N, --live-seconds S, --catch-up-updates N,
 *                                  --baseline DIR (another build's checkout: its fan-out takes turns
 *                                  with this one's)
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
import { runCsvBench } from './csv-bench';
import { runHoldingsBench } from './holdings-bench';
import { formatHotAnswersReport, runHotAnswersBench } from './hot-answers-bench';
import { formatMirrorReport, runMirrorBench } from './mirror-bench';
import { formatReadBenchReport, runReadBench } from './read-bench';
import { formatScaleReport, machine, runScaleBench, type HistorySize } from './scale-bench';
import { formatStreamReport, runStreamBench, STREAM_SETTINGS, type StreamBenchSettings } from './stream-bench';
import type { IndexBuild } from './scale/load';
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
  scalePart: ScalePlan;
  streamPart: StreamBenchSettings;
}

interface ScalePlan {
  history: HistorySize;
  streamUpdates: number;
  sampleUpdates: number;
  indexBuild: IndexBuild;
  assumeFreeBytes: number | undefined;
}

function number(
  args: string[],
  flag: string,
  fallback: number,
  check: (n: number) => boolean = (n) => Number.isSafeInteger(n) && n >= 1,
): number {
  const i = args.indexOf(flag);
  if (i < 0) return fallback;
  const n = Number(args[i + 1]);
  if (!check(n)) throw new Error(`${flag} got ${args[i + 1]}`);
  return n;
}

/** The scale part's sizes: a history larger than this machine's memory at full scale (docs/performance.md). */
function scalePlanFrom(args: string[], scale: Scale): ScalePlan {
  const defaults = {
    full: { history: 1_500_000, days: 730, stream: 200_000, sample: 20_000 },
    quick: { history: 100_000, days: 60, stream: 20_000, sample: 10_000 },
    tiny: { history: 2_000, days: 7, stream: 2_000, sample: 1_000 },
  }[scale];
  const positive = (n: number) => Number.isFinite(n) && n > 0;
  const indexBuild = args.includes('--index-build') ? args[args.indexOf('--index-build') + 1] : 'after';
  if (indexBuild !== 'after' && indexBuild !== 'during') throw new Error('--index-build takes after or during');
  const holders = args.includes('--holders') ? number(args, '--holders', 0) : undefined;
  return {
    history: {
      updates: number(args, '--history-updates', defaults.history),
      days: number(args, '--history-days', defaults.days, positive),
      contractsPerUpdate: number(args, '--contracts-per-update', 4, (n) => Number.isFinite(n) && n >= 1),
      activeShare: number(args, '--active-share', 0.1, (n) => Number.isFinite(n) && n >= 0 && n < 1),
      ...(holders === undefined ? {} : { holders }),
    },
    streamUpdates: number(args, '--updates', defaults.stream),
    sampleUpdates: number(args, '--sample-updates', defaults.sample),
    indexBuild,
    assumeFreeBytes: args.includes('--assume-free-gb') ? number(args, '--assume-free-gb', 0, positive) * 1e9 : undefined,
  };
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
  const all = ['simulator', 'ingest', 'reads', 'mirror', 'hot', 'beside', 'holdings'];
  // The scale part fills tens of gigabytes, the csv part a million rows, and the stream part ingests a
  // million updates: they run only when asked for.
  const asked = [...all, 'scale', 'csv', 'stream'];
  if (only !== undefined && !asked.includes(only)) throw new Error(`--only takes one of ${asked.join(', ')}`);
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
    scalePart: scalePlanFrom(args, scale),
    streamPart: {
      subscribers: number(args, '--subscribers', STREAM_SETTINGS[scale].subscribers),
      liveSeconds: number(args, '--live-seconds', STREAM_SETTINGS[scale].liveSeconds),
      catchUpUpdates: number(args, '--catch-up-updates', STREAM_SETTINGS[scale].catchUpUpdates),
      ...(value('--baseline') !== undefined && { baselineRoot: path.resolve(value('--baseline')!) }),
    },
  };
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

  const servers: { name: string; adminUrl: string; dataDir?: string; stop: () => Promise<void> }[] = [];
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
      const dataDir = path.join(dir, 'pg');
      const embedded = await startEmbeddedPostgres({ dataDir, port: 0, ephemeral: true });
      servers.push({ name: 'the embedded PostgreSQL', adminUrl: embedded.url, dataDir, stop: () => embedded.stop() });
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
      if (plan.parts.has('scale')) {
        log(`scale on ${server.name}:`);
        const report = await runScaleBench({
          adminUrl: server.adminUrl,
          ...(server.dataDir ? { dataDir: server.dataDir } : {}),
          ...(plan.scalePart.assumeFreeBytes === undefined ? {} : { assumeFreeBytes: plan.scalePart.assumeFreeBytes }),
          streamUpdates: plan.scalePart.streamUpdates,
          warmUp: Math.min(plan.warmUp, Math.floor(plan.scalePart.streamUpdates / 10)),
          history: plan.scalePart.history,
          sampleUpdates: plan.scalePart.sampleUpdates,
          indexBuild: plan.scalePart.indexBuild,
          log,
        });
        log(formatScaleReport(server.name, report));
      }
      if (plan.parts.has('stream')) {
        log(`live stream on ${server.name}:`);
        const report = await runStreamBench({ adminUrl: server.adminUrl, settings: plan.streamPart, log });
        log(formatStreamReport(server.name, report));
        if (report.live.some((l) => l.missed > 0 || l.duplicated > 0) || !report.catchUp.same) process.exitCode = 1;
      }
      if (plan.parts.has('hot')) {
        log(`hot answers on ${server.name}:`);
        const name = `scan_indexer_bench_hot_${process.pid}`;
        const url = await ensureDatabase(server.adminUrl, name);
        try {
          const report = await runHotAnswersBench({ databaseUrl: url, scale: plan.scale, log });
          log(formatHotAnswersReport(report));
          if (report.failed.length > 0) process.exitCode = 1;
        } finally {
          const admin = createPool({ connectionString: server.adminUrl, max: 1 });
          await admin.query(`drop database if exists ${name} with (force)`);
          await admin.end();
        }
      }
      if (plan.parts.has('beside')) {
        log(`API beside ingestion on ${server.name}:`);
        log(
          formatBesideReport(server.name, await runBesideBench({ adminUrl: server.adminUrl, settings: BESIDE_SETTINGS[plan.scale], log })),
        );
      }
      if (plan.parts.has('holdings')) {
        log(`holdings summaries on ${server.name}:`);
        const name = `scan_indexer_bench_holdings_${process.pid}`;
        const url = await ensureDatabase(server.adminUrl, name);
        try {
          log(await runHoldingsBench({ databaseUrl: url, scale: plan.scale, log: () => undefined }));
        } finally {
          const admin = createPool({ connectionString: server.adminUrl, max: 1 });
          await admin.query(`drop database if exists ${name} with (force)`);
          await admin.end();
        }
      }
      if (plan.parts.has('csv')) {
        log(`CSV export on ${server.name}:`);
        const name = `scan_indexer_bench_csv_${process.pid}`;
        const url = await ensureDatabase(server.adminUrl, name);
        try {
          await runCsvBench({ databaseUrl: url, scale: plan.scale, log });
        } finally {
          const admin = createPool({ connectionString: server.adminUrl, max: 1 });
          await admin.query(`drop database if exists ${name} with (force)`);
          await admin.end();
        }
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
