/**
 * Groups a stream into batches bounded by count and by time. Only one item is
 * requested ahead, and none while a batch is being written: the consumer's
 * pace is the source's pace (backpressure, no unbounded queue).
 */
export async function* batches<T>(source: AsyncIterable<T>, maxItems: number, maxWaitMs: number): AsyncGenerator<T[]> {
  const iterator = source[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<T>> | undefined;
  let batch: T[] = [];
  let deadline = 0;
  try {
    for (;;) {
      pending ??= iterator.next();
      let timer: NodeJS.Timeout | undefined;
      const expired = batch.length
        ? new Promise<'expired'>((resolve) => {
            timer = setTimeout(() => resolve('expired'), Math.max(0, deadline - Date.now()));
          })
        : undefined;
      const next = await (expired ? Promise.race([pending, expired]) : pending);
      clearTimeout(timer);
      if (next === 'expired') {
        yield batch;
        batch = [];
        continue;
      }
      pending = undefined;
      if (next.done) {
        if (batch.length) yield batch;
        return;
      }
      if (batch.length === 0) deadline = Date.now() + maxWaitMs;
      batch.push(next.value);
      if (batch.length >= maxItems) {
        yield batch;
        batch = [];
      }
    }
  } finally {
    await iterator.return?.();
  }
}
