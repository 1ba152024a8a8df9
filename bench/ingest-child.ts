/**
 * The ingest benchmark's worker process: the real ingestion worker (runWorker)
 * importing an NDJSON feed (the simulator's, written into a pipe by another
 * process, as `scan-indexer simulate` and `import` would), with the default
 * batch settings, into a migrated database. It runs alone in its process so
 * that its CPU time and peak RSS are its own. One JSON line per committed
 * batch on standard output, then a summary line.
 *
 * Usage: node dist/bench/ingest-child.js <database url> <NDJSON file or pipe>
 */
import { loadConfig } from '../src/internal/config';
import { createLogger } from '../src/internal/logger';
import { createFileSource } from '../src/ingest/sources/file-source';
import { runWorker } from '../src/ingest/worker';
import { createDb, createPool } from '../src/store/pool';

export interface BatchLine {
  type: 'batch';
  /** Milliseconds since the worker started, at the commit. */
  atMs: number;
  /** Items applied so far, in total. */
  itemsTotal: number;
  updates: number;
  importUpdates: number;
  events: number;
  /** The commit's own duration (PostgreSQL's part). */
  commitMs: number;
  rssBytes: number;
}

export interface DoneLine {
  type: 'done';
  wallMs: number;
  cpuUserMs: number;
  cpuSystemMs: number;
  maxRssBytes: number;
}

async function main(): Promise<void> {
  const [url, feed] = process.argv.slice(2);
  if (!url || !feed) throw new Error('usage: ingest-child <database url> <NDJSON file or pipe>');
  const config = loadConfig({});
  const pool = createPool({ connectionString: url, max: 4 });
  const db = createDb(pool);
  const source = createFileSource(feed);
  const started = performance.now();
  const cpu = process.cpuUsage();
  const write = (line: BatchLine | DoneLine) => process.stdout.write(`${JSON.stringify(line)}\n`);
  try {
    await runWorker(
      {
        db,
        pool,
        source,
        logger: createLogger('warn'),
        batchSize: config.ingest.batchSize,
        batchMaxWaitMs: config.ingest.batchMaxWaitMs,
        onBatch: (b) =>
          write({
            type: 'batch',
            atMs: performance.now() - started,
            itemsTotal: b.checkpoint.itemsApplied,
            updates: b.counts.updates,
            importUpdates: b.counts.importUpdates,
            events: b.counts.events,
            commitMs: b.durationMs,
            rssBytes: process.memoryUsage.rss(),
          }),
      },
      new AbortController().signal,
    );
    const used = process.cpuUsage(cpu);
    write({
      type: 'done',
      wallMs: performance.now() - started,
      cpuUserMs: used.user / 1000,
      cpuSystemMs: used.system / 1000,
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
    });
  } finally {
    await db.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
