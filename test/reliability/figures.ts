/**
 * The figures of the reliability suite. Each test records what it measured,
 * with its target and whether it met it; the summary reporter prints them as
 * one table when the run ends. `npm run test:reliability` runs the suite at
 * full scale (RELIABILITY_SCALE=full); `npm test` runs the same tests at a
 * scale that fits CI, with the same targets.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type Scale = 'ci' | 'full';

export const SCALE: Scale = process.env.RELIABILITY_SCALE === 'full' ? 'full' : 'ci';

/** The value for this scale. */
export const atScale = <T>(ci: T, full: T): T => (SCALE === 'full' ? full : ci);

/** Where figures go: one JSON line each (the reporter runs in another process). */
const FIGURES_FILE = process.env.RELIABILITY_FIGURES_FILE ?? path.join(os.tmpdir(), `scan-indexer-reliability-${process.ppid}.ndjson`);

export interface Figure {
  /** The part of the suite (crash safety, fuzzed input, …). */
  part: string;
  figure: string;
  value: string | number;
  target: string;
  ok: boolean;
}

export function recordFigure(figure: Figure): void {
  fs.appendFileSync(FIGURES_FILE, `${JSON.stringify({ ...figure, scale: SCALE })}\n`);
}

/** Records a count whose target is zero. */
export function recordZero(part: string, figure: string, value: number): void {
  recordFigure({ part, figure, value, target: '0', ok: value === 0 });
}
