/**
 * Commits planned batches: each in one PostgreSQL transaction, the rows of
 * its items and the stream's checkpoint together or not at all, so a crash
 * anywhere leaves the database at the previous checkpoint.
 */
import {
  CheckpointConflictError,
  advanceCheckpoint,
  inWriteTransaction,
  readCheckpoint,
  storedUpdateIds,
  storedVerdictIds,
  writeBatch,
  type Checkpoint,
} from '../store/ingest-repository';
import { markChangedAnswers } from '../store/answer-versions-repository';
import { publishCommit } from '../store/commit-notifications';
import type { Db } from '../store/pool';
import { ensureHistoryPartitions } from '../store/partitions';
import { DuplicateContractError, DuplicateKeyError } from '../store/storage-errors';
import type { StreamKey } from '../domain/stream-key';
import type { BatchCounts, Plan } from './batch-plan';
import { SourceItemError } from './source';

export interface AppliedBatch {
  checkpoint: Checkpoint;
  last: StreamKey | undefined;
  /** Updates written (re-applied ones excluded), import updates included. */
  updates: number;
  /** What the batch wrote, by kind; zero when it had committed before. */
  counts: BatchCounts;
  /** How long the commit took, retries excluded. */
  durationMs: number;
  /** Newest non-import record time per (migration, synchronizer) written by the batch. */
  latest: { migrationId: number; synchronizerId: string; recordTime: string }[];
}

export function keyOfCheckpoint(checkpoint: Checkpoint | undefined): StreamKey | undefined {
  if (!checkpoint || checkpoint.migrationId === null || checkpoint.recordTime === null) return undefined;
  return { migrationId: checkpoint.migrationId, recordTime: checkpoint.recordTime };
}

/** Which of these update and verdict ids are stored: how the pipeline looks up items that may be (its `lookUpStored`). */
export function storedLookup(
  db: Db,
): (updateIds: string[], verdictIds: string[]) => Promise<{ updates: Set<string>; verdicts: Set<string> }> {
  return async (updateIds, verdictIds) => ({
    updates: await storedUpdateIds(db, updateIds),
    verdicts: await storedVerdictIds(db, verdictIds),
  });
}

function writeError(plan: Plan, err: unknown): unknown {
  if (err instanceof DuplicateContractError) {
    const origin = plan.createOrigins.get(err.migrationId, err.contractId);
    return new SourceItemError(
      origin?.origin ?? plan.lastOrigin,
      origin?.updateId,
      `contract ${err.contractId} is created again in the same migration`,
    );
  }
  if (err instanceof DuplicateKeyError) return new SourceItemError(plan.lastOrigin, undefined, `a row is written twice: ${err.message}`);
  return err;
}

const NOTHING: BatchCounts = { updates: 0, importUpdates: 0, events: 0, verdicts: 0, reassignments: 0 };

/**
 * Commits a planned batch. `expectedPosition` is where the caller believes the
 * stream stands (null: no checkpoint yet). If the stored checkpoint already is
 * this batch's last position, the batch committed before (its reply was lost)
 * and is not applied again; any other difference means another writer.
 */
export async function commitPlan(db: Db, stream: string, plan: Plan, expectedPosition: string | null): Promise<AppliedBatch> {
  const started = performance.now();
  // Before the batch's transaction, in transactions of their own (a no-op once a month's partitions are known).
  await ensureHistoryPartitions(db, plan.months);
  try {
    const applied = await inWriteTransaction(db, async (connection): Promise<AppliedBatch> => {
      const checkpoint = await readCheckpoint(connection, stream);
      if ((checkpoint?.position ?? null) !== expectedPosition) {
        if (checkpoint?.position === plan.position) {
          return { checkpoint, last: keyOfCheckpoint(checkpoint), updates: 0, counts: NOTHING, durationMs: 0, latest: [] };
        }
        throw new CheckpointConflictError(stream);
      }
      const { unmatchedArchives } = await writeBatch(connection, plan.rows);
      const first = unmatchedArchives[0];
      if (first) {
        const origin = plan.archiveOrigins.get(first.migration_id, first.contract_id);
        throw new SourceItemError(
          origin?.origin ?? plan.lastOrigin,
          origin?.updateId,
          `archive of contract ${first.contract_id}, which is unknown or already archived in migration ${first.migration_id}`,
        );
      }
      await markChangedAnswers(connection, plan.rows);
      const next = {
        stream,
        expectedPosition: checkpoint?.position,
        position: plan.position,
        migrationId: plan.last?.migrationId ?? null,
        recordTime: plan.last?.recordTime ?? null,
        items: plan.items,
      };
      await advanceCheckpoint(connection, next);
      // Delivered to the API's live streams only if, and once, this transaction commits.
      await publishCommit(connection, { stream, position: next.position, migrationId: next.migrationId, recordTime: next.recordTime });
      return {
        checkpoint: {
          stream,
          position: next.position,
          migrationId: next.migrationId,
          recordTime: next.recordTime,
          itemsApplied: (checkpoint?.itemsApplied ?? 0) + plan.items,
        },
        last: plan.last,
        updates: plan.updates,
        counts: plan.counts,
        durationMs: 0,
        latest: plan.rows.ranges.map((r) => ({
          migrationId: r.migration_id,
          synchronizerId: r.synchronizer_id,
          recordTime: r.max_record_time,
        })),
      };
    });
    applied.durationMs = performance.now() - started;
    return applied;
  } catch (err) {
    throw writeError(plan, err);
  }
}
