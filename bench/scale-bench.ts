/**
 * The scale part of `npm run bench` (`--only scale`), on one PostgreSQL server,
 * in one run:
 *
 * 1. calibration (scale/calibrate.ts): a sample of the history grown with its
 *    indexes in place gives the bytes per generated update and contract, from
 *    which the large state's size is estimated; the run stops there when the
 *    server's disk cannot hold it;
 * 2. baseline: the real worker (ingest-child.ts, as the ingest part runs it)
 *    imports the simulator's stream into an empty migrated database;
 * 3. large state: another migrated database is filled with generated history
 *    (scale/history.ts, scale/load.ts), ending before the stream's first record
 *    time in the same migration, and the same stream is imported on top of it;
 * 4. the two runs side by side: throughput and its ratio, the per-update cost
 *    of the last 10% of each run against its first 10%, worker CPU, bytes per
 *    update, RSS, with the server's memory settings and the machine.
 *
 * The stream has one migration (the ingest part's has two): every write of it
 * then lands in the key ranges of the large state, as a new update of a long
 * migration does, rather than in a second migration's fresh ones. Each database
 * is dropped when its measurement is done.
 */
import fs from 'node:fs';
import os from 'node:os';
import { DEFAULT_START_TIME } from '../src/simulator/options';
import { databaseBytes, serverSettings, settingBytes } from '../src/store/bulk-load';
import { migrate } from '../src/store/migrator';
import { dropDatabase, freshDatabase, runChild, SEED, withPool, workerFigures, type WorkerFigures } from './ingest-bench';
import { calibrate, type Calibration } from './scale/calibrate';
import type { HistorySpec } from './scale/history';
import { buildLargeState, type BuildReport, type IndexBuild } from './scale/load';

export interface HistorySize {
  updates: number;
  contractsPerUpdate: number;
  activeShare: number;
  days: number;
  /** Parties holding amulets; default: one per 20 active contracts. */
  holders?: number;
}

export interface ScaleBenchOptions {
  /** A URL of the server with rights to create databases. */
  adminUrl: string;
  /** The server's data folder, where this process can see it (the embedded server's); otherwise the server is asked. */
  dataDir?: string;
  /** Free bytes to assume where the server's disk cannot be seen from here. */
  assumeFreeBytes?: number;
  streamUpdates: number;
  /** Network updates treated as warm-up before the first-10% figure. */
  warmUp: number;
  history: HistorySize;
  /** Updates of the calibration sample. */
  sampleUpdates: number;
  indexBuild: IndexBuild;
  log: (line: string) => void;
}

interface IngestRun extends WorkerFigures {
  /** Database growth over the run, per network update. */
  databaseBytesPerUpdate: number;
  databaseBytesBefore: number;
}

export interface ScaleBenchReport {
  calibration: Calibration;
  estimatedBytes: number;
  freeBytes: number | undefined;
  empty: IngestRun;
  build: BuildReport;
  large: IngestRun;
  settings: Record<string, string>;
}

/** The simulated stream's own footprint, measured by the ingest part (docs/performance.md; the 200,000-update runs in CHANGELOG.md): about 26 KB per update. */
const STREAM_BYTES_PER_UPDATE = 30_000;
/** The estimate from a sample can be off by the sample's size effects. */
const ESTIMATE_MARGIN = 1.3;
const HOUR = 3_600_000_000n;
const DAY = 24n * HOUR;
const SETTINGS = ['shared_buffers', 'effective_cache_size', 'work_mem', 'maintenance_work_mem', 'max_wal_size', 'server_version'];

export function historySpec(h: HistorySize): HistorySpec {
  // The history ends an hour before the stream begins, in the stream's migration.
  const end = DEFAULT_START_TIME - HOUR;
  return {
    updates: h.updates,
    contractsPerUpdate: h.contractsPerUpdate,
    activeShare: h.activeShare,
    start: end - BigInt(Math.round(h.days * 24)) * (DAY / 24n),
    end,
    migrationId: 0,
    holders: h.holders ?? Math.max(1_000, Math.round((h.updates * h.contractsPerUpdate * h.activeShare) / 20)),
    network: { seed: SEED },
    seed: 1,
  };
}

function freeBytesAt(dir: string | undefined): number | undefined {
  if (!dir) return undefined;
  try {
    const s = fs.statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return undefined;
  }
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const gb = (bytes: number) => (bytes >= 1e9 ? `${fmt(bytes / 1e9, 1)} GB` : `${fmt(bytes / 1e6)} MB`);
const mib = (bytes: number) => `${fmt(bytes / 2 ** 20)} MiB`;

async function ingestStream(url: string, o: ScaleBenchOptions, label: string): Promise<IngestRun> {
  const before = await withPool(url, (pool) => databaseBytes(pool));
  o.log(
    `  ${label}: the worker imports ${fmt(o.streamUpdates)} network updates of the simulator (seed ${SEED}, one migration) from a pipe`,
  );
  const { batches, done } = await runChild(url, o.streamUpdates, (line) => o.log(line), 1);
  const after = await withPool(url, (pool) => databaseBytes(pool));
  const figures = workerFigures(batches, done, o.warmUp);
  return { ...figures, databaseBytesPerUpdate: (after - before) / figures.networkUpdates, databaseBytesBefore: before };
}

export async function runScaleBench(o: ScaleBenchOptions): Promise<ScaleBenchReport> {
  const spec = historySpec(o.history);
  const settings = await withPool(o.adminUrl, (pool) => serverSettings(pool, [...SETTINGS, 'data_directory']));
  const name = `scan_indexer_bench_scale_${process.pid}`;

  const calibration = await calibrate({ adminUrl: o.adminUrl, spec, sampleUpdates: o.sampleUpdates, log: o.log });
  const estimatedBytes = calibration.bytesPerUpdate * spec.updates;
  const maxWal = await withPool(o.adminUrl, (pool) => settingBytes(pool, 'max_wal_size'));
  // The large database, the stream on top of it, and the WAL the server may keep meanwhile.
  const needed = estimatedBytes * ESTIMATE_MARGIN + o.streamUpdates * STREAM_BYTES_PER_UPDATE + 2 * maxWal + 1e9;
  const freeBytes = freeBytesAt(o.dataDir ?? settings.data_directory) ?? o.assumeFreeBytes;
  o.log(
    `  calibration: ${fmt(calibration.bytesPerUpdate)} bytes per generated update, ${fmt(calibration.bytesPerContract)} per contract ` +
      `(${fmt(calibration.updates)} updates grown with their indexes, ${fmt(calibration.seconds, 1)} s); ` +
      `${fmt(spec.updates)} updates will take about ${gb(estimatedBytes)}; with the stream, WAL and a ${ESTIMATE_MARGIN}× margin ${gb(needed)}; ` +
      `free: ${freeBytes === undefined ? 'unknown' : gb(freeBytes)}`,
  );
  if (freeBytes === undefined) {
    throw new Error('cannot see how much disk the server has free (pass --assume-free-gb N to state it)');
  }
  if (needed > freeBytes) {
    const fits = Math.floor(
      ((freeBytes - o.streamUpdates * STREAM_BYTES_PER_UPDATE - 2 * maxWal - 1e9) / ESTIMATE_MARGIN / calibration.bytesPerUpdate) * 0.9,
    );
    throw new Error(
      `refusing to build: about ${gb(needed)} needed, ${gb(freeBytes)} free; --history-updates ${Math.max(0, fits)} would fit`,
    );
  }

  o.log('  baseline: an empty migrated database');
  let url = await freshDatabase(o.adminUrl, `${name}_empty`);
  let empty: IngestRun;
  try {
    await withPool(url, (pool) => migrate(pool));
    empty = await ingestStream(url, o, 'baseline');
  } finally {
    await dropDatabase(o.adminUrl, `${name}_empty`);
  }

  o.log(
    `  large state: ${fmt(spec.updates)} generated updates, about ${fmt(spec.updates * spec.contractsPerUpdate)} contracts ` +
      `(${fmt(spec.activeShare * 100)}% active), over ${fmt(o.history.days)} days before the stream, indexes built ${o.indexBuild} the rows`,
  );
  url = await freshDatabase(o.adminUrl, `${name}_large`);
  try {
    await withPool(url, (pool) => migrate(pool));
    const build = await buildLargeState({ url, spec, indexBuild: o.indexBuild, fills: calibration.fills, log: o.log });
    o.log(formatBuild(build));
    const large = await ingestStream(url, o, 'large state');
    return { calibration, estimatedBytes, freeBytes, empty, build, large, settings };
  } finally {
    await dropDatabase(o.adminUrl, `${name}_large`);
  }
}

function formatBuild(b: BuildReport): string {
  const c = b.counts;
  const t = b.times;
  const totalBytes = b.sizes.reduce((n, s) => n + s.tableBytes + s.indexBytes, 0);
  const indexSeconds = b.indexes.length ? ` (${b.indexes.length} built after the rows, each printed above)` : '';
  const lines = [
    `  built: ${fmt(c.updates)} updates, ${fmt(c.contracts)} contracts (${fmt(c.activeContracts)} active, ${fmt(c.visibleContracts)} in some snapshot), ` +
      `${fmt(c.stakeholderRows)} stakeholder rows, ${fmt(c.verdicts)} verdicts, ${fmt(c.trafficSummaries)} traffic summaries, ` +
      `${fmt(c.appActivityRecords)} app activity records, ${fmt(b.snapshots)} snapshots announced`,
    `  contracts by template: ${Object.entries(c.byTemplate)
      .map(([k, n]) => `${k} ${fmt(n)}`)
      .join(', ')}`,
    `  in ${fmt(t.totalSeconds)} s: rows ${fmt(t.rowsSeconds)} s (${fmt(c.contracts / t.rowsSeconds)} contracts/s), indexes ${fmt(t.indexSeconds)} s${indexSeconds}, ` +
      `snapshots ${fmt(t.snapshotSeconds)} s, VACUUM ANALYZE ${fmt(t.vacuumSeconds)} s; ${gb(totalBytes)} in all`,
    '  table and index sizes:',
    ...b.sizes
      .filter((s) => s.tableBytes + s.indexBytes > 0)
      .map((s) => `    ${s.table.padEnd(24)} table ${mib(s.tableBytes).padStart(11)}, indexes ${mib(s.indexBytes).padStart(11)}`),
  ];
  return lines.join('\n');
}

export function machine(): string {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;
}

const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');

/** The two runs side by side, with the goals of issue 26. */
export function formatScaleReport(server: string, r: ScaleBenchReport): string {
  const e = r.empty;
  const l = r.large;
  const ratio = l.updatesPerSecond / e.updatesPerSecond;
  const growth = (x: IngestRun) => x.last10.wallMsPerUpdate / x.first10.wallMsPerUpdate;
  const us = (ms: number) => `${fmt(ms * 1000)} µs`;
  const rows: [string, string, string, string][] = [
    ['', 'empty database', 'large state', 'goal'],
    [
      'stored before the stream',
      gb(e.databaseBytesBefore),
      `${gb(l.databaseBytesBefore)} (${fmt(r.build.counts.contracts)} contracts, ${fmt(r.build.counts.updates)} updates)`,
      '',
    ],
    ['network updates ingested', fmt(e.networkUpdates), fmt(l.networkUpdates), ''],
    [
      'updates/s',
      fmt(e.updatesPerSecond),
      `${fmt(l.updatesPerSecond)} (${fmt(ratio, 2)}× the empty database)`,
      `≥ 0.8× — ${verdict(ratio >= 0.8)}`,
    ],
    [
      'per-update wall time, first / last 10%',
      `${us(e.first10.wallMsPerUpdate)} / ${us(e.last10.wallMsPerUpdate)} (${fmt(growth(e), 2)}×)`,
      `${us(l.first10.wallMsPerUpdate)} / ${us(l.last10.wallMsPerUpdate)} (${fmt(growth(l), 2)}×)`,
      `≤ 1.2× — ${verdict(growth(e) <= 1.2)} / ${verdict(growth(l) <= 1.2)}`,
    ],
    [
      '  of which commit, first / last 10%',
      `${us(e.first10.commitMsPerUpdate)} / ${us(e.last10.commitMsPerUpdate)}`,
      `${us(l.first10.commitMsPerUpdate)} / ${us(l.last10.commitMsPerUpdate)}`,
      '',
    ],
    ['worker CPU per update', us((e.cpuSeconds / e.networkUpdates) * 1000), us((l.cpuSeconds / l.networkUpdates) * 1000), ''],
    ['database bytes per update', fmt(e.databaseBytesPerUpdate), fmt(l.databaseBytesPerUpdate), ''],
    ['worker peak RSS', mib(e.peakRssBytes), mib(l.peakRssBytes), ''],
  ];
  const widths = [0, 1, 2].map((c) => Math.max(...rows.map((row) => row[c]!.length)));
  const s = r.settings;
  return [
    `scale on ${server}:`,
    ...rows.map((row) => `  ${row[0].padEnd(widths[0]!)}  ${row[1].padEnd(widths[1]!)}  ${row[2].padEnd(widths[2]!)}  ${row[3]}`.trimEnd()),
    `  server: ${s.server_version ?? '?'}; shared_buffers ${s.shared_buffers ?? '?'}, effective_cache_size ${s.effective_cache_size ?? '?'}, ` +
      `work_mem ${s.work_mem ?? '?'}, maintenance_work_mem ${s.maintenance_work_mem ?? '?'}, max_wal_size ${s.max_wal_size ?? '?'}`,
    `  machine: ${machine()}`,
  ].join('\n');
}
