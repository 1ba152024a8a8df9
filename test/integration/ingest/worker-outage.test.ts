/**
 * A database blip during ingestion: every connection of the worker is cut
 * (as a server restart does) in the middle of a run. The worker outlives it:
 * after a pause it takes the writer lock again, resumes at its checkpoint, and
 * ends with the same tables as a run that was never interrupted.
 */
import { sql } from 'kysely';
import type { CanonicalItem } from '../../../src/domain/items';
import type { Source } from '../../../src/ingest/source';
import { runWorker, runWorkerThroughOutages } from '../../../src/ingest/worker';
import { createLogger } from '../../../src/internal/logger';
import { createMetrics } from '../../../src/internal/metrics';
import { createTestDatabase, destroyTestDatabase, type TestDatabase } from '../../support/database/database';
import { dumpTables } from '../../support/database/dump';
import { simulatedItems } from '../../support/items/simulated-network';

const items = simulatedItems({ seed: 'outage', updates: 600, migrations: 1, meanUpdateGapMs: 20_000 });
const logger = createLogger('silent');

/** The items by position; before the item at `cutAt` (once), `beforeCut` runs. */
function arraySource(list: CanonicalItem[], cutAt?: number, beforeCut?: () => Promise<void>): Source {
  let cut = false;
  return {
    stream: 'array',
    async *read(from) {
      for (let i = from === undefined ? 0 : Number(from); i < list.length; i++) {
        if (i === cutAt && !cut) {
          cut = true;
          await beforeCut?.();
        }
        yield { item: list[i]!, position: String(i + 1), origin: `item ${i}` };
      }
    },
  };
}

describe('ingestion through a database outage', () => {
  let plain: TestDatabase;
  let cut: TestDatabase;
  beforeAll(async () => {
    [plain, cut] = [await createTestDatabase(), await createTestDatabase()];
  });
  afterAll(async () => {
    if (plain) await destroyTestDatabase(plain);
    if (cut) await destroyTestDatabase(cut);
  });

  it('resumes after its connections are cut and ends with the tables of an uninterrupted run', async () => {
    await runWorker(
      { db: plain.db, pool: plain.pool, source: arraySource(items), logger, batchSize: 50, batchMaxWaitMs: 20 },
      new AbortController().signal,
    );

    const killed: number[] = [];
    const cutConnections = async () => {
      // Every session of the database but this one, the writer lock's included.
      const { rows } = await sql<{ n: number }>`select pg_terminate_backend(pid)::int as n from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid()`.execute(cut.db);
      killed.push(rows.length);
    };
    const metrics = createMetrics();
    const result = await runWorkerThroughOutages(
      { db: cut.db, pool: cut.pool, source: arraySource(items, 300, cutConnections), logger, metrics, batchSize: 50, batchMaxWaitMs: 20 },
      new AbortController().signal,
      { initialMs: 50, maxMs: 200 },
    );
    expect(killed[0]).toBeGreaterThan(0);
    // The cut ended the run, and a second run took the writer lock again.
    expect((await metrics.writerLockAcquisitions.get()).values[0]?.value).toBe(2);
    expect(result.items).toBeGreaterThan(0);
    const [a, b] = await Promise.all([dumpTables(plain.db), dumpTables(cut.db)]);
    for (const table of Object.keys(a)) expect({ table, rows: b[table] }).toEqual({ table, rows: a[table] });
  });
});
