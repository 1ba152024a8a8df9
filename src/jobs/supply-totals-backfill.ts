/**
 * The backfill of the cumulative supply flows (`scan-indexer backfill-supply-totals`) at the ACS snapshots
 * taken before migration 20261127_010: walks the snapshots without totals in the network's order and
 * writes each one's from the snapshot before it (src/store/supply-totals-repository.ts), one transaction
 * per snapshot. The totals themselves are the position: an interrupted run resumes at the first snapshot
 * still without them, and what the snapshot job wrote meanwhile is kept. Once every snapshot has totals
 * the backfill is over, and the beginning of the history counts as zero for reads too.
 *
 * The totals are sums of the activity projection, so they need it complete: the activities' own backfill
 * must have finished first (migration 20261126_130 made every database that had history then run it again).
 */
import { fromPgTimestamp } from '../domain/time';
import type { Db } from '../store/pool';
import {
  backfillSnapshotTotals,
  countSnapshotTotals,
  finishSupplyTotalsBackfill,
  snapshotsWithoutTotals,
  supplyTotalsBackfillState,
} from '../store/supply-totals-repository';

export interface SupplyTotalsProgress {
  snapshotsWithTotals: number;
  snapshots: number;
  /** The snapshot just done, `<migration id>/<record time>`. */
  at: string;
}

export interface SupplyTotalsBackfillResult {
  /** Snapshots this run gave totals. */
  snapshots: number;
  finished: boolean;
  /** Why it cannot go on (nothing to retry by running it again until that changes). */
  blocked?: string;
}

export async function backfillSupplyTotals(
  db: Db,
  options: { pageSize?: number; signal?: AbortSignal; onProgress?: (p: SupplyTotalsProgress) => void } = {},
): Promise<SupplyTotalsBackfillResult> {
  const pageSize = options.pageSize ?? 100;
  const state = await supplyTotalsBackfillState(db);
  if (!state.pending) return { snapshots: 0, finished: true };
  if (!state.activitiesComplete) {
    return {
      snapshots: 0,
      finished: false,
      blocked: 'the activity projection is not known to be complete: run `scan-indexer backfill-activities` to its end first',
    };
  }
  let { snapshots: total, withTotals } = await countSnapshotTotals(db);
  let done = 0;
  for (;;) {
    const page = await snapshotsWithoutTotals(db, pageSize);
    if (page.length === 0) {
      // Finished unless the snapshot job took one meanwhile whose predecessor had no totals yet.
      if (await finishSupplyTotalsBackfill(db)) return { snapshots: done, finished: true };
      ({ snapshots: total, withTotals } = await countSnapshotTotals(db));
      continue;
    }
    for (const s of page) {
      if (options.signal?.aborted) return { snapshots: done, finished: false };
      const at = fromPgTimestamp(s.recordTime);
      const written = await backfillSnapshotTotals(db, s.migrationId, at, s.previous === null ? undefined : fromPgTimestamp(s.previous));
      const name = `${s.migrationId}/${s.recordTime}`;
      if (!written) {
        return {
          snapshots: done,
          finished: false,
          blocked: `the totals before snapshot ${name} are unknown (the history before it was dropped by retention, or is not stored)`,
        };
      }
      done += 1;
      withTotals += 1;
      if (withTotals > total) total = withTotals;
      options.onProgress?.({ snapshotsWithTotals: withTotals, snapshots: total, at: name });
    }
  }
}
