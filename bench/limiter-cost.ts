/**
 * What fair access costs per request, in CPU time (meaningful on a shared machine, unlike rates):
 *
 *   1. the limiter and the bound alone, called in this process with a stand-in request: nanoseconds
 *      per call, for one client, for 10,000 clients in turn, with API keys configured, and with the
 *      shared store (one reservation query per tenth of a burst);
 *   2. `scan-indexer serve` answering a small Scan operation that reads no table
 *      (/api/scan/v0/splice-instance-names): the server process's CPU per request with limits off,
 *      in memory, and shared in PostgreSQL, in interleaved rounds.
 *
 *   DATABASE_URL=postgresql://… node dist/bench/limiter-cost.js [--requests N] [--rounds N]
 *
 * It creates and drops a scratch database on that server (the user must be allowed to). It asserts
 * nothing; figures and how they were taken are kept in docs/performance.md.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { NextFunction, Request, Response } from 'express';
import { heavyRequest } from '../src/api/fair-access/heavy-requests';
import { createRateLimits } from '../src/api/fair-access/rate-limit';
import { loadConfig } from '../src/internal/config';
import { createLogger } from '../src/internal/logger';
import { createMetrics } from '../src/internal/metrics';
import { ensureDatabase, freePort } from '../src/store/embedded-postgres';
import { migrate } from '../src/store/migrator';
import { createDb, createPool } from '../src/store/pool';
import { spawnCli } from './support/cli-child';

interface AutocannonResult {
  requests: { total: number };
  errors: number;
  non2xx: number;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (opts: Record<string, unknown>) => Promise<AutocannonResult>;

const argValue = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
};
const REQUESTS = argValue('--requests', 10_000);
const ROUNDS = argValue('--rounds', 3);
const CALLS = 1_000_000;
const PATH = '/api/scan/v0/splice-instance-names';
const HIGH = '1000000,1000000';
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** CPU microseconds this process has used (user + system). */
const cpuMicros = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** CPU microseconds a child has used, from /proc (clock ticks). */
function childCpuMicros(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1e6) / 100;
}

/** A stand-in request: what the limiter reads of one. */
function fakeRequest(address: string, headers: Record<string, string> = {}): Request {
  return { headers, socket: { remoteAddress: address }, path: PATH, baseUrl: '/api/scan', body: { page_size: 10 } } as unknown as Request;
}

async function inProcess(databaseUrl: string): Promise<string[]> {
  const pool = createPool({ connectionString: databaseUrl, max: 4 });
  const db = createDb(pool);
  const lines: string[] = [];
  const measure = async (what: string, env: Record<string, string>, requests: Request[], calls = CALLS) => {
    const config = loadConfig({ LOG_LEVEL: 'silent', ...env });
    const context = { config, db, pool, logger: createLogger('silent'), metrics: createMetrics(), migrationFiles: [] };
    const [handler] = createRateLimits(context).handlersFor('scan');
    if (!handler) throw new Error('no limiter');
    const res = {} as Response;
    let admitted = 0;
    let wake: (() => void) | undefined;
    const next: NextFunction = () => {
      admitted += 1;
      wake?.();
    };
    // One request at a time; one the shared store admits after a reservation's round trip is waited for
    // (without spinning, so the wait costs no CPU), as its client would wait for the answer.
    const run = async (n: number) => {
      const base = admitted;
      for (let i = 0; i < n; i++) {
        void handler(requests[i % requests.length]!, res, next);
        if (admitted - base <= i) await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    };
    await run(10_000);
    const started = cpuMicros();
    await run(calls);
    const ns = ((cpuMicros() - started) * 1000) / calls;
    lines.push(`  ${what}: ${ns.toFixed(0)} ns of CPU per request (${calls.toLocaleString('en')} requests)`);
  };
  const one = [fakeRequest('203.0.113.7')];
  const many = Array.from({ length: 10_000 }, (_, i) => fakeRequest(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`));
  const keys = JSON.stringify({ 'bench-key-0123456789': { name: 'bench', per_second: 1e6, burst: 1e6 } });
  await measure('memory, one client', { RATE_LIMIT_SCAN: HIGH }, one);
  await measure('memory, 10,000 clients in turn', { RATE_LIMIT_SCAN: HIGH }, many);
  await measure('memory, API keys configured, a JWT bearer (no key)', { RATE_LIMIT_SCAN: HIGH, RATE_LIMIT_API_KEYS: keys }, [
    fakeRequest('203.0.113.7', { authorization: `Bearer eyJhbGciOiJIUzI1NiJ9.${'e30'.repeat(100)}.signature` }),
  ]);
  await measure('memory, a configured key in X-API-Key', { RATE_LIMIT_SCAN: HIGH, RATE_LIMIT_API_KEYS: keys }, [
    fakeRequest('203.0.113.7', { 'x-api-key': 'bench-key-0123456789' }),
  ]);
  await measure(
    'postgres, one client, burst 100 (a reservation per 10 requests, its query included)',
    { RATE_LIMIT_SCAN: '1000000,100', RATE_LIMIT_STORE: 'postgres' },
    one,
    100_000,
  );

  // The bound on expensive requests, for a request below its thresholds (the common case).
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const bound = heavyRequest(
    { config, db, pool, logger: createLogger('silent'), metrics: createMetrics(), migrationFiles: [] },
    {
      pageSize: 'page_size',
      parties: 'owner_party_ids',
    },
  );
  const req = one[0]!;
  const noop: NextFunction = () => undefined;
  const started = cpuMicros();
  for (let i = 0; i < CALLS; i++) bound(req, {} as Response, noop);
  lines.push(`  bound on expensive requests, a small page: ${(((cpuMicros() - started) * 1000) / CALLS).toFixed(0)} ns per request`);
  await db.destroy();
  return lines;
}

async function serve(databaseUrl: string, env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawnCli(['serve'], {
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      LEDGER_AUTH_DISABLED: 'true',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) return { url, child };
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error('serve did not become ready');
}

async function overServer(databaseUrl: string): Promise<string[]> {
  const modes: [string, Record<string, string>][] = [
    ['limits off', { RATE_LIMIT_ENABLED: 'false' }],
    ['memory', { RATE_LIMIT_SCAN: HIGH }],
    ['postgres, burst 100 (a reservation per 10 requests)', { RATE_LIMIT_SCAN: '1000000,100', RATE_LIMIT_STORE: 'postgres' }],
  ];
  const perRequest = new Map<string, number[]>(modes.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, env] of modes) {
      const { url, child } = await serve(databaseUrl, env);
      try {
        await autocannon({ url: `${url}${PATH}`, connections: 10, amount: 2_000 });
        const before = childCpuMicros(child.pid!);
        const result = await autocannon({ url: `${url}${PATH}`, connections: 10, amount: REQUESTS });
        const used = childCpuMicros(child.pid!) - before;
        if (result.errors > 0 || result.non2xx > 0) throw new Error(`${name}: ${result.errors} errors, ${result.non2xx} non-2xx`);
        perRequest.get(name)!.push(used / result.requests.total);
      } finally {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
    }
  }
  const base = median(perRequest.get('limits off')!);
  return modes.map(([name]) => {
    const values = perRequest.get(name)!;
    const m = median(values);
    return `  ${name}: ${m.toFixed(0)} µs of server CPU per request (median of ${values.map((v) => v.toFixed(0)).join(', ')}; ${(m - base).toFixed(0)} µs beyond limits off)`;
  });
}

async function main(): Promise<void> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) throw new Error('set DATABASE_URL to a PostgreSQL server where this user may create databases');
  const name = `scan_indexer_limiter_bench_${process.pid}`;
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  await ensureDatabase(adminUrl, name);
  try {
    const pool = createPool({ connectionString: databaseUrl, max: 2 });
    await migrate(pool);
    await pool.end();
    const lines = [
      `Fair access, CPU per request (node ${process.version}, ${CALLS.toLocaleString('en')} calls in process; ${ROUNDS} rounds of ${REQUESTS.toLocaleString('en')} requests, 10 connections, over the server):`,
      ' In process (the limiter alone):',
      ...(await inProcess(databaseUrl)),
      ` Over the server (GET ${PATH}):`,
      ...(await overServer(databaseUrl)),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    const admin = createPool({ connectionString: adminUrl, max: 1 });
    await admin.query(`drop database if exists "${name}" with (force)`);
    await admin.end();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
