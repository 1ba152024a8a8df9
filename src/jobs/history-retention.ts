/**
 * History retention (HISTORY_RETENTION, off by default: an SV's Scan never prunes): after the
 * worker's batches, the months that end before the retention window (in ledger time, before the
 * newest record time ingested) are dropped whole, partition by partition. The window's first month
 * changes once a month, and only then is there anything to do.
 */
import { IMPORT_RECORD_TIME, MICROS_PER_HOUR, formatRecordTime, startOfMonth, type Micros } from '../domain/time';
import type { Logger } from '../internal/logger';
import type { Db } from '../store/pool';
import { dropHistoryBefore } from '../store/partitions';

/** The start of the oldest month the window of `days` before `newest` still needs. */
export function retentionCutoff(newest: Micros, days: number): Micros {
  return startOfMonth(newest - BigInt(days) * 24n * MICROS_PER_HOUR);
}

/** A check to run after each batch with the newest record time ingested. */
export function historyRetention(db: Db, days: number, logger: Logger): (newest: Micros | undefined) => Promise<void> {
  let done: Micros | undefined;
  return async (newest) => {
    if (newest === undefined || newest <= IMPORT_RECORD_TIME) return;
    const cutoff = retentionCutoff(newest, days);
    if (done !== undefined && cutoff <= done) return;
    const dropped = await dropHistoryBefore(db, cutoff);
    done = cutoff;
    if (dropped.partitions.length > 0) {
      logger.info(
        { historyStart: formatRecordTime(dropped.start), partitions: dropped.partitions },
        'history retention: dropped the partitions of the months before the window',
      );
    }
  };
}
