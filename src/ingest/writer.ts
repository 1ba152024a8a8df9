/**
 * Applies one batch in one PostgreSQL transaction: the rows of its items and
 * the stream's checkpoint commit together or not at all, so a crash anywhere
 * leaves the database at the previous checkpoint.
 */
import { fromPgTimestamp, formatRecordTime } from '../domain/time';
import { sql } from 'kysely';
import {
  CheckpointConflictError,
  advanceCheckpoint,
  readCheckpoint,
  storedUpdateIds,
  storedVerdictIds,
  writeBatch,
  type Checkpoint,
} from '../store/ingest-repository';
import type { Db } from '../store/pool';
import { planBatch, type StreamKey } from './batch-plan';
import { SourceItemError, type SourceItem } from './source';

export interface AppliedBatch {
  checkpoint: Checkpoint;
  last: StreamKey | undefined;
  updates: number;
  /** Newest non-import record time per (migration, synchronizer) written by the batch. */
  latest: { migrationId: number; synchronizerId: string; recordTime: string }[];
}

function keyOf(checkpoint: Checkpoint | undefined): StreamKey | undefined {
  if (!checkpoint || checkpoint.migrationId === null || checkpoint.recordTime === null) return undefined;
  return { migrationId: checkpoint.migrationId, recordTime: fromPgTimestamp(checkpoint.recordTime) };
}

/** "Key (migration_id, contract_id)=(0, 00ab…) already exists." → the contract id. */
function duplicateContractId(err: unknown): string | undefined {
  const e = err as { code?: string; constraint?: string; detail?: string };
  if (e?.code !== '23505' || e.constraint !== 'contracts_pkey') return undefined;
  return /=\(\d+, (.+)\) already exists/.exec(e.detail ?? '')?.[1];
}

/**
 * `expectedPosition` is where the caller believes the stream stands (null: no
 * checkpoint yet; omitted: take the stored checkpoint as given). If the stored checkpoint already
 * is this batch's last position, the batch committed before (its reply was
 * lost) and is not applied again; any other difference means another writer.
 */
export async function applyBatch(db: Db, stream: string, items: SourceItem[], expectedPosition?: string | null): Promise<AppliedBatch> {
  const lastItem = items[items.length - 1];
  if (!lastItem) throw new Error('applyBatch needs at least one item');
  return db.transaction().execute(async (trx) => {
    // Large batches and catch-ups must not hit the API's statement timeout.
    await sql`set local statement_timeout = 0`.execute(trx);
    const checkpoint = await readCheckpoint(trx, stream);
    if (expectedPosition !== undefined && (checkpoint?.position ?? null) !== expectedPosition) {
      if (checkpoint?.position === lastItem.position) {
        return { checkpoint, last: keyOf(checkpoint), updates: 0, latest: [] };
      }
      throw new CheckpointConflictError(stream);
    }
    const updateIds = items.flatMap((i) => (i.item?.update?.update_id ? [i.item.update.update_id] : []));
    const verdictIds = items.flatMap((i) => (i.item?.verdict?.update_id ? [i.item.verdict.update_id] : []));
    const plan = planBatch({
      items,
      previous: keyOf(checkpoint),
      storedUpdates: await storedUpdateIds(trx, updateIds),
      storedVerdicts: await storedVerdictIds(trx, verdictIds),
    });
    let unmatched;
    try {
      ({ unmatchedArchives: unmatched } = await writeBatch(trx, plan.rows));
    } catch (err) {
      const contractId = duplicateContractId(err);
      if (contractId === undefined) throw err;
      const culprit = items.find((i) => JSON.stringify(i.item.update ?? '').includes(`"contract_id":"${contractId}"`)) ?? lastItem;
      throw new SourceItemError(culprit.origin, culprit.item.update?.update_id, `contract ${contractId} is created again in the same migration`);
    }
    const first = unmatched[0];
    if (first) {
      const origin = plan.archiveOrigins.get(`${first.migration_id}/${first.contract_id}`);
      throw new SourceItemError(
        origin?.origin ?? lastItem.origin,
        origin?.updateId,
        `archive of contract ${first.contract_id}, which is unknown or already archived in migration ${first.migration_id}`,
      );
    }
    const next = {
      stream,
      expectedPosition: checkpoint?.position,
      position: lastItem.position,
      migrationId: plan.last?.migrationId ?? null,
      recordTime: plan.last ? formatRecordTime(plan.last.recordTime) : null,
      items: items.length,
    };
    await advanceCheckpoint(trx, next);
    return {
      checkpoint: {
        stream,
        position: next.position,
        migrationId: next.migrationId,
        recordTime: next.recordTime,
        itemsApplied: (checkpoint?.itemsApplied ?? 0) + items.length,
      },
      last: plan.last,
      updates: plan.rows.updates.length,
      latest: plan.rows.ranges.map((r) => ({ migrationId: r.migration_id, synchronizerId: r.synchronizer_id, recordTime: r.max_record_time })),
    };
  });
}
