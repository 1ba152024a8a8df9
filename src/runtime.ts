/**
 * The composition root: resolves the database (DATABASE_URL, or the embedded
 * default), migrates it, and starts the API and the ingestion worker (in a
 * worker thread for `start`), all torn down by one shutdown path (worker
 * first, then HTTP, pool, database).
 */
import { bulkObjectStore } from './store/bulk-object-store';
import type pg from 'pg';
import { createApp } from './api/app';
import { prepareLedgerAuth } from './api/auth/start-up';
import { listen, type RunningServer } from './api/server';
import { runWorkerThroughOutages, type WorkerOptions, type WorkerResult } from './ingest/worker';
import type { RequestOutcome } from './ingest/http-client';
import type { Source } from './ingest/source';
import { createLedgerSource } from './ingest/sources/ledger-source';
import { createAttestedScanSource } from './ingest/sources/attested-scan-source';
import { createScanSource } from './ingest/sources/scan-source';
import { createBulkSource } from './ingest/sources/bulk-source';
import { createAcsSnapshotCheck } from './ingest/upstream-acs-check';
import { createBlobMirror } from './ingest/blob-mirror';
import { createSimulatorSource } from './ingest/sources/simulator-source';
import { ConfigError, isScanMirror, scanSourceThreshold, type Config } from './internal/config';
import type { Logger } from './internal/logger';
import { createMetrics, type Metrics } from './internal/metrics';
import { lowerThreadPriority } from './internal/priority';
import type { Shutdown } from './internal/shutdown';
import { ensureDatabase, startEmbeddedPostgres, type EmbeddedPostgresHandle } from './store/embedded-postgres';
import { migrate, readMigrationFiles } from './store/migrator';
import { createDb, createPool, observeQueries, type Db } from './store/pool';
import { openReadReplicas, type ReadReplicas } from './store/read-replicas';
import { replicaLabel } from './internal/metrics';
import { startWorkerThread } from './worker-thread/host';

const EMBEDDED_DATABASE_NAME = 'scan_indexer';

export interface OpenDatabase {
  url: string;
  pool: pg.Pool;
  db: Db;
  embedded: EmbeddedPostgresHandle | undefined;
}

/** Connects to DATABASE_URL, or starts the embedded PostgreSQL; cleanups go to `shutdown`. */
async function openDatabase(config: Config, logger: Logger, shutdown: Shutdown): Promise<OpenDatabase> {
  let url = config.databaseUrl;
  let embedded: EmbeddedPostgresHandle | undefined;
  if (!url) {
    embedded = await startEmbeddedPostgres({ dataDir: config.embeddedPgDataDir, port: config.embeddedPgPort, logger });
    const handle = embedded;
    shutdown.add('embedded PostgreSQL', () => handle.stop());
    url = await ensureDatabase(embedded.url, EMBEDDED_DATABASE_NAME);
    logger.info({ dataDir: embedded.dataDir, port: embedded.port }, 'embedded PostgreSQL started');
  }
  return { ...connectDatabase(url, config, shutdown), embedded };
}

/** A pool on a database that is already there (the worker thread of `start` opens its own). */
export function connectDatabase(url: string, config: Config, shutdown: Shutdown): Omit<OpenDatabase, 'embedded'> {
  const pool = createPool({
    connectionString: url,
    max: config.databasePoolSize,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
  });
  const db = createDb(pool);
  shutdown.add('database pool', () => db.destroy());
  return { url, pool, db };
}

/** Opens and migrates the database; `applied` names the migrations this call applied. */
export async function openMigratedDatabase(
  config: Config,
  logger: Logger,
  shutdown: Shutdown,
): Promise<OpenDatabase & { applied: string[] }> {
  const database = await openDatabase(config, logger, shutdown);
  const applied = await migrate(database.pool, { onApply: (name) => logger.info({ migration: name }, 'migration applied') });
  return { ...database, applied };
}

/** The configured ingestion source; a missing setting is a ConfigError naming it. */
export function createConfiguredSource(config: Config, logger: Logger, metrics?: Metrics): Source {
  const http = (source: 'scan' | 'bulk' | 'ledger') => ({
    observe: (upstream: string, outcome: RequestOutcome) => metrics?.sourceRequest(source, upstream, outcome),
  });
  switch (config.source) {
    case 'simulator':
      return createSimulatorSource({
        seed: config.simulator.seed,
        mode: config.simulator.mode,
        ratePerSecond: config.simulator.ratePerSecond,
        updates: config.simulator.updates,
        migrations: config.simulator.migrations,
      });
    case 'scan': {
      const { urls } = config.scanSource;
      if (urls.length === 0) throw new ConfigError('Invalid configuration: SOURCE=scan needs SCAN_SOURCE_URLS.');
      const threshold = scanSourceThreshold(config);
      if (threshold > urls.length) {
        throw new ConfigError(
          `Invalid configuration: SCAN_SOURCE_THRESHOLD=${threshold} is more than the ${urls.length} SCAN_SOURCE_URLS: no quorum could ever form.`,
        );
      }
      if (threshold > 1) {
        return createAttestedScanSource({
          urls,
          threshold,
          pollIntervalMs: config.scanSource.pollMs,
          stopAtEnd: config.ingest.stopAtEnd,
          logger,
          http: http('scan'),
          ...(metrics && { observer: metrics.attestationObserver }),
        });
      }
      return createScanSource({
        urls: config.scanSource.urls,
        pollIntervalMs: config.scanSource.pollMs,
        stopAtEnd: config.ingest.stopAtEnd,
        logger,
        http: http('scan'),
      });
    }
    case 'bulk': {
      const { urls } = config.scanSource;
      if (urls.length === 0) throw new ConfigError('Invalid configuration: SOURCE=bulk needs SCAN_SOURCE_URLS.');
      const threshold = scanSourceThreshold(config);
      if (threshold > urls.length) {
        throw new ConfigError(
          `Invalid configuration: SCAN_SOURCE_THRESHOLD=${threshold} is more than the ${urls.length} SCAN_SOURCE_URLS: no quorum could ever form.`,
        );
      }
      const observer = metrics && { observer: metrics.attestationObserver };
      const scan = { urls, pollIntervalMs: config.scanSource.pollMs, stopAtEnd: config.ingest.stopAtEnd, logger, http: http('scan') };
      // Above 1, the objects, the import updates and the /v0/events that follow are all attested.
      const attested = threshold > 1 ? createAttestedScanSource({ ...scan, threshold, ...observer }) : undefined;
      return createBulkSource({
        urls,
        threshold,
        events: attested ?? createScanSource(scan),
        ...(attested && { imports: attested.importsOf }),
        ...observer,
        pageSize: config.bulkSource.pageSize,
        pollIntervalMs: config.scanSource.pollMs,
        downloadTimeoutMs: config.bulkSource.downloadTimeoutMs,
        fillFromEvents: config.bulkSource.fillFromEvents,
        logger,
        http: http('bulk'),
      });
    }
    case 'ledger': {
      const { url, party, token } = config.ledgerSource;
      if (!url || !party) throw new ConfigError('Invalid configuration: SOURCE=ledger needs LEDGER_SOURCE_URL and LEDGER_SOURCE_PARTY.');
      return createLedgerSource({
        url,
        party,
        token,
        migrationId: config.migrationId,
        stopAtEnd: config.ingest.stopAtEnd,
        logger,
        http: http('ledger'),
      });
    }
  }
}

export interface RunningWorker {
  /** Settles when the worker stops: its source ended, it was stopped, or it failed. */
  done: Promise<WorkerResult>;
}

/**
 * Starts the worker in the background (outliving database outages). It stops first at shutdown, finishing
 * the batch in flight, so that its last commit lands before the pool closes.
 */
export function startWorker(
  database: OpenDatabase,
  source: Source,
  context: { config: Config; logger: Logger; metrics: Metrics; shutdown: Shutdown },
  onBatch?: WorkerOptions['onBatch'],
): RunningWorker {
  const { config, logger, metrics, shutdown } = context;
  const controller = new AbortController();
  if (shutdown.signal.aborted) controller.abort();
  shutdown.signal.addEventListener('abort', () => controller.abort(), { once: true });
  const blobMirror = isScanMirror(config) ? startBlobMirror(database, controller.signal, context) : undefined;
  const bulkStore = bulkObjectStore(config.bulkStorage);
  const ingested = runWorkerThroughOutages(
    {
      db: database.db,
      pool: database.pool,
      source,
      logger,
      metrics,
      batchSize: config.ingest.batchSize,
      batchMaxWaitMs: config.ingest.batchMaxWaitMs,
      lockPollMs: config.ingest.lockPollMs,
      retentionDays: config.ingest.retentionDays,
      holdingTotalsRefreshOwners: config.ingest.holdingTotalsRefreshOwners,
      bulkStore,
      // A mirror holds each ACS snapshot it writes against its upstreams' (docs/bulk-history.md).
      ...(isScanMirror(config) &&
        bulkStore &&
        config.scanSource.acsCheck && {
          acsCheck: createAcsSnapshotCheck({
            urls: config.scanSource.urls,
            logger,
            ...(metrics && { observer: metrics.acsCheckObserver }),
          }),
        }),
      onBatch,
    },
    controller.signal,
  );
  const done = blobMirror
    ? ingested.then(
        async (result) => {
          await blobMirror.finish();
          return result;
        },
        async (err: unknown) => {
          controller.abort();
          await blobMirror.finish();
          throw err;
        },
      )
    : ingested;
  // Bounded like the HTTP drain: a worker stuck in a source or a long statement must not hold the exit.
  // Its transaction then rolls back with the pool; the checkpoint is written with each batch, so nothing is lost.
  shutdown.add('ingestion worker', async () => {
    controller.abort();
    let timer: NodeJS.Timeout | undefined;
    const stopped = await Promise.race([
      done.then(
        () => true,
        () => true,
      ),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), config.shutdownTimeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (!stopped)
      logger.warn({ timeoutMs: config.shutdownTimeoutMs }, 'the ingestion worker did not stop within SHUTDOWN_TIMEOUT_MS; going on');
  });
  return { done };
}

/**
 * A mirror copies created-event blobs from its upstreams while its worker runs (every
 * SCAN_SOURCE_BLOB_INTERVAL_MS), and once more when the worker ends at the upstream's end, so that
 * an `ingest` that stops there leaves the blobs of everything it stored. `finish` stops the timer
 * and runs that last round unless ingestion was stopped.
 */
function startBlobMirror(database: OpenDatabase, signal: AbortSignal, context: { config: Config; logger: Logger }) {
  const { config, logger } = context;
  const mirror = createBlobMirror({ urls: config.scanSource.urls, threshold: scanSourceThreshold(config), db: database.db, logger });
  const round = () =>
    mirror.round(signal).catch((err: unknown) => {
      if (!signal.aborted) logger.warn({ err: (err as Error).message }, 'copying created-event blobs failed; trying again later');
    });
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(round);
  }, config.scanSource.blobIntervalMs);
  timer.unref();
  return {
    finish: async (): Promise<void> => {
      clearInterval(timer);
      await running;
      if (!signal.aborted) await round();
    },
  };
}

function banner(url: string, database: OpenDatabase, withApi: boolean, webUi: boolean, devToken: string | undefined): string {
  const dbLine = database.embedded
    ? `embedded PostgreSQL on 127.0.0.1:${database.embedded.port}, data in ${database.embedded.dataDir}`
    : 'PostgreSQL from DATABASE_URL';
  return [
    '',
    `scan-indexer is serving at ${url}`,
    // The UI first: it is what a newcomer opens to see that the service works.
    ...(withApi && webUi ? [`  Web UI           ${url}/`] : []),
    ...(withApi ? [`  Scan API         ${url}/api/scan   (try ${url}/api/scan/v0/dso-party-id)`, `  Ledger API       ${url}/v2`] : []),
    ...(withApi ? [`  Validator proxy  ${url}/api/validator/v0/scan-proxy/open-and-issuing-mining-rounds`] : []),
    ...(devToken
      ? [
          `  Dev token        ${devToken}`,
          `                   (admin user, 24 h, for /v2 and /api/validator: curl -H 'Authorization: Bearer …' ${url}/v2/parties/participant-id)`,
        ]
      : []),
    `  Health           ${url}/livez  ${url}/readyz  ${url}/status`,
    `  Metrics          ${url}/metrics`,
    `  Database         ${dbLine}`,
    '  Stop with Ctrl-C.',
    '',
  ].join('\n');
}

export interface ServeOptions {
  /** Serve the Scan, ledger and validator interfaces (false: health, status and metrics only). */
  api: boolean;
  /**
   * Where the ingestion worker runs: not in this process (`serve`), on its event loop (`ingest`), or in a
   * worker thread of its own (`start`: the API and the worker then each have an event loop, and can each
   * use a core, instead of taking turns on one).
   */
  worker: 'none' | 'inline' | 'thread';
}

export interface Served {
  server: RunningServer;
  worker: RunningWorker | undefined;
}

/**
 * The API's reads on the streaming replicas of DATABASE_READ_URLS, watched and routed
 * (src/store/read-replicas.ts); undefined without them.
 */
function openConfiguredReadReplicas(
  config: Config,
  database: OpenDatabase,
  context: { logger: Logger; metrics: Metrics; shutdown: Shutdown },
): ReadReplicas | undefined {
  const { urls, maxLagMs, pollMs } = config.readReplicas;
  if (urls.length === 0) return undefined;
  const replicas = openReadReplicas({
    primaryPool: database.pool,
    primaryDb: database.db,
    urls,
    poolSize: config.databasePoolSize,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    pollMs,
    maxLagMs,
    logger: context.logger,
    observe: (target) => context.metrics.dbReadQueries.inc({ server: target === 'primary' ? 'primary' : replicaLabel(target) }),
  });
  observeQueries(replicas.db, context.metrics.observeQuery);
  context.shutdown.add('read replicas', () => replicas.close());
  context.logger.info({ replicas: urls.length, maxLagMs }, 'reading from streaming replicas');
  return replicas;
}

export async function serve(config: Config, logger: Logger, shutdown: Shutdown, options: ServeOptions): Promise<Served> {
  if (options.api && config.readReplicas.urls.length > 0 && !config.databaseUrl) {
    throw new ConfigError(
      'Invalid configuration: DATABASE_READ_URLS needs DATABASE_URL: the replicas are replicas of that server, not of the embedded one.',
    );
  }
  const database = await openMigratedDatabase(config, logger, shutdown);
  const metrics = createMetrics();
  metrics.observePool(database.pool);
  observeQueries(database.db, metrics.observeQuery);
  const replicas = options.api ? openConfiguredReadReplicas(config, database, { logger, metrics, shutdown }) : undefined;
  // The ledger routes refuse to start without authentication, except in the demo (embedded database).
  const ledgerAuth = options.api
    ? await prepareLedgerAuth(config, { db: database.db, embedded: database.embedded !== undefined })
    : undefined;
  // API requests wait for a database connection at most DATABASE_WAIT_MS; the worker shares the pool and always waits.
  const apiDb = config.databaseWaitMs > 0 ? createDb(database.pool, { waitMs: config.databaseWaitMs }) : database.db;
  if (apiDb !== database.db) observeQueries(apiDb, metrics.observeQuery);
  const app = createApp(
    {
      config: ledgerAuth?.config ?? config,
      db: replicas?.db ?? apiDb,
      primaryDb: database.db,
      pool: database.pool,
      replicas: replicas?.monitor,
      logger,
      metrics,
      migrationFiles: readMigrationFiles(),
    },
    { interfaces: options.api },
  );
  const server = await listen(app, config.host, config.port);
  shutdown.add('HTTP server', () => server.close(config.shutdownTimeoutMs));
  let worker: RunningWorker | undefined;
  if (options.worker === 'inline') {
    worker = startWorker(database, createConfiguredSource(config, logger, metrics), { config, logger, metrics, shutdown });
  } else if (options.worker === 'thread') {
    // A bad source setting stops start-up here, as it does in `ingest`, rather than later in the thread.
    createConfiguredSource(config, logger);
    worker = startWorkerThread(database.url, { config, logger, metrics, shutdown });
  }
  if (options.worker === 'thread') {
    // After the worker thread and the embedded PostgreSQL have started: both would inherit this thread's value.
    const priority = lowerThreadPriority(config.nice.api);
    if (priority.outcome !== 'unchanged') logger.info({ part: 'API', ...priority }, 'CPU priority');
  }
  logger.info({ url: server.url, source: options.worker === 'none' ? null : config.source, worker: options.worker }, 'listening');
  process.stdout.write(banner(server.url, database, options.api, config.webUi, ledgerAuth?.devToken));
  return { server, worker };
}
