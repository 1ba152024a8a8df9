/**
 * The API beside ingestion (`npm run bench -- --only beside`): the service ingesting the simulator
 * in backfill mode (as fast as it is written), first idle, then under concurrent clients asking
 * what wallets and explorers ask (READ_MIX, the reliability suite's load-during-ingest mix), then
 * idle again. The baseline is the idle ingest rate of the same run (the mean of before and after
 * the load, so that a database growing during the run does not favour either side).
 *
 * Each process layout runs a few times, alternating, each on a fresh database:
 * - `start` as configured by default: one process, the API on the main thread and the worker in a
 *   worker thread, the API at nice 5 (API_NICE; Linux only);
 * - `start` with both threads at the same priority (API_NICE=0);
 * - `serve` + `ingest`: two processes, as the Helm chart and docker-compose.yml run them.
 *
 * Figures: the ingest rate under load against idle, requests/s, p50 and p99, errors, and CPU per
 * unit of work (the service's processes, the database's backends, the load generator), which
 * stay meaningful on a busy machine where the rates do not.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import type pg from 'pg';
import { ensureDatabase } from '../src/store/embedded-postgres';
import { createPool } from '../src/store/pool';
import { BENCH_LIMITS } from './support/bench-limits';
import { CLI_SCRIPT, spawnCli } from './support/cli-child';

/** What the clients ask, in turn on each connection: the reliability suite's load-during-ingest mix. */
export const READ_MIX: readonly { method: string; path: string; body?: string; headers?: Record<string, string> }[] = (() => {
  const json = { 'content-type': 'application/json' };
  return [
    {
      method: 'POST',
      path: '/api/scan/v0/open-and-issuing-mining-rounds',
      headers: json,
      body: '{"cached_open_mining_round_contract_ids":[],"cached_issuing_round_contract_ids":[]}',
    },
    { method: 'GET', path: '/api/scan/v0/dso' },
    { method: 'POST', path: '/api/scan/v2/updates', headers: json, body: '{"page_size":50}' },
    { method: 'POST', path: '/api/scan/v0/events', headers: json, body: '{"page_size":50}' },
    { method: 'GET', path: '/api/scan/v0/ans-entries?page_size=50' },
    { method: 'POST', path: '/api/scan/v0/amulet-rules', headers: json, body: '{}' },
    { method: 'GET', path: '/api/scan/v0/state/acs/snapshot-timestamp?before=2100-01-01T00:00:00Z&migration_id=0' },
    { method: 'GET', path: '/api/validator/v0/scan-proxy/open-and-issuing-mining-rounds' },
  ];
})();

/** The simulated network being ingested, and a service that does not rate-limit the clients (all on 127.0.0.1). */
export const BESIDE_ENV: Readonly<Record<string, string>> = {
  SOURCE: 'simulator',
  SIMULATOR_MODE: 'backfill',
  SIMULATOR_RATE: '5',
  SIMULATOR_SEED: '7',
  LEDGER_AUTH_DISABLED: 'true',
  API_CLOCK: 'ledger',
  ...BENCH_LIMITS,
  // The bound stays mounted (as deployed), far above the clients.
  HEAVY_REQUEST_CONCURRENCY: '10000',
};

export interface Layout {
  name: string;
  /** Started in this order, each `scan-indexer <command>` with BESIDE_ENV, the database, and `env`. */
  processes: { command: 'start' | 'serve' | 'ingest'; env?: Record<string, string> }[];
  /** Another build's CLI (dist/src/cli.js), to compare commits in one script; this build's by default. */
  cli?: string;
}

const LAYOUTS: readonly Layout[] = [
  { name: 'start (worker thread, API_NICE=5: the default)', processes: [{ command: 'start' }] },
  { name: 'start, API_NICE=0 (equal priority)', processes: [{ command: 'start', env: { API_NICE: '0' } }] },
  { name: 'serve + ingest processes', processes: [{ command: 'ingest' }, { command: 'serve' }] },
];

export interface BesideSettings {
  connections: number;
  loadSeconds: number;
  /** Each of the two idle windows (before and after the load). */
  idleSeconds: number;
  repeats: number;
}

export const BESIDE_SETTINGS: Record<'full' | 'quick' | 'tiny', BesideSettings> = {
  full: { connections: 50, loadSeconds: 60, idleSeconds: 20, repeats: 3 },
  quick: { connections: 50, loadSeconds: 20, idleSeconds: 10, repeats: 3 },
  tiny: { connections: 10, loadSeconds: 3, idleSeconds: 2, repeats: 1 },
};

/** One run of one layout. */
interface BesideRun {
  layout: string;
  idleItemsPerSecond: number;
  loadItemsPerSecond: number;
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** 5xx, failed connections, timeouts, and answers neither 2xx nor 404. */
  errors: number;
  /** CPU of the service's processes per item while idle, in µs. */
  serviceMicrosPerItemIdle: number | undefined;
  /**
   * Under load, the CPU of the API's main thread (its event loop: routing, SQL results to JSON, HTTP) per
   * request; what V8's and libuv's helper threads do for it is not counted.
   */
  apiThreadMicrosPerRequest: number | undefined;
  /** Cores used (CPU seconds per second), idle and under load: the service, its database backends (when on this machine), the clients. */
  cores: { serviceIdle?: number; serviceLoad?: number; databaseIdle?: number; databaseLoad?: number; clients: number };
  /** The load generator (autocannon, in the bench process) per request. */
  clientMicrosPerRequest: number;
  /** Peak resident memory of the service's processes, summed (Linux: VmHWM), in bytes. */
  peakRssBytes: number | undefined;
  loadAverage: number;
}

export interface BesideReport {
  settings: BesideSettings;
  runs: BesideRun[];
}

// autocannon's programmatic API (the package has no type declarations).
interface AutocannonResult {
  requests: { total: number };
  latency: { p50: number; p99: number };
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  '4xx': number;
  '5xx': number;
  statusCodeStats: Record<string, { count: number }>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (opts: Record<string, unknown>) => Promise<AutocannonResult>;

const TICKS_PER_SECOND = 100;

/**
 * CPU seconds a process (all its threads) has used, or with `thread`, one of its threads (the main
 * thread's id is the process's); undefined where /proc does not say (not Linux, not ours).
 */
function cpuSecondsOf(pid: number, thread?: number): number | undefined {
  try {
    const file = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
    const fields = fs.readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** A process's peak resident memory (VmHWM), in bytes; undefined where /proc does not say. */
function peakRssOf(pid: number): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

interface Progress {
  items: number;
  /** The checkpoint's commit time, in ms (the database's clock). */
  atMs: number;
}

async function progressOf(url: string): Promise<Progress> {
  const res = await fetch(`${url}/status`);
  const status = (await res.json()) as { streams: { items_applied: number; updated_at: string | null }[] };
  return {
    items: status.streams.reduce((n, s) => n + Number(s.items_applied), 0),
    atMs: Math.max(0, ...status.streams.map((s) => (s.updated_at ? Date.parse(s.updated_at) : 0))),
  };
}

/** Items per second between two checkpoints (commit times, not poll times: a batch lands at once). */
const rateBetween = (a: Progress, b: Progress) => (b.atMs > a.atMs ? ((b.items - a.items) * 1000) / (b.atMs - a.atMs) : 0);

interface Started {
  url: string;
  children: ChildProcess[];
  /** The process whose main thread serves the API. */
  apiChild: ChildProcess;
  stop(): Promise<void>;
}

function startProcess(cli: string, command: string, env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawnCli(
    [command],
    {
      env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
    cli,
  );
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /serving at (http:\/\/\S+)/.exec(output);
      if (match?.[1]) {
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve({ url: match[1], child });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('exit', (code) => reject(new Error(`scan-indexer ${command} exited with ${code} before serving:\n${output}`)));
  });
}

async function startLayout(layout: Layout, databaseUrl: string): Promise<Started> {
  const cli = layout.cli ?? CLI_SCRIPT;
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve(null);
            child.once('exit', resolve);
            child.kill('SIGTERM');
          }),
      ),
    );
  };
  let api: { url: string; child: ChildProcess } | undefined;
  try {
    for (const part of layout.processes) {
      const started = await startProcess(cli, part.command, { ...BESIDE_ENV, DATABASE_URL: databaseUrl, ...part.env });
      children.push(started.child);
      if (part.command !== 'ingest') api = started;
    }
    if (!api) throw new Error(`layout ${layout.name} runs no API (start or serve)`);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: api.url, children, apiChild: api.child, stop };
}

async function backendPids(admin: pg.Pool, database: string): Promise<number[]> {
  const { rows } = await admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [database]);
  return rows.map((r) => r.pid);
}

/** CPU seconds used by a set of processes from now to `finish()`; undefined if any could not be read. */
function cpuMeter(pids: () => Promise<number[]>): { finish(): Promise<number | undefined> } {
  const start = pids().then((list) => new Map(list.map((pid) => [pid, cpuSecondsOf(pid)])));
  return {
    async finish() {
      const before = await start;
      let total = 0;
      // Processes that ended during the window lose their share; pools keep their connections, so these are few.
      for (const [pid, was] of before) {
        const now = cpuSecondsOf(pid);
        if (was === undefined) return undefined;
        if (now !== undefined) total += now - was;
      }
      return total;
    },
  };
}

async function runOnce(adminUrl: string, layout: Layout, settings: BesideSettings, log: (line: string) => void): Promise<BesideRun> {
  const name = `scan_indexer_bench_beside_${process.pid}`;
  const admin = createPool({ connectionString: adminUrl, max: 2 });
  try {
    await admin.query(`drop database if exists ${name} with (force)`);
    const databaseUrl = await ensureDatabase(adminUrl, name);
    const service = await startLayout(layout, databaseUrl);
    try {
      const servicePids = () => Promise.resolve(service.children.map((c) => c.pid!));
      const dbPids = () => backendPids(admin, name);
      // Past the genesis and the first snapshot, so that every request has something to read.
      for (let i = 0; i < 600 && (await progressOf(service.url)).items < 500; i++) await new Promise((r) => setTimeout(r, 200));

      const idleWindow = async () => {
        const serviceCpu = cpuMeter(servicePids);
        const dbCpu = cpuMeter(dbPids);
        const a = await progressOf(service.url);
        const started = performance.now();
        await new Promise((r) => setTimeout(r, settings.idleSeconds * 1000));
        const b = await progressOf(service.url);
        const seconds = (performance.now() - started) / 1000;
        return {
          rate: rateBetween(a, b),
          items: b.items - a.items,
          seconds,
          serviceCpu: await serviceCpu.finish(),
          dbCpu: await dbCpu.finish(),
        };
      };
      const before = await idleWindow();

      const serviceCpu = cpuMeter(servicePids);
      const dbCpu = cpuMeter(dbPids);
      const apiPid = service.apiChild.pid!;
      const apiThreadCpu = cpuSecondsOf(apiPid, apiPid);
      const clientCpu = process.cpuUsage();
      const a = await progressOf(service.url);
      const result = await autocannon({
        url: service.url,
        connections: settings.connections,
        duration: settings.loadSeconds,
        requests: READ_MIX,
        timeout: 30,
      });
      const b = await progressOf(service.url);
      const clientUsed = process.cpuUsage(clientCpu);
      const apiThreadNow = cpuSecondsOf(apiPid, apiPid);
      const apiThreadUsed = apiThreadCpu === undefined || apiThreadNow === undefined ? undefined : apiThreadNow - apiThreadCpu;
      const load = {
        rate: rateBetween(a, b),
        items: b.items - a.items,
        seconds: result.duration,
        serviceCpu: await serviceCpu.finish(),
        dbCpu: await dbCpu.finish(),
      };

      const after = await idleWindow();
      const idleRate = (before.rate + after.rate) / 2;
      const idleItems = before.items + after.items;
      const perItem = (cpu: number | undefined, cpu2: number | undefined) =>
        cpu === undefined || cpu2 === undefined || idleItems === 0 ? undefined : ((cpu + cpu2) * 1e6) / idleItems;
      const serviceMicrosPerItemIdle = perItem(before.serviceCpu, after.serviceCpu);
      const requests = result.requests.total;
      const idleSeconds = before.seconds + after.seconds;
      const cores = (cpu: number | undefined, cpu2: number | undefined, seconds: number) =>
        cpu === undefined || cpu2 === undefined ? undefined : (cpu + cpu2) / seconds;
      const notFound = result.statusCodeStats['404']?.count ?? 0;
      const run: BesideRun = {
        layout: layout.name,
        idleItemsPerSecond: idleRate,
        loadItemsPerSecond: load.rate,
        requests,
        requestsPerSecond: requests / result.duration,
        p50Ms: result.latency.p50,
        p99Ms: result.latency.p99,
        errors: result.errors + result.timeouts + (result.non2xx - notFound),
        serviceMicrosPerItemIdle,
        apiThreadMicrosPerRequest: apiThreadUsed === undefined || requests === 0 ? undefined : (apiThreadUsed * 1e6) / requests,
        cores: {
          serviceIdle: cores(before.serviceCpu, after.serviceCpu, idleSeconds),
          serviceLoad: cores(load.serviceCpu, 0, load.seconds),
          databaseIdle: cores(before.dbCpu, after.dbCpu, idleSeconds),
          databaseLoad: cores(load.dbCpu, 0, load.seconds),
          clients: (clientUsed.user + clientUsed.system) / 1e6 / load.seconds,
        },
        clientMicrosPerRequest: requests === 0 ? 0 : (clientUsed.user + clientUsed.system) / requests,
        peakRssBytes: service.children
          .map((c) => peakRssOf(c.pid!))
          .reduce<number | undefined>((sum, rss) => (sum === undefined || rss === undefined ? undefined : sum + rss), 0),
        loadAverage: os.loadavg()[0]!,
      };
      log(`  ${formatRun(run)}`);
      return run;
    } finally {
      await service.stop();
    }
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`).catch(() => undefined);
    await admin.end();
  }
}

/** Runs every layout `settings.repeats` times, alternating layouts, each run on a fresh database of the server. */
export async function runBesideBench(options: {
  adminUrl: string;
  settings: BesideSettings;
  layouts?: readonly Layout[];
  log: (line: string) => void;
}): Promise<BesideReport> {
  const { adminUrl, settings, log } = options;
  const layouts = options.layouts ?? LAYOUTS;
  const runs: BesideRun[] = [];
  for (let round = 0; round < settings.repeats; round++) {
    // Alternate the order, so that a machine getting busier does not always hit the same layout last.
    const ordered = round % 2 === 0 ? layouts : [...layouts].reverse();
    for (const layout of ordered) runs.push(await runOnce(adminUrl, layout, settings, log));
  }
  return { settings, runs };
}

const round = (n: number | undefined) => (n === undefined ? '?' : String(Math.round(n)));
const cores = (n: number | undefined) => (n === undefined ? '?' : n.toFixed(2));
const mebibytes = (n: number | undefined) => (n === undefined ? '?' : String(Math.round(n / 2 ** 20)));

function formatRun(r: BesideRun): string {
  return (
    `${r.layout}: ingest ${round(r.loadItemsPerSecond)} items/s under load, ${round(r.idleItemsPerSecond)} idle ` +
    `(${(r.loadItemsPerSecond / r.idleItemsPerSecond).toFixed(2)}×); ${round(r.requestsPerSecond)} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, ` +
    `${r.errors} errors; CPU: service ${round(r.serviceMicrosPerItemIdle)} µs/item idle, API thread ${round(r.apiThreadMicrosPerRequest)} µs/request, ` +
    `clients ${round(r.clientMicrosPerRequest)} µs/request; cores idle / under load: service ${cores(r.cores.serviceIdle)} / ${cores(r.cores.serviceLoad)}, ` +
    `database ${cores(r.cores.databaseIdle)} / ${cores(r.cores.databaseLoad)}, clients ${cores(r.cores.clients)}; ` +
    `peak RSS ${mebibytes(r.peakRssBytes)} MiB; load average ${r.loadAverage.toFixed(1)}`
  );
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Median and range of a figure over the runs of a layout. */
function spread(values: number[], digits = 0): string {
  const f = (n: number) => n.toFixed(digits);
  if (values.length === 0) return '?';
  if (values.length === 1) return f(values[0]!);
  return `${f(median(values))} (${f(Math.min(...values))}–${f(Math.max(...values))})`;
}

export function formatBesideReport(server: string, report: BesideReport): string {
  const { settings } = report;
  const lines = [
    `API beside ingestion on ${server}: ${settings.connections} clients for ${settings.loadSeconds} s against idle windows of ${settings.idleSeconds} s before and after, ${settings.repeats} run(s) per layout; median (range); goals: ingest ≥ 0.7× idle, p99 ≤ 250 ms`,
  ];
  const names = [...new Set(report.runs.map((r) => r.layout))];
  for (const name of names) {
    const runs = report.runs.filter((r) => r.layout === name);
    const ratio = runs.map((r) => r.loadItemsPerSecond / r.idleItemsPerSecond);
    const known = (f: (r: BesideRun) => number | undefined) => runs.map(f).filter((v): v is number => v !== undefined);
    lines.push(
      `  ${name}:`,
      `    ingest under load / idle: ${spread(ratio, 2)}× (${spread(runs.map((r) => r.loadItemsPerSecond))} / ${spread(runs.map((r) => r.idleItemsPerSecond))} items/s)`,
      `    reads: ${spread(runs.map((r) => r.requestsPerSecond))} req/s, p50 ${spread(runs.map((r) => r.p50Ms))} ms, p99 ${spread(runs.map((r) => r.p99Ms))} ms, errors ${runs.reduce((n, r) => n + r.errors, 0)}`,
      `    CPU: service ${spread(known((r) => r.serviceMicrosPerItemIdle))} µs per item idle; API main thread ${spread(known((r) => r.apiThreadMicrosPerRequest))} µs per request; clients ${spread(runs.map((r) => r.clientMicrosPerRequest))} µs per request`,
      `    cores used, idle / under load: service ${spread(
        known((r) => r.cores.serviceIdle),
        2,
      )} / ${spread(
        known((r) => r.cores.serviceLoad),
        2,
      )}; database backends ${spread(
        known((r) => r.cores.databaseIdle),
        2,
      )} / ${spread(
        known((r) => r.cores.databaseLoad),
        2,
      )}; clients ${spread(
        runs.map((r) => r.cores.clients),
        2,
      )}`,
      `    peak RSS of the service: ${spread(known((r) => (r.peakRssBytes === undefined ? undefined : r.peakRssBytes / 2 ** 20)))} MiB`,
    );
  }
  return lines.join('\n');
}
