import type { Plan } from '../../../src/ingest/batch-plan';
import { runPipeline, type PipelineOptions } from '../../../src/ingest/pipeline';
import { SourceItemError, type SourceItem } from '../../../src/ingest/source';
import type { AppliedBatch } from '../../../src/ingest/writer';
import { parseTimestamp } from '../../../src/domain/time';
import { created, transaction } from '../../support/items/hand-items';

const time = (i: number) => `2025-01-01T00:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.000000Z`;
const item = (i: number, at = i): SourceItem => ({
  item: transaction(`u${i}`, time(at), [created(`u${i}`, 0, `c${i}`)]),
  position: String(i),
  origin: `item ${i}`,
});

/** Yields the items, waiting gapsMs[i] before item i; counts what was pulled. */
function source(items: SourceItem[], gapsMs: number[] = []) {
  const state = { pulled: 0 };
  async function* read(): AsyncGenerator<SourceItem> {
    for (let i = 0; i < items.length; i++) {
      if (gapsMs[i]) await new Promise((r) => setTimeout(r, gapsMs[i]));
      state.pulled += 1;
      yield items[i]!;
    }
  }
  return { read: read(), state };
}

interface Committed {
  positions: string[];
  expected: string | null;
  updates: number;
}

/** A commit that records each plan and answers as the writer does. */
function recorder(options: { delayMs?: number; failAt?: number; gate?: Promise<void> } = {}) {
  const committed: Committed[] = [];
  let running = 0;
  let maxRunning = 0;
  const commit = async (plan: Plan, expected: string | null): Promise<AppliedBatch> => {
    running += 1;
    maxRunning = Math.max(maxRunning, running);
    try {
      if (options.gate) await options.gate;
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      if (options.failAt === committed.length) throw new Error(`commit ${committed.length} failed`);
      const first = Number(plan.position) - plan.items + 1;
      committed.push({ positions: Array.from({ length: plan.items }, (_, k) => String(first + k)), expected, updates: plan.updates });
      return {
        checkpoint: { stream: 's', position: plan.position, migrationId: 0, recordTime: null, itemsApplied: 0 },
        last: plan.last,
        updates: plan.updates,
        counts: plan.counts,
        durationMs: 0,
        latest: [],
      };
    } finally {
      running -= 1;
    }
  };
  return { commit, committed, maxRunning: () => maxRunning };
}

const run = (items: AsyncIterable<SourceItem>, commit: PipelineOptions['commit'], overrides: Partial<PipelineOptions> = {}) =>
  runPipeline({
    items,
    checkpoint: undefined,
    batchSize: 2,
    batchMaxWaitMs: 10_000,
    commit,
    onApplied: () => undefined,
    signal: new AbortController().signal,
    storedMax: undefined,
    lookUpStored: () => Promise.reject(new Error('no lookup expected')),
    ...overrides,
  });

describe('the ingestion pipeline', () => {
  it('cuts batches by count, commits them in order, one at a time, each after the position of the one before', async () => {
    const { read } = source([1, 2, 3, 4, 5].map((i) => item(i)));
    const r = recorder({ delayMs: 5 });
    const result = await run(read, r.commit);
    expect(r.committed.map((c) => [c.positions, c.expected])).toEqual([
      [['1', '2'], null],
      [['3', '4'], '2'],
      [['5'], '4'],
    ]);
    expect(r.maxRunning()).toBe(1);
    expect(result).toEqual({ items: 5, updates: 5 });
  });

  it('cuts by time when the source is slow and the writer idle, without losing the item in flight', async () => {
    const { read } = source(
      [1, 2, 3].map((i) => item(i)),
      [0, 0, 300],
    );
    const r = recorder();
    await run(read, r.commit, { batchSize: 10, batchMaxWaitMs: 50 });
    expect(r.committed.map((c) => c.positions)).toEqual([['1', '2'], ['3']]);
  });

  it('while a commit is under way, fills the next batch to its size instead of cutting it by time', async () => {
    const { read } = source(
      Array.from({ length: 12 }, (_, i) => item(i + 1)),
      Array.from({ length: 12 }, () => 5),
    );
    const r = recorder({ delayMs: 150 });
    await run(read, r.commit, { batchSize: 5, batchMaxWaitMs: 1 });
    const sizes = r.committed.map((c) => c.positions.length);
    expect(sizes[0]).toBeLessThan(5);
    expect(sizes.slice(1, -1)).toContain(5);
    expect(r.committed.flatMap((c) => c.positions)).toEqual(Array.from({ length: 12 }, (_, i) => String(i + 1)));
  });

  it('pulls at most one more batch than the writer holds (backpressure)', async () => {
    const { read, state } = source(Array.from({ length: 100 }, (_, i) => item(i + 1)));
    let open!: () => void;
    const r = recorder({ gate: new Promise<void>((resolve) => (open = resolve)) });
    const done = run(read, r.commit, { batchSize: 10 });
    // Until it pulls no more (a busy machine may take longer than a quiet one's few milliseconds), then a while.
    for (let last = -1, deadline = Date.now() + 5000; state.pulled !== last && Date.now() < deadline;) {
      last = state.pulled;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    // One batch committing, one planned and waiting for it, and the item that sealed nothing yet.
    expect(state.pulled).toBeLessThanOrEqual(21);
    expect(state.pulled).toBeGreaterThanOrEqual(20);
    open();
    await done;
    expect(r.committed.flatMap((c) => c.positions)).toHaveLength(100);
  });

  it('stops at a failed commit with its error, committing nothing after it', async () => {
    const { read } = source([1, 2, 3, 4, 5, 6].map((i) => item(i)));
    const r = recorder({ failAt: 1, delayMs: 5 });
    await expect(run(read, r.commit)).rejects.toThrow('commit 1 failed');
    expect(r.committed.map((c) => c.positions)).toEqual([['1', '2']]);
  });

  it('commits the batches before a bad item, then stops with the error naming it', async () => {
    const bad: SourceItem = { item: { update: null, verdict: null } as never, position: '4', origin: 'item 4' };
    const { read } = source([item(1), item(2), item(3), bad, item(5)]);
    const r = recorder({ delayMs: 20 });
    const failure = run(read, r.commit);
    await expect(failure).rejects.toThrow(SourceItemError);
    await expect(failure).rejects.toThrow('item 4: an item needs an update or a verdict');
    expect(r.committed.map((c) => c.positions)).toEqual([['1', '2']]);
  });

  it('looks up the items at or before the newest stored key, and writes none of those stored', async () => {
    const { read } = source([1, 2, 3, 4, 5].map((i) => item(i)));
    const r = recorder();
    const asked: string[][] = [];
    await run(read, r.commit, {
      batchSize: 10,
      storedMax: { migrationId: 0, recordTime: parseTimestamp(time(3)) },
      lookUpStored: async (updateIds) => {
        asked.push(updateIds);
        return { updates: new Set(updateIds.filter((id) => id === 'u2')), verdicts: new Set() };
      },
    });
    expect(asked).toEqual([['u1'], ['u2'], ['u3']]);
    expect(r.committed).toEqual([{ positions: ['1', '2', '3', '4', '5'], expected: null, updates: 4 }]);
  });

  it('looks up an item that repeats an earlier item of the stream at the same key, across batches', async () => {
    const repeated = { ...item(2, 2), position: '3', origin: 'item 3' };
    const { read } = source([item(1), item(2), repeated, item(4)]);
    const r = recorder();
    const asked: string[][] = [];
    await run(read, r.commit, {
      lookUpStored: async (updateIds) => {
        asked.push(updateIds);
        return { updates: new Set(updateIds), verdicts: new Set() };
      },
    });
    expect(asked).toEqual([['u2']]);
    expect(r.committed.map((c) => c.updates)).toEqual([2, 1]);
  });
});
