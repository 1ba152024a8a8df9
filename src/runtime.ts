/**
 * The composition root: resolves the database (DATABASE_URL, or the embedded
 * default), migrates it, and starts the API and, later, the ingestion worker,
 * all torn down by one shutdown path.
 */
import type pg from 'pg';
import { createApp } from './api/app';
import { listen } from './api/server';
import type { Config } from './internal/config';
import type { Logger } from './internal/logger';
import { createMetrics } from './internal/metrics';
import type { Shutdown } from './internal/shutdown';
import { ensureDatabase, startEmbeddedPostgres, type EmbeddedPostgresHandle } from './store/embedded-postgres';
import { migrate, readMigrationFiles } from './store/migrator';
import { createDb, createPool, type Db } from './store/pool';

export const EMBEDDED_DATABASE_NAME = 'scan_indexer';

export interface OpenDatabase {
  url: string;
  pool: pg.Pool;
  db: Db;
  embedded: EmbeddedPostgresHandle | undefined;
}

/** Connects to DATABASE_URL, or starts the embedded PostgreSQL; cleanups go to `shutdown`. */
export async function openDatabase(config: Config, logger: Logger, shutdown: Shutdown): Promise<OpenDatabase> {
  let url = config.databaseUrl;
  let embedded: EmbeddedPostgresHandle | undefined;
  if (!url) {
    embedded = await startEmbeddedPostgres({ dataDir: config.embeddedPgDataDir, port: config.embeddedPgPort, logger });
    const handle = embedded;
    shutdown.add('embedded PostgreSQL', () => handle.stop());
    url = await ensureDatabase(embedded.url, EMBEDDED_DATABASE_NAME);
    logger.info({ dataDir: embedded.dataDir, port: embedded.port }, 'embedded PostgreSQL started');
  }
  const pool = createPool({
    connectionString: url,
    max: config.databasePoolSize,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
  });
  const db = createDb(pool);
  shutdown.add('database pool', () => db.destroy());
  return { url, pool, db, embedded };
}

export async function migrateDatabase(database: OpenDatabase, logger: Logger): Promise<string[]> {
  return migrate(database.pool, { onApply: (name) => logger.info({ migration: name }, 'migration applied') });
}

export interface ServeOptions {
  /** Also run the ingestion worker in this process. */
  withWorker: boolean;
}

function banner(url: string, database: OpenDatabase): string {
  const dbLine = database.embedded
    ? `embedded PostgreSQL on 127.0.0.1:${database.embedded.port}, data in ${database.embedded.dataDir}`
    : 'PostgreSQL from DATABASE_URL';
  return [
    '',
    `scan-indexer is serving at ${url}`,
    `  Scan API         ${url}/api/scan   (try ${url}/api/scan/v0/dso-party-id)`,
    `  Health           ${url}/livez  ${url}/readyz`,
    `  Metrics          ${url}/metrics`,
    `  Database         ${dbLine}`,
    '  Stop with Ctrl-C.',
    '',
  ].join('\n');
}

export async function serve(config: Config, logger: Logger, shutdown: Shutdown, options: ServeOptions): Promise<void> {
  const database = await openDatabase(config, logger, shutdown);
  await migrateDatabase(database, logger);
  const metrics = createMetrics();
  const app = createApp({
    config,
    db: database.db,
    pool: database.pool,
    logger,
    metrics,
    migrationFiles: readMigrationFiles(),
  });
  const server = await listen(app, config.host, config.port);
  shutdown.add('HTTP server', () => server.close(config.shutdownTimeoutMs));
  if (options.withWorker) {
    logger.warn('the ingestion worker is not implemented yet: serving the API only');
  }
  logger.info({ url: server.url }, 'API listening');
  process.stdout.write(banner(server.url, database));
}
