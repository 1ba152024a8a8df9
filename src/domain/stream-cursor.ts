/**
 * The position of a live stream's item (its SSE `id`), `<migration id>/<record time>/<update id>`:
 * the item's key in /v0/events' order, written so a person can read it
 * ("4/2026-11-26T09:00:00.123456Z/1220ab…"). Without the update id, `<migration id>/<record time>`
 * stands for the end of that record time, as /v0/events' `after_migration_id` and `after_record_time`.
 */
import { formatRecordTime, parseStorableTimestamp, type Micros } from './time';

export interface StreamCursor {
  migrationId: number;
  recordTime: Micros;
  /** The last item sent at this record time; undefined: every item at it. */
  updateId?: string;
}

export function formatStreamCursor(cursor: StreamCursor): string {
  const at = `${cursor.migrationId}/${formatRecordTime(cursor.recordTime)}`;
  return cursor.updateId === undefined ? at : `${at}/${cursor.updateId}`;
}

const MIGRATION = /^\d{1,15}$/;

/** The cursor a text stands for, or a sentence saying what is wrong with it. */
export function parseStreamCursor(text: string): StreamCursor | string {
  const first = text.indexOf('/');
  const second = first < 0 ? -1 : text.indexOf('/', first + 1);
  const migration = first < 0 ? text : text.slice(0, first);
  const time = first < 0 ? '' : second < 0 ? text.slice(first + 1) : text.slice(first + 1, second);
  const updateId = second < 0 ? undefined : text.slice(second + 1);
  if (!MIGRATION.test(migration) || time === '' || updateId === '') {
    return 'expected <migration id>/<record time>[/<update id>], as the id of an event of this stream';
  }
  let recordTime: Micros;
  try {
    recordTime = parseStorableTimestamp(time);
  } catch (err) {
    return `invalid record time: ${(err as Error).message}`;
  }
  return { migrationId: Number(migration), recordTime, ...(updateId !== undefined && { updateId }) };
}
