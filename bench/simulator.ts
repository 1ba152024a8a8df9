/**
 * Generation throughput of the simulator: updates per second of the backfill
 * generator alone, and through the NDJSON writer (`writeNdjson`, what
 * `simulate --out` runs) into a stream that discards the bytes.
 *
 * Each figure is the best of a few runs after a warm-up run: the first
 * thousands of updates run before V8 has compiled the generator, and on a
 * shared machine other processes slow some runs down; the best run is the
 * closest to what the code itself costs. `cpuUpdatesPerSecond` divides by the
 * process CPU time instead (the main thread plus V8's GC and compiler threads).
 */

import { Writable } from 'node:stream';
import { generateItems, writeNdjson, type SimulatorOptions } from '../src/simulator';

export interface SimulatorBenchResult {
  readonly updatesPerSecond: number;
  readonly cpuUpdatesPerSecond: number;
  readonly ndjsonUpdatesPerSecond: number;
  readonly ndjsonCpuUpdatesPerSecond: number;
  readonly ndjsonMegabytesPerSecond: number;
}

interface Run {
  readonly seconds: number;
  readonly cpuSeconds: number;
  readonly updates: number;
  readonly bytes: number;
}

async function timed(options: SimulatorOptions, ndjson: boolean): Promise<Run> {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  let updates = 0;
  let bytes = 0;
  if (ndjson) {
    const sink = new Writable({
      write(chunk: Buffer | string, _encoding, callback) {
        bytes += chunk.length;
        callback();
      },
    });
    await writeNdjson(options, sink);
    updates = options.updates ?? 0;
  } else {
    for (const item of generateItems(options)) if (item.update) updates++;
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const used = process.cpuUsage(cpu);
  return { seconds, cpuSeconds: (used.user + used.system) / 1e6, updates, bytes };
}

async function best(options: SimulatorOptions, ndjson: boolean, runs: number): Promise<{ wall: Run; cpu: Run }> {
  let wall: Run | undefined;
  let cpu: Run | undefined;
  for (let i = 0; i < runs; i++) {
    const run = await timed(options, ndjson);
    if (!wall || run.seconds < wall.seconds) wall = run;
    if (!cpu || run.cpuSeconds < cpu.cpuSeconds) cpu = run;
  }
  return { wall: wall as Run, cpu: cpu as Run };
}

export async function benchSimulator(updates = 20_000, runs = 3): Promise<SimulatorBenchResult> {
  const options: SimulatorOptions = { seed: 'bench', updates };
  await timed({ seed: 'warm-up', updates: 10_000 }, true);
  const plain = await best(options, false, runs);
  const ndjson = await best(options, true, runs);
  return {
    updatesPerSecond: Math.round(plain.wall.updates / plain.wall.seconds),
    cpuUpdatesPerSecond: Math.round(plain.cpu.updates / plain.cpu.cpuSeconds),
    ndjsonUpdatesPerSecond: Math.round(ndjson.wall.updates / ndjson.wall.seconds),
    ndjsonCpuUpdatesPerSecond: Math.round(ndjson.cpu.updates / ndjson.cpu.cpuSeconds),
    ndjsonMegabytesPerSecond: Math.round(ndjson.wall.bytes / ndjson.wall.seconds / 1e6),
  };
}
