/**
 * Deferred work of the network (round automation, vote casting, lock
 * expiry, ANS renewals): tasks due at a record time, run one per update in
 * order of due time and then of scheduling, so the order is deterministic.
 */

import type { CanonicalItem } from '../domain/items';
import type { Micros } from '../domain/time';

/** Produces the item for one step, or null when the work no longer applies. */
export type Task = () => CanonicalItem | null;

interface Entry {
  readonly due: Micros;
  readonly seq: number;
  readonly task: Task;
}

const before = (a: Entry, b: Entry) => a.due < b.due || (a.due === b.due && a.seq < b.seq);

export class Scheduler {
  private readonly heap: Entry[] = [];
  private seq = 0;

  at(due: Micros, task: Task): void {
    const heap = this.heap;
    heap.push({ due, seq: this.seq++, task });
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i] as Entry, heap[parent] as Entry)) break;
      [heap[i], heap[parent]] = [heap[parent] as Entry, heap[i] as Entry];
      i = parent;
    }
  }

  /** Removes and returns the earliest task if it is due at `now`. */
  takeDue(now: Micros): Task | undefined {
    const heap = this.heap;
    const top = heap[0];
    if (!top || top.due > now) return undefined;
    const last = heap.pop() as Entry;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && before(heap[l] as Entry, heap[m] as Entry)) m = l;
        if (r < heap.length && before(heap[r] as Entry, heap[m] as Entry)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m] as Entry, heap[i] as Entry];
        i = m;
      }
    }
    return top.task;
  }
}
