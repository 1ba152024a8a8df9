/**
 * Record times, drawn from the PRNG so a seed fixes every timestamp, strictly
 * increasing as record times within a migration are. (Live mode paces these
 * same times against the wall clock in the ingest simulator source.)
 */

import type { Micros } from '../domain/time';
import type { Prng } from './prng';

export interface Clock {
  /** The record time of the next update, later than every earlier one. */
  next(): Micros;
  /** The synchronizer is down for `micros` (a hard migration). */
  pause(micros: Micros): void;
}

export class SimulatedClock implements Clock {
  constructor(
    private readonly rng: Prng,
    private now: Micros,
    private readonly meanGapMicros: number,
  ) {}

  next(): Micros {
    // Uniform gaps in [1, 2·mean] average to the mean.
    this.now += BigInt(this.rng.int(1, 2 * this.meanGapMicros));
    return this.now;
  }

  pause(micros: Micros): void {
    this.now += micros;
  }
}
