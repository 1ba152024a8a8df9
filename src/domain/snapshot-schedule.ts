/**
 * When ACS snapshots are announced (Splice ScanStorageConfig, AcsSnapshotTriggerBase): on UTC hours
 * divisible by 3; the first of a migration at the first such boundary strictly
 * after the hour of its first non-import update; then every 3 hours, for as
 * long as the migration's record times have reached the boundary.
 */
import type { Micros } from './time';

const SNAPSHOT_PERIOD: Micros = 3n * 3600n * 1_000_000n;
const HOUR: Micros = 3600n * 1_000_000n;

const floorDiv = (a: bigint, b: bigint) => (a >= 0n ? a / b : -((-a + b - 1n) / b));

/** The first snapshot time of a migration whose first non-import update is at `firstRecordTime`. */
export function firstSnapshotTime(firstRecordTime: Micros): Micros {
  const hourIndex = floorDiv(firstRecordTime, HOUR);
  // 24 is a multiple of 3, so "next slot hour today, else 00:00 tomorrow" is the next multiple of 3 hours.
  return (floorDiv(hourIndex, 3n) + 1n) * SNAPSHOT_PERIOD;
}

/** The next snapshot time of a migration after `lastTaken` (or its first). */
export function nextSnapshotTime(firstRecordTime: Micros, lastTaken: Micros | undefined): Micros {
  return lastTaken === undefined ? firstSnapshotTime(firstRecordTime) : lastTaken + SNAPSHOT_PERIOD;
}

/**
 * Snapshot times due for a migration: after `lastTaken` (or from the first),
 * every 3 hours, up to and including `maxRecordTime`.
 */
export function dueSnapshotTimes(firstRecordTime: Micros, maxRecordTime: Micros, lastTaken: Micros | undefined): Micros[] {
  const due: Micros[] = [];
  for (let t = nextSnapshotTime(firstRecordTime, lastTaken); t <= maxRecordTime; t += SNAPSHOT_PERIOD) {
    due.push(t);
  }
  return due;
}

/**
 * The snapshot slot of a record time: the first snapshot boundary (a multiple
 * of 3 hours since the epoch, so a UTC hour divisible by 3) at or after it. A
 * snapshot at boundary b holds exactly what happened in the slots up to b.
 */
export function snapshotSlot(recordTime: Micros): Micros {
  const floor = floorDiv(recordTime, SNAPSHOT_PERIOD) * SNAPSHOT_PERIOD;
  return floor === recordTime ? floor : floor + SNAPSHOT_PERIOD;
}
