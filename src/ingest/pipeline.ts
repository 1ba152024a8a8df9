/**
 * The ingestion pipeline: items are planned one at a time as the source
 * yields them, while PostgreSQL writes the previous batch. At most two batches
 * exist at once, the one being committed and the one being planned, so memory
 * is bounded by the batch size whatever the source's pace.
 *
 * A batch is sealed when it holds `batchSize` items or MAX_BATCH_BYTES of
 * rows, or, while no commit is under way, when its first item has waited `batchMaxWaitMs`: a live source
 * sees its items committed within that time, and a backfill, which keeps the
 * writer busy, gets full batches.
 */
import type { Checkpoint } from '../store/ingest-repository';
import { compareStreamKeys, type StreamKey } from '../domain/stream-key';
import { BatchPlanner, type Plan } from './batch-plan';
import type { SourceItem } from './source';
import { itemKey } from '../domain/items';
import { keyOfCheckpoint, type AppliedBatch } from './writer';

/** Which of these update and verdict ids are stored. */
type StoredLookup = (updateIds: string[], verdictIds: string[]) => Promise<{ updates: Set<string>; verdicts: Set<string> }>;

export interface PipelineOptions {
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
  /** The greatest key of any stored update or verdict when the pipeline starts. */
  storedMax: StreamKey | undefined;
  lookUpStored: StoredLookup;
}

export interface PipelineResult {
  items: number;
  updates: number;
}

/**
 * A batch is sealed at this size whatever its item count: with two batches in memory, the worker
 * stays within a few hundred MB however large the items are.
 */
const MAX_BATCH_BYTES = 24 * 2 ** 20;

/** Items planned between two turns of the event loop. */
const YIELD_EVERY = 8;

/** The update id, or the verdict's, an item carries. */
function idsOf(sourceItem: SourceItem, part: 'update' | 'verdict'): string[] {
  const { item } = sourceItem;
  if (typeof item !== 'object' || item === null) return [];
  const id = item[part]?.update_id;
  return typeof id === 'string' ? [id] : [];
}

/** FNV-1a, 32 bits: a hit only means "look it up". */
function idHash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export async function runPipeline(options: PipelineOptions): Promise<PipelineResult> {
  const result: PipelineResult = { items: 0, updates: 0 };
  let position = options.checkpoint?.position ?? null;
  // Items at or before the newest key stored before the pipeline started may be stored already (a
  // resumed or overlapping stream): they are looked up. Items after it can only repeat an item of this
  // pipeline with the same key (keys never decrease), which a set of id hashes at the last key finds.
  const { storedMax } = options;
  let lastKey: StreamKey | undefined;
  const idsAtLastKey = new Set<number>();
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
      const ids = [
        ...idsOf(sourceItem, 'update').map((id) => idHash(`u${id}`)),
        ...idsOf(sourceItem, 'verdict').map((id) => idHash(`v${id}`)),
      ];
      const maybeStored =
        key !== undefined &&
        ((storedMax !== undefined && compareStreamKeys(key, storedMax) <= 0) ||
          (lastKey !== undefined && compareStreamKeys(key, lastKey) === 0 && ids.some((id) => idsAtLastKey.has(id))));
      if (maybeStored) {
        // Rare: where a stream resumes, overlaps what is stored, or repeats itself. Looked up once
        // the commit under way has landed.
        await settle();
        const [updateIds, verdictIds] = [idsOf(sourceItem, 'update'), idsOf(sourceItem, 'verdict')];
        const stored = await options.lookUpStored(updateIds, verdictIds);
        planner.markStored(stored.updates, stored.verdicts);
      }
      if (key !== undefined) {
        if (lastKey === undefined || compareStreamKeys(key, lastKey) !== 0) idsAtLastKey.clear();
        lastKey = key;
        for (const id of ids) idsAtLastKey.add(id);
      }
      planner.add(sourceItem);
      // A source that yields without I/O (the simulator) resolves each item in a microtask: without
      // a turn of the event loop, the commit under way would get no socket I/O until the batch is full,
      // nor would the API sharing the process (`start`) answer anything, whether or not a commit is under way.
      if (planner.items % YIELD_EVERY === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      if (planner.items === 1) deadline = Date.now() + options.batchMaxWaitMs;
      if (planner.items >= options.batchSize || planner.bytes >= MAX_BATCH_BYTES) {
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
