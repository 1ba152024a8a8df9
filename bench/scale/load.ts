/**
 * Fills a migrated database with generated history (history.ts): each history
 * table gets its own connection and its rows by COPY through the parent table
 * name, a chunk at a time, while the next chunk is generated; then the
 * bookkeeping tables, the indexes (when built after the rows), VACUUM ANALYZE,
 * and the ACS snapshots the snapshot job would have announced over that
 * history (catchUpSnapshots, the job's own code).
 */
import type pg from 'pg';
import { startOfMonth, type Micros } from '../../src/domain/time';
import { catchUpSnapshots } from '../../src/jobs/acs-snapshots';
import { catchUpHoldingTotals } from '../../src/jobs/holding-totals';
import { HOLDING_TOTALS_REFRESH_OWNERS_DEFAULT } from '../../src/internal/config';
import {
  copyRows,
  createIndex,
  dropIndexes,
  indexesOf,
  relationSizes,
  startBulkSession,
  vacuumAnalyze,
  type RelationSize,
} from '../../src/store/bulk-load';
import type { CopyData } from '../../src/store/chunked-buffer';
import { ensureHistoryPartitions } from '../../src/store/partitions';
import { createDb, createPool, type Db } from '../../src/store/pool';
import { generateHistory, type HistoryChunk, type HistoryCounts, type HistorySpec } from './history';

/** The tables generated history fills in bulk, by parent table name. */
export const HISTORY_TABLES = [
  'contracts',
  'contract_stakeholders',
  'updates',
  'verdicts',
  'traffic_summaries',
  'app_activity_records',
] as const;
const BOOKKEEPING_TABLES = ['migrations', 'migration_synchronizers', 'update_counts_by_hour', 'acs_deltas', 'acs_snapshots'] as const;
const CHUNK_TABLE: Record<keyof HistoryChunk, (typeof HISTORY_TABLES)[number]> = {
  contracts: 'contracts',
  contractStakeholders: 'contract_stakeholders',
  updates: 'updates',
  verdicts: 'verdicts',
  trafficSummaries: 'traffic_summaries',
  appActivityRecords: 'app_activity_records',
};

/**
 * How indexes come to be: `during`, kept while the rows go in, as on a database that grew by
 * ingestion (slow once they outgrow memory); `after`, dropped and built again once the rows are in,
 * as after a restore, each with its leaf pages filled as much as they are in an index that grew
 * (`fills`, measured by calibrate.ts).
 */
export type IndexBuild = 'during' | 'after';

/**
 * Makes the partitions the history's record times fall into, for every month from `from` to `to`,
 * with the store's function the writer uses to make them ahead of ingestion.
 */
async function prepareHistoryPartitions(db: Db, migrationId: number, from: Micros, to: Micros): Promise<void> {
  const months: { migrationId: number; recordTime: Micros }[] = [];
  for (let month = startOfMonth(from); month <= to; month = startOfMonth(month, 1)) months.push({ migrationId, recordTime: month });
  await ensureHistoryPartitions(db, months);
}

interface BuildTimes {
  /** Generating and copying the rows. */
  rowsSeconds: number;
  indexSeconds: number;
  vacuumSeconds: number;
  snapshotSeconds: number;
  totalSeconds: number;
}

export interface BuildReport {
  counts: HistoryCounts;
  firstRecordTime: Micros;
  lastRecordTime: Micros;
  snapshots: number;
  times: BuildTimes;
  sizes: RelationSize[];
  /** Each index built after the rows, with the fill it was given. */
  indexes: { table: string; index: string; fillfactor: number | undefined; seconds: number }[];
}

/** COPYs of one table, one after another on its own connection; at most one waiting while the next chunk is generated. */
class TableLoader {
  private inFlight: Promise<void> = Promise.resolve();
  /** The COPY that failed; its connection is closed rather than returned to the pool. */
  failure: Error | undefined;

  constructor(readonly client: pg.PoolClient) {}

  async add(rows: CopyData): Promise<void> {
    await this.inFlight;
    if (this.failure !== undefined) throw this.failure;
    this.inFlight = copyRows(this.client, rows).catch((err: unknown) => {
      this.failure = err instanceof Error ? err : new Error(String(err));
    });
  }

  async finish(): Promise<void> {
    await this.inFlight;
    if (this.failure !== undefined) throw this.failure;
  }
}

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });

export async function buildLargeState(o: {
  url: string;
  spec: HistorySpec;
  indexBuild: IndexBuild;
  /** Leaf fill (fillfactor) by index name, for indexes built after the rows; others get their definition's. */
  fills?: ReadonlyMap<string, number>;
  log: (line: string) => void;
  /** Progress lines (about 20 over the build); 0 for none. */
  progressLines?: number;
}): Promise<BuildReport> {
  const started = performance.now();
  const pool = createPool({ connectionString: o.url, max: HISTORY_TABLES.length + 2 });
  const db = createDb(pool);
  const loaders: TableLoader[] = [];
  try {
    await prepareHistoryPartitions(db, o.spec.migrationId, o.spec.start, o.spec.end);
    const indexes = o.indexBuild === 'after' ? await indexesOf(pool, HISTORY_TABLES) : [];
    await dropIndexes(pool, indexes);

    const byTable = new Map<string, TableLoader>();
    for (const table of HISTORY_TABLES) {
      const client = await pool.connect();
      await startBulkSession(client);
      const loader = new TableLoader(client);
      loaders.push(loader);
      byTable.set(table, loader);
    }
    const every = o.progressLines === 0 ? Infinity : Math.max(1, Math.floor(o.spec.updates / (o.progressLines ?? 20)));
    let nextReport = every;
    const result = await generateHistory(
      o.spec,
      async (chunk) => {
        for (const key of Object.keys(CHUNK_TABLE) as (keyof HistoryChunk)[]) await byTable.get(CHUNK_TABLE[key])!.add(chunk[key]);
      },
      (c) => {
        if (c.updates < nextReport && c.updates < o.spec.updates) return;
        while (nextReport <= c.updates) nextReport += every;
        const s = (performance.now() - started) / 1000;
        o.log(
          `  history: ${fmt(c.updates)} of ${fmt(o.spec.updates)} updates, ${fmt(c.contracts)} contracts (${fmt(c.activeContracts)} active), ` +
            `${s.toFixed(0)} s, ${fmt(c.contracts / s)} contracts/s, ${fmt(c.encodedBytes / 2 ** 20)} MiB encoded, RSS ${fmt(process.memoryUsage.rss() / 2 ** 20)} MiB`,
        );
      },
    );
    for (const loader of loaders) await loader.finish();
    const bookkeeping = loaders[0]!.client;
    const b = result.bookkeeping;
    for (const rows of [b.migrations, b.migrationSynchronizers, b.updateCountsByHour, b.acsDeltas]) await copyRows(bookkeeping, rows);
    const rowsDone = performance.now();

    const built: BuildReport['indexes'] = [];
    if (indexes.length > 0) {
      for (const ix of indexes) {
        const t = performance.now();
        const fillfactor = await createIndex(bookkeeping, ix, o.fills?.get(ix.index));
        built.push({ table: ix.table, index: ix.index, fillfactor, seconds: (performance.now() - t) / 1000 });
        o.log(
          `  index ${ix.index} on ${ix.table}${fillfactor ? ` (leaves ${fillfactor}% full)` : ''}: ${((performance.now() - t) / 1000).toFixed(1)} s`,
        );
      }
    }
    const indexesDone = performance.now();

    o.log('  announcing the ACS snapshots of the history and deriving their holdings totals (the two jobs)');
    const snapshots = await catchUpSnapshots(db);
    // Their holdings totals too, as the worker's job would have derived them, so that it has none to derive beside the measured ingestion.
    await catchUpHoldingTotals(db, HOLDING_TOTALS_REFRESH_OWNERS_DEFAULT);
    const snapshotsDone = performance.now();

    // A database that grew for two years has been vacuumed (autovacuum runs after inserts too): its
    // visibility map is set. Doing it here also keeps autovacuum's pass over the new rows out of the measured ingest.
    o.log('  VACUUM ANALYZE of the history tables');
    await vacuumAnalyze(pool, [...HISTORY_TABLES, ...BOOKKEEPING_TABLES]);
    const vacuumDone = performance.now();
    return {
      counts: result.counts,
      firstRecordTime: result.firstRecordTime,
      lastRecordTime: result.lastRecordTime,
      snapshots: snapshots.taken.length,
      times: {
        rowsSeconds: (rowsDone - started) / 1000,
        indexSeconds: (indexesDone - rowsDone) / 1000,
        snapshotSeconds: (snapshotsDone - indexesDone) / 1000,
        vacuumSeconds: (vacuumDone - snapshotsDone) / 1000,
        totalSeconds: (vacuumDone - started) / 1000,
      },
      sizes: await relationSizes(pool, [...HISTORY_TABLES, ...BOOKKEEPING_TABLES]),
      indexes: built,
    };
  } finally {
    for (const loader of loaders) loader.client.release(loader.failure);
    await db.destroy();
  }
}
