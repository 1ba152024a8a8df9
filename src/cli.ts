#!/usr/bin/env node
/** Entry point: `scan-indexer <command>`. */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createFileSource } from './ingest/sources/file-source';
import { ConfigError, loadConfig, type Config } from './internal/config';
import { renderEnvExample, replaceReadmeTable } from './internal/config-docs';
import { createLogger, type Logger } from './internal/logger';
import { createMetrics } from './internal/metrics';
import { projectRoot } from './internal/paths';
import { createProgress } from './internal/progress';
import { writeBuildInfo } from './internal/build-info';
import { Shutdown } from './internal/shutdown';
import { backfillActivities } from './ingest/activity-backfill';
import { backfillUpdateSubjects } from './ingest/subject-backfill';
import { backfillSupplyTotals } from './jobs/supply-totals-backfill';
import { catchUpSnapshots } from './jobs/acs-snapshots';
import { catchUpHoldingTotals } from './jobs/holding-totals';
import { openMigratedDatabase, serve, startWorker } from './runtime';
import { writeNdjson } from './simulator';

const USAGE = `Usage: scan-indexer <command> [options]

Commands:
  start              run the API and the ingestion worker, in a thread of its own (what npm start runs)
  serve              run the API only
  ingest             run the ingestion worker only (with /livez, /readyz, /status, /metrics)
  migrate            apply pending database migrations and exit
  import <file>      import an NDJSON file of /v0/events items, then announce due ACS snapshots
  snapshot           announce every ACS snapshot that ingestion has passed, then exit
  backfill-activities
                     derive the activity projection of history stored before it existed; resumable, safe to interrupt
  backfill-stream-index
                     index the parties and templates of history stored before the live stream's filters; resumable
  backfill-supply-totals
                     sum the cumulative minted, burned and allowed mint at the ACS snapshots taken before they were
                     kept (after backfill-activities); resumable, safe to interrupt
  simulate --seed S --updates N [--migrations K] --out FILE
                     write a simulated network as NDJSON (the same arguments give the same bytes)
  docs-config        regenerate .env.example and the README configuration table
  build-info         record the version and commit time GET /api/scan/version reports (npm run build runs it)
  help               show this text

Configuration comes from environment variables: see .env.example.`;

class UsageError extends Error {}

function intOption(value: string | undefined, name: string, fallback?: number): number {
  if (value === undefined) {
    if (fallback === undefined) throw new UsageError(`--${name} is required`);
    return fallback;
  }
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} expects a non-negative integer, got '${value}'`);
  return Number(value);
}

async function simulate(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { seed: { type: 'string' }, updates: { type: 'string' }, migrations: { type: 'string' }, out: { type: 'string' } },
  });
  if (!values.out) throw new UsageError('--out is required');
  const options = {
    seed: intOption(values.seed, 'seed'),
    updates: intOption(values.updates, 'updates'),
    migrations: intOption(values.migrations, 'migrations', 1),
  };
  if (options.migrations < 1) throw new UsageError('--migrations must be at least 1');
  const out = values.out === '-' ? process.stdout : fs.createWriteStream(values.out);
  await writeNdjson(options, out);
  if (out !== process.stdout)
    await new Promise<void>((resolve, reject) => (out as fs.WriteStream).end((err?: Error | null) => (err ? reject(err) : resolve())));
  return 0;
}

/** Runs until a signal (or the worker stops, for `ingest`); resolves with the exit code. */
async function runService(command: 'start' | 'serve' | 'ingest', config: Config, logger: Logger, shutdown: Shutdown): Promise<number> {
  const exit = new Promise<number>((resolve) => shutdown.installSignalHandlers(resolve));
  const worker = command === 'start' ? 'thread' : command === 'ingest' ? 'inline' : 'none';
  const served = await serve(config, logger, shutdown, { api: command !== 'ingest', worker });
  served.worker?.done.then(
    (result) => {
      logger.info(result, 'the ingestion source has ended');
      if (command === 'ingest') void shutdown.run('ingestion finished');
    },
    (err: unknown) => {
      // A failure while a requested shutdown is under way is part of that shutdown, not a fault.
      if (shutdown.signal.aborted) {
        logger.warn({ err }, 'ingestion ended during shutdown');
        return;
      }
      logger.fatal({ err }, 'ingestion stopped');
      process.stderr.write(`scan-indexer: ingestion stopped: ${(err as Error).message}\n`);
      process.exitCode = 1;
      void shutdown.run('ingestion failed');
    },
  );
  const code = await Promise.race([exit, shutdown.finished]);
  // Whatever shutdown left behind (a worker stuck past SHUTDOWN_TIMEOUT_MS) must not keep the process alive.
  setTimeout(() => process.exit(), 1000).unref();
  return typeof code === 'number' ? code : ((process.exitCode as number | undefined) ?? 0);
}

async function importFile(file: string | undefined, config: Config, logger: Logger, shutdown: Shutdown): Promise<number> {
  if (!file) throw new UsageError('import needs a file: scan-indexer import <file>');
  if (!fs.existsSync(file)) throw new UsageError(`no such file: ${file}`);
  shutdown.installSignalHandlers(() => undefined);
  const database = await openMigratedDatabase(config, logger, shutdown);
  const source = createFileSource(file);
  const progress = createProgress(`importing ${path.basename(file)}`);
  let items = 0;
  const worker = startWorker(database, source, { config, logger, metrics: createMetrics(), shutdown }, (batch) => {
    items = batch.checkpoint.itemsApplied;
    const { bytesRead, totalBytes } = source.progress();
    progress.update(bytesRead, totalBytes, `${items} items, line ${batch.checkpoint.position}`);
  });
  try {
    const result = await worker.done;
    progress.finish(`${result.items} items read, ${result.updates} new updates`);
    return shutdown.signal.aborted ? 130 : 0;
  } finally {
    await shutdown.run('import finished');
  }
}

/** Each page commits with its position: a signal stops it after the page in hand, and a new run resumes there. */
async function backfill(config: Config, logger: Logger, shutdown: Shutdown): Promise<number> {
  // Not the shutdown's handlers: they would close the pool under the page in hand.
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => stop.abort());
  const database = await openMigratedDatabase(config, logger, shutdown);
  const progress = createProgress('backfilling activities');
  try {
    const result = await backfillActivities(database.db, {
      signal: stop.signal,
      onProgress: (p) => progress.update(p.updatesDone, p.totalUpdates, `${p.updatesDone} of ${p.totalUpdates} updates, at ${p.at}`),
      onSkipped: (s) =>
        logger.warn(
          { updateId: s.updateId, eventId: s.eventId, choice: s.choice, reason: s.reason },
          'activity skipped: it cannot be derived',
        ),
    });
    progress.finish(
      result.finished
        ? `done: ${result.updates} updates walked, ${result.activities} activity rows`
        : `interrupted after ${result.updates} updates; run it again to resume`,
    );
    return result.finished ? 0 : 130;
  } finally {
    await shutdown.run('backfill finished');
  }
}

/** As backfill: each page commits with its position, and a new run resumes there. */
async function backfillStreamIndex(config: Config, logger: Logger, shutdown: Shutdown): Promise<number> {
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => stop.abort());
  const database = await openMigratedDatabase(config, logger, shutdown);
  try {
    const result = await backfillUpdateSubjects(database.db, {
      signal: stop.signal,
      onProgress: (p) => logger.info({ updatesDone: p.updatesDone, at: p.at }, 'backfilling the stream index'),
    });
    process.stdout.write(
      result.finished
        ? `done: ${result.updates} updates walked, ${result.rows} index rows\n`
        : `interrupted after ${result.updates} updates; run it again to resume\n`,
    );
    return result.finished ? 0 : 130;
  } finally {
    await shutdown.run('backfill finished');
  }
}

/** As backfill: each snapshot's totals commit on their own, and a new run resumes at the first without. */
async function backfillSupply(config: Config, logger: Logger, shutdown: Shutdown): Promise<number> {
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => stop.abort());
  const database = await openMigratedDatabase(config, logger, shutdown);
  const progress = createProgress('backfilling supply totals');
  try {
    const result = await backfillSupplyTotals(database.db, {
      signal: stop.signal,
      onProgress: (p) =>
        progress.update(p.snapshotsWithTotals, p.snapshots, `${p.snapshotsWithTotals} of ${p.snapshots} snapshots, at ${p.at}`),
    });
    progress.finish(
      result.finished
        ? `done: ${result.snapshots} snapshots given totals`
        : result.blocked !== undefined
          ? `stopped after ${result.snapshots} snapshots: ${result.blocked}`
          : `interrupted after ${result.snapshots} snapshots; run it again to resume`,
    );
    return result.finished ? 0 : result.blocked !== undefined ? 1 : 130;
  } finally {
    await shutdown.run('backfill finished');
  }
}

async function main(argv: string[]): Promise<number> {
  const [command = 'help', ...rest] = argv;
  const isHelp = (arg: string): boolean => arg === 'help' || arg === '--help' || arg === '-h';
  if (isHelp(command) || rest.some(isHelp)) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command === 'docs-config') {
    fs.writeFileSync(path.join(projectRoot, '.env.example'), renderEnvExample());
    const readme = path.join(projectRoot, 'README.md');
    fs.writeFileSync(readme, replaceReadmeTable(fs.readFileSync(readme, 'utf8')));
    return 0;
  }
  if (command === 'build-info') {
    const info = writeBuildInfo();
    process.stdout.write(`build ${info.version}, commit time ${info.commitTime} (${info.commitTimeSource})\n`);
    return 0;
  }
  if (command === 'simulate') return simulate(rest);
  if (
    ![
      'start',
      'serve',
      'ingest',
      'migrate',
      'import',
      'snapshot',
      'backfill-activities',
      'backfill-stream-index',
      'backfill-supply-totals',
    ].includes(command)
  ) {
    throw new UsageError(`unknown command '${command}'`);
  }

  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const shutdown = new Shutdown(logger);
  try {
    switch (command) {
      case 'migrate': {
        const { applied } = await openMigratedDatabase(config, logger, shutdown);
        process.stdout.write(applied.length ? `applied ${applied.join(', ')}\n` : 'the database schema is current\n');
        await shutdown.run('migrations done');
        return 0;
      }
      case 'snapshot': {
        const database = await openMigratedDatabase(config, logger, shutdown);
        const { taken } = await catchUpSnapshots(database.db, logger);
        process.stdout.write(`announced ${taken.length} ACS snapshot${taken.length === 1 ? '' : 's'}\n`);
        const derived = await catchUpHoldingTotals(database.db, config.ingest.holdingTotalsRefreshOwners, logger);
        process.stdout.write(`derived the holdings totals of ${derived} ACS snapshot${derived === 1 ? '' : 's'}\n`);
        await shutdown.run('snapshots done');
        return 0;
      }
      case 'import':
        return await importFile(rest[0], config, logger, shutdown);
      case 'backfill-activities':
        return await backfill(config, logger, shutdown);
      case 'backfill-stream-index':
        return await backfillStreamIndex(config, logger, shutdown);
      case 'backfill-supply-totals':
        return await backfillSupply(config, logger, shutdown);
      default:
        return await runService(command as 'start' | 'serve' | 'ingest', config, logger, shutdown);
    }
  } catch (err) {
    logger.fatal({ err }, `${command} failed`);
    await shutdown.run(`${command} failed`);
    process.stderr.write(`scan-indexer: ${(err as Error).message}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    // parseArgs refuses unknown or malformed options with a TypeError whose code names it: a usage error too.
    if (err instanceof UsageError || /^ERR_PARSE_ARGS_/.test(String((err as { code?: unknown })?.code))) {
      process.stderr.write(`scan-indexer: ${(err as Error).message}\n\n${USAGE}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`scan-indexer: ${err instanceof ConfigError ? err.message : String((err as Error)?.stack ?? err)}\n`);
    process.exitCode = 1;
  },
);
