/**
 * Requests for history that retention dropped (HISTORY_RETENTION, off by default): answered 410
 * with where the history starts, never with a short or empty page that would look like the end.
 * While nothing was ever dropped, these checks cost one primary-key read and change nothing.
 */
import { formatDateTime, type Micros } from '../domain/time';
import { HttpError } from '../internal/errors';
import type { Db } from '../store/pool';
import { readHistoryStart } from '../store/partitions';

const startsAt = (start: Micros) =>
  `this indexer keeps history from ${formatDateTime(start)} on: what came before was dropped by its retention policy`;

const historyGone = (start: Micros) => new HttpError(410, `The requested history is no longer available: ${startsAt(start)}.`);

/**
 * Refuses a read of the history strictly after `from` (undefined: from the beginning) when
 * retention dropped part of it: some record time after `from` and before the start.
 */
export async function refuseDroppedHistory(db: Db, from: Micros | undefined): Promise<void> {
  const start = await readHistoryStart(db);
  if (start !== undefined && (from === undefined || from + 1n < start)) throw historyGone(start);
}

/** A 404 for something looked up by id, saying where the history starts when retention dropped some. */
export async function notFoundInHistory(db: Db, message: string): Promise<HttpError> {
  const start = await readHistoryStart(db);
  return new HttpError(404, start === undefined ? message : `${message} (${startsAt(start)})`);
}

/** The snapshot answer for a time before the history start: 410 rather than "no snapshot". */
export async function refuseSnapshotBeforeStart(db: Db, at: Micros): Promise<void> {
  const start = await readHistoryStart(db);
  if (start !== undefined && at < start) throw historyGone(start);
}
