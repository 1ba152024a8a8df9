/** One simulated stream shared by the tests of a file: short ticks so every round phase, vote and ANS path occurs. */

import type { CanonicalItem } from '../../../src/domain/items';
import { generateItems, type SimulatorOptions } from '../../../src/simulator/index';

const SAMPLE_OPTIONS: SimulatorOptions = {
  seed: 'unit-tests',
  updates: 2000,
  migrations: 3,
  tickSeconds: 45,
  parties: 60,
};

let sample: CanonicalItem[] | undefined;

export function sampleStream(): CanonicalItem[] {
  sample ??= [...generateItems(SAMPLE_OPTIONS)];
  return sample;
}
