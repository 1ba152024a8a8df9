/** Simulated networks written as NDJSON for ingestion tests. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import type { CanonicalItem } from '../../../src/domain/items';
import { createFileSource } from '../../../src/ingest/sources/file-source';
import { runWorker } from '../../../src/ingest/worker';
import { createLogger } from '../../../src/internal/logger';
import type { Db } from '../../../src/store/pool';
import { generateItems, type SimulatorOptions } from '../../../src/simulator/index';

export function simulatedItems(options: SimulatorOptions): CanonicalItem[] {
  return [...generateItems(options)];
}

export function writeItems(
  items: CanonicalItem[],
  file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'items-')), 'items.ndjson'),
): string {
  fs.writeFileSync(file, items.map((i) => `${JSON.stringify(i)}\n`).join(''));
  return file;
}

/** Ingests items as the service does: written to NDJSON and run through the worker to the end. */
export async function ingestThroughWorker(database: { db: Db; pool: pg.Pool }, items: CanonicalItem[]): Promise<void> {
  await runWorker(
    {
      db: database.db,
      pool: database.pool,
      source: createFileSource(writeItems(items)),
      logger: createLogger('silent'),
      batchSize: 100,
      batchMaxWaitMs: 100,
    },
    new AbortController().signal,
  );
}
