/**
 * The real Express server over a socket, and a client that never throws on a status, but does throw
 * on an answer the served OpenAPI document does not describe (./openapi-check.ts).
 */
import type { Express } from 'express';
import type pg from 'pg';
import { createApp } from '../../../src/api/app';
import { listen, type RunningServer } from '../../../src/api/server';
import { loadConfig, type Config } from '../../../src/internal/config';
import { createLogger, type Logger } from '../../../src/internal/logger';
import { createMetrics, type Metrics } from '../../../src/internal/metrics';
import { readMigrationFiles, type MigrationFile } from '../../../src/store/migrator';
import type { Db } from '../../../src/store/pool';
import type { ReplicaMonitor } from '../../../src/store/replica-monitor';
import { checkerFor, forgetServer, servesThisApplication } from './openapi-check';

export interface TestApi {
  url: string;
  /** The Express application, for tests that inspect its routes. */
  app: Express;
  server: RunningServer;
  close(): Promise<void>;
}

/**
 * Rate limits and a bound on expensive requests far above what any test sends: tests load the server
 * from 127.0.0.1, at a pace that depends on the machine, so the defaults would refuse some of their
 * requests on a fast one. The limiters still run on every request. Fair access itself is tested with
 * its own settings (test/integration/api/fair-access.test.ts).
 */
export const GENEROUS_LIMITS: Readonly<Record<string, string>> = {
  RATE_LIMIT_SCAN: '1000000,1000000',
  RATE_LIMIT_SCAN_PROXY: '1000000,1000000',
  RATE_LIMIT_REGISTRY: '1000000,1000000',
  RATE_LIMIT_INDEXER: '1000000,1000000',
  RATE_LIMIT_STREAMING: '1000000,1000000',
  RATE_LIMIT_LEDGER: '1000000,1000000',
  HEAVY_REQUEST_CONCURRENCY: '10000',
};

export async function startTestApi(
  /** With read replicas: `db` routes reads, `primaryDb` writes (src/store/read-replicas.ts). */
  database: { db: Db; pool: pg.Pool; primaryDb?: Db; replicas?: ReplicaMonitor },
  options: {
    env?: Record<string, string>;
    migrationFiles?: MigrationFile[];
    metrics?: Metrics;
    logger?: Logger;
    /** The rate limits' clock (milliseconds). */
    clock?: () => number;
    /** false: no hot path (src/api/hot-path.ts), every request walks the routers. */
    hotPath?: boolean;
  } = {},
): Promise<TestApi> {
  // Tests configure the service the way operators do: through its environment schema.
  const config: Config = loadConfig({ LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', ...GENEROUS_LIMITS, ...options.env });
  const app = createApp(
    {
      config,
      db: database.db,
      primaryDb: database.primaryDb,
      pool: database.pool,
      replicas: database.replicas,
      logger: options.logger ?? createLogger(config.logLevel),
      metrics: options.metrics ?? createMetrics(),
      migrationFiles: options.migrationFiles ?? readMigrationFiles(),
    },
    { interfaces: true, clock: options.clock, hotPath: options.hotPath },
  );
  const server = await listen(app, '127.0.0.1', 0);
  servesThisApplication(server.url);
  return {
    url: server.url,
    app,
    server,
    close: () => {
      forgetServer(server.url);
      return server.close(1000);
    },
  };
}

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
}

/**
 * Sends a request and reads the whole answer. Throws a ResponseMismatch when the answer is not as the
 * OpenAPI document describes its operation and status (see ./openapi-check.ts for what is checked,
 * and which servers: not fakes, nor handlers a test serves without this service's application).
 */
export async function request(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${baseUrl}${path}`, init);
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const check = await checkerFor(baseUrl);
  check?.({ method, path, status: res.status, contentType: res.headers.get('content-type'), text });
  return { status: res.status, headers: res.headers, text, json };
}
