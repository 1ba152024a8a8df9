/**
 * Commits planned batches: each in one PostgreSQL transaction, the rows of
 * its items and the stream's checkpoint together or not at all, so a crash
 * anywhere leaves the database at the previous checkpoint.
 */
import { tryParseTimestamp } from '../domain/time';
import type { CanonicalItem } from '../domain/items';
import { updateMigrationId } from '../domain/items';
import {
  CheckpointConflictError,
  advanceCheckpoint,
  inWriteTransaction,
  newestStoredKey,
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
import { compareStreamKeys, type StreamKey } from '../domain/stream-key';
import { BatchPlanner, type BatchCounts, type Plan } from './batch-plan';
import { SourceItemError, type SourceItem } from './source';

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

/** An item's stream key, or undefined when it has none (the planner then names what is wrong). */
export function itemKey(item: CanonicalItem): StreamKey | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const text = item.update?.record_time ?? item.verdict?.record_time;
  const recordTime = typeof text === 'string' ? tryParseTimestamp(text) : undefined;
  if (recordTime === undefined) return undefined;
  let migrationId: unknown;
  try {
    migrationId = item.update ? updateMigrationId(item.update) : item.verdict?.migration_id;
  } catch {
    return undefined;
  }
  return typeof migrationId === 'number' ? { migrationId, recordTime } : undefined;
}

/**
 * Tells the planner which of these items are stored already. Only items at or
 * before `storedMax` can be: the single writer stores items in stream order.
 */
async function markStoredItems(db: Db, planner: BatchPlanner, items: SourceItem[], storedMax: StreamKey | undefined): Promise<void> {
  if (!storedMax) return;
  const maybe = items.filter((i) => {
    const key = itemKey(i.item);
    return key !== undefined && compareStreamKeys(key, storedMax) <= 0;
  });
  if (maybe.length === 0) return;
  const updateIds = maybe.flatMap((i) => (typeof i.item.update?.update_id === 'string' ? [i.item.update.update_id] : []));
  const verdictIds = maybe.flatMap((i) => (typeof i.item.verdict?.update_id === 'string' ? [i.item.verdict.update_id] : []));
  planner.markStored(await storedUpdateIds(db, updateIds), await storedVerdictIds(db, verdictIds));
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

/**
 * Commits a planned batch. `expectedPosition` is where the caller believes the
 * stream stands (null: no checkpoint yet). If the stored checkpoint already is
 * this batch's last position, the batch committed before (its reply was lost)
 * and is not applied again; any other difference means another writer.
 */
const NOTHING: BatchCounts = { updates: 0, importUpdates: 0, events: 0, verdicts: 0, reassignments: 0 };

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

/**
 * Plans and commits one batch of items after the stream's checkpoint.
 * `expectedPosition`: as for commitPlan; omitted, the stored checkpoint is taken as given.
 */
export async function applyBatch(db: Db, stream: string, items: SourceItem[], expectedPosition?: string | null): Promise<AppliedBatch> {
  if (items.length === 0) throw new Error('applyBatch needs at least one item');
  const checkpoint = await readCheckpoint(db, stream);
  const expected = expectedPosition === undefined ? (checkpoint?.position ?? null) : expectedPosition;
  if ((checkpoint?.position ?? null) !== expected && checkpoint?.position === items[items.length - 1]!.position) {
    return { checkpoint, last: keyOfCheckpoint(checkpoint), updates: 0, counts: NOTHING, durationMs: 0, latest: [] };
  }
  const planner = new BatchPlanner(keyOfCheckpoint(checkpoint));
  await markStoredItems(db, planner, items, await newestStoredKey(db));
  for (const item of items) planner.add(item);
  return commitPlan(db, stream, planner.finish(), expected);
}
