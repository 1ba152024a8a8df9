/**
 * The simulated network as a source. Backfill yields items as fast as the
 * writer takes them; live mode releases each item when the wall clock passes
 * its record time, so the demo shows rounds advancing in real time. The
 * position is "<start time>|<items consumed>": the stream is deterministic
 * from its seed and start, so a restart regenerates it and skips what was applied.
 */
import { setImmediate } from 'node:timers/promises';
import type { CanonicalItem } from '../../domain/items';
import { formatRecordTime, nowMicros, parseTimestamp, type Micros } from '../../domain/time';
import { generateItems } from '../../simulator';
import { DEFAULT_START_TIME } from '../../simulator/options';
import { sleep } from '../../internal/sleep';
import type { Source, SourceItem } from '../source';

export interface SimulatorSourceOptions {
  seed: number;
  mode: 'backfill' | 'live';
  /** Updates in total (backfill); undefined for endless. */
  updates?: number;
  migrations?: number;
  /** Mean updates per second of ledger time (live: also of wall-clock time). */
  ratePerSecond: number;
  /** Backfill start; live mode starts at the wall clock of the first run. */
  startTime?: Micros;
}

/** Items regenerated between two turns of the event loop while skipping what was applied. */
const SKIP_YIELD_EVERY = 32;

function recordTimeOf(item: CanonicalItem): Micros {
  const text = item.update?.record_time ?? item.verdict?.record_time;
  return text === undefined ? 0n : parseTimestamp(text);
}

export function createSimulatorSource(options: SimulatorSourceOptions): Source {
  return {
    stream: `simulator:seed=${options.seed}`,
    async *read(from: string | undefined, signal: AbortSignal): AsyncIterable<SourceItem> {
      const [startText, countText] = from === undefined ? [] : from.split('|');
      const start = startText
        ? parseTimestamp(startText)
        : (options.startTime ?? (options.mode === 'live' ? nowMicros() : DEFAULT_START_TIME));
      const skip = countText ? Number(countText) : 0;
      const items = generateItems({
        seed: options.seed,
        updates: options.updates,
        migrations: options.migrations,
        startTime: start,
        meanUpdateGapMs: 1000 / options.ratePerSecond,
      });
      const startIso = formatRecordTime(start);
      let count = 0;
      for (const item of items) {
        count += 1;
        if (count <= skip) {
          // Regenerating what was applied (after a restart or a database outage) takes a while; the process
          // shares its event loop with the API under `start`, which must keep answering meanwhile.
          if (count % SKIP_YIELD_EVERY === 0) await setImmediate();
          continue;
        }
        if (signal.aborted) return;
        if (options.mode === 'live') {
          const wait = Number((recordTimeOf(item) - nowMicros()) / 1000n);
          if (wait > 0) await sleep(wait, signal);
          if (signal.aborted) return;
        }
        yield { item, position: `${startIso}|${count}`, origin: `simulator item ${count}` };
      }
    },
  };
}
