/**
 * The ingest part of `npm run bench`, on one PostgreSQL server:
 *
 * - the real worker (bench/ingest-child.ts, its own process) imports the
 *   simulator's stream as NDJSON, written into a pipe by `scan-indexer
 *   simulate` in a third process, into a fresh database;
 * - baseline 1, the rows: every row the writer left in the tables, dumped
 *   and loaded again with COPY into a fresh database with the same schema and
 *   indexes, no application logic;
 * - baseline 2, the feed: the same simulator stream as NDJSON, one line per
 *   item, copied into a one-column text table (on a sample of the stream at
 *   full scale, to bound the disk it takes).
 *
 * Network updates exclude import updates, which are counted apart.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { finished } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { writeNdjson } from '../src/simulator';
import { ensureDatabase } from '../src/store/embedded-postgres';
import { migrate } from '../src/store/migrator';
import { ensureHistoryPartitions, listHistoryMonths } from '../src/store/partitions';
import { createDb, createPool } from '../src/store/pool';
import type { BatchLine, DoneLine } from './ingest-child';
import { spawnCli } from './support/cli-child';

export interface IngestBenchOptions {
  /** A URL of the server with rights to create databases. */
  adminUrl: string;
  updates: number;
  /** Updates of the feed baseline (at most `updates`). */
  feedSample: number;
  /** Network updates treated as warm-up before the first-10% figure. */
  warmUp: number;
  log: (line: string) => void;
}

export interface IngestBenchReport {
  networkUpdates: number;
  importUpdates: number;
  events: number;
  seconds: number;
  updatesPerSecond: number;
  eventsPerSecond: number;
  rowsBaselineUpdatesPerSecond: number;
  feedBaselineUpdatesPerSecond: number;
  feedBaselineLinesPerSecond: number;
  feedSample: number;
  /** Per network update, after warm-up: wall time between commits, and the commits' own time. */
  first10: { wallMsPerUpdate: number; commitMsPerUpdate: number };
  last10: { wallMsPerUpdate: number; commitMsPerUpdate: number };
  databaseBytesPerUpdate: number;
  inputBytesPerUpdate: number;
  peakRssBytes: number;
  /** RSS at the 10%, 50% and 90% marks of the run. */
  rssAlong: number[];
  cpuSeconds: number;
  tableBytes: Record<string, number>;
}

/** The simulator's seed and migrations of the stream every ingest run imports. */
export const SEED = 42;
const MIGRATIONS = 2;

export async function withPool<T>(url: string, work: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = createPool({ connectionString: url, max: 2 });
  try {
    return await work(pool);
  } finally {
    await pool.end();
  }
}

export async function freshDatabase(adminUrl: string, name: string): Promise<string> {
  await withPool(adminUrl, (pool) => pool.query(`drop database if exists ${name} with (force)`));
  return ensureDatabase(adminUrl, name);
}

export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  await withPool(adminUrl, (pool) => pool.query(`drop database if exists ${name} with (force)`));
}

/** The real worker in its own process, importing the simulator's stream (`migrations` of them) from a pipe. */
export function runChild(
  url: string,
  updates: number,
  log: (line: string) => void,
  migrations = MIGRATIONS,
): Promise<{ batches: BatchLine[]; done: DoneLine }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-indexer-bench-feed-'));
  const fifo = path.join(dir, 'feed.ndjson');
  execFileSync('mkfifo', [fifo]);
  const simulator = spawnCli(
    ['simulate', '--seed', String(SEED), '--updates', String(updates), '--migrations', String(migrations), '--out', fifo],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  return new Promise<{ batches: BatchLine[]; done: DoneLine }>((resolve, reject) => {
    simulator.on('exit', (code) => code !== 0 && reject(new Error(`the simulator exited with ${code}`)));
    const child = spawn(process.execPath, [path.join(__dirname, 'ingest-child.js'), url, fifo], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const batches: BatchLine[] = [];
    let done: DoneLine | undefined;
    let network = 0;
    let nextReport = updates / 10;
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      const parsed = JSON.parse(line) as BatchLine | DoneLine;
      if (parsed.type === 'done') {
        done = parsed;
        return;
      }
      batches.push(parsed);
      network += parsed.updates;
      if (network >= nextReport) {
        log(
          `  worker: ${network} of ${updates} network updates, ${(parsed.atMs / 1000).toFixed(0)} s, ${Math.round(network / (parsed.atMs / 1000))}/s`,
        );
        while (nextReport <= network) nextReport += updates / 10;
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 && done ? resolve({ batches, done }) : reject(new Error(`ingest worker exited with ${code}`))));
  }).finally(() => {
    simulator.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  });
}

/** The per-update cost of a run of batches (batches carrying import updates left out). */
function costOf(batches: { previousAtMs: number; line: BatchLine }[]): { wallMsPerUpdate: number; commitMsPerUpdate: number } {
  const plain = batches.filter((b) => b.line.importUpdates === 0 && b.line.updates > 0);
  const updates = plain.reduce((n, b) => n + b.line.updates, 0);
  const wall = plain.reduce((n, b) => n + (b.line.atMs - b.previousAtMs), 0);
  const commit = plain.reduce((n, b) => n + b.line.commitMs, 0);
  return { wallMsPerUpdate: wall / updates, commitMsPerUpdate: commit / updates };
}

/** Columns each table gets from the writer (generated and identity columns left to the database). */
async function writtenColumns(pool: pg.Pool, table: string): Promise<string[]> {
  const { rows } = await pool.query<{ column_name: string }>(
    `select column_name from information_schema.columns
     where table_schema = 'public' and table_name = $1 and is_generated = 'NEVER' and is_identity = 'NO'
     order by ordinal_position`,
    [table],
  );
  return rows.map((r) => r.column_name);
}

const WRITTEN_TABLES = [
  'migrations',
  'migration_synchronizers',
  'update_counts_by_hour',
  'updates',
  'contracts',
  'contract_stakeholders',
  'verdicts',
  'traffic_summaries',
  'app_activity_records',
  'acs_deltas',
  'acs_snapshots',
  'ingest_checkpoints',
];

/** Dumps every written table with COPY TO, in storage order. */
async function dumpTables(url: string, dir: string): Promise<{ table: string; columns: string[]; file: string }[]> {
  return withPool(url, async (pool) => {
    const dumps = [];
    for (const table of WRITTEN_TABLES) {
      const columns = await writtenColumns(pool, table);
      const file = path.join(dir, `${table}.copy`);
      const client = await pool.connect();
      try {
        const out = fs.createWriteStream(file);
        const stream = client.query(copyTo(`copy (select ${columns.join(', ')} from ${table}) to stdout`));
        stream.pipe(out);
        await finished(out);
      } finally {
        client.release();
      }
      dumps.push({ table, columns, file });
    }
    return dumps;
  });
}

async function loadTables(url: string, dumps: { table: string; columns: string[]; file: string }[]): Promise<number> {
  return withPool(url, async (pool) => {
    const client = await pool.connect();
    try {
      const started = performance.now();
      await client.query('begin');
      for (const d of dumps) {
        const stream = client.query(copyFrom(`copy ${d.table} (${d.columns.join(', ')}) from stdin`));
        fs.createReadStream(d.file, { highWaterMark: 1 << 20 }).pipe(stream);
        await finished(stream);
      }
      await client.query('commit');
      return (performance.now() - started) / 1000;
    } finally {
      client.release();
    }
  });
}

/** Copies the simulator's NDJSON feed into a one-column table; returns seconds, lines and bytes. */
async function copyFeed(url: string, updates: number): Promise<{ seconds: number; lines: number; bytes: number }> {
  return withPool(url, async (pool) => {
    await pool.query('create table feed (line text)');
    const client = await pool.connect();
    try {
      let lines = 0;
      let bytes = 0;
      const started = performance.now();
      const stream = client.query(copyFrom('copy feed (line) from stdin'));
      const counting = new (await import('node:stream')).Transform({
        transform(chunk: Buffer | string, _encoding, callback) {
          const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
          bytes += Buffer.byteLength(text);
          for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
          // COPY's text format: a backslash in the JSON is escaped; JSON holds no raw tabs or newlines.
          callback(null, text.includes('\\') ? text.replace(/\\/g, '\\\\') : text);
        },
      });
      counting.pipe(stream);
      await writeNdjson({ seed: SEED, updates, migrations: MIGRATIONS, meanUpdateGapMs: 500 }, counting);
      counting.end();
      await finished(stream);
      return { seconds: (performance.now() - started) / 1000, lines, bytes };
    } finally {
      client.release();
    }
  });
}

async function tableSizes(url: string): Promise<{ database: number; tables: Record<string, number> }> {
  return withPool(url, async (pool) => {
    const db = await pool.query<{ size: string }>('select pg_database_size(current_database())::text as size');
    // A partitioned table's size is that of its partitions.
    const tables = await pool.query<{ relname: string; size: string }>(
      `select coalesce(pg_partition_root(oid), oid)::regclass::text as relname, sum(pg_total_relation_size(oid))::text as size
       from pg_class where relkind = 'r' and relnamespace = 'public'::regnamespace
       group by 1 order by sum(pg_total_relation_size(oid)) desc`,
    );
    return { database: Number(db.rows[0]!.size), tables: Object.fromEntries(tables.rows.map((r) => [r.relname, Number(r.size)])) };
  });
}

export async function runIngestBench(o: IngestBenchOptions): Promise<IngestBenchReport> {
  const name = `scan_indexer_bench_ingest_${process.pid}`;
  const url = await freshDatabase(o.adminUrl, name);
  await withPool(url, (pool) => migrate(pool));
  // What an empty, migrated database takes (catalogs, empty indexes) is not the updates' doing.
  const empty = (await tableSizes(url)).database;
  o.log(`  worker: importing ${o.updates} network updates of the simulator (seed ${SEED}, ${MIGRATIONS} migrations) from a pipe`);
  const { batches, done } = await runChild(url, o.updates, o.log);
  const sizes = await tableSizes(url);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-indexer-bench-rows-'));
  let rowsSeconds: number;
  try {
    o.log('  baseline 1: dumping the rows the writer wrote');
    const dumps = await dumpTables(url, dir);
    const months = await withPool(url, (pool) => listHistoryMonths(createDb(pool)));
    await dropDatabase(o.adminUrl, name);
    const baseline = await freshDatabase(o.adminUrl, `${name}_rows`);
    await withPool(baseline, async (pool) => {
      await migrate(pool);
      // The same month partitions, made before the timed COPY as the writer makes them ahead.
      await ensureHistoryPartitions(createDb(pool), months);
    });
    o.log('  baseline 1: COPY of those rows into the same schema and indexes');
    rowsSeconds = await loadTables(baseline, dumps);
    await dropDatabase(o.adminUrl, `${name}_rows`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await dropDatabase(o.adminUrl, name);
  }

  const feedSample = Math.min(o.feedSample, o.updates);
  o.log(`  baseline 2: COPY of the NDJSON feed of ${feedSample} network updates into a one-column table`);
  const feedUrl = await freshDatabase(o.adminUrl, `${name}_feed`);
  let feed: { seconds: number; lines: number; bytes: number };
  try {
    feed = await copyFeed(feedUrl, feedSample);
  } finally {
    await dropDatabase(o.adminUrl, `${name}_feed`);
  }

  const run = workerFigures(batches, done, o.warmUp);
  return {
    networkUpdates: run.networkUpdates,
    importUpdates: run.importUpdates,
    events: run.events,
    seconds: run.seconds,
    updatesPerSecond: run.updatesPerSecond,
    eventsPerSecond: run.events / run.seconds,
    rowsBaselineUpdatesPerSecond: run.networkUpdates / rowsSeconds,
    feedBaselineUpdatesPerSecond: feedSample / feed.seconds,
    feedBaselineLinesPerSecond: feed.lines / feed.seconds,
    feedSample,
    first10: run.first10,
    last10: run.last10,
    databaseBytesPerUpdate: (sizes.database - empty) / run.networkUpdates,
    inputBytesPerUpdate: feed.bytes / feedSample,
    peakRssBytes: run.peakRssBytes,
    rssAlong: run.rssAlong,
    cpuSeconds: run.cpuSeconds,
    tableBytes: sizes.tables,
  };
}

export interface WorkerFigures {
  networkUpdates: number;
  importUpdates: number;
  events: number;
  seconds: number;
  updatesPerSecond: number;
  /** Per network update, after warm-up: wall time between commits, and the commits' own time. */
  first10: { wallMsPerUpdate: number; commitMsPerUpdate: number };
  last10: { wallMsPerUpdate: number; commitMsPerUpdate: number };
  peakRssBytes: number;
  /** RSS at the 10%, 50% and 90% marks of the run. */
  rssAlong: number[];
  cpuSeconds: number;
}

/** What a worker run's batch lines say: throughput, the cost of the first and last 10% of its batches after `warmUp` updates, memory, CPU. */
export function workerFigures(batches: BatchLine[], done: DoneLine, warmUp: number): WorkerFigures {
  const networkUpdates = batches.reduce((n, b) => n + b.updates, 0);
  const seconds = done.wallMs / 1000;
  const timed = batches.map((line, i) => ({ previousAtMs: i === 0 ? 0 : batches[i - 1]!.atMs, line }));
  let seen = 0;
  const afterWarmUp = timed.filter((b) => (seen += b.line.updates) > warmUp);
  const tenth = Math.max(1, Math.floor(afterWarmUp.length / 10));
  const at = (fraction: number) => {
    let total = 0;
    for (const b of batches) {
      total += b.updates;
      if (total >= networkUpdates * fraction) return b.rssBytes;
    }
    return batches[batches.length - 1]?.rssBytes ?? 0;
  };
  return {
    networkUpdates,
    importUpdates: batches.reduce((n, b) => n + b.importUpdates, 0),
    events: batches.reduce((n, b) => n + b.events, 0),
    seconds,
    updatesPerSecond: networkUpdates / seconds,
    first10: costOf(afterWarmUp.slice(0, tenth)),
    last10: costOf(afterWarmUp.slice(-tenth)),
    peakRssBytes: done.maxRssBytes,
    rssAlong: [0.1, 0.5, 0.9].map(at),
    cpuSeconds: (done.cpuUserMs + done.cpuSystemMs) / 1000,
  };
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const mb = (bytes: number) => `${fmt(bytes / 2 ** 20)} MiB`;
const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');

/** The report as a table: figure, baseline or goal, and whether the goal is met. */
export function formatIngestReport(server: string, r: IngestBenchReport): string {
  const ratioRows = r.updatesPerSecond / r.rowsBaselineUpdatesPerSecond;
  const ratioFeed = r.updatesPerSecond / r.feedBaselineUpdatesPerSecond;
  const growth = r.last10.wallMsPerUpdate / r.first10.wallMsPerUpdate;
  const commitGrowth = r.last10.commitMsPerUpdate / r.first10.commitMsPerUpdate;
  const rows: [string, string, string, string][] = [
    [
      'network updates ingested',
      `${fmt(r.networkUpdates)} (+ ${fmt(r.importUpdates)} import updates, counted apart), ${fmt(r.events)} events`,
      '',
      '',
    ],
    ['updates/s', fmt(r.updatesPerSecond), '≥ 5,000', verdict(r.updatesPerSecond >= 5000)],
    ['events/s', fmt(r.eventsPerSecond), '', ''],
    ['raw COPY of the rows, as updates/s', fmt(r.rowsBaselineUpdatesPerSecond), '', ''],
    ['  ratio to it', `${fmt(ratioRows, 2)}×`, '≥ 0.6×', verdict(ratioRows >= 0.6)],
    ['  ratio to it, against issue #27', `${fmt(ratioRows, 2)}×`, '≥ 0.5×', verdict(ratioRows >= 0.5)],
    [
      `raw COPY of the feed (${fmt(r.feedSample)} updates), lines/s`,
      `${fmt(r.feedBaselineLinesPerSecond)} (${fmt(r.feedBaselineUpdatesPerSecond)} updates/s)`,
      '',
      '',
    ],
    ['  ratio to it', `${fmt(ratioFeed, 2)}×`, '≥ 1.0×', verdict(ratioFeed >= 1)],
    ['per-update wall time, first 10% after warm-up', `${fmt(r.first10.wallMsPerUpdate * 1000)} µs`, '', ''],
    ['per-update wall time, last 10%', `${fmt(r.last10.wallMsPerUpdate * 1000)} µs (${fmt(growth, 2)}×)`, '≤ 1.2×', verdict(growth <= 1.2)],
    [
      '  of which commit, first / last 10%',
      `${fmt(r.first10.commitMsPerUpdate * 1000)} / ${fmt(r.last10.commitMsPerUpdate * 1000)} µs (${fmt(commitGrowth, 2)}×)`,
      '',
      '',
    ],
    [
      'database bytes per update',
      fmt(r.databaseBytesPerUpdate),
      `≤ input ${fmt(r.inputBytesPerUpdate)}`,
      verdict(r.databaseBytesPerUpdate <= r.inputBytesPerUpdate),
    ],
    [
      'worker peak RSS',
      `${mb(r.peakRssBytes)} (at 10/50/90%: ${r.rssAlong.map(mb).join(', ')})`,
      '≤ 300 MiB',
      verdict(r.peakRssBytes <= 300 * 2 ** 20),
    ],
    [
      'worker CPU time',
      `${fmt(r.cpuSeconds, 1)} s of ${fmt(r.seconds, 1)} s (${fmt((r.cpuSeconds / r.networkUpdates) * 1e6)} µs per update)`,
      '≤ 250 µs per update (issue #27)',
      verdict((r.cpuSeconds / r.networkUpdates) * 1e6 <= 250),
    ],
  ];
  const widths = [0, 1, 2].map((c) => Math.max(...rows.map((row) => row[c]!.length)));
  const lines = rows.map((row) =>
    `  ${row[0].padEnd(widths[0]!)}  ${row[1].padEnd(widths[1]!)}  ${row[2].padEnd(widths[2]!)}  ${row[3]}`.trimEnd(),
  );
  const tables = Object.entries(r.tableBytes)
    .filter(([, bytes]) => bytes > 1 << 20)
    .map(([t, bytes]) => `${t} ${fmt(bytes / r.networkUpdates)}`)
    .join(', ');
  return [`ingest on ${server}:`, ...lines, `  bytes per update by table: ${tables}`].join('\n');
}
