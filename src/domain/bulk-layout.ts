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

/**
 * The key of the object a ref's url names: the end of its path, decoded (`<folder>/<prefix>_<n>.zstd`), so
 * that this indexer's download path and a bucket's (presigned) object URL both name it; undefined when
 * it names no such object.
 */
export function objectKeyOfUrl(url: string, prefix: 'updates' | 'ACS'): string | undefined {
  let path: string;
  try {
    path = decodeURIComponent(new URL(url).pathname);
  } catch {
    return undefined;
  }
  const key = new RegExp(`([^/]+/${prefix}_\\d+\\.zstd)$`).exec(path)?.[1];
  return key !== undefined && isObjectKey(key) ? key : undefined;
}

/**
 * The order of a listing: by folder (its start, then its end), then by object number. Both keys must
 * be object keys (isObjectKey).
 */
export function compareObjectKeys(a: string, b: string): number {
  const parts = (key: string) => {
    const slash = key.lastIndexOf('/');
    const folder = parseFolder(key.slice(0, slash))!;
    return [folder.start, folder.end, BigInt(/_(\d+)\.zstd$/.exec(key)![1]!)] as const;
  };
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return 0;
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

/*
 * Reading a line back. A line's keys are sorted, so the order in which /v2/updates and /v0/events
 * serve an update's members (the canonical item's, src/domain/items.ts) is rebuilt from these lists.
 * Daml values (create_arguments, choice_argument, exercise_result) keep the sorted order: a record's
 * field order is its type's, which the line does not carry (docs/bulk-history.md, "SOURCE=bulk").
 */
const TRANSACTION_KEYS = [
  'update_id',
  'migration_id',
  'workflow_id',
  'record_time',
  'synchronizer_id',
  'effective_at',
  'root_event_ids',
  'events_by_id',
  'external_transaction_hash',
];
const REASSIGNMENT_KEYS = ['update_id', 'offset', 'record_time', 'event'];
const CREATED_KEYS = [
  'event_type',
  'event_id',
  'contract_id',
  'template_id',
  'package_name',
  'create_arguments',
  'created_at',
  'signatories',
  'observers',
];
const EXERCISED_KEYS = [
  'event_type',
  'event_id',
  'contract_id',
  'template_id',
  'package_name',
  'choice',
  'choice_argument',
  'child_event_ids',
  'exercise_result',
  'consuming',
  'acting_parties',
  'interface_id',
];
const ASSIGN_KEYS = [
  'submitter',
  'source_synchronizer',
  'target_synchronizer',
  'migration_id',
  'unassign_id',
  'created_event',
  'reassignment_counter',
];
const UNASSIGN_KEYS = [
  'submitter',
  'source_synchronizer',
  'migration_id',
  'target_synchronizer',
  'unassign_id',
  'reassignment_counter',
  'contract_id',
];

type JsonRecord = Record<string, unknown>;
const isRecord = (v: unknown): v is JsonRecord => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `o` with the keys of `order` first, in that order, then any others as they came; `nested` rebuilds members. */
function ordered(o: JsonRecord, order: readonly string[], nested: Record<string, (v: unknown) => unknown> = {}): JsonRecord {
  const out: JsonRecord = {};
  const put = (k: string) => {
    const rebuild = nested[k];
    out[k] = rebuild ? rebuild(o[k]) : o[k];
  };
  for (const k of order) if (k in o) put(k);
  for (const k of Object.keys(o)) if (!(k in out)) put(k);
  return out;
}

const createdEvent = (e: unknown): unknown => (isRecord(e) ? ordered(e, CREATED_KEYS) : e);

function treeEvent(e: unknown): unknown {
  if (!isRecord(e)) return e;
  return e.event_type === 'exercised_event' ? ordered(e, EXERCISED_KEYS) : createdEvent(e);
}

function reassignmentEvent(e: unknown): unknown {
  if (!isRecord(e)) return e;
  return 'created_event' in e ? ordered(e, ASSIGN_KEYS, { created_event: createdEvent }) : ordered(e, UNASSIGN_KEYS);
}

/**
 * The update of a bulk line (bulkLine's inverse, as far as the line allows): its members in the order
 * the update history serves them. Top-level nulls that bulkLine dropped are not put back: no member
 * of a canonical update is null at the top level (an absent external hash is omitted). Throws
 * SyntaxError when the line is not JSON; a line that is not an object is returned as parsed, for the
 * caller's shape check to name.
 */
export function updateFromBulkLine(line: string): unknown {
  const parsed = JSON.parse(line) as unknown;
  if (!isRecord(parsed)) return parsed;
  if ('events_by_id' in parsed) {
    return ordered(parsed, TRANSACTION_KEYS, {
      events_by_id: (events) =>
        isRecord(events) ? Object.fromEntries(Object.entries(events).map(([id, e]) => [id, treeEvent(e)])) : events,
    });
  }
  return ordered(parsed, REASSIGNMENT_KEYS, { event: reassignmentEvent });
}
