/**
 * The read benchmark (issue #11, "Reads at network scale"): builds a data set
 * at network scale through the real writer (bench/read-dataset.ts), runs the
 * API server as a child process (`node dist/src/cli.js serve`) and measures
 * its reads, each beside a baseline from the same run where there is one:
 *
 * - S4, S5, L1 by random update id (of a sample): throughput with autocannon
 *   (50 connections, for a fixed duration) against their fair baseline, a bare
 *   Express + pg server (bench/read-server.ts, FAIR, its own child process) that
 *   reads the same rows with the same statements and sends the bytes the API
 *   sent for them in this run: what the API does on top (inflating, rendering,
 *   its middleware) is what the ratio shows. W1-W4 against a bare server that
 *   looks up a row of about 10 KB by primary key in a table of as many rows as
 *   `updates`;
 * - S1, S2 for 1, 100 and 1,000 owners at the latest snapshot, against the
 *   bare SQL GROUP BY over the same rows; S3 first and last page (page size
 *   1,000); S1 and S3 of a party with a long history; the first unfiltered
 *   page of /v0/state/acs on the large state and on a state with no history:
 *   sequential timed requests, median and p99;
 * - announcing a snapshot (catchUpSnapshots after removing the latest) on a
 *   state of about 10,000 active contracts and on the large one;
 * - `scan-indexer start` on an empty data folder to the first 200 of /livez.
 *
 * Run alone: `node dist/bench/read-bench.js [--quick|--tiny] [--explain]`
 * against DATABASE_URL (a database scan_indexer_readbench_<pid> is created
 * there and dropped) or, when unset, an embedded PostgreSQL in a temporary
 * folder. From code: runReadBench({ databaseUrl, scale, log }) on an empty
 * database, then formatReadBenchReport(report).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import type pg from 'pg';
import { formatDateTime, formatRecordTime, fromPgTimestamp, parseTimestamp, type Micros } from '../src/domain/time';
import { HOLDING_TOTALS_REFRESH_OWNERS_DEFAULT, loadConfig } from '../src/internal/config';
import { adminAuthorization } from './support/admin-token';
import { catchUpSnapshots } from '../src/jobs/acs-snapshots';
import { catchUpHoldingTotals } from '../src/jobs/holding-totals';
import { acsPage, type CreationKey } from '../src/store/acs-repository';
import { ensureDatabase, freePort, startEmbeddedPostgres } from '../src/store/embedded-postgres';
import { earliestOpenRound, holdingsPage, holdingsTotals } from '../src/store/holdings-repository';
import { migrate } from '../src/store/migrator';
import { createDb, createPool, type Db } from '../src/store/pool';
import type { Database } from '../src/store/schema';
import { latestSnapshot } from '../src/store/snapshot-repository';
import { buildDataset, DATASET_SPECS, freshSpec, type DatasetInfo, type DatasetSpec, type Scale } from './read-dataset';
import { BASELINE_TABLE, type FairAnswers } from './read-server';
import { BENCH_LIMITS } from './support/bench-limits';
import { CLI_SCRIPT, spawnCli } from './support/cli-child';
import { contractIdsToLookUp } from '../src/domain/ledger-transaction';
import type { TransactionUpdate } from '../src/domain/items';

// ---------------------------------------------------------------------------------------------
// Report

export interface ReadBenchOptions {
  /** An empty database; the benchmark migrates it and fills it. */
  databaseUrl: string;
  scale: Scale;
  log: (line: string) => void;
  /** LOG_LEVEL of the API server under load (default warn: no per-request log lines, as the baseline has none). */
  apiLogLevel?: string;
}

interface MeasureRow {
  /** Short name, e.g. "S4 req/s". */
  measure: string;
  figure: number;
  unit: 'req/s' | 'ms' | 's';
  baseline?: number;
  /** What the baseline is, e.g. "bare Express + pg". */
  baselineOf?: string;
  /** figure / baseline. */
  ratio?: number;
  /** The goal in words; undefined: reported for information. */
  goal?: string;
  met?: boolean;
  note?: string;
}

export interface ReadBenchReport {
  scale: Scale;
  startedAt: string;
  seconds: number;
  machine: {
    cpus: number;
    model: string;
    node: string;
    postgres: string;
    loadavgStart: number[];
    loadavgEnd: number[];
  };
  dataset: {
    spec: DatasetSpec;
    counts: Record<string, number>;
    buildSeconds: Record<string, number>;
    latestSnapshot: string;
    snapshots: number;
    baselineRows: number;
    /** Average stored and served bytes of an update and of a baseline row. */
    rowBytes: Record<string, number>;
  };
  fresh: { spec: DatasetSpec; counts: Record<string, number>; latestSnapshot: string };
  settings: { connections: number; durationSeconds: number; sequentialRequests: number; pageSize: number; apiLogLevel: string };
  measures: MeasureRow[];
  /** explain (analyze, buffers) of the SQL behind some measures, by name. */
  plans: Record<string, string>;
}

// ---------------------------------------------------------------------------------------------
// Settings per scale

const DURATION: Record<Scale, number> = { full: 20, quick: 3, tiny: 1 };
/** Warm-up before each load: seconds, or (tiny, a CI smoke test) a number of requests. */
const WARM_UP: Record<Scale, { seconds: number } | { amount: number }> = {
  full: { seconds: 3 },
  quick: { seconds: 2 },
  tiny: { amount: 250 },
};
const CONNECTIONS = 50;
const SEQUENTIAL: Record<Scale, number> = { full: 30, quick: 20, tiny: 10 };
/** Updates whose answers the fair baselines of S4, S5 and L1 hold (and the loads of both sides ask for). */
const FAIR_SAMPLE: Record<Scale, number> = { full: 500, quick: 200, tiny: 50 };
const PAGE_SIZE = 1000;
const FRESH_ACTIVE = 10_000;
const ANNOUNCE_REPEATS = 10;
const ADMIN_USER = 'readbench-admin';
const HS256_SECRET = 'readbench-hs256-secret-of-enough-length-0123456789';
const PAGE_TOKEN_SECRET = 'readbench-page-token-secret-0123456789abcdef';

// ---------------------------------------------------------------------------------------------
// Child processes and HTTP

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

interface HttpResult {
  status: number;
  body: string;
}

const newAgent = () => new http.Agent({ keepAlive: true, maxSockets: 4 });
let agent = newAgent();

function request(
  base: string,
  method: string,
  pathname: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${pathname}`,
      {
        method,
        agent,
        headers: {
          ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface RunningChild {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Starts `node <script> <args>` and waits until GET `readyPath` answers 200. */
async function startChild(
  name: string,
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  port: number,
  readyPath: string,
): Promise<RunningChild> {
  const child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  children.add(child);
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString('utf8')).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (!(await waitForExit(child, 0))) {
      child.kill('SIGTERM');
      if (!(await waitForExit(child, 15_000))) {
        child.kill('SIGKILL');
        await waitForExit(child, 5_000);
      }
    }
    children.delete(child);
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}): ${stderr.trim()}`);
    try {
      if ((await request(url, 'GET', readyPath)).status === 200) return { url, child, stop };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${name} did not become ready in 120 s: ${stderr.trim()}`);
    }
    await sleep(50);
  }
}

/** The service's environment for `serve` against `databaseUrl` (the bench's own environment is not passed on). */
function apiEnv(databaseUrl: string, port: number, logLevel: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATABASE_URL: databaseUrl,
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: logLevel,
    PAGE_TOKEN_SECRET,
    LEDGER_AUTH_HS256_SECRET: HS256_SECRET,
    LEDGER_ADMIN_USERS: ADMIN_USER,
    ...BENCH_LIMITS,
  };
}

const serverScript = () => path.join(__dirname, 'read-server.js');

// ---------------------------------------------------------------------------------------------
// Load (autocannon, programmatic API; the package has no type declarations)

interface Histogram {
  average: number;
  p50: number;
  p99: number;
  total: number;
}
interface AutocannonResult {
  requests: Histogram;
  latency: Histogram;
  throughput: Histogram;
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
}
interface AutocannonRequest {
  method?: string;
  path?: string;
  body?: string;
  headers?: Record<string, string>;
}
type Autocannon = (opts: Record<string, unknown>) => Promise<AutocannonResult>;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as Autocannon;

interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  bytesPerResponse: number;
  requests: number;
  failures: number;
}

async function load(
  url: string,
  length: { seconds: number } | { amount: number },
  method: string,
  next: () => { path: string; body?: string },
  headers: Record<string, string> = {},
): Promise<LoadResult> {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    ...('seconds' in length ? { duration: length.seconds } : { amount: length.amount }),
    method,
    headers: method === 'POST' ? { 'content-type': 'application/json', ...headers } : headers,
    requests: [
      {
        setupRequest: (req: AutocannonRequest) => {
          const n = next();
          req.path = n.path;
          if (n.body !== undefined) req.body = n.body;
          return req;
        },
      },
    ],
  });
  const total = result.requests.total;
  return {
    rps: total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    bytesPerResponse: total ? Math.round(result.throughput.total / total) : 0,
    requests: total,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

// ---------------------------------------------------------------------------------------------
// Sequential timing

interface Timing {
  median: number;
  p99: number;
  samples: number;
}

function stats(ms: number[]): Timing {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  const mid = sorted.length / 2;
  const median = sorted.length % 2 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, p99: at(0.99), samples: sorted.length };
}

async function timeSequential(run: () => Promise<void>, repeats: number, warmUp = 3): Promise<Timing> {
  for (let i = 0; i < warmUp; i++) await run();
  const ms: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const start = process.hrtime.bigint();
    await run();
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return stats(ms);
}

async function expectOk(res: Promise<HttpResult>, what: string): Promise<HttpResult> {
  const r = await res;
  if (r.status !== 200) throw new Error(`${what}: HTTP ${r.status} ${r.body.slice(0, 300)}`);
  return r;
}

// ---------------------------------------------------------------------------------------------
// Query plans of the application's own SQL (captured through a Kysely that logs its queries)

async function explainCalls(pool: pg.Pool, call: (db: Db) => Promise<unknown>): Promise<string> {
  const captured: CompiledQuery[] = [];
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => {
      if (event.level === 'query') captured.push(event.query);
    },
  });
  await call(db);
  const out: string[] = [];
  for (const q of captured) {
    const { rows } = await pool.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${q.sql}`, q.parameters as unknown[]);
    // Long party lists are cut: the plan's shape is what matters.
    const plan = rows.map((r) =>
      r['QUERY PLAN'].replace(/'\{[^}]{120,}\}'/g, (m) => `'{${m.slice(2, 60)}… ${m.split(',').length} items}'`),
    );
    out.push(`-- ${q.sql.replace(/\s+/g, ' ').slice(0, 160)}…\n${plan.join('\n')}`);
  }
  return out.join('\n\n');
}

// ---------------------------------------------------------------------------------------------
// Helpers

/** A seeded pick of `n` distinct owners. */
function pickOwners(owners: string[], n: number, seed: number): string[] {
  let a = seed >>> 0;
  const rand = () => {
    a = (Math.imul(a ^ (a >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return a / 4294967296;
  };
  const copy = [...owners];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, Math.min(n, copy.length));
}

const fmt = (n: number) => n.toLocaleString('en-US');

async function dropDatabase(pool: pg.Pool, name: string): Promise<void> {
  await pool.query(`drop database if exists "${name.replace(/"/g, '""')}" with (force)`);
}

interface AnnouncementTimings {
  /** catchUpSnapshots: what ingestion waits for. */
  announce: Timing;
  /** Then catchUpHoldingTotals: the snapshot's holdings totals, which the worker's job derives beside ingestion. */
  totals: Timing;
}

/**
 * Times the announcement of the latest snapshot (it is removed, then catchUpSnapshots takes it again),
 * then the derivation of its holdings totals, each apart.
 */
async function timeAnnouncement(db: Db, pool: pg.Pool, migrationId: number): Promise<AnnouncementTimings> {
  const announce: number[] = [];
  const totals: number[] = [];
  for (let i = 0; i < ANNOUNCE_REPEATS + 1; i++) {
    const latest = await latestSnapshot(db, migrationId);
    if (!latest) throw new Error('no snapshot to announce again');
    // The snapshot as if never taken: its row and the holdings totals written with it.
    const at = [migrationId, formatRecordTime(latest.recordTime)];
    for (const table of ['holding_totals', 'holding_totals_snapshots', 'supply_totals', 'acs_snapshots']) {
      await pool.query(`delete from ${table} where migration_id = $1 and record_time = $2`, at);
    }
    let start = process.hrtime.bigint();
    const { taken } = await catchUpSnapshots(db);
    const announced = Number(process.hrtime.bigint() - start) / 1e6;
    if (taken.length !== 1) throw new Error(`expected one snapshot announced, got ${taken.length}`);
    start = process.hrtime.bigint();
    const derived = await catchUpHoldingTotals(db, HOLDING_TOTALS_REFRESH_OWNERS_DEFAULT);
    const derivedMs = Number(process.hrtime.bigint() - start) / 1e6;
    if (derived !== 1) throw new Error(`expected the totals of one snapshot derived, got ${derived}`);
    // The first is a warm-up.
    if (i > 0) {
      announce.push(announced);
      totals.push(derivedMs);
    }
  }
  return { announce: stats(announce), totals: stats(totals) };
}

/** `scan-indexer start` on an empty data folder, to the first 200 of /livez; the service is stopped again. */
async function timeColdStart(log: (line: string) => void): Promise<{ seconds: number; note: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-indexer-readbench-start-'));
  fs.chmodSync(dir, 0o755);
  const dataDir = path.join(dir, 'postgres');
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    EMBEDDED_PG_DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
  };
  delete env.DATABASE_URL;
  delete env.EMBEDDED_PG_PORT;
  const start = process.hrtime.bigint();
  const child = spawnCli(['start'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  children.add(child);
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString('utf8')).slice(-4000);
  });
  let seconds: number | undefined;
  try {
    while (seconds === undefined) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`scan-indexer start exited: ${stderr.trim()}`);
      try {
        if ((await request(`http://127.0.0.1:${port}`, 'GET', '/livez')).status === 200)
          seconds = Number(process.hrtime.bigint() - start) / 1e9;
      } catch {
        // not listening yet
      }
      if (seconds === undefined) {
        if (Number(process.hrtime.bigint() - start) / 1e9 > 120) throw new Error(`no 200 from /livez in 120 s: ${stderr.trim()}`);
        await sleep(20);
      }
    }
    return { seconds, note: 'initdb, migrations, worker start included' };
  } finally {
    child.kill('SIGINT');
    if (!(await waitForExit(child, 30_000))) {
      log('  scan-indexer start did not stop on SIGINT in 30 s: killing it and its PostgreSQL');
      child.kill('SIGKILL');
      await waitForExit(child, 5_000);
      const pidFile = path.join(dataDir, 'postmaster.pid');
      if (fs.existsSync(pidFile)) {
        const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
        if (Number.isInteger(pid) && pid > 0) {
          try {
            process.kill(pid, 'SIGINT');
          } catch {
            // gone already
          }
          await sleep(2000);
        }
      }
    }
    children.delete(child);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// The benchmark

/** What the measured groups of one run share. */
interface Run {
  options: ReadBenchOptions;
  scale: Scale;
  log: (line: string) => void;
  apiLogLevel: string;
  /** Seconds of each load. */
  duration: number;
  /** Times `work` over SEQUENTIAL[scale] sequential requests. */
  sequential: (work: () => Promise<void>) => Promise<Timing>;
  /** Adds a row to the report and prints it. */
  add: (row: MeasureRow) => void;
  plans: Record<string, string>;
  pool: pg.Pool;
  db: Db;
  /** Children started and not yet stopped: stopped at the end whatever happens. */
  running: RunningChild[];
  /** Bytes of the last answer of each request made by `scan`, for the notes. */
  bytes: Record<string, number>;
  /** Databases created by the run, dropped at its end. */
  created: string[];
}

/** The large data set, as the groups ask about it. */
interface LargeState {
  info: DatasetInfo;
  migrationId: number;
  at: Micros;
  recordTime: string;
  ids: string[];
  randomId: () => string;
}

/** The API server under test, and what its requests need. */
interface Api {
  child: RunningChild;
  url: string;
  auth: Record<string, string>;
  /** The activity view's newest page (W3), on the busiest synchronizer. */
  newestPage: string;
}

type Next = () => { path: string; body?: string };

const l1Body = (updateId: string) =>
  JSON.stringify({
    updateId,
    transactionFormat: {
      eventFormat: {
        filtersForAnyParty: { cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } }] },
        verbose: true,
      },
      transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
    },
  });

const snapshotRequest = (large: LargeState) => ({
  migration_id: large.migrationId,
  record_time: large.recordTime,
  record_time_match: 'exact',
});

/** A POST to `/api/scan<p>` that must answer 200; the bytes of its answer are kept under `what`. */
const scanRequest = (run: Run, api: Api) => (p: string, body: unknown, what: string) => async () => {
  run.bytes[what] = Buffer.byteLength((await expectOk(request(api.url, 'POST', `/api/scan${p}`, body), what)).body);
};

async function stopChild(run: Run, child: RunningChild): Promise<void> {
  await child.stop();
  run.running.splice(run.running.indexOf(child), 1);
}

export async function runReadBench(options: ReadBenchOptions): Promise<ReadBenchReport> {
  const { scale, log } = options;
  const started = Date.now();
  const loadavgStart = os.loadavg();
  const measures: MeasureRow[] = [];
  const pool = createPool({ connectionString: options.databaseUrl, max: 4 });
  const run: Run = {
    options,
    scale,
    log,
    apiLogLevel: options.apiLogLevel ?? 'warn',
    duration: DURATION[scale],
    sequential: (work) => timeSequential(work, SEQUENTIAL[scale]),
    add: (row) => {
      measures.push(row);
      log(`  ${formatRow(row)}`);
    },
    plans: {},
    pool,
    db: createDb(pool),
    running: [],
    bytes: {},
    created: [],
  };
  try {
    const postgres = (await pool.query<{ v: string }>(`select current_setting('server_version') as v`)).rows[0]!.v;
    await migrate(pool);
    const large = await buildLargeState(run);
    const baselineTable = await fillBaselineTable(run, large);
    const bare = await measureBareServer(run, large);
    const api = await startApi(run, large);
    const fair = await measureFairBaselines(run, large, api);
    await measureThroughput(run, api, fair, bare);
    const thousand = await measureHoldingsSummaries(run, large, api);
    await measureHoldingsPages(run, large, api, thousand);
    await measureHeavyParty(run, large, api);
    const acsLarge = await measureLargeAcs(run, large, api);
    await stopChild(run, api.child);
    const announceLarge = await announceOnLargeState(run, large);
    const fresh = await compareWithFreshState(run, large, { acs: acsLarge, announce: announceLarge });
    await measureColdStart(run);

    await pool.query(`drop table if exists ${BASELINE_TABLE}`);
    return {
      scale,
      startedAt: new Date(started).toISOString(),
      seconds: (Date.now() - started) / 1000,
      machine: {
        cpus: os.cpus().length,
        model: os.cpus()[0]?.model ?? 'unknown',
        node: process.version,
        postgres,
        loadavgStart,
        loadavgEnd: os.loadavg(),
      },
      dataset: {
        spec: DATASET_SPECS[scale],
        counts: large.info.counts,
        buildSeconds: large.info.seconds,
        latestSnapshot: large.recordTime,
        snapshots: large.info.snapshots,
        baselineRows: baselineTable.rows,
        rowBytes: baselineTable.rowBytes,
      },
      fresh: { spec: fresh.spec, counts: fresh.info.counts, latestSnapshot: fresh.info.latestSnapshot },
      settings: {
        connections: CONNECTIONS,
        durationSeconds: run.duration,
        sequentialRequests: SEQUENTIAL[scale],
        pageSize: PAGE_SIZE,
        apiLogLevel: run.apiLogLevel,
      },
      measures,
      plans: run.plans,
    };
  } finally {
    for (const child of run.running) await child.stop();
    agent.destroy();
    agent = newAgent();
    for (const name of run.created) await dropDatabase(pool, name).catch((err: unknown) => log(`could not drop ${name}: ${String(err)}`));
    await run.db.destroy();
  }
}

/** The large data set. */
async function buildLargeState(run: Run): Promise<LargeState> {
  const { log } = run;
  const spec = DATASET_SPECS[run.scale];
  log(
    `building the ${run.scale} data set (${fmt(spec.activeAmulets)} live amulets of ${fmt(spec.owners)} owners, ${fmt(spec.historyAmulets)} archived, ` +
      `a party with ${fmt(spec.heavyArchived)} archived and ${fmt(spec.heavyLive)} live, after ${fmt(spec.simulatorUpdates)} simulated updates)`,
  );
  const info: DatasetInfo = await buildDataset(run.db, run.pool, spec, log);
  log(`  ${JSON.stringify(info.counts)}`);
  const at = fromPgTimestamp(info.latestSnapshot);
  if (info.updateIdSample.length === 0) throw new Error('no simulated transaction to look up');
  const ids = info.updateIdSample;
  return {
    info,
    migrationId: info.migrationId,
    at,
    recordTime: formatDateTime(at),
    ids,
    randomId: () => ids[Math.floor(Math.random() * ids.length)]!,
  };
}

/** The baseline table: as many rows as updates, each about 10 KB of JSON-like text. */
async function fillBaselineTable(run: Run, large: LargeState): Promise<{ rows: number; rowBytes: Record<string, number> }> {
  const { pool } = run;
  run.log('filling the baseline table');
  await pool.query(`drop table if exists ${BASELINE_TABLE}`);
  await pool.query(`create table ${BASELINE_TABLE} (id text primary key, body text not null)`);
  await pool.query(
    `insert into ${BASELINE_TABLE} (id, body)
     select u.update_id, '{"update_id":"' || u.update_id || '","events":[' || (
       select string_agg(format('{"event_id":"%s:%s","contract_id":"00%s%sca101220","template_id":"59bbbe2b17f520fa:Splice.Amulet:Amulet","create_arguments":{"owner":"party-%s::1220%s","amount":{"initialAmount":"%s"}}}',
                         u.update_id, g, md5(u.update_id || g), md5(g || u.update_id), g, md5(g::text), round((random() * 1e6)::numeric, 10)), ',')
       from generate_series(1, 28) g) || ']}'
     from updates u`,
  );
  await pool.query(`vacuum analyze ${BASELINE_TABLE}`);
  const sizes = (
    await pool.query<Record<string, string>>(
      `select (select count(*) from ${BASELINE_TABLE})::text as rows,
              (select avg(pg_column_size(body))::int from ${BASELINE_TABLE})::text as baseline_stored,
              (select avg(octet_length(body))::int from ${BASELINE_TABLE})::text as baseline_served,
              (select avg(pg_column_size(payload))::int from updates where update_id = any($1::text[]))::text as update_stored,
              (select avg(payload_compact_length)::int from updates where update_id = any($1::text[]))::text as update_compact_json`,
      [large.ids],
    )
  ).rows[0]!;
  const rowBytes = Object.fromEntries(
    Object.entries(sizes)
      .filter(([k]) => k !== 'rows')
      .map(([k, v]) => [k, Number(v)]),
  );
  return { rows: Number(sizes.rows), rowBytes };
}

/** Throughput of the bare server: GET and POST by primary key. */
async function measureBareServer(run: Run, large: LargeState): Promise<{ get: LoadResult; post: LoadResult }> {
  const { scale, duration } = run;
  run.log(`baseline server: GET and POST by primary key, ${CONNECTIONS} connections, ${duration} s each`);
  const basePort = await freePort();
  const base = await startChild(
    'the baseline server',
    serverScript(),
    [],
    { PATH: process.env.PATH, DATABASE_URL: run.options.databaseUrl, PORT: String(basePort), HOST: '127.0.0.1' },
    basePort,
    '/livez',
  );
  run.running.push(base);
  await expectOk(request(base.url, 'GET', `/rows/${large.ids[0]}`), 'baseline GET');
  const baseGetNext = () => ({ path: `/rows/${large.randomId()}` });
  const basePostNext = () => ({ path: '/rows', body: JSON.stringify({ id: large.randomId() }) });
  await load(base.url, WARM_UP[scale], 'GET', baseGetNext);
  const get = await load(base.url, { seconds: duration }, 'GET', baseGetNext);
  await load(base.url, WARM_UP[scale], 'POST', basePostNext);
  const post = await load(base.url, { seconds: duration }, 'POST', basePostNext);
  await stopChild(run, base);
  return { get, post };
}

/** The API server, checked on each request the measures make. */
async function startApi(run: Run, large: LargeState): Promise<Api> {
  const { ids, migrationId } = large;
  run.log(`API server (serve, LOG_LEVEL=${run.apiLogLevel})`);
  const apiPort = await freePort();
  const api = await startChild(
    'the API server',
    CLI_SCRIPT,
    ['serve'],
    apiEnv(run.options.databaseUrl, apiPort, run.apiLogLevel),
    apiPort,
    '/readyz',
  );
  run.running.push(api);
  const auth = await adminAuthorization(ADMIN_USER, HS256_SECRET);
  await expectOk(request(api.url, 'GET', `/api/scan/v2/updates/${ids[0]}`), 'S4');
  await expectOk(request(api.url, 'GET', `/api/scan/v0/events/${ids[0]}`), 'S5');
  await expectOk(request(api.url, 'POST', '/v2/updates/transaction-by-id', l1Body(ids[0]!), auth), 'L1');
  // What an open web UI page polls: the activity view's newest page (per synchronizer), its
  // updates per hour, the snapshot list, and the indexer view's status.
  const ranges = JSON.parse(
    (
      await expectOk(
        request(api.url, 'POST', '/api/scan/v0/backfilling/migration-info', JSON.stringify({ migration_id: migrationId })),
        'W3',
      )
    ).body,
  ) as { record_time_range: { synchronizer_id: string; max: string }[] };
  const busiest = [...ranges.record_time_range].sort((a, b) => (a.max < b.max ? 1 : -1))[0]!.synchronizer_id;
  const newestPage = JSON.stringify({
    migration_id: migrationId,
    synchronizer_id: busiest,
    before: '9999-12-31T23:59:59.999999Z',
    count: 20,
    daml_value_encoding: 'compact_json',
  });
  return { child: api, url: api.url, auth, newestPage };
}

type FairId = 'S4' | 'S5' | 'L1';

/**
 * The fair baselines of S4, S5 and L1: the rows the API reads, read the same way, and the bytes it
 * sent for them in this run, sent as they are (bench/read-server.ts, FAIR).
 */
async function measureFairBaselines(
  run: Run,
  large: LargeState,
  api: Api,
): Promise<{ ids: string[]; baseline: Partial<Record<FairId, LoadResult>> }> {
  const { scale, duration } = run;
  const fairIds = large.ids.slice(0, FAIR_SAMPLE[scale]);
  run.log(
    `fair baselines of S4, S5 and L1: the API's answers for ${fairIds.length} updates, then ${CONNECTIONS} connections, ${duration} s each`,
  );
  const fairAnswers: Record<string, FairAnswers> = {};
  for (const id of fairIds) {
    const s4 = (await expectOk(request(api.url, 'GET', `/api/scan/v2/updates/${id}`), 'S4')).body;
    const s5 = (await expectOk(request(api.url, 'GET', `/api/scan/v0/events/${id}`), 'S5')).body;
    const l1 = (await expectOk(request(api.url, 'POST', '/v2/updates/transaction-by-id', l1Body(id), api.auth), 'L1')).body;
    const update = JSON.parse(s4) as TransactionUpdate;
    const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
    fairAnswers[id] = {
      s4: b64(s4),
      s5: b64(s5),
      l1: b64(l1),
      migrationId: update.migration_id,
      contractIds: contractIdsToLookUp(update),
    };
  }
  const fairDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-indexer-readbench-fair-'));
  const fairFile = path.join(fairDir, 'answers.json');
  fs.writeFileSync(fairFile, JSON.stringify(fairAnswers));
  const fairPort = await freePort();
  const fairServer = await startChild(
    'the fair baseline server',
    serverScript(),
    [],
    { PATH: process.env.PATH, DATABASE_URL: run.options.databaseUrl, PORT: String(fairPort), HOST: '127.0.0.1', FAIR: fairFile },
    fairPort,
    '/livez',
  );
  run.running.push(fairServer);
  const fairId = () => fairIds[Math.floor(Math.random() * fairIds.length)]!;
  const fairLoads: Record<FairId, [string, Next]> = {
    S4: ['GET', () => ({ path: `/fair/s4/${fairId()}` })],
    S5: ['GET', () => ({ path: `/fair/s5/${fairId()}` })],
    L1: ['POST', () => ({ path: '/fair/l1', body: JSON.stringify({ updateId: fairId() }) })],
  };
  const fairBaseline: Partial<Record<FairId, LoadResult>> = {};
  for (const [id, [method, next]] of Object.entries(fairLoads) as [FairId, (typeof fairLoads)['S4']][]) {
    await load(fairServer.url, WARM_UP[scale], method, next);
    fairBaseline[id] = await load(fairServer.url, { seconds: duration }, method, next);
  }
  await stopChild(run, fairServer);
  fs.rmSync(fairDir, { recursive: true, force: true });
  return { ids: fairIds, baseline: fairBaseline };
}

/** Throughput and p99 latency of the API: the point reads against their fair baselines, the web UI's polls against the bare server. */
async function measureThroughput(
  run: Run,
  api: Api,
  fair: { ids: string[]; baseline: Partial<Record<FairId, LoadResult>> },
  bare: { get: LoadResult; post: LoadResult },
): Promise<void> {
  const { scale, duration, add } = run;
  const fairBaseline = fair.baseline;
  const fairId = () => fair.ids[Math.floor(Math.random() * fair.ids.length)]!;
  const throughput: [string, string, string, Next, Record<string, string>, LoadResult][] = [
    ['S4', 'GET /api/scan/v2/updates/{id}', 'GET', () => ({ path: `/api/scan/v2/updates/${fairId()}` }), {}, fairBaseline.S4!],
    ['S5', 'GET /api/scan/v0/events/{id}', 'GET', () => ({ path: `/api/scan/v0/events/${fairId()}` }), {}, fairBaseline.S5!],
    [
      'L1',
      'POST /v2/updates/transaction-by-id',
      'POST',
      () => ({ path: '/v2/updates/transaction-by-id', body: l1Body(fairId()) }),
      api.auth,
      fairBaseline.L1!,
    ],
    [
      'W1',
      'GET /api/indexer/v0/updates-per-hour?hours=168',
      'GET',
      () => ({ path: '/api/indexer/v0/updates-per-hour?hours=168' }),
      {},
      bare.get,
    ],
    ['W2', 'GET /api/indexer/v0/acs-snapshots', 'GET', () => ({ path: '/api/indexer/v0/acs-snapshots' }), {}, bare.get],
    [
      'W3',
      'POST /api/scan/v0/backfilling/updates-before, the newest 20',
      'POST',
      () => ({ path: '/api/scan/v0/backfilling/updates-before', body: api.newestPage }),
      {},
      bare.post,
    ],
    ['W4', 'GET /status', 'GET', () => ({ path: '/status' }), {}, bare.get],
  ];
  for (const [id, what, method, next, headers, baseline] of throughput) {
    run.log(`${id} ${what}: ${CONNECTIONS} connections, ${duration} s`);
    await load(api.url, WARM_UP[scale], method, next, headers);
    const r = await load(api.url, { seconds: duration }, method, next, headers);
    const failures = r.failures ? `; ${fmt(r.failures)} failed of ${fmt(r.requests)}` : '';
    add({
      measure: `${id} req/s`,
      figure: r.rps,
      unit: 'req/s',
      baseline: baseline.rps,
      baselineOf: id in fairBaseline ? 'bare Express + pg: the same rows read, the same bytes sent' : `bare ${method} by primary key`,
      ratio: r.rps / baseline.rps,
      goal: '≥ 0.8× baseline',
      met: r.rps >= 0.8 * baseline.rps && r.failures === 0,
      note: `${what}; ${fmt(r.bytesPerResponse)} B/response, baseline ${fmt(baseline.bytesPerResponse)} B${failures}`,
    });
    add({
      measure: `${id} p99 latency`,
      figure: r.p99,
      unit: 'ms',
      baseline: baseline.p99,
      baselineOf: 'the bare server under the same load',
      ratio: r.p99 / baseline.p99,
      // On two cores the bare server's own p99 at 50 connections is tens of ms: the point reads are held to their fair baseline's.
      goal: id in fairBaseline ? '≤ 1.2× baseline p99' : '≤ 20 ms',
      met: (id in fairBaseline ? r.p99 <= 1.2 * baseline.p99 : r.p99 <= 20) && r.failures === 0,
      note: `median ${r.p50} ms, baseline median ${baseline.p50} ms, at ${CONNECTIONS} connections`,
    });
  }
}

/** Holdings summaries (S1, S2) of 1, 100 and 1,000 parties against bare SQL. Returns the 1,000 owners. */
async function measureHoldingsSummaries(run: Run, large: LargeState, api: Api): Promise<string[]> {
  const { pool, plans, add } = run;
  const { info, migrationId, at } = large;
  const scan = scanRequest(run, api);
  const bareSql = `select amulet_owner,
         coalesce(sum(amulet_initial_amount) filter (where not amulet_locked), 0) as unlocked,
         coalesce(sum(amulet_initial_amount) filter (where amulet_locked), 0) as locked
    from contracts
    where migration_id = $1 and amulet_owner = any($2::text[])
      and created_record_time <= $3::timestamptz and archived_record_time > $3::timestamptz
      and archived_record_time > created_slot
    group by amulet_owner`;
  const partySets = [1, 100, 1000].map((n) => ({ n, owners: pickOwners(info.owners, n, n) }));
  for (const { n, owners } of partySets) {
    const label = owners.length === n ? `${fmt(n)}` : `${fmt(n)} (${owners.length} exist)`;
    run.log(`S1/S2 for ${label} parties: ${SEQUENTIAL[run.scale]} sequential requests each`);
    const bare = await run.sequential(async () => {
      await pool.query(bareSql, [migrationId, owners, info.latestSnapshot]);
    });
    for (const [id, p] of [
      ['S1', '/v0/holdings/summary'],
      ['S2', '/v1/holdings/summary'],
    ] as const) {
      const t = await run.sequential(scan(p, { ...snapshotRequest(large), owner_party_ids: owners }, id));
      const ratio = t.median / bare.median;
      const goal = n === 1000 ? '≤ 50 ms median and ≤ 1.5× bare SQL' : undefined;
      add({
        measure: `${id} ${label} parties, median`,
        figure: t.median,
        unit: 'ms',
        baseline: bare.median,
        baselineOf: 'bare SQL GROUP BY',
        ratio,
        goal,
        met: goal ? t.median <= 50 && ratio <= 1.5 : undefined,
        note: `p99 ${t.p99.toFixed(1)} ms, bare SQL p99 ${bare.p99.toFixed(1)} ms`,
      });
    }
  }
  const thousand = partySets[2]!.owners;
  plans['S1/S2 holdingsTotals, 1,000 parties'] = await explainCalls(pool, async (d) => {
    await holdingsTotals(d, migrationId, at, [...thousand].sort(), (await earliestOpenRound(d)) ?? 0n);
  });
  plans['bare SQL GROUP BY, 1,000 parties'] = (
    await pool.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${bareSql}`, [migrationId, thousand, info.latestSnapshot])
  ).rows
    .map((r) => r['QUERY PLAN'].replace(/'\{[^}]{120,}\}'/g, (m) => `'{${m.slice(2, 60)}… ${m.split(',').length} items}'`))
    .join('\n');
  return thousand;
}

/** A holdings page request (S3) of these owners. */
const s3Request = (large: LargeState, owners: string[], after?: string) => ({
  ...snapshotRequest(large),
  page_size: PAGE_SIZE,
  owner_party_ids: owners,
  ...(after ? { after } : {}),
});

/** Holdings pages (S3) of 1,000 owners: the last page and the deepest full one against the first. */
async function measureHoldingsPages(run: Run, large: LargeState, api: Api, thousand: string[]): Promise<void> {
  const { pool, plans, add, bytes } = run;
  const { migrationId, at } = large;
  const scan = scanRequest(run, api);
  const s3 = (owners: string[], after?: string) => s3Request(large, owners, after);
  run.log(`S3 pages of ${fmt(thousand.length)} owners, page size ${PAGE_SIZE}`);
  type Page = { created_events: { contract_id: string; created_at: string }[]; next_page_token: string | null };
  const tokens: (string | undefined)[] = [undefined];
  let lastPageAfter: CreationKey | undefined;
  let contractsPaged = 0;
  for (;;) {
    const page = JSON.parse(
      (await expectOk(request(api.url, 'POST', '/api/scan/v2/holdings/state', s3(thousand, tokens[tokens.length - 1])), 'S3')).body,
    ) as Page;
    contractsPaged += page.created_events.length;
    if (!page.next_page_token) break;
    const last = page.created_events[page.created_events.length - 1]!;
    lastPageAfter = { createdAt: parseTimestamp(last.created_at), contractId: last.contract_id };
    tokens.push(page.next_page_token);
  }
  const first = await run.sequential(scan('/v2/holdings/state', s3(thousand), 'S3 first page'));
  const lastPage = await run.sequential(scan('/v2/holdings/state', s3(thousand, tokens[tokens.length - 1]), 'S3 last page'));
  add({
    measure: `S3 last page (page ${tokens.length}, ${fmt(contractsPaged)} holdings), median`,
    figure: lastPage.median,
    unit: 'ms',
    baseline: first.median,
    baselineOf: 'its first page',
    ratio: lastPage.median / first.median,
    goal: '≤ 2× first page',
    met: lastPage.median <= 2 * first.median,
    note: `${fmt(thousand.length)} owners; p99 ${lastPage.p99.toFixed(1)} ms, first page p99 ${first.p99.toFixed(1)} ms; ${fmt(bytes['S3 last page'] ?? 0)} B vs ${fmt(bytes['S3 first page'] ?? 0)} B`,
  });
  // The last page is usually short: the deepest full page shows the cost of depth alone.
  const fullPages = Math.floor(contractsPaged / PAGE_SIZE);
  if (fullPages > 1 && fullPages < tokens.length) {
    const deepest = await run.sequential(scan('/v2/holdings/state', s3(thousand, tokens[fullPages - 1]), 'S3 deepest full page'));
    add({
      measure: `S3 deepest full page (page ${fullPages}), median`,
      figure: deepest.median,
      unit: 'ms',
      baseline: first.median,
      baselineOf: 'its first page',
      ratio: deepest.median / first.median,
      goal: '≤ 2× first page',
      met: deepest.median <= 2 * first.median,
      note: `p99 ${deepest.p99.toFixed(1)} ms; ${fmt(bytes['S3 deepest full page'] ?? 0)} B`,
    });
  }
  plans['S3 first page, 1,000 owners'] = await explainCalls(pool, (d) =>
    holdingsPage(d, { migrationId, at, after: undefined, limit: PAGE_SIZE, owners: [...thousand].sort() }),
  );
  if (lastPageAfter) {
    const after = lastPageAfter;
    plans['S3 last page, 1,000 owners'] = await explainCalls(pool, (d) =>
      holdingsPage(d, { migrationId, at, after, limit: PAGE_SIZE, owners: [...thousand].sort() }),
    );
  }
}

/** The history-heavy party: S1 and S3 first pages. */
async function measureHeavyParty(run: Run, large: LargeState, api: Api): Promise<void> {
  const { pool, plans, add, bytes } = run;
  const { info, migrationId, at } = large;
  const spec = DATASET_SPECS[run.scale];
  const scan = scanRequest(run, api);
  run.log('the history-heavy party: S1 and S3 first page');
  const heavy = [info.heavyParty];
  const heavyS1 = await run.sequential(scan('/v0/holdings/summary', { ...snapshotRequest(large), owner_party_ids: heavy }, 'S1 heavy'));
  add({
    measure: 'S1 history-heavy party, median',
    figure: heavyS1.median,
    unit: 'ms',
    goal: '≤ 10 ms median',
    met: heavyS1.median <= 10,
    note: `${fmt(spec.heavyArchived)} archived, ${fmt(spec.heavyLive)} live; p99 ${heavyS1.p99.toFixed(1)} ms`,
  });
  const heavyS3 = await run.sequential(scan('/v2/holdings/state', s3Request(large, heavy), 'S3 heavy'));
  add({
    measure: `S3 history-heavy party first page (${fmt(PAGE_SIZE)}), median`,
    figure: heavyS3.median,
    unit: 'ms',
    goal: '≤ 10 ms median',
    met: heavyS3.median <= 10,
    note: `page size ${PAGE_SIZE}; p99 ${heavyS3.p99.toFixed(1)} ms; ${fmt(bytes['S3 heavy'] ?? 0)} B`,
  });
  // The same request with a tenth of the page: what the party's history costs apart from the page's size.
  const heavyS3Small = await run.sequential(
    scan('/v2/holdings/state', { ...s3Request(large, heavy), page_size: PAGE_SIZE / 10 }, 'S3 heavy small'),
  );
  add({
    measure: `S3 history-heavy party first page (${fmt(PAGE_SIZE / 10)}), median`,
    figure: heavyS3Small.median,
    unit: 'ms',
    goal: '≤ 10 ms median',
    met: heavyS3Small.median <= 10,
    note: `page size ${PAGE_SIZE / 10}; p99 ${heavyS3Small.p99.toFixed(1)} ms; ${fmt(bytes['S3 heavy small'] ?? 0)} B`,
  });
  plans['S1 holdingsTotals, history-heavy party'] = await explainCalls(pool, async (d) => {
    await holdingsTotals(d, migrationId, at, heavy, (await earliestOpenRound(d)) ?? 0n);
  });
  plans['S3 first page, history-heavy party'] = await explainCalls(pool, (d) =>
    holdingsPage(d, { migrationId, at, after: undefined, limit: PAGE_SIZE, owners: heavy }),
  );
}

const acsBody = (migrationId: number, t: string) => ({
  migration_id: migrationId,
  record_time: t,
  record_time_match: 'exact',
  page_size: PAGE_SIZE,
});

/** The unfiltered /v0/state/acs first page on the large state (reported against the fresh state's). */
async function measureLargeAcs(run: Run, large: LargeState, api: Api): Promise<Timing> {
  const { migrationId, at } = large;
  run.log('unfiltered /v0/state/acs first page on the large state');
  const acsLarge = await run.sequential(scanRequest(run, api)('/v0/state/acs', acsBody(migrationId, large.recordTime), 'ACS large'));
  run.plans['/v0/state/acs first page, large state'] = await explainCalls(run.pool, (d) =>
    acsPage(d, { migrationId, at, after: undefined, limit: PAGE_SIZE, parties: [], templates: [] }),
  );
  return acsLarge;
}

/** Announcing a snapshot on the large state (reported after the fresh state's). */
async function announceOnLargeState(run: Run, large: LargeState): Promise<AnnouncementTimings> {
  run.log('announcing a snapshot on the large state');
  return timeAnnouncement(run.db, run.pool, large.migrationId);
}

/**
 * A state with no history, in a database of its own: its ACS first page and its announcement, and
 * the large state's against them.
 */
async function compareWithFreshState(
  run: Run,
  large: LargeState,
  largeTimings: { acs: Timing; announce: AnnouncementTimings },
): Promise<{ spec: DatasetSpec; info: DatasetInfo }> {
  const { log, add, bytes } = run;
  const { info } = large;
  const acsLarge = largeTimings.acs;
  const { announce: announceLarge, totals: totalsLarge } = largeTimings.announce;
  log(`a fresh database with ${fmt(FRESH_ACTIVE)} live amulets and no history`);
  const fresh = freshSpec(FRESH_ACTIVE);
  const mainName = decodeURIComponent(new URL(run.options.databaseUrl).pathname.slice(1));
  const freshName = `${mainName}_fresh`.slice(0, 63);
  const freshUrl = await ensureDatabase(run.options.databaseUrl, freshName);
  run.created.push(freshName);
  const freshPool = createPool({ connectionString: freshUrl, max: 4 });
  const freshDb = createDb(freshPool);
  let freshInfo: DatasetInfo;
  let acsFresh: Timing;
  let announceFresh: Timing;
  let totalsFresh: Timing;
  try {
    await migrate(freshPool);
    freshInfo = await buildDataset(freshDb, freshPool, fresh, log);
    const freshAt = formatDateTime(fromPgTimestamp(freshInfo.latestSnapshot));
    const freshPort = await freePort();
    const freshApi = await startChild(
      'the API server (fresh)',
      CLI_SCRIPT,
      ['serve'],
      apiEnv(freshUrl, freshPort, run.apiLogLevel),
      freshPort,
      '/readyz',
    );
    run.running.push(freshApi);
    // The large state's migration id: both data sets are migration 0.
    acsFresh = await run.sequential(async () => {
      bytes['ACS fresh'] = Buffer.byteLength(
        (await expectOk(request(freshApi.url, 'POST', '/api/scan/v0/state/acs', acsBody(large.migrationId, freshAt)), 'ACS fresh')).body,
      );
    });
    await stopChild(run, freshApi);
    ({ announce: announceFresh, totals: totalsFresh } = await timeAnnouncement(freshDb, freshPool, freshInfo.migrationId));
  } finally {
    await freshDb.destroy();
  }
  add({
    measure: '/v0/state/acs first page, large state, median',
    figure: acsLarge.median,
    unit: 'ms',
    baseline: acsFresh.median,
    baselineOf: `a fresh database, ${fmt(freshInfo.counts.activeContracts ?? 0)} live contracts, no history`,
    ratio: acsLarge.median / acsFresh.median,
    goal: '≤ 2× fresh',
    met: acsLarge.median <= 2 * acsFresh.median,
    note: `page size ${PAGE_SIZE}; p99 ${acsLarge.p99.toFixed(1)} ms, fresh p99 ${acsFresh.p99.toFixed(1)} ms; ${fmt(bytes['ACS large'] ?? 0)} B vs ${fmt(bytes['ACS fresh'] ?? 0)} B`,
  });
  add({
    measure: `announce a snapshot, ${fmt(freshInfo.counts.activeContracts ?? 0)} active contracts, median`,
    figure: announceFresh.median,
    unit: 'ms',
    goal: '≤ 100 ms',
    met: announceFresh.p99 <= 100,
    note: `catchUpSnapshots after removing the latest; max of ${announceFresh.samples} ${announceFresh.p99.toFixed(1)} ms`,
  });
  add({
    measure: `announce a snapshot, ${fmt(info.counts.activeContracts ?? 0)} active contracts, median`,
    figure: announceLarge.median,
    unit: 'ms',
    goal: '≤ 100 ms',
    met: announceLarge.p99 <= 100,
    note: `max of ${announceLarge.samples} ${announceLarge.p99.toFixed(1)} ms; all ${info.snapshots} snapshots of the build took ${(info.seconds.snapshots ?? 0).toFixed(1)} s`,
  });
  add({
    measure: `then its holdings totals, ${fmt(freshInfo.counts.activeContracts ?? 0)} and ${fmt(info.counts.activeContracts ?? 0)} active contracts, median`,
    figure: totalsLarge.median,
    unit: 'ms',
    baseline: totalsFresh.median,
    baselineOf: 'the fresh state',
    ratio: totalsLarge.median / totalsFresh.median,
    note: `derived beside ingestion (catchUpHoldingTotals), not announced with it; max ${totalsFresh.p99.toFixed(1)} and ${totalsLarge.p99.toFixed(1)} ms; the build's took ${(info.seconds.holdingTotals ?? 0).toFixed(1)} s`,
  });
  return { spec: fresh, info: freshInfo };
}

/** `scan-indexer start` on an empty data folder, to /livez 200. */
async function measureColdStart(run: Run): Promise<void> {
  run.log('scan-indexer start on an empty data folder');
  const cold = await timeColdStart(run.log);
  run.add({
    measure: 'start on an empty data folder to /livez 200',
    figure: cold.seconds,
    unit: 's',
    goal: '≤ 30 s',
    met: cold.seconds <= 30,
    note: cold.note,
  });
}

// ---------------------------------------------------------------------------------------------
// Formatting

function figureText(value: number | undefined, unit: MeasureRow['unit']): string {
  if (value === undefined) return '–';
  if (unit === 'req/s') return `${fmt(Math.round(value))} req/s`;
  if (unit === 's') return `${value.toFixed(1)} s`;
  return `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`;
}

function formatRow(row: MeasureRow): string {
  const met = row.met === undefined ? '' : row.met ? ' [met]' : ' [NOT met]';
  const base = row.baseline === undefined ? '' : ` vs ${figureText(row.baseline, row.unit)} (${row.baselineOf}), ×${row.ratio?.toFixed(2)}`;
  return `${row.measure}: ${figureText(row.figure, row.unit)}${base}${row.goal ? `; goal ${row.goal}` : ''}${met}`;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** The report as plain text: machine, data set, then one line per measure (with the query plans when asked). */
export function formatReadBenchReport(report: ReadBenchReport, options: { plans?: boolean } = {}): string {
  const m = report.machine;
  const c = report.dataset.counts;
  const s = report.dataset.spec;
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
  const out = [
    `Read benchmark, scale ${report.scale}, ${report.startedAt}, ${report.seconds.toFixed(0)} s`,
    `Machine: ${m.cpus} × ${m.model}; load average ${load(m.loadavgStart)} at the start, ${load(m.loadavgEnd)} at the end; node ${m.node}; PostgreSQL ${m.postgres}`,
    `Data set: ${fmt(c.updates ?? 0)} updates (${fmt(s.simulatorUpdates)} simulated), ${fmt(c.contracts ?? 0)} contracts, ` +
      `${fmt(c.activeAmulets ?? 0)} live amulets (${fmt(s.activeAmulets)} of ${fmt(s.owners)} owners + ${fmt(s.heavyLive)} of the history-heavy party + the simulator's), ` +
      `${fmt(c.archivedAmulets ?? 0)} archived amulets (${fmt(c.archivedAmuletsInSomeSnapshot ?? 0)} in some snapshot: ${fmt(s.historyAmulets)} of the owners + ${fmt(s.heavyArchived)} of the history-heavy party, in addition), ` +
      `${fmt(c.activeContracts ?? 0)} active contracts, ${fmt(c.contractStakeholders ?? 0)} stakeholder rows, ${fmt(report.dataset.snapshots)} snapshots ` +
      `(latest ${report.dataset.latestSnapshot}), ${fmt(c.databaseMegabytes ?? 0)} MB`,
    `Build: ${Object.entries(report.dataset.buildSeconds)
      .map(([k, v]) => `${k} ${v.toFixed(1)} s`)
      .join(', ')}`,
    `Baseline rows: ${fmt(report.dataset.baselineRows)}, ${fmt(report.dataset.rowBytes.baseline_served ?? 0)} B served, ${fmt(report.dataset.rowBytes.baseline_stored ?? 0)} B stored; ` +
      `sampled updates: ${fmt(report.dataset.rowBytes.update_compact_json ?? 0)} B of compact JSON, ${fmt(report.dataset.rowBytes.update_stored ?? 0)} B stored`,
    `Load: ${report.settings.connections} connections × ${report.settings.durationSeconds} s (autocannon, from the bench process); latencies: ${report.settings.sequentialRequests} sequential requests after 3 warm-up; API LOG_LEVEL=${report.settings.apiLogLevel}`,
    '',
    table(
      ['Measure', 'Figure', 'Baseline', 'Ratio', 'Goal', 'Met', 'Notes'],
      report.measures.map((r) => [
        r.measure,
        figureText(r.figure, r.unit),
        r.baseline === undefined ? '–' : figureText(r.baseline, r.unit),
        r.ratio === undefined ? '–' : `${r.ratio.toFixed(2)}×`,
        r.goal ?? '–',
        r.met === undefined ? '–' : r.met ? 'yes' : 'NO',
        [r.baselineOf ? `baseline: ${r.baselineOf}` : '', r.note ?? ''].filter(Boolean).join('; '),
      ]),
    ),
  ];
  const met = report.measures.filter((r) => r.met === true).length;
  const goals = report.measures.filter((r) => r.met !== undefined).length;
  out.push('', `${met} of ${goals} goals met.`);
  if (options.plans) {
    for (const [name, plan] of Object.entries(report.plans)) out.push('', `== ${name}`, plan);
  }
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Alone: node dist/bench/read-bench.js [--quick|--tiny] [--explain]

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const scale: Scale = args.includes('--tiny') ? 'tiny' : args.includes('--quick') ? 'quick' : 'full';
  const { databaseUrl } = loadConfig();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-indexer-readbench-'));
  fs.chmodSync(dir, 0o755);
  const embedded = databaseUrl ? undefined : await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: 0, ephemeral: true });
  const adminUrl = databaseUrl ?? embedded!.url;
  const name = `scan_indexer_readbench_${process.pid}`;
  const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
  try {
    const url = await ensureDatabase(adminUrl, name);
    log(
      `read benchmark at scale ${scale} on ${databaseUrl ? 'DATABASE_URL' : `an embedded PostgreSQL (port ${embedded!.port})`}, database ${name}`,
    );
    const report = await runReadBench({ databaseUrl: url, scale, log });
    console.log(`\n${formatReadBenchReport(report, { plans: args.includes('--explain') })}`);
  } finally {
    const admin = createPool({ connectionString: adminUrl, max: 1 });
    await dropDatabase(admin, name).catch((err: unknown) => console.error(`could not drop ${name}:`, err));
    await admin.end();
    await embedded?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
