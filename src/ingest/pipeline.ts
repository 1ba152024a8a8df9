/**
 * The ingestion pipeline: items are planned one at a time as the source
 * yields them, while PostgreSQL writes the previous batch. At most two batches
 * exist at once, the one being committed and the one being planned, so memory
 * is bounded by the batch size whatever the source's pace.
 *
 * A batch is sealed when it holds `batchSize` items, or, while no commit is
 * under way, when its first item has waited `batchMaxWaitMs`: a live source
 * sees its items committed within that time, and a backfill, which keeps the
 * writer busy, gets full batches.
 */
import type { Checkpoint } from '../store/ingest-repository';
import type { Db } from '../store/pool';
import { BatchPlanner, type Plan } from './batch-plan';
import type { SourceItem } from './source';
import { compareStreamKeys, itemKey, keyOfCheckpoint, markStoredItems, newestStoredStreamKey, type AppliedBatch } from './writer';

export interface PipelineOptions {
  db: Db;
  items: AsyncIterable<SourceItem>;
  /** The stream's checkpoint when the pipeline starts. */
  checkpoint: Checkpoint | undefined;
  batchSize: number;
  batchMaxWaitMs: number;
  /** Commits a plan made after `expectedPosition` (null: the stream's start). */
  commit: (plan: Plan, expectedPosition: string | null) => Promise<AppliedBatch>;
  /** Runs after each commit, before the next one starts. */
  onApplied: (applied: AppliedBatch, plan: Plan) => Promise<void> | void;
  /** Checked after each commit: stops the pipeline once the current batch is committed. */
  signal: AbortSignal;
}

export interface PipelineResult {
  items: number;
  updates: number;
}

export async function runPipeline(options: PipelineOptions): Promise<PipelineResult> {
  const { db } = options;
  const result: PipelineResult = { items: 0, updates: 0 };
  let position = options.checkpoint?.position ?? null;
  // Items at or before the newest stored key may be stored already (a resumed or overlapping stream).
  let storedMax = await newestStoredStreamKey(db);
  let planner = new BatchPlanner(keyOfCheckpoint(options.checkpoint));
  let deadline = 0;
  let inFlight: Promise<AppliedBatch> | undefined;
  let inFlightPlan: Plan | undefined;

  const settle = async (): Promise<void> => {
    if (!inFlight) return;
    const plan = inFlightPlan!;
    try {
      const applied = await inFlight;
      position = applied.checkpoint.position;
      result.items += plan.items;
      result.updates += applied.updates;
      if (plan.last && (!storedMax || compareStreamKeys(plan.last, storedMax) > 0)) storedMax = plan.last;
      await options.onApplied(applied, plan);
    } finally {
      inFlight = undefined;
      inFlightPlan = undefined;
    }
  };

  // What the loop waits for: the next item, the commit under way, or the time limit of a batch.
  // Each wait is a fresh promise resolved with nothing: racing long-lived promises would keep every
  // planned item reachable from the commit's promise until it settled.
  let wake: (() => void) | undefined;
  const poke = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  let committed = false;

  const seal = async (): Promise<void> => {
    await settle();
    const plan = planner.finish();
    planner = new BatchPlanner(plan.last);
    inFlightPlan = plan;
    committed = false;
    inFlight = options.commit(plan, position);
    // Failures are awaited by settle(); until then they must not count as unhandled.
    inFlight.then(
      () => ((committed = true), poke()),
      () => ((committed = true), poke()),
    );
  };

  const iterator = options.items[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<SourceItem>> | undefined;
  let next: { result: IteratorResult<SourceItem> } | { error: unknown } | undefined;
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  try {
    for (;;) {
      if (options.signal.aborted && planner.items === 0 && !inFlight) break;
      if (!pending) {
        next = undefined;
        pending = iterator.next();
        pending.then(
          (result) => ((next = { result }), poke()),
          (error: unknown) => ((next = { error }), poke()),
        );
      }
      if (!next && !(inFlight && committed) && !timedOut) {
        if (planner.items > 0 && !inFlight && !timer) {
          timer = setTimeout(() => ((timer = undefined), (timedOut = true), poke()), Math.max(0, deadline - Date.now()));
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
      if (inFlight && committed) {
        await settle();
        continue;
      }
      if (timedOut) {
        timedOut = false;
        if (planner.items > 0) await seal();
        continue;
      }
      if (!next) continue;
      const got = next;
      pending = undefined;
      next = undefined;
      if ('error' in got) throw got.error;
      if (got.result.done) break;
      const sourceItem = got.result.value;
      const key = itemKey(sourceItem.item);
      if (storedMax && key && compareStreamKeys(key, storedMax) <= 0) {
        // Rare: only where a stream resumes or overlaps what is stored. Look it up after the commit under way.
        await settle();
        await markStoredItems(db, planner, [sourceItem], storedMax);
      }
      planner.add(sourceItem);
      if (planner.items === 1) deadline = Date.now() + options.batchMaxWaitMs;
      if (planner.items >= options.batchSize) {
        clearTimeout(timer);
        timer = undefined;
        await seal();
      }
    }
    clearTimeout(timer);
    if (planner.items > 0) await seal();
    await settle();
    return result;
  } catch (err) {
    // The batch under way comes before whatever failed here: it commits first, and its own failure, earlier in the stream, wins.
    await settle();
    throw err;
  } finally {
    clearTimeout(timer);
    await iterator.return?.();
  }
}
