#!/usr/bin/env node
/** Entry point: `scan-indexer <command>`. */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from './internal/config';
import { renderEnvExample, replaceReadmeTable } from './internal/config-docs';
import { createLogger } from './internal/logger';
import { projectRoot } from './internal/paths';
import { Shutdown } from './internal/shutdown';
import { migrateDatabase, openDatabase, serve } from './runtime';

const USAGE = `Usage: scan-indexer <command>

Commands:
  start              run the API and the ingestion worker (the default of npm start)
  serve              run the API only
  ingest             run the ingestion worker only
  migrate            apply pending database migrations and exit
  import <file>      import an NDJSON file of /v0/events items
  snapshot           announce every ACS snapshot that ingestion has passed
  simulate           write a simulated network as NDJSON
  docs-config        regenerate .env.example and the README configuration table
  help               show this text

Configuration comes from environment variables: see .env.example.`;

/** Commands whose implementation lands with a later issue. */
const PENDING: Record<string, string> = {
  ingest: 'the ingestion worker (issue #4)',
  import: 'file import (issue #4)',
  snapshot: 'ACS snapshots (issue #4)',
  simulate: 'the simulated network (issue #3)',
};

async function main(argv: string[]): Promise<number> {
  const [command = 'help'] = argv;
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command === 'docs-config') {
    fs.writeFileSync(path.join(projectRoot, '.env.example'), renderEnvExample());
    const readme = path.join(projectRoot, 'README.md');
    fs.writeFileSync(readme, replaceReadmeTable(fs.readFileSync(readme, 'utf8')));
    return 0;
  }
  const pending = PENDING[command];
  if (pending) {
    process.stderr.write(`scan-indexer: '${command}' is not available yet: ${pending} is not implemented in this build.\n`);
    return 2;
  }
  if (!['start', 'serve', 'migrate'].includes(command)) {
    process.stderr.write(`scan-indexer: unknown command '${command}'.\n\n${USAGE}\n`);
    return 2;
  }

  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const shutdown = new Shutdown(logger);
  try {
    if (command === 'migrate') {
      const database = await openDatabase(config, logger, shutdown);
      const applied = await migrateDatabase(database, logger);
      process.stdout.write(applied.length ? `applied ${applied.join(', ')}\n` : 'the database schema is current\n');
      await shutdown.run('migrations done');
      return 0;
    }
    const exitCode = new Promise<number>((resolve) => shutdown.installSignalHandlers(resolve));
    await serve(config, logger, shutdown, { withWorker: command === 'start' });
    return await exitCode;
  } catch (err) {
    logger.fatal({ err }, 'start-up failed');
    await shutdown.run('start-up failed');
    process.stderr.write(`scan-indexer: ${(err as Error).message}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`scan-indexer: ${err instanceof ConfigError ? err.message : String((err as Error)?.stack ?? err)}\n`);
    process.exitCode = 1;
  },
);
