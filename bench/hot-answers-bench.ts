/**
 * The hot-answers benchmark (issue #27, "Hot answers"): what every validator polls, served by the
 * API server (`node dist/src/cli.js serve`, a child process, LOG_LEVEL=warn) from its answer cache,
 * each operation beside a bare Express server sending the same bytes (bench/hot-baseline-server.ts,
 * its own child process) in the same run, under the same load: autocannon, 50 connections, for a
 * few seconds, the baseline first, then the API. For each operation it prints requests per second
 * and p99 latency against the baseline's (goals: ≥ 0.8× and ≤ 1.2×), and the CPU time each server
 * spent per request (a steadier figure than throughput on a shared machine), and how many requests
 * shared one reading of the answer versions.
 *
 * The data: a simulated network (the simulator source in backfill mode, through the real worker) in
 * an empty database. Alone: `node dist/bench/hot-answers-bench.js [--quick|--tiny]` against
 * DATABASE_URL (a database scan_indexer_hotbench_<pid> is created there and dropped) or, when unset,
 * an embedded PostgreSQL. From code: runHotAnswersBench({ databaseUrl, scale, log }).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSimulatorSource } from '../src/ingest/sources/simulator-source';
import { runWorker } from '../src/ingest/worker';
import { loadConfig } from '../src/internal/config';
import { adminAuthorization } from './support/admin-token';
import { createLogger } from '../src/internal/logger';
import { ensureDatabase, freePort, startEmbeddedPostgres } from '../src/store/embedded-postgres';
import { migrate } from '../src/store/migrator';
import { createDb, createPool } from '../src/store/pool';
import type { BaselineRoute } from './hot-baseline-server';
import { BENCH_LIMITS } from './support/bench-limits';
import { CLI_SCRIPT } from './support/cli-child';

type HotScale = 'full' | 'quick' | 'tiny';

export interface HotAnswersOptions {
  /** An empty database; the benchmark migrates it and fills it. */
  databaseUrl: string;
  scale: HotScale;
  log: (line: string) => void;
  /** Another build's CLI (its dist/src/cli.js), served beside this one over the same data and measured in turn: before and after in one run. */
  otherCli?: string;
}

interface Side {
  rps: number;
  p99: number;
  p50: number;
  /** Server CPU time per request, µs. */
  cpuMicros: number;
  bytes: number;
  requests: number;
  failures: number;
}

interface HotAnswerRow {
  operation: string;
  /** Bytes of the answer's body. */
  bodyBytes: number;
  api: Side;
  baseline: Side;
  /** Requests per reading of the answer versions (API). */
  requestsPerReading: number;
  /** The other build's API (--other-cli), measured right after this one's. */
  other?: Side;
}

export interface HotAnswersReport {
  scale: HotScale;
  updates: number;
  connections: number;
  seconds: number | undefined;
  loadavg: { start: number[]; end: number[] };
  rows: HotAnswerRow[];
  /**
   * Operations whose API run had failed or non-2xx requests (a refusal such as 429 is cheap and fast):
   * their figures do not measure answers, so their goals count as not met and the run as failed.
   */
  failed: string[];
}

const CONNECTIONS = 50;
const LOAD: Record<HotScale, { seconds: number } | { amount: number }> = {
  full: { seconds: 5 },
  quick: { seconds: 3 },
  tiny: { amount: 500 },
};
const WARM_UP: Record<HotScale, { seconds: number } | { amount: number }> = {
  full: { seconds: 2 },
  quick: { seconds: 1 },
  tiny: { amount: 200 },
};
const UPDATES: Record<HotScale, number> = { full: 3000, quick: 1000, tiny: 300 };
const ADMIN_USER = 'hotbench-admin';
const HS256_SECRET = 'hotbench-hs256-secret-of-enough-length-0123456789';
const PAGE_TOKEN_SECRET = 'hotbench-page-token-secret-0123456789abcdef';

// ---------------------------------------------------------------------------------------------
// Child processes, load and CPU time

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

interface Child {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function startChild(name: string, script: string, args: string[], env: NodeJS.ProcessEnv, port: number): Promise<Child> {
  const child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  children.add(child);
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString('utf8')).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const stop = async () => {
    if (!exited()) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([gone, sleep(15_000)]);
      if (!exited()) child.kill('SIGKILL');
    }
    children.delete(child);
  };
  for (const deadline = Date.now() + 120_000; ;) {
    if (exited()) throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}): ${stderr.trim()}`);
    try {
      if ((await fetch(`${url}/livez`)).status === 200) return { url, pid: child.pid!, stop };
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

/** CPU time (user + system) of a process so far, µs (from /proc; 0 where there is none). */
function cpuMicrosOf(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
  } catch {
    return 0;
  }
}

interface AutocannonResult {
  requests: { total: number };
  latency: { p50: number; p99: number };
  throughput: { total: number };
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
}
type Autocannon = (opts: Record<string, unknown>) => Promise<AutocannonResult>;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as Autocannon;

interface Operation {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

async function load(server: Child, op: Operation, length: { seconds: number } | { amount: number }): Promise<Side> {
  const cpuBefore = cpuMicrosOf(server.pid);
  const result = await autocannon({
    url: `${server.url}${op.path}`,
    connections: CONNECTIONS,
    ...('seconds' in length ? { duration: length.seconds } : { amount: length.amount }),
    method: op.method,
    headers: { ...(op.body === undefined ? {} : { 'content-type': 'application/json' }), ...op.headers },
    ...(op.body === undefined ? {} : { body: op.body }),
  });
  const total = result.requests.total;
  return {
    rps: total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuMicros: total ? (cpuMicrosOf(server.pid) - cpuBefore) / total : 0,
    bytes: total ? Math.round(result.throughput.total / total) : 0,
    requests: total,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

async function versionReadings(api: Child): Promise<number> {
  const text = await (await fetch(`${api.url}/metrics`)).text();
  const match = /^scan_indexer_api_answer_version_reads_total (\d+)/m.exec(text);
  return match ? Number(match[1]) : 0;
}

// ---------------------------------------------------------------------------------------------
// The benchmark

export async function runHotAnswersBench(options: HotAnswersOptions): Promise<HotAnswersReport> {
  const { scale, log } = options;
  const loadavgStart = os.loadavg();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-indexer-hotbench-'));
  const pool = createPool({ connectionString: options.databaseUrl, max: 4 });
  const db = createDb(pool);
  const running: Child[] = [];
  try {
    await migrate(pool);
    log(`hot answers: ingesting a simulated network of ${UPDATES[scale]} updates`);
    const ingested = await runWorker(
      {
        db,
        pool,
        source: createSimulatorSource({ seed: 27, mode: 'backfill', updates: UPDATES[scale], ratePerSecond: 2, migrations: 1 }),
        logger: createLogger('warn'),
        batchSize: 500,
        batchMaxWaitMs: 1000,
      },
      new AbortController().signal,
    );

    const serve = async (name: string, cli: string) => {
      const port = await freePort();
      const env = {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATABASE_URL: options.databaseUrl,
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'warn',
        PAGE_TOKEN_SECRET,
        LEDGER_AUTH_HS256_SECRET: HS256_SECRET,
        LEDGER_ADMIN_USERS: ADMIN_USER,
        // Without these every client past the default burst got 429 and the figures measured refusals.
        ...BENCH_LIMITS,
      };
      const child = await startChild(name, cli, ['serve'], env, port);
      running.push(child);
      return child;
    };
    const api = await serve('the API server', CLI_SCRIPT);
    const other = options.otherCli === undefined ? undefined : await serve('the other build', options.otherCli);
    const auth = await adminAuthorization(ADMIN_USER, HS256_SECRET);

    // The parties of a transfer-factory request: the SV as sender, the DSO as receiver.
    const dso = (await (await fetch(`${api.url}/api/scan/v0/dso`)).json()) as { sv_party_id: string; dso_party_id: string };
    const factoryBody = JSON.stringify({
      choiceArguments: {
        expectedAdmin: dso.dso_party_id,
        transfer: {
          sender: dso.sv_party_id,
          receiver: dso.dso_party_id,
          amount: '12.5000000000',
          instrumentId: { admin: dso.dso_party_id, id: 'Amulet' },
          requestedAt: '2025-01-01T00:00:00Z',
          executeBefore: '2030-01-01T00:00:00Z',
          inputHoldingCids: [],
          meta: { values: {} },
        },
        extraArgs: { context: { values: {} }, meta: { values: {} } },
      },
      excludeDebugFields: true,
    });
    const scan = '/api/scan/v0';
    const proxy = '/api/validator/v0/scan-proxy';
    const rounds = JSON.stringify({ cached_open_mining_round_contract_ids: [], cached_issuing_round_contract_ids: [] });
    const operations: Operation[] = [
      { name: 'dso-party-id', method: 'GET', path: `${scan}/dso-party-id` },
      { name: 'amulet-rules', method: 'POST', path: `${scan}/amulet-rules`, body: '{}' },
      { name: 'open-and-issuing-mining-rounds', method: 'POST', path: `${scan}/open-and-issuing-mining-rounds`, body: rounds },
      { name: 'dso', method: 'GET', path: `${scan}/dso` },
      { name: 'ans-rules', method: 'POST', path: `${scan}/ans-rules`, body: '{}' },
      { name: 'external-party-amulet-rules', method: 'POST', path: `${scan}/external-party-amulet-rules`, body: '{}' },
      { name: 'transfer-factory', method: 'POST', path: '/registry/transfer-instruction/v1/transfer-factory', body: factoryBody },
      { name: 'proxy dso-party-id', method: 'GET', path: `${proxy}/dso-party-id`, headers: auth },
      { name: 'proxy amulet-rules', method: 'GET', path: `${proxy}/amulet-rules`, headers: auth },
      { name: 'proxy open-and-issuing-mining-rounds', method: 'GET', path: `${proxy}/open-and-issuing-mining-rounds`, headers: auth },
      {
        name: 'proxy transfer-factory',
        method: 'POST',
        path: `${proxy}/registry/transfer-instruction/v1/transfer-factory`,
        body: factoryBody,
        headers: auth,
      },
    ];

    // The bytes of each answer, which the baseline sends.
    const routes: BaselineRoute[] = [];
    for (const op of operations) {
      const res = await fetch(`${api.url}${op.path}`, {
        method: op.method,
        headers: { ...(op.body === undefined ? {} : { 'content-type': 'application/json' }), ...op.headers },
        ...(op.body === undefined ? {} : { body: op.body }),
      });
      const bytes = Buffer.from(await res.arrayBuffer());
      if (res.status !== 200) throw new Error(`${op.name}: HTTP ${res.status} ${bytes.toString('utf8').slice(0, 300)}`);
      routes.push({ method: op.method, path: op.path, body: bytes.toString('base64') });
    }
    const routesFile = path.join(dir, 'routes.json');
    fs.writeFileSync(routesFile, JSON.stringify(routes));
    const basePort = await freePort();
    const baseline = await startChild(
      'the baseline server',
      path.join(__dirname, 'hot-baseline-server.js'),
      [],
      { PATH: process.env.PATH, ROUTES: routesFile, PORT: String(basePort), HOST: '127.0.0.1' },
      basePort,
    );
    running.push(baseline);

    const rows: HotAnswerRow[] = [];
    for (const op of operations) {
      log(`  ${op.name}: ${CONNECTIONS} connections, the baseline then the API`);
      await load(baseline, op, WARM_UP[scale]);
      const base = await load(baseline, op, LOAD[scale]);
      await load(api, op, WARM_UP[scale]);
      const readingsBefore = await versionReadings(api);
      const served = await load(api, op, LOAD[scale]);
      const readings = (await versionReadings(api)) - readingsBefore;
      let otherSide: Side | undefined;
      if (other) {
        await load(other, op, WARM_UP[scale]);
        otherSide = await load(other, op, LOAD[scale]);
      }
      const row: HotAnswerRow = {
        operation: op.name,
        bodyBytes: Buffer.from(routes[rows.length]!.body, 'base64').length,
        api: served,
        baseline: base,
        requestsPerReading: readings > 0 ? served.requests / readings : 0,
        ...(otherSide === undefined ? {} : { other: otherSide }),
      };
      rows.push(row);
      log(`    ${formatRow(row)}`);
    }
    return {
      scale,
      updates: ingested.updates,
      connections: CONNECTIONS,
      seconds: 'seconds' in LOAD[scale] ? LOAD[scale].seconds : undefined,
      loadavg: { start: loadavgStart, end: os.loadavg() },
      rows,
      failed: rows.filter((r) => r.api.failures > 0 || (r.other?.failures ?? 0) > 0).map((r) => r.operation),
    };
  } finally {
    for (const child of running) await child.stop();
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Formatting

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const hotGoals = (row: HotAnswerRow) => ({
  throughput: row.api.rps >= 0.8 * row.baseline.rps && row.api.failures === 0,
  p99: row.api.p99 <= 1.2 * row.baseline.p99 && row.api.failures === 0,
});

function formatRow(row: HotAnswerRow): string {
  const met = hotGoals(row);
  const failures =
    row.api.failures || row.baseline.failures || row.other?.failures
      ? `; FAILED requests: API ${row.api.failures}, baseline ${row.baseline.failures}${row.other ? `, other build ${row.other.failures}` : ''}`
      : '';
  const other = row.other
    ? `; other build: ${fmt(row.other.rps)} req/s (×${(row.other.rps / row.baseline.rps).toFixed(2)}), p99 ${row.other.p99} ms, CPU ${fmt(row.other.cpuMicros)} µs/request`
    : '';
  return (
    `hot ${row.operation} req/s: ${fmt(row.api.rps)} vs ${fmt(row.baseline.rps)} (bare Express, the same ${fmt(row.bodyBytes)} B body), ` +
    `×${(row.api.rps / row.baseline.rps).toFixed(2)}; goal ≥ 0.8× [${met.throughput ? 'met' : 'NOT met'}]; ` +
    `p99 ${row.api.p99} ms vs ${row.baseline.p99} ms, ×${(row.api.p99 / Math.max(row.baseline.p99, 1)).toFixed(2)}; goal ≤ 1.2× [${met.p99 ? 'met' : 'NOT met'}]; ` +
    `CPU ${fmt(row.api.cpuMicros)} µs/request vs ${fmt(row.baseline.cpuMicros)} µs; ${fmt(row.requestsPerReading, 1)} requests per version reading${other}${failures}`
  );
}

export function formatHotAnswersReport(report: HotAnswersReport): string {
  const length = report.seconds === undefined ? 'a fixed number of requests' : `${report.seconds} s`;
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
  const met = report.rows.flatMap((r) => Object.values(hotGoals(r))).filter(Boolean).length;
  return [
    `Hot answers, scale ${report.scale}: ${fmt(report.updates)} simulated updates; ${report.connections} connections × ${length} per operation, ` +
      `the baseline (bare Express sending the same bytes) then the API (LOG_LEVEL=warn, proxy with a token); load average ${load(report.loadavg.start)} at the start, ${load(report.loadavg.end)} at the end`,
    ...report.rows.map(formatRow),
    `${met} of ${report.rows.length * 2} hot-answer goals met.`,
    ...(report.failed.length === 0
      ? []
      : [
          `FAILED: the API answered requests of ${report.failed.join(', ')} with errors or non-2xx statuses; those figures measure no answer.`,
        ]),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Alone: node dist/bench/hot-answers-bench.js [--quick|--tiny] [--other-cli <another build's dist/src/cli.js>]

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const scale: HotScale = args.includes('--tiny') ? 'tiny' : args.includes('--quick') ? 'quick' : 'full';
  const otherAt = args.indexOf('--other-cli');
  const otherCli = otherAt >= 0 ? args[otherAt + 1] : undefined;
  const { databaseUrl } = loadConfig();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-indexer-hotbench-pg-'));
  fs.chmodSync(dir, 0o755);
  const embedded = databaseUrl ? undefined : await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: 0, ephemeral: true });
  const adminUrl = databaseUrl ?? embedded!.url;
  const name = `scan_indexer_hotbench_${process.pid}`;
  try {
    const url = await ensureDatabase(adminUrl, name);
    const report = await runHotAnswersBench({ databaseUrl: url, scale, log: (line) => console.log(line), otherCli });
    console.log(`\n${formatHotAnswersReport(report)}`);
    if (report.failed.length > 0) process.exitCode = 1;
  } finally {
    const admin = createPool({ connectionString: adminUrl, max: 1 });
    await admin
      .query(`drop database if exists ${name} with (force)`)
      .catch((err: unknown) => console.error(`could not drop ${name}:`, err));
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
