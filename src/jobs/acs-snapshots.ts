/**
 * Announces ACS snapshots: a catch-up pass takes every snapshot whose time
 * ingestion has passed (also during historical imports), and a node-cron job
 * runs it on the Scan schedule, every 3 hours on UTC hours divisible by 3.
 */
import cron from 'node-cron';
import { dueSnapshotTimes, nextSnapshotTime } from '../domain/snapshot-schedule';
import { formatRecordTime, type Micros } from '../domain/time';
import type { Logger } from '../internal/logger';
import type { Metrics } from '../internal/metrics';
import type { Db } from '../store/pool';
import { latestSnapshot, migrationSpans, takeSnapshot } from '../store/snapshot-repository';

export interface CatchUpResult {
  taken: { migrationId: number; recordTime: string }[];
  /** The earliest time at which another snapshot could become due, if any. */
  nextDue: Micros | undefined;
}

/** Takes every due snapshot (their holdings totals follow: src/jobs/holding-totals.ts). */
export async function catchUpSnapshots(db: Db, logger?: Logger, metrics?: Metrics, signal?: AbortSignal): Promise<CatchUpResult> {
  const endTimer = metrics?.snapshotJobDuration.startTimer();
  const taken: CatchUpResult['taken'] = [];
  let nextDue: Micros | undefined;
  const spans = await migrationSpans(db);
  const newest = spans[spans.length - 1]?.migrationId;
  for (const span of spans) {
    let previous = await latestSnapshot(db, span.migrationId);
    const due = dueSnapshotTimes(span.first, span.last, previous?.recordTime);
    for (const t of due) {
      // Stopping between snapshots loses nothing: the next run continues from the latest one taken.
      if (signal?.aborted) {
        endTimer?.();
        return { taken, nextDue: undefined };
      }
      previous = await takeSnapshot(db, span.migrationId, previous, t);
      metrics?.snapshotsAnnounced.inc();
      taken.push({ migrationId: span.migrationId, recordTime: formatRecordTime(t) });
      logger?.info(
        { migrationId: span.migrationId, recordTime: formatRecordTime(t), contracts: previous.contractCount },
        'ACS snapshot announced',
      );
    }
    if (previous)
      metrics?.snapshotLastRecordTime.set({ migration_id: String(span.migrationId) }, Number(previous.recordTime / 1000n) / 1000);
    // Only the newest migration still grows; an ended one's next slot would be passed by every later batch.
    if (span.migrationId === newest) nextDue = nextSnapshotTime(span.first, previous?.recordTime);
  }
  endTimer?.();
  return { taken, nextDue };
}

/** Schedules the catch-up on the Scan cadence; returns a function that stops it. */
export function scheduleSnapshots(db: Db, logger: Logger, metrics?: Metrics): () => void {
  const task = cron.schedule(
    '0 */3 * * *',
    () => {
      catchUpSnapshots(db, logger, metrics).catch((err: unknown) => logger.error({ err }, 'ACS snapshot catch-up failed'));
    },
    { timezone: 'Etc/UTC', name: 'acs-snapshots' },
  );
  return () => {
    void task.stop();
  };
}
