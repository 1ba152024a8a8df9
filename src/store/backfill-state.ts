/**
 * Where a resumable walk over the stored history is: the activity projection's backfill
 * (activity_backfill) and the stream index's (update_subjects_backfill) keep it in the same columns.
 */
import { fromPgTimestamp, type Micros } from '../domain/time';

/** An update's key in the stream's order. */
interface BackfillPosition {
  migrationId: number;
  recordTime: Micros;
  synchronizerId: string;
  updateId: string;
}

export interface BackfillState {
  /** The last update done; undefined before the first. */
  position: BackfillPosition | undefined;
  /** The newest update stored when the backfill began: the writer did what came after. */
  end: BackfillPosition;
  updatesDone: number;
  finished: boolean;
}

/** The columns both backfill tables share. */
interface BackfillStateRow {
  migration_id: number;
  record_time: string;
  synchronizer_id: string;
  update_id: string;
  end_migration_id: number;
  end_record_time: string;
  end_synchronizer_id: string;
  end_update_id: string;
  updates_done: number;
  finished_at: string | null;
}

/** A backfill row as its state; a negative migration id marks a walk not begun. */
export function backfillStateOf(row: BackfillStateRow): BackfillState {
  return {
    position:
      row.migration_id >= 0
        ? {
            migrationId: row.migration_id,
            recordTime: fromPgTimestamp(row.record_time),
            synchronizerId: row.synchronizer_id,
            updateId: row.update_id,
          }
        : undefined,
    end: {
      migrationId: row.end_migration_id,
      recordTime: fromPgTimestamp(row.end_record_time),
      synchronizerId: row.end_synchronizer_id,
      updateId: row.end_update_id,
    },
    updatesDone: row.updates_done,
    finished: row.finished_at !== null,
  };
}
