/**
 * The ingestion loop: take the writer lock (or wait as a standby), resume at
 * the stream's checkpoint, apply batches, retry transient database faults by
 * class, and stop on bad input with the error that names the item.
 */
import type { BulkObjectStore } from '../store/bulk-object-store';
import type pg from 'pg';
import { formatRecordTime, parseTimestamp, type Micros } from '../domain/time';
import { HOLDING_TOTALS_REFRESH_OWNERS_DEFAULT } from '../internal/config';
import { isRetryable } from '../internal/errors';
import type { Logger } from '../internal/logger';
import { sleep } from '../internal/sleep';
import type { Metrics } from '../internal/metrics';
import { catchUpSnapshots, scheduleSnapshots } from '../jobs/acs-snapshots';
import { runBulkWriter, writeCompletedSegments, type WrittenAcsSnapshot } from '../jobs/bulk-history';
import { historyRetention } from '../jobs/history-retention';
import { catchUpHoldingTotals, runHoldingTotals } from '../jobs/holding-totals';
import { catchUpRoundAggregates, runRoundAggregation } from '../jobs/round-aggregates';
import { newestStoredKey, readCheckpoint } from '../store/ingest-repository';
import type { Db } from '../store/pool';
import { acquireWriterLock } from '../store/writer-lock';
import { UpstreamError } from './http-client';
import type { AcsSnapshotCheck } from './upstream-acs-check';
import { runPipeline } from './pipeline';
import { SourceItemError, type Source } from './source';
import { commitPlan, storedLookup, type AppliedBatch } from './writer';

export interface WorkerOptions {
  db: Db;
  pool: pg.Pool;
  source: Source;
  logger: Logger;
  metrics?: Metrics;
  batchSize: number;
  batchMaxWaitMs: number;
  lockPollMs?: number;
  /** Days of history to keep (HISTORY_RETENTION); undefined: all of it. */
  retentionDays?: number;
  /** HOLDING_TOTALS_REFRESH_OWNERS; undefined: its default. */
  holdingTotalsRefreshOwners?: number;
  /** BULK_STORAGE_DIR or BULK_STORAGE_S3_BUCKET: the lock holder writes completed history segments there; undefined: off. */
  bulkStore?: BulkObjectStore;
  /** A mirror's check of each ACS snapshot written to bulkStore against its upstreams'; undefined: none. */
  acsCheck?: AcsSnapshotCheck;
  /** Called after each committed batch (progress reporting). */
  onBatch?: (batch: AppliedBatch) => void;
}

export interface WorkerResult {
  items: number;
  updates: number;
}

/** The writer lock's connection failed (the database went away): the worker stops writing at once. */
class WriterLockLostError extends Error {
  constructor(options?: { cause?: unknown }) {
    super('lost the writer lock', options);
    this.name = 'WriterLockLostError';
  }
}

async function withRetries<T>(run: () => Promise<T>, logger: Logger, signal: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (!isRetryable(err) || signal.aborted || attempt >= 10) throw err;
      const delay = Math.min(30_000, 250 * 2 ** attempt) * (0.5 + Math.random() / 2);
      logger.warn({ err, attempt, delayMs: Math.round(delay) }, 'transient database fault: retrying the batch');
      await sleep(delay, signal);
      if (signal.aborted) throw err;
    }
  }
}

export async function runWorker(options: WorkerOptions, signal: AbortSignal): Promise<WorkerResult> {
  const { db, source, logger } = options;
  const log = logger.child({ stream: source.stream });
  const metrics = options.metrics;
  const lost = new AbortController();
  const lock = await acquireWriterLock(options.pool, signal, {
    pollMs: options.lockPollMs ?? 2000,
    onWait: () => {
      if (metrics) metrics.writer.role = 'standby';
      metrics?.writerActive.set(0);
      log.info('another worker holds the writer lock: waiting as a standby');
    },
    onLost: (err) => {
      if (metrics) metrics.writer.role = 'none';
      metrics?.writerLockLosses.inc();
      metrics?.writerActive.set(0);
      log.warn({ err: err.message }, 'the writer lock connection failed: stopping this run');
      lost.abort(err);
    },
  });
  if (!lock) {
    if (metrics) metrics.writer.role = 'none';
    return { items: 0, updates: 0 };
  }
  if (metrics) metrics.writer.role = 'active';
  metrics?.writerLockAcquisitions.inc();
  metrics?.writerActive.set(1);
  const running = AbortSignal.any([signal, lost.signal]);
  // Only the lock holder announces snapshots on the schedule.
  const stopSchedule = scheduleSnapshots(db, log, options.metrics);
  const retain = options.retentionDays === undefined ? undefined : historyRetention(db, options.retentionDays, log);
  // Like the snapshot schedule, only the lock holder writes bulk objects, beside ingestion.
  const bulkStop = new AbortController();
  const acsCheck = options.acsCheck;
  const bulkOptions = (store: BulkObjectStore, signal: AbortSignal) => ({
    db,
    store,
    logger: log,
    ...(acsCheck && { afterAcsSnapshot: (snapshot: WrittenAcsSnapshot) => acsCheck(snapshot, signal) }),
  });
  const bulkSignal = AbortSignal.any([running, bulkStop.signal]);
  const bulkWriter = options.bulkStore ? runBulkWriter(bulkOptions(options.bulkStore, bulkSignal), bulkSignal) : undefined;
  // The round aggregates too: summed from committed rows, outside the writer's transactions.
  const roundsStop = new AbortController();
  const roundAggregation = runRoundAggregation(db, log, AbortSignal.any([running, roundsStop.signal]), metrics);
  // And the snapshots' holdings totals, after each announcement, outside the announcement's transaction.
  const refreshOwners = options.holdingTotalsRefreshOwners ?? HOLDING_TOTALS_REFRESH_OWNERS_DEFAULT;
  const totalsStop = new AbortController();
  const holdingTotals = runHoldingTotals(db, refreshOwners, log, metrics, AbortSignal.any([running, totalsStop.signal]));
  try {
    const checkpoint = await readCheckpoint(db, source.stream);
    await retain?.(checkpoint?.recordTime ?? undefined);
    log.info({ position: checkpoint?.position ?? null }, checkpoint ? 'resuming at the checkpoint' : 'starting from the beginning');
    let nextSnapshot: Micros | undefined = (await catchUpSnapshots(db, log, metrics, running)).nextDue;
    const result = await runPipeline({
      items: source.read(checkpoint?.position, running),
      storedMax: await newestStoredKey(db),
      lookUpStored: storedLookup(db),
      checkpoint,
      batchSize: options.batchSize,
      batchMaxWaitMs: options.batchMaxWaitMs,
      signal: running,
      commit: (plan, expected) => {
        if (lost.signal.aborted) return Promise.reject(new WriterLockLostError({ cause: lost.signal.reason }));
        return withRetries(() => commitPlan(db, source.stream, plan, expected), log, running);
      },
      onApplied: async (applied, plan) => {
        if (metrics) recordBatch(metrics, applied, plan.items);
        for (const s of plan.skippedActivities) {
          // Derived rows only: the update is stored, the projection lacks this activity.
          log.warn(
            { updateId: s.updateId, eventId: s.eventId, choice: s.choice, reason: s.reason },
            'activity skipped: it cannot be derived',
          );
          metrics?.activitiesSkipped.inc({ choice: s.choice });
        }
        if (applied.last && (nextSnapshot === undefined || applied.last.recordTime >= nextSnapshot)) {
          nextSnapshot = (await catchUpSnapshots(db, log, metrics, running)).nextDue;
        }
        await retain?.(applied.last?.recordTime);
        log.debug(
          {
            items: plan.items,
            position: applied.checkpoint.position,
            recordTime: applied.last ? formatRecordTime(applied.last.recordTime) : null,
          },
          'batch applied',
        );
        options.onBatch?.(applied);
      },
    }).catch((err: unknown) => {
      if (err instanceof SourceItemError) metrics?.ingestRejectedItems.inc();
      throw err;
    });
    if (lost.signal.aborted) throw new WriterLockLostError({ cause: lost.signal.reason });
    await catchUpSnapshots(db, log, metrics, running);
    // The source ended: stop the loops, then aggregate the rounds it closed and derive the totals of the
    // snapshots it announced since their last passes.
    roundsStop.abort();
    await roundAggregation;
    await catchUpRoundAggregates(db, log, running);
    totalsStop.abort();
    await holdingTotals;
    await catchUpHoldingTotals(db, refreshOwners, log, metrics, running);
    if (options.bulkStore) {
      // The source ended (a file, INGEST_STOP_AT_END): stop the loop, then write what it had not reached yet.
      bulkStop.abort();
      await bulkWriter;
      await writeCompletedSegments(bulkOptions(options.bulkStore, running), running);
    }
    return result;
  } finally {
    stopSchedule();
    bulkStop.abort();
    roundsStop.abort();
    totalsStop.abort();
    await bulkWriter;
    await roundAggregation;
    await holdingTotals;
    await lock.release();
    if (metrics) metrics.writer.role = 'none';
    metrics?.writerActive.set(0);
  }
}

/** The ingestion series of one committed batch. */
function recordBatch(metrics: Metrics, applied: AppliedBatch, items: number): void {
  const { counts } = applied;
  metrics.ingestedUpdates.inc({ kind: 'transaction' }, counts.updates - counts.reassignments);
  metrics.ingestedUpdates.inc({ kind: 'reassignment' }, counts.reassignments);
  metrics.ingestedUpdates.inc({ kind: 'import' }, counts.importUpdates);
  metrics.ingestedEvents.inc(counts.events);
  metrics.ingestedVerdicts.inc(counts.verdicts);
  metrics.ingestBatchDuration.observe(applied.durationMs / 1000);
  metrics.ingestBatchItems.observe(items);
  for (const latest of applied.latest) {
    const labels = { synchronizer_id: latest.synchronizerId, migration_id: String(latest.migrationId) };
    const ms = Number(parseTimestamp(latest.recordTime) / 1000n);
    metrics.lastIngestedRecordTime.set(labels, ms);
    metrics.newestRecordTimes.set(`${labels.migration_id}/${labels.synchronizer_id}`, { ...labels, ms });
  }
}

export interface OutageRetry {
  /** The first pause after a database fault; it doubles up to maxMs. */
  initialMs: number;
  maxMs: number;
}

/**
 * runWorker, outliving database outages: when the database goes away (the lock connection fails, a
 * connection is refused or dropped), the run stops, and after a pause that grows up to `retry.maxMs`
 * a new run takes the writer lock again (another writer may have it first) and resumes at the
 * checkpoint, which is committed with every batch. Bad input and other faults still end it.
 */
export async function runWorkerThroughOutages(
  options: WorkerOptions,
  signal: AbortSignal,
  retry: OutageRetry = { initialMs: 1000, maxMs: 30_000 },
): Promise<WorkerResult> {
  const log = options.logger.child({ stream: options.source.stream });
  let failures = 0;
  for (;;) {
    const started = Date.now();
    try {
      return await runWorker(options, signal);
    } catch (err) {
      // The source's own faults (an upstream that keeps failing) end the worker as before; only the database's pause it.
      const databaseFault = err instanceof WriterLockLostError || (isRetryable(err) && !(err instanceof UpstreamError));
      if (signal.aborted || !databaseFault) throw err;
      // A run that went well for a while starts the pauses over.
      failures = Date.now() - started > retry.maxMs ? 1 : failures + 1;
      const delay = Math.round(Math.min(retry.maxMs, retry.initialMs * 2 ** (failures - 1)) * (0.5 + Math.random() / 2));
      log.warn(
        { err: (err as Error).message, failures, delayMs: delay },
        'ingestion interrupted by a database fault: resuming at the checkpoint after a pause',
      );
      await sleep(delay, signal);
      if (signal.aborted) throw err;
    }
  }
}
