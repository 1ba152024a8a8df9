/**
 * Splice's bulk storage layout (docs/bulk-history.md): how update history is cut into segments, how
 * segments and objects are named, and how one update is written as one NDJSON line. Pure rules.
 */
import { compareStreamKeys, type StreamKey } from './stream-key';
import { formatInstant, IMPORT_RECORD_TIME, MICROS_PER_HOUR, tryParseTimestamp, type Micros } from './time';

/** CantonTimestamp.MinValue (0001-01-01T00:00:00Z): where the first segment starts, with migration 0. */
export const BULK_HISTORY_START: StreamKey = { migrationId: 0, recordTime: IMPORT_RECORD_TIME };

/** Splice's bulk ACS snapshot period (scanStorageConfigV1): segments end at 00:00 UTC. */
const BULK_PERIOD: Micros = 24n * MICROS_PER_HOUR;

/** The start of the UTC day of `t` (floored, also before 1970). */
function startOfUtcDay(t: Micros): Micros {
  const rem = ((t % BULK_PERIOD) + BULK_PERIOD) % BULK_PERIOD;
  return t - rem;
}

/** computeBulkSnapshotTimeAfter: the first 00:00 UTC strictly after `t`. */
export function bulkSnapshotTimeAfter(t: Micros): Micros {
  return startOfUtcDay(t) + BULK_PERIOD;
}

/** computeBulkSnapshotTimeAtOrBefore: the last 00:00 UTC at or before `t`. */
export function bulkSnapshotTimeAtOrBefore(t: Micros): Micros {
  return startOfUtcDay(t);
}

/** A segment's folder: "<start>~<end>", both as Java's Instant.toString (Splice's CantonTimestamp.toString). */
export function segmentFolder(start: Micros, end: Micros): string {
  return `${formatInstant(start)}~${formatInstant(end)}`;
}

/** The key of the `index`th object (from 0) of a segment's update history (`updates`) or of an ACS snapshot (`ACS`). */
export function bulkObjectKey(folder: string, prefix: 'updates' | 'ACS', index: number): string {
  return `${folder}/${prefix}_${index}.zstd`;
}

/** Where a folder starts and ends; undefined for a name that is not "<instant>~<instant>" (a trailing "/" allowed). */
export function parseFolder(folder: string): { start: Micros; end: Micros } | undefined {
  const [startText, endText, ...rest] = folder.replace(/\/$/, '').split('~');
  if (startText === undefined || endText === undefined || rest.length > 0) return undefined;
  const start = tryParseTimestamp(startText);
  const end = tryParseTimestamp(endText);
  return start === undefined || end === undefined ? undefined : { start, end };
}

const OBJECT_KEY = /^([^/]+)\/(?:updates|ACS)_\d+\.zstd$/;

/** Whether `key` names an object of the layout (a folder, then updates_N.zstd or ACS_N.zstd). */
export function isObjectKey(key: string): boolean {
  const m = OBJECT_KEY.exec(key);
  return m?.[1] !== undefined && parseFolder(m[1]) !== undefined;
}

/** The segment after one that ends at `end`, given where its own end lies. */
export interface Segment {
  start: StreamKey;
  end: StreamKey;
}

/** Whether an update keyed `key` belongs to `segment`: after its start, at or before its end, in (migration, record time) order. */
export function inSegment(segment: Segment, key: StreamKey): boolean {
  return compareStreamKeys(key, segment.start) > 0 && compareStreamKeys(key, segment.end) <= 0;
}

/**
 * One update as a line of an updates object: the /v2/updates item (compact_json) with the null values
 * of its top-level fields dropped and object keys sorted, without spaces (circe's
 * `dropNullValues.noSpacesSortKeys`: dropNullValues is not recursive), then "\n".
 */
export function bulkLine(itemJson: string): string {
  const item = JSON.parse(itemJson) as Record<string, unknown>;
  for (const k of Object.keys(item)) if (item[k] === null) delete item[k];
  return `${sortedJson(item)}\n`;
}

/** JSON text with keys sorted; written by hand since JSON.stringify puts integer-like keys first. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const record = value as Record<string, unknown>;
  // Circe sorts keys by String.compareTo: UTF-16 code units, as Array.prototype.sort does.
  const members = Object.keys(record)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${sortedJson(record[k])}`);
  return `{${members.join(',')}}`;
}
