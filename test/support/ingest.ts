/**
 * Ingestion for tests: the items go through the pipeline and the writer as the worker sends them
 * (runPipeline, commitPlan), from an in-memory source, without the worker's lock, retries or snapshots.
 */
import { runPipeline } from '../../src/ingest/pipeline';
import type { SourceItem } from '../../src/ingest/source';
import { commitPlan, storedLookup, type AppliedBatch } from '../../src/ingest/writer';
import { newestStoredKey, readCheckpoint, type Checkpoint } from '../../src/store/ingest-repository';
import type { Db } from '../../src/store/pool';

export interface IngestOptions {
  /** Items per batch; by default all of them in one batch. */
  batchSize?: number;
  /**
   * Where the writer believes the stream stands; null: at its start (as a writer that missed a commit).
   * By default the stored checkpoint.
   */
  checkpoint?: Checkpoint | null;
}

export interface Ingested {
  items: number;
  /** Updates written; re-applied ones excluded. */
  updates: number;
  /** What each committed batch reported, in order. */
  batches: AppliedBatch[];
}

async function* inMemory(items: SourceItem[]): AsyncGenerator<SourceItem> {
  yield* items;
}

/** Plans and commits the items after the stream's checkpoint; rejects with the error that stopped them. */
export async function ingestItems(db: Db, stream: string, items: SourceItem[], options: IngestOptions = {}): Promise<Ingested> {
  if (items.length === 0) throw new Error('ingestItems needs at least one item');
  const checkpoint = options.checkpoint === undefined ? await readCheckpoint(db, stream) : (options.checkpoint ?? undefined);
  const batches: AppliedBatch[] = [];
  const result = await runPipeline({
    items: inMemory(items),
    checkpoint,
    batchSize: options.batchSize ?? items.length,
    // Batches are sealed by size only: an in-memory source never makes the pipeline wait for an item.
    batchMaxWaitMs: 60_000,
    commit: (plan, expectedPosition) => commitPlan(db, stream, plan, expectedPosition),
    onApplied: (applied) => {
      batches.push(applied);
    },
    signal: new AbortController().signal,
    storedMax: await newestStoredKey(db),
    lookUpStored: storedLookup(db),
  });
  return { ...result, batches };
}
