/**
 * The simulated Splice network as a source of canonical items
 * (domain/items.ts): a synchronous generator for backfills, tests and
 * benchmarks, and an NDJSON writer for `scan-indexer simulate`. Live mode is
 * the ingest simulator source, which releases these items as the wall clock
 * passes their record times.
 *
 * Network facts are all in the stream: the DSO party is the `dso` of the
 * DsoRules contract, the current migration id is the `migration_id` of the
 * latest update, and a scheduled upgrade is the DsoRules config's
 * `nextScheduledSynchronizerUpgrade`.
 */

import { once } from 'node:events';
import type { CanonicalItem } from '../domain/items';
import { SimulatedClock } from './clock';
import { createIdentities, type Identities } from './identities';
import { IdFactory } from './ids';
import { Network } from './network';
import { resolveOptions, type SimulatorOptions } from './options';
import { Prng } from './prng';

export type { SimulatorOptions } from './options';
export type { Identities } from './identities';

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

/**
 * Who is on the network that these options simulate (its DSO party, SVs, users, synchronizers), drawn
 * as the network draws them first: tools that write data for the same network (bench/scale) use it.
 */
export function networkIdentities(options: SimulatorOptions): Identities {
  const settings = resolveOptions(options);
  const rng = new Prng(settings.seed);
  return createIdentities(new IdFactory(rng), rng, {
    svs: settings.superValidators,
    validators: settings.validators,
    users: settings.parties,
  });
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
