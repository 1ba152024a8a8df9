/**
 * The network's order: items and events are ordered by migration id, then
 * record time (microseconds, compared as instants, never as text).
 */
import type { Micros } from './time';

export interface StreamKey {
  migrationId: number;
  recordTime: Micros;
}

export function compareStreamKeys(a: StreamKey, b: StreamKey): number {
  if (a.migrationId !== b.migrationId) return a.migrationId < b.migrationId ? -1 : 1;
  return a.recordTime < b.recordTime ? -1 : a.recordTime > b.recordTime ? 1 : 0;
}
