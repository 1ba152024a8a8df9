/**
 * Generation throughput of the simulator: updates per second of the backfill
 * generator alone, and with every item serialised as an NDJSON line (what
 * `simulate --out` and a file-based ingest pay).
 */

import { generateItems, type SimulatorOptions } from '../src/simulator';

export interface SimulatorBenchResult {
  readonly updatesPerSecond: number;
  readonly ndjsonUpdatesPerSecond: number;
  readonly ndjsonMegabytesPerSecond: number;
}

function timed(options: SimulatorOptions, serialise: boolean): { seconds: number; updates: number; bytes: number } {
  const start = process.hrtime.bigint();
  let updates = 0;
  let bytes = 0;
  for (const item of generateItems(options)) {
    if (item.update) updates++;
    if (serialise) bytes += JSON.stringify(item).length + 1;
  }
  return { seconds: Number(process.hrtime.bigint() - start) / 1e9, updates, bytes };
}

export function benchSimulator(updates = 20_000): SimulatorBenchResult {
  const options: SimulatorOptions = { seed: 'bench', updates };
  const plain = timed(options, false);
  const ndjson = timed(options, true);
  return {
    updatesPerSecond: Math.round(plain.updates / plain.seconds),
    ndjsonUpdatesPerSecond: Math.round(ndjson.updates / ndjson.seconds),
    ndjsonMegabytesPerSecond: Math.round(ndjson.bytes / ndjson.seconds / 1e6),
  };
}
