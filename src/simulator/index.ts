/**
 * The simulated Splice network as a source of canonical items
 * (domain/items.ts): a synchronous generator for backfills, tests and
 * benchmarks, an NDJSON writer for `scan-indexer simulate`, and a live mode
 * that paces items against the wall clock for the demo.
 *
 * Network facts are all in the stream: the DSO party is the `dso` of the
 * DsoRules contract, the current migration id is the `migration_id` of the
 * latest update, and a scheduled upgrade is the DsoRules config's
 * `nextScheduledSynchronizerUpgrade`.
 */

import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CanonicalItem } from '../domain/items';
import { SimulatedClock, WallClock } from './clock';
import { Network } from './network';
import { resolveOptions, type SimulatorOptions } from './options';
import { Prng } from './prng';

export type { SimulatorOptions } from './options';

/** Backfill: items as fast as they can be built, with record times drawn from the seed. */
export function generateItems(options: SimulatorOptions): Iterable<CanonicalItem> {
  const settings = resolveOptions(options);
  return {
    [Symbol.iterator]: () => {
      const rng = new Prng(settings.seed);
      return new Network(settings, new SimulatedClock(rng, settings.startTime, settings.meanGapMicros), rng).items();
    },
  };
}

const FLUSH_BYTES = 1 << 16;

/** Writes the backfill stream as NDJSON, one item per line; the same options give the same bytes. Does not end `out`. */
export async function writeNdjson(options: SimulatorOptions, out: NodeJS.WritableStream): Promise<void> {
  let chunk = '';
  const flush = async () => {
    const ok = out.write(chunk);
    chunk = '';
    if (!ok) await once(out, 'drain');
  };
  for (const item of generateItems(options)) {
    chunk += JSON.stringify(item) + '\n';
    if (chunk.length >= FLUSH_BYTES) await flush();
  }
  if (chunk.length > 0) await flush();
}

export interface LiveOptions extends SimulatorOptions {
  /** Items per second. */
  readonly ratePerSecond: number;
  /** Ends the stream. */
  readonly signal?: AbortSignal;
}

/**
 * Live mode: items paced at `ratePerSecond`, each built when it is due, so
 * record times follow the wall clock (and rounds advance in real time).
 */
export async function* liveItems(options: LiveOptions): AsyncGenerator<CanonicalItem> {
  const { ratePerSecond, signal } = options;
  if (!(ratePerSecond > 0)) throw new RangeError(`ratePerSecond must be positive, got ${ratePerSecond}`);
  const settings = resolveOptions(options);
  const rng = new Prng(settings.seed);
  const items = new Network(settings, new WallClock(), rng).items();
  const interval = 1000 / ratePerSecond;
  let due = Date.now();
  while (!signal?.aborted) {
    const wait = due - Date.now();
    if (wait > 0) {
      try {
        await sleep(wait, undefined, signal ? { signal } : undefined);
      } catch (err) {
        if (signal?.aborted) return;
        throw err;
      }
    }
    const next = items.next();
    if (next.done) return;
    yield next.value;
    // After a slow consumer, resume the pace from now instead of bursting to catch up.
    due = Math.max(due + interval, Date.now());
  }
}
