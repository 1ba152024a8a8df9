/**
 * The backfill of the activity projection over history stored before it existed (`scan-indexer
 * backfill-activities`): walks the stored live updates in the stream's order up to the newest one
 * stored when it began, derives each transaction's activities as the planner does, and commits each
 * page's rows with its position (activity_backfill), so that it resumes where an interruption left it.
 * Rows already there are kept, so pages the writer or an earlier run wrote are harmless.
 */
import type { SkippedActivity } from '../domain/activities';
import { activityRows } from '../store/ingest-rows';
import type { ActivityRow } from '../store/ingest-rows';
import { beginActivityBackfill, countLiveUpdates, readUpdatesForBackfill, writeActivityBackfillPage } from '../store/activity-repository';
import type { Db } from '../store/pool';
import { formatRecordTime } from '../domain/time';

export interface BackfillProgress {
  updatesDone: number;
  totalUpdates: number;
  /** The record time reached. */
  at: string;
}

export interface BackfillResult {
  /** Updates walked by this run, and activity rows it derived (rows already stored included). */
  updates: number;
  activities: number;
  finished: boolean;
}

export async function backfillActivities(
  db: Db,
  options: {
    pageSize?: number;
    signal?: AbortSignal;
    onProgress?: (p: BackfillProgress) => void;
    /** An activity that cannot be derived: skipped, as the writer skips it. */
    onSkipped?: (s: SkippedActivity & { updateId: string }) => void;
  } = {},
): Promise<BackfillResult> {
  const pageSize = options.pageSize ?? 500;
  const state = await beginActivityBackfill(db);
  if (!state) return { updates: 0, activities: 0, finished: true };
  if (state.finished) return { updates: 0, activities: 0, finished: true };
  const total = await countLiveUpdates(db);
  let position = state.position;
  let done = state.updatesDone;
  let updates = 0;
  let activities = 0;
  for (;;) {
    if (options.signal?.aborted) return { updates, activities, finished: false };
    const page = await readUpdatesForBackfill(db, position, state.end, pageSize);
    const last = page[page.length - 1];
    if (!last) {
      // Nothing after the position: the end is reached (or was reached by a page that did not know it).
      if (position) await writeActivityBackfillPage(db, [], position, 0, true);
      return { updates, activities, finished: true };
    }
    const rows: ActivityRow[] = [];
    for (const u of page) {
      if (!u.transaction) continue;
      const skipped: SkippedActivity[] = [];
      rows.push(...activityRows(u.transaction, u.key.migrationId, formatRecordTime(u.key.recordTime), skipped));
      for (const s of skipped) options.onSkipped?.({ ...s, updateId: u.transaction.update_id });
    }
    const finished = page.length < pageSize;
    await writeActivityBackfillPage(db, rows, last.key, page.length, finished);
    position = last.key;
    done += page.length;
    updates += page.length;
    activities += rows.length;
    options.onProgress?.({ updatesDone: done, totalUpdates: total, at: formatRecordTime(last.key.recordTime) });
    if (finished) return { updates, activities, finished: true };
  }
}
