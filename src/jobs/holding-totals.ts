/**
 * The owners' holdings totals at ACS snapshots (src/store/holding-totals-repository.ts), derived by the
 * writer lock's holder beside ingestion, once each snapshot is announced, never in the announcement's
 * transaction: they cost what changed since the snapshot before (for a window of a busy network, seconds),
 * and ingestion waits for each announcement. Until a snapshot has them, a holdings summary there is
 * summed from the contracts, with the same answer.
 */
import type { Logger } from '../internal/logger';
import type { Metrics } from '../internal/metrics';
import { sleep } from '../internal/sleep';
import { formatRecordTime } from '../domain/time';
import type { Db } from '../store/pool';
import { deriveHoldingTotals, snapshotsAwaitingHoldingTotals } from '../store/holding-totals-repository';

/** Snapshots read per query: a backlog (after an import's catch-up) is worked off a chunk at a time. */
const SNAPSHOTS_PER_PASS = 100;

/**
 * Derives the totals of every snapshot awaiting them, in order; returns how many. `refreshOwners`
 * (HOLDING_TOTALS_REFRESH_OWNERS): owners whose totals each snapshot rewrites though they did not change.
 */
export async function catchUpHoldingTotals(
  db: Db,
  refreshOwners: number,
  logger?: Logger,
  metrics?: Metrics,
  signal?: AbortSignal,
): Promise<number> {
  let total = 0;
  while (!signal?.aborted) {
    const awaiting = await snapshotsAwaitingHoldingTotals(db, SNAPSHOTS_PER_PASS);
    let derived = 0;
    for (const s of awaiting) {
      // Stopping between snapshots loses nothing: the next pass starts at the first still awaiting.
      if (signal?.aborted) return total;
      const started = performance.now();
      const written = await deriveHoldingTotals(db, s.migrationId, s.recordTime, refreshOwners);
      if (!written) continue;
      derived += 1;
      const seconds = (performance.now() - started) / 1000;
      metrics?.holdingTotalsDuration.observe(seconds);
      logger?.debug(
        {
          migrationId: s.migrationId,
          recordTime: formatRecordTime(s.recordTime),
          refreshed: written.refreshed,
          ms: Math.round(seconds * 1000),
        },
        'ACS snapshot holdings totals derived',
      );
    }
    total += derived;
    // Another process derived them meanwhile, or none awaits: nothing more to do in this pass.
    if (derived === 0 || awaiting.length < SNAPSHOTS_PER_PASS) break;
  }
  return total;
}

/** The loop of the lock holder, until `signal` aborts. */
export async function runHoldingTotals(
  db: Db,
  refreshOwners: number,
  logger: Logger,
  metrics: Metrics | undefined,
  signal: AbortSignal,
  intervalMs = 2000,
): Promise<void> {
  while (!signal.aborted) {
    try {
      await catchUpHoldingTotals(db, refreshOwners, logger, metrics, signal);
    } catch (err) {
      if (signal.aborted) break;
      logger.error({ err }, 'holdings totals: deriving the totals of a snapshot failed; retrying');
    }
    await sleep(intervalMs, signal).catch(() => undefined);
  }
}
