/**
 * The backfill of update_subjects over history stored before it existed (`scan-indexer
 * backfill-stream-index`): walks the stored live updates in the stream's order up to the newest one
 * stored when the migration ran, finds each one's parties and templates as the planner does, and
 * commits each page's rows with its position, so that it resumes where an interruption left it.
 * Until it is done, the stream's party and template filters miss the updates it has not reached.
 */
import { consumedFromEarlier, subjectsOf } from '../domain/update-subjects';
import { formatRecordTime } from '../domain/time';
import type { SubjectRow } from '../store/ingest-rows';
import type { Db } from '../store/pool';
import {
  readArchivedStakeholders,
  readSubjectBackfill,
  readUpdatesForSubjects,
  writeSubjectBackfillPage,
} from '../store/subject-repository';

export interface SubjectBackfillResult {
  /** Updates walked by this run, and rows it wrote (rows already stored included). */
  updates: number;
  rows: number;
  finished: boolean;
}

export async function backfillUpdateSubjects(
  db: Db,
  options: { pageSize?: number; signal?: AbortSignal; onProgress?: (p: { updatesDone: number; at: string }) => void } = {},
): Promise<SubjectBackfillResult> {
  const pageSize = options.pageSize ?? 500;
  const state = await readSubjectBackfill(db);
  if (!state || state.finished) return { updates: 0, rows: 0, finished: true };
  let position = state.position;
  let done = state.updatesDone;
  let updates = 0;
  let written = 0;
  for (;;) {
    if (options.signal?.aborted) return { updates, rows: written, finished: false };
    const page = await readUpdatesForSubjects(db, position, state.end, pageSize);
    const last = page[page.length - 1];
    if (!last) {
      await writeSubjectBackfillPage(db, [], position ?? state.end, 0, true);
      return { updates, rows: written, finished: true };
    }
    // The stakeholders of the contracts the page's updates consume, as the writer finds them (batch-plan.ts).
    const stakeholders = await readArchivedStakeholders(
      db,
      page.flatMap(({ key, update }) =>
        consumedFromEarlier(update).map((contractId) => ({ migrationId: key.migrationId, contractId, archivedAt: key.recordTime })),
      ),
    );
    const rows: SubjectRow[] = [];
    for (const { key, update } of page) {
      const { parties, templates } = subjectsOf(update, (contractId) => stakeholders.get(`${key.migrationId}/${contractId}`));
      if (parties.length === 0 && templates.length === 0) continue;
      rows.push({
        migration_id: key.migrationId,
        record_time: formatRecordTime(key.recordTime),
        synchronizer_id: key.synchronizerId,
        update_id: key.updateId,
        parties,
        templates,
      });
    }
    const finished = page.length < pageSize;
    await writeSubjectBackfillPage(db, rows, last.key, page.length, finished);
    position = last.key;
    done += page.length;
    updates += page.length;
    written += rows.length;
    options.onProgress?.({ updatesDone: done, at: formatRecordTime(last.key.recordTime) });
    if (finished) return { updates, rows: written, finished: true };
  }
}
