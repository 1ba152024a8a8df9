/**
 * What each piece of the API's middleware costs per request, in server CPU time: Express answering
 * GET /api/scan/v0/dso-party-id with fixed bytes, then with one piece added at a time (as the API
 * had it before and as it has it now), then the API itself (with its answer cache, and without).
 * Each configuration is its own server process; autocannon (10 connections, its own process) sends
 * the requests, and the server's CPU time is read from /proc, in interleaved rounds so that the
 * machine's other work spreads over all of them; the least and the median of the rounds are printed.
 *
 *   node dist/bench/request-overhead.js [--rounds 5] [--requests 5000]
 *
 * against DATABASE_URL (a database scan_indexer_overhead_<pid> is created, filled with a small
 * simulated network for the API configurations, and dropped). Linux only (/proc).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import express, { type Express, type RequestHandler } from 'express';
import helmet from 'helmet';
import pino from 'pino';
import { pinoHttp } from 'pino-http';
import { createApp } from '../src/api/app';
import { requestLog } from '../src/api/request-log';
import { requestMetrics } from '../src/api/request-metrics';
import { scanErrorHandler, scanNotFound } from '../src/api/scan-errors';
import { securityHeaders } from '../src/api/security-headers';
import { createSimulatorSource } from '../src/ingest/sources/simulator-source';
import { runWorker } from '../src/ingest/worker';
import { loadConfig } from '../src/internal/config';
import { createLogger } from '../src/internal/logger';
import { createMetrics } from '../src/internal/metrics';
import { ensureDatabase } from '../src/store/embedded-postgres';
import { migrate, readMigrationFiles } from '../src/store/migrator';
import { createDb, createPool } from '../src/store/pool';

const PATH = '/api/scan/v0/dso-party-id';
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The configurations, each the one before it plus a piece (or the API). */
const CONFIGURATIONS: Record<string, string> = {
  bare: 'Express, fixed bytes',
  helmet: '+ helmet (before)',
  headers: '+ security headers (now)',
  'request-id': '+ request id alone',
  'pino-http': '+ pino-http with request ids (before)',
  'request-log': '+ request log with request ids (now)',
  metrics: '+ request metrics',
  'error-handlers': '+ the JSON error handlers',
  'before-chain': 'helmet + pino-http + metrics + error handlers (before)',
  'now-chain': 'security headers + request log + metrics + error handlers (now)',
  api: 'the API, answer cache on',
  'api-uncached': 'the API, ANSWER_CACHE_ENABLED=false',
};

const dsoPartyId = Buffer.from(JSON.stringify({ dso_party_id: `DSO::1220${'ab'.repeat(32)}` }));

function pinoHttpAsBefore(logger: ReturnType<typeof createLogger>): RequestHandler {
  return pinoHttp({
    logger,
    genReqId: (req, res) => {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
      res.setHeader('x-request-id', id);
      return id;
    },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    autoLogging: { ignore: (req) => req.url === '/livez' || req.url === '/readyz' || req.url === '/metrics' },
  });
}

/** A server of one configuration (in a child process): prints its port. */
async function serve(configuration: string, databaseUrl: string): Promise<void> {
  const logger = createLogger('warn', 'scan-indexer', pino.destination('/dev/null'));
  let app: Express;
  if (configuration === 'api' || configuration === 'api-uncached') {
    const config = loadConfig({ LOG_LEVEL: 'warn', ANSWER_CACHE_ENABLED: configuration === 'api' ? 'true' : 'false' });
    const pool = createPool({ connectionString: databaseUrl, max: 10 });
    app = createApp({ config, db: createDb(pool), pool, logger, metrics: createMetrics(), migrationFiles: readMigrationFiles() });
  } else {
    const has = (...pieces: string[]) => pieces.some((p) => p === configuration);
    const chain = (before: boolean, now: boolean) => configuration === (before ? 'before-chain' : now ? 'now-chain' : '');
    app = express();
    app.disable('x-powered-by');
    app.set('etag', false);
    if (has('helmet') || chain(true, false))
      app.use(
        helmet({
          contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
          frameguard: { action: 'deny' },
          crossOriginResourcePolicy: { policy: 'cross-origin' },
        }),
      );
    if (has('headers') || chain(false, true)) app.use(securityHeaders());
    if (has('request-id'))
      app.use((req, res, next) => {
        const given = req.headers['x-request-id'];
        const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
        res.setHeader('x-request-id', id);
        req.id = id;
        next();
      });
    if (has('pino-http') || chain(true, false)) app.use(pinoHttpAsBefore(logger));
    if (has('request-log') || chain(false, true)) app.use(requestLog(logger));
    if (has('metrics') || chain(true, false) || chain(false, true))
      app.use(requestMetrics(createMetrics(), (req) => `${req.baseUrl}${(req.route as { path: string } | undefined)?.path ?? ''}`));
    app.get(PATH, (_req, res) => {
      res.status(200).type('application/json; charset=utf-8').send(dsoPartyId);
    });
    if (has('error-handlers') || chain(true, false) || chain(false, true)) {
      app.use(scanNotFound);
      app.use(scanErrorHandler);
    }
  }
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
}

function cpuMicrosOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
}

function load(port: number, requests: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [require.resolve('autocannon/autocannon.js'), '-c', '10', '-a', String(requests), '-j', `http://127.0.0.1:${port}${PATH}`],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', () => {
      try {
        const result = JSON.parse(out) as { requests: { total: number }; non2xx: number };
        if (result.non2xx) reject(new Error(`${result.non2xx} answers were not 200`));
        else resolve(result.requests.total);
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  });
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--serve') return serve(args[1]!, args[2]!);
  const value = (flag: string, fallback: number) => (args.includes(flag) ? Number(args[args.indexOf(flag) + 1]) : fallback);
  const rounds = value('--rounds', 5);
  const requests = value('--requests', 5000);
  const { databaseUrl } = loadConfig();
  if (!databaseUrl) throw new Error('DATABASE_URL is required');
  const name = `scan_indexer_overhead_${process.pid}`;
  const url = await ensureDatabase(databaseUrl, name);
  const children: ChildProcess[] = [];
  try {
    const pool = createPool({ connectionString: url, max: 4 });
    const db = createDb(pool);
    await migrate(pool);
    await runWorker(
      {
        db,
        pool,
        source: createSimulatorSource({ seed: 27, mode: 'backfill', updates: 300, ratePerSecond: 2, migrations: 1 }),
        logger: createLogger('warn'),
        batchSize: 500,
        batchMaxWaitMs: 1000,
      },
      new AbortController().signal,
    );
    await db.destroy();
    const servers: { name: string; pid: number; port: number; samples: number[] }[] = [];
    for (const configuration of Object.keys(CONFIGURATIONS)) {
      const child = spawn(process.execPath, [__filename, '--serve', configuration, url], { stdio: ['ignore', 'pipe', 'inherit'] });
      children.push(child);
      const port = await new Promise<number>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          const match = /listening (\d+)/.exec(d.toString());
          if (match) resolve(Number(match[1]));
        });
        child.once('exit', (code) => reject(new Error(`${configuration} exited with ${code}`)));
      });
      servers.push({ name: configuration, pid: child.pid!, port, samples: [] });
    }
    for (const server of servers) await load(server.port, Math.min(requests, 2000));
    for (let round = 0; round < rounds; round++) {
      for (const server of servers) {
        const before = cpuMicrosOf(server.pid);
        const total = await load(server.port, requests);
        server.samples.push((cpuMicrosOf(server.pid) - before) / total);
      }
    }
    console.log(
      `Server CPU per request of GET ${PATH}, ${rounds} rounds of ${requests} requests at 10 connections (least, median of the rounds):`,
    );
    for (const server of servers) {
      const sorted = [...server.samples].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)]!;
      console.log(
        `  ${CONFIGURATIONS[server.name]!.padEnd(64)} ${sorted[0]!.toFixed(0).padStart(4)} µs  ${median.toFixed(0).padStart(4)} µs`,
      );
    }
  } finally {
    for (const child of children) child.kill();
    const admin = createPool({ connectionString: databaseUrl, max: 1 });
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
