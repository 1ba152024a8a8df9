/**
 * Which migration's ledger an instant reads, for the figures at any instant (issue #29): the newest
 * migration whose first update is at or before it. Between the end of one migration and the first
 * update of the next, that is the ended one, in its final state. Undefined before every migration.
 */
import type { Micros } from './time';

export interface MigrationStart {
  migrationId: number;
  /** Record time of the migration's first non-import update. */
  first: Micros;
}

export function migrationAtInstant(starts: readonly MigrationStart[], at: Micros): number | undefined {
  let newest: number | undefined;
  for (const s of starts) if (s.first <= at && (newest === undefined || s.migrationId > newest)) newest = s.migrationId;
  return newest;
}
