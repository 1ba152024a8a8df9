import { batches } from '../../../src/ingest/batches';

async function* slow(values: number[], gapMs: number[]): AsyncGenerator<number> {
  for (let i = 0; i < values.length; i++) {
    await new Promise((r) => setTimeout(r, gapMs[i] ?? 0));
    yield values[i]!;
  }
}

describe('batches', () => {
  it('cuts by count', async () => {
    const out: number[][] = [];
    for await (const b of batches(slow([1, 2, 3, 4, 5], []), 2, 10_000)) out.push(b);
    expect(out).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('cuts by time when the source is slow, without losing the item in flight', async () => {
    const out: number[][] = [];
    for await (const b of batches(slow([1, 2, 3], [0, 0, 300]), 10, 50)) out.push(b);
    expect(out).toEqual([[1, 2], [3]]);
  });

  it('requests no item while the consumer is busy (backpressure)', async () => {
    let pulled = 0;
    async function* counting() {
      for (let i = 0; i < 100; i++) {
        pulled += 1;
        yield i;
      }
    }
    const it = batches(counting(), 10, 10_000)[Symbol.asyncIterator]();
    await it.next();
    await new Promise((r) => setTimeout(r, 20));
    expect(pulled).toBe(10);
    await it.return?.(undefined);
  });
});
