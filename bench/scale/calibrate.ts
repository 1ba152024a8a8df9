/**
 * Before a large build, a sample of the same history is grown the slow way,
 * with every index in place while the rows go in (as a database that grew by
 * ingestion), to measure on this server:
 *
 * - the bytes a generated update and contract take, indexes included, from
 *   which the size of the large build is estimated;
 * - how full each index's pages are when it grows that way: rebuilt from the
 *   same rows (REINDEX), an index packs its leaves to the default fillfactor
 *   (90%), so 90% × built / grown is the leaf fill to build it with after the
 *   large load, for it to take the room a grown one takes. Indexes keyed by
 *   random ids measure about 70%, as B-trees grown by random inserts settle at.
 *
 * The sample has the large history's density (the same mean gap between
 * updates, over a shorter span ending at the same time), so that contracts
 * live as many updates and snapshots as in the large one.
 */
import { databaseBytes, indexSizes, reindexTables, type RelationSize } from '../../src/store/bulk-load';
import { migrate } from '../../src/store/migrator';
import { createPool } from '../../src/store/pool';
import { dropDatabase, freshDatabase, withPool } from '../ingest-bench';
import type { HistorySpec } from './history';
import { buildLargeState, HISTORY_TABLES } from './load';

export interface Calibration {
  updates: number;
  contracts: number;
  /** Database growth per generated update and per generated contract. */
  bytesPerUpdate: number;
  bytesPerContract: number;
  sizes: RelationSize[];
  /** Leaf fill by index name, for indexes whose grown pages are not as full as built ones. */
  fills: Map<string, number>;
  seconds: number;
}

/** B-tree leaves of a built index are packed to this (PostgreSQL's default fillfactor). */
const BUILT_FILL = 90;
/** Indexes this small in the sample are a few pages: their ratio says nothing. */
const MIN_MEASURED_INDEX_BYTES = 512 * 1024;

/** The same history's density over `updates` updates ending where the large one ends. */
function sampleSpec(spec: HistorySpec, updates: number): HistorySpec {
  const n = Math.min(updates, spec.updates);
  const span = ((spec.end - spec.start) * BigInt(n)) / BigInt(spec.updates);
  return { ...spec, updates: n, start: spec.end - span };
}

export async function calibrate(o: {
  adminUrl: string;
  spec: HistorySpec;
  sampleUpdates: number;
  log: (line: string) => void;
}): Promise<Calibration> {
  const started = performance.now();
  const name = `scan_indexer_bench_scale_sample_${process.pid}`;
  const url = await freshDatabase(o.adminUrl, name);
  try {
    await withPool(url, (pool) => migrate(pool));
    const empty = await withPool(url, (pool) => databaseBytes(pool));
    const spec = sampleSpec(o.spec, o.sampleUpdates);
    o.log(`  calibration: ${spec.updates.toLocaleString('en-US')} updates of the same history, with every index in place`);
    const built = await buildLargeState({ url, spec, indexBuild: 'during', log: o.log, progressLines: 0 });
    const pool = createPool({ connectionString: url, max: 2 });
    try {
      const grownBytes = await databaseBytes(pool);
      const grown = await indexSizes(pool, HISTORY_TABLES);
      await reindexTables(pool, HISTORY_TABLES);
      const rebuilt = await indexSizes(pool, HISTORY_TABLES);
      const fills = new Map<string, number>();
      for (const [index, bytes] of grown) {
        const packed = rebuilt.get(index) ?? bytes;
        if (bytes < MIN_MEASURED_INDEX_BYTES || packed >= bytes * 0.95) continue;
        fills.set(index, Math.max(10, Math.min(100, Math.round((BUILT_FILL * packed) / bytes))));
      }
      return {
        updates: built.counts.updates,
        contracts: built.counts.contracts,
        bytesPerUpdate: (grownBytes - empty) / built.counts.updates,
        bytesPerContract: (grownBytes - empty) / built.counts.contracts,
        sizes: built.sizes,
        fills,
        seconds: (performance.now() - started) / 1000,
      };
    } finally {
      await pool.end();
    }
  } finally {
    await dropDatabase(o.adminUrl, name);
  }
}
