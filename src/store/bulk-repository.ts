/**
 * All SQL of bulk storage (docs/bulk-history.md): the segments written and their objects' checksums
 * (tables bulk_segments and bulk_objects), and the few reads of the update history the writer needs
 * besides the pages of listUpdates.
 */
import { sql } from 'kysely';
import type { StreamKey } from '../domain/stream-key';
import { formatRecordTime, fromPgTimestamp, type Micros } from '../domain/time';
import type { Db } from './pool';
import { repositoryOperation } from './query-operation';

export type BulkKind = 'updates' | 'acs';

export interface BulkSegmentRow {
  folder: string;
  kind: BulkKind;
  start: StreamKey;
  end: StreamKey;
  objects: number;
  updates: number;
}

export interface BulkObjectRow {
  key: string;
  folder: string;
  index: number;
  /** Base64 of the SHA-256 of the object's bytes. */
  sha256: string;
  sizeBytes: number;
}

interface SegmentDbRow {
  folder: string;
  kind: BulkKind;
  start_migration_id: string;
  start_time: string;
  end_migration_id: string;
  end_time: string;
  objects: number;
  updates: string;
}

interface ObjectDbRow {
  key: string;
  folder: string;
  object_index: number;
  sha256: string;
  size_bytes: string;
}

const toSegment = (r: SegmentDbRow): BulkSegmentRow => ({
  folder: r.folder,
  kind: r.kind,
  start: { migrationId: Number(r.start_migration_id), recordTime: fromPgTimestamp(r.start_time) },
  end: { migrationId: Number(r.end_migration_id), recordTime: fromPgTimestamp(r.end_time) },
  objects: r.objects,
  updates: Number(r.updates),
});

const toObject = (r: ObjectDbRow): BulkObjectRow => ({
  key: r.key,
  folder: r.folder,
  index: r.object_index,
  sha256: r.sha256,
  sizeBytes: Number(r.size_bytes),
});

const segmentColumns = sql`folder, kind, start_migration_id, start_time, end_migration_id, end_time, objects, updates`;
const objectColumns = sql`key, folder, object_index, sha256, size_bytes`;

/** The newest segment of a kind written (by end), or undefined before the first. */
export const latestBulkSegment = repositoryOperation('latestBulkSegment', async function latestBulkSegment(db: Db, kind: BulkKind): Promise<
  BulkSegmentRow | undefined
> {
  const { rows } = await sql<SegmentDbRow>`
      select ${segmentColumns} from bulk_segments
      where kind = ${kind}
      order by end_migration_id desc, end_time desc limit 1`.execute(db);
  return rows[0] && toSegment(rows[0]);
});

/** The (migration id, record time) of the first or the last non-import update; undefined without any. */
export const updateKeyAtEdge = repositoryOperation(
  'updateKeyAtEdge',
  async function updateKeyAtEdge(db: Db, edge: 'first' | 'last'): Promise<StreamKey | undefined> {
    const order = edge === 'first' ? sql`asc` : sql`desc`;
    const { rows } = await sql<{ migration_id: number; record_time: string }>`
      select migration_id, record_time from updates
      where record_time > '0001-01-01 00:00:00+00'
      order by migration_id ${order}, record_time ${order} limit 1`.execute(db);
    const r = rows[0];
    return r ? { migrationId: r.migration_id, recordTime: fromPgTimestamp(r.record_time) } : undefined;
  },
);

/** getLowestMigrationForRecordTime: the lowest migration with an update recorded after `t`. */
export const lowestMigrationAfter = repositoryOperation(
  'lowestMigrationAfter',
  async function lowestMigrationAfter(db: Db, t: Micros): Promise<number | undefined> {
    const { rows } = await sql<{ migration_id: number | null }>`
      select min(migration_id) as migration_id from updates where record_time > ${formatRecordTime(t)}::timestamptz`.execute(db);
    return rows[0]?.migration_id ?? undefined;
  },
);

/**
 * Records a segment and its objects in one transaction, once every object is in place. Writing a
 * segment again (after a crash between the objects and this commit, the objects were renamed over
 * with the same bytes) replaces its rows.
 */
export const recordBulkSegment = repositoryOperation(
  'recordBulkSegment',
  async function recordBulkSegment(db: Db, segment: BulkSegmentRow, objects: readonly BulkObjectRow[]): Promise<void> {
    await db.transaction().execute(async (trx) => {
      await sql`delete from bulk_segments where kind = ${segment.kind} and folder = ${segment.folder}`.execute(trx);
      await sql`
        insert into bulk_segments (folder, kind, start_migration_id, start_time, end_migration_id, end_time, objects, updates)
        values (${segment.folder}, ${segment.kind}, ${segment.start.migrationId}, ${formatRecordTime(segment.start.recordTime)}::timestamptz,
                ${segment.end.migrationId}, ${formatRecordTime(segment.end.recordTime)}::timestamptz, ${segment.objects}, ${segment.updates})`.execute(
        trx,
      );
      for (const o of objects) {
        await sql`
          insert into bulk_objects (key, kind, folder, object_index, sha256, size_bytes)
          values (${o.key}, ${segment.kind}, ${o.folder}, ${o.index}, ${o.sha256}, ${o.sizeBytes})`.execute(trx);
      }
    });
  },
);

/**
 * The update segments a page of /v0/history/bulk/updates may list: overlapping (after, atOrBefore)
 * (start < atOrBefore and end > after), after the page token's folder in folder order, written up
 * to the newest segment, at most `limit` of them.
 */
export const updateSegmentsInRange = repositoryOperation(
  'updateSegmentsInRange',
  async function updateSegmentsInRange(
    db: Db,
    range: { after: Micros; atOrBefore: Micros; afterFolder: string | undefined; limit: number },
  ): Promise<BulkSegmentRow[]> {
    const { rows } = await sql<SegmentDbRow>`
      select ${segmentColumns} from bulk_segments
      where kind = 'updates'
        and start_time < ${formatRecordTime(range.atOrBefore)}::timestamptz
        and end_time > ${formatRecordTime(range.after)}::timestamptz
        and (${range.afterFolder ?? null}::text is null or folder > ${range.afterFolder ?? null}::text collate "C")
      order by folder limit ${range.limit}`.execute(db);
    return rows.map(toSegment);
  },
);

/** The segment of a kind that starts at `start`, if written. */
export const bulkSegmentStartingAt = repositoryOperation(
  'bulkSegmentStartingAt',
  async function bulkSegmentStartingAt(db: Db, kind: BulkKind, start: Micros): Promise<BulkSegmentRow | undefined> {
    const { rows } = await sql<SegmentDbRow>`
      select ${segmentColumns} from bulk_segments
      where kind = ${kind} and start_time = ${formatRecordTime(start)}::timestamptz
      order by folder limit 1`.execute(db);
    return rows[0] && toSegment(rows[0]);
  },
);

/** The objects of a kind in these folders, by folder and index. */
export const bulkObjectsOf = repositoryOperation(
  'bulkObjectsOf',
  async function bulkObjectsOf(db: Db, kind: BulkKind, folders: readonly string[]): Promise<BulkObjectRow[]> {
    if (folders.length === 0) return [];
    const { rows } = await sql<ObjectDbRow>`
      select ${objectColumns} from bulk_objects
      where kind = ${kind} and folder = any(${folders}::text[])
      order by folder, object_index`.execute(db);
    return rows.map(toObject);
  },
);

/** The recorded objects among these keys (those written and committed). */
export const bulkObjectsByKey = repositoryOperation(
  'bulkObjectsByKey',
  async function bulkObjectsByKey(db: Db, keys: readonly string[]): Promise<Map<string, BulkObjectRow>> {
    if (keys.length === 0) return new Map();
    const { rows } = await sql<ObjectDbRow>`
      select ${objectColumns} from bulk_objects where key = any(${keys}::text[])`.execute(db);
    return new Map(rows.map((r) => [r.key, toObject(r)]));
  },
);

/**
 * The ACS snapshots taken at 00:00 UTC (Splice's bulk snapshot times) after `after`, oldest first; at
 * a time two migrations both have a snapshot of, the lower one (the migration still going on then).
 */
export const bulkSnapshotsAfter = repositoryOperation(
  'bulkSnapshotsAfter',
  async function bulkSnapshotsAfter(db: Db, after: Micros | undefined): Promise<StreamKey[]> {
    const { rows } = await sql<{ migration_id: number; record_time: string }>`
      select distinct on (record_time) migration_id, record_time from acs_snapshots
      where record_time > ${after === undefined ? '-infinity' : formatRecordTime(after)}::timestamptz
        and record_time = date_trunc('day', record_time, 'UTC')
      order by record_time, migration_id`.execute(db);
    return rows.map((r) => ({ migrationId: Number(r.migration_id), recordTime: fromPgTimestamp(r.record_time) }));
  },
);
