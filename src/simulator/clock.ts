/**
 * Record times. Backfill draws gaps from the PRNG so a seed fixes every
 * timestamp; live mode follows the wall clock. Both hand out strictly
 * increasing microsecond instants, as record times within a migration are.
 */

import { nowMicros, type Micros } from '../domain/time';
import type { Prng } from './prng';

export interface Clock {
  /** The record time of the next update, later than every earlier one. */
  next(): Micros;
  /** The synchronizer is down for `micros` (a hard migration); the wall clock ignores this. */
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

export class WallClock implements Clock {
  private last: Micros = 0n;

  next(): Micros {
    const now = nowMicros();
    this.last = now > this.last ? now : this.last + 1n;
    return this.last;
  }

  pause(): void {}
}
