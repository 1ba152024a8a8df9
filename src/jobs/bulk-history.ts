/**
 * The bulk history writer (BULK_STORAGE_DIR or BULK_STORAGE_S3_BUCKET, docs/bulk-history.md): writes each completed segment of
 * the update history, then each ACS snapshot taken at 00:00 UTC, as Splice's bulk storage objects
 * (zstd-compressed NDJSON), and records their SHA-256. A segment is complete once an update after its
 * end is stored.
 *
 * Crash safety: an object becomes visible under its key only once written in full (a directory's file
 * is fsynced and renamed, an S3 upload completed: src/store/bulk-object-store.ts); its segment and
 * checksums are committed to the database only after all its objects are in place. The API serves only recorded objects, so a
 * crash at any point leaves nothing partial visible, and the segment is written again on resume.
 */
import {
  BULK_HISTORY_START,
  bulkLine,
  bulkSnapshotTimeAfter,
  inSegment,
  segmentFolder,
  bulkObjectKey,
  type Segment,
} from '../domain/bulk-layout';
import { compareStreamKeys, type StreamKey } from '../domain/stream-key';
import { activeContractJson } from '../domain/active-contract';
import { formatInstant, MICROS_PER_HOUR, type Micros } from '../domain/time';
import { withExternalHash } from '../domain/update-rendering';
import type { Logger } from '../internal/logger';
import { sleep } from '../internal/sleep';
import { zstdFrame, zstdReady } from '../internal/zstd';
import {
  bulkSnapshotsAfter,
  latestBulkSegment,
  lowestMigrationAfter,
  recordBulkSegment,
  updateKeyAtEdge,
  type BulkObjectRow,
} from '../store/bulk-repository';
import type { BulkObjectStore, ObjectUpload } from '../store/bulk-object-store';
import type { Db } from '../store/pool';
import { acsPage, type CreationKey } from '../store/acs-repository';
import { listUpdates } from '../store/update-repository';

/** Splice's bulkDbReadChunkSize. */
const READ_CHUNK = 1000;
/** Uncompressed bytes compressed into one zstd frame. */
const FRAME_BYTES = 4 * 2 ** 20;
/** Splice's bulkMaxFileSize: an object is closed once its compressed size reaches it. */
const MAX_OBJECT_BYTES = 128 * 2 ** 20;

export interface BulkWriterOptions {
  db: Db;
  store: BulkObjectStore;
  logger: Logger;
  /** Object size limits, smaller in tests to get several objects per segment. */
  frameBytes?: number;
  maxObjectBytes?: number;
  /** Test seam: called with each object's key after its last bytes are appended, before it is made visible. */
  beforeFinish?: (key: string) => void | Promise<void>;
  /** Told of each ACS snapshot once its objects and rows are in place (a mirror checks it against its upstreams'). */
  afterAcsSnapshot?: (snapshot: WrittenAcsSnapshot) => Promise<unknown>;
}

/** An ACS snapshot the bulk writer wrote: its time and its objects, in order. */
export interface WrittenAcsSnapshot {
  migrationId: number;
  recordTime: Micros;
  objects: readonly Pick<BulkObjectRow, 'key' | 'sha256'>[];
}

/** Where the segment after `previous` (or the first one) ends, per UpdateHistoryBulkStorage.getSegmentEndAfter. */
async function segmentEndAfter(db: Db, from: StreamKey, currentMigration: number): Promise<StreamKey> {
  const recordTime = bulkSnapshotTimeAfter(from.recordTime);
  // An older migration ends where the lowest migration with later updates goes on; the current one is assumed to continue.
  // (Never before the segment's start: overlapping migrations must not send the writer back.)
  const migrationId =
    from.migrationId < currentMigration
      ? Math.max(from.migrationId, (await lowestMigrationAfter(db, recordTime)) ?? currentMigration)
      : currentMigration;
  return { migrationId, recordTime };
}

/** The next segment to write and whether the stored history already covers it; undefined before any update. */
async function nextSegment(db: Db): Promise<{ segment: Segment; complete: boolean } | undefined> {
  const last = await updateKeyAtEdge(db, 'last');
  if (!last) return undefined;
  const previous = await latestBulkSegment(db, 'updates');
  let segment: Segment;
  if (previous) {
    segment = { start: previous.end, end: await segmentEndAfter(db, previous.end, last.migrationId) };
  } else {
    const first = (await updateKeyAtEdge(db, 'first'))!;
    segment = { start: BULK_HISTORY_START, end: await segmentEndAfter(db, first, last.migrationId) };
  }
  return { segment, complete: compareStreamKeys(last, segment.end) > 0 };
}

/** Writes `lines` as the objects `<folder>/<prefix>_<n>.zstd`; their rows, for the caller to record. */
async function writeObjects(
  options: BulkWriterOptions,
  folder: string,
  prefix: 'updates' | 'ACS',
  lines: AsyncIterable<string>,
): Promise<{ objects: BulkObjectRow[]; lines: number }> {
  const { store } = options;
  const frameBytes = options.frameBytes ?? FRAME_BYTES;
  const maxObjectBytes = options.maxObjectBytes ?? MAX_OBJECT_BYTES;
  const objects: BulkObjectRow[] = [];
  let file: ObjectUpload | undefined;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let count = 0;

  const flushFrame = async () => {
    if (pendingBytes === 0) return;
    file ??= await store.begin(bulkObjectKey(folder, prefix, objects.length));
    await file.append(zstdFrame(Buffer.concat(pending)));
    pending = [];
    pendingBytes = 0;
  };
  const closeObject = async () => {
    if (!file) return;
    const current = file;
    file = undefined;
    const key = bulkObjectKey(folder, prefix, objects.length);
    let sha256: string;
    try {
      await options.beforeFinish?.(key);
      sha256 = await current.finish();
    } catch (err) {
      await current.abandon();
      throw err;
    }
    objects.push({ key, folder, index: objects.length, sha256, sizeBytes: current.size });
  };

  try {
    for await (const text of lines) {
      const line = Buffer.from(text, 'utf8');
      pending.push(line);
      pendingBytes += line.length;
      count++;
      if (pendingBytes >= frameBytes) {
        await flushFrame();
        if (file && file.size >= maxObjectBytes) await closeObject();
      }
    }
    await flushFrame();
    await closeObject();
    return { objects, lines: count };
  } catch (err) {
    await file?.abandon();
    throw err;
  }
}

/** A segment's updates as lines, read 1,000 at a time in the network's order (as Splice reads them). */
async function* updateLines(db: Db, segment: Segment): AsyncIterable<string> {
  let after: StreamKey = segment.start;
  for (;;) {
    const page = await listUpdates(db, after, READ_CHUNK, 'compact_json');
    const inside = page.filter((u) => inSegment(segment, u));
    // The served item: the stored compact_json with the external hash as /v2/updates adds it.
    for (const u of inside) yield bulkLine(withExternalHash(u.json!, u.externalTransactionHash));
    if (inside.length < page.length || page.length < READ_CHUNK) return;
    const last = page[page.length - 1]!;
    after = { migrationId: last.migrationId, recordTime: last.recordTime };
  }
}

/** A snapshot's active contracts as lines: the /v2/state/acs items of every party and template, in creation order. */
async function* acsLines(db: Db, migrationId: number, at: Micros): AsyncIterable<string> {
  let after: CreationKey | undefined;
  for (;;) {
    const page = await acsPage(db, { migrationId, at, after, limit: READ_CHUNK, parties: [], templates: [] });
    for (const c of page) yield bulkLine(activeContractJson(c));
    const last = page[page.length - 1];
    if (!last || page.length < READ_CHUNK) return;
    after = { createdAt: last.createdAt, contractId: last.contractId };
  }
}

/** Writes the ACS snapshots taken at 00:00 UTC after the newest one written; how many it wrote. */
async function writeAcsSnapshots(options: BulkWriterOptions, signal?: AbortSignal): Promise<number> {
  const { db, logger } = options;
  const latest = await latestBulkSegment(db, 'acs');
  let written = 0;
  for (const snapshot of await bulkSnapshotsAfter(db, latest?.start.recordTime)) {
    if (signal?.aborted) break;
    const { migrationId, recordTime } = snapshot;
    const end = recordTime + 24n * MICROS_PER_HOUR;
    const folder = segmentFolder(recordTime, end);
    const started = Date.now();
    const { objects, lines } = await writeObjects(options, folder, 'ACS', acsLines(db, migrationId, recordTime));
    await recordBulkSegment(
      db,
      { folder, kind: 'acs', start: snapshot, end: { migrationId, recordTime: end }, objects: objects.length, updates: lines },
      objects,
    );
    written++;
    logger.info(
      { folder, migrationId, objects: objects.length, contracts: lines, ms: Date.now() - started },
      'bulk storage: wrote an ACS snapshot',
    );
    await options.afterAcsSnapshot?.({ migrationId, recordTime, objects });
  }
  return written;
}

/**
 * Writes every completed segment not yet written, oldest first, and returns how many it wrote.
 * Resumes after the newest recorded segment; temporary files of an interrupted run are removed first.
 */
export async function writeCompletedSegments(options: BulkWriterOptions, signal?: AbortSignal): Promise<number> {
  const { db, store, logger } = options;
  await zstdReady();
  await store.prepare(logger);
  let written = 0;
  while (!signal?.aborted) {
    const next = await nextSegment(db);
    if (!next?.complete) break;
    const { segment } = next;
    const folder = segmentFolder(segment.start.recordTime, segment.end.recordTime);
    const started = Date.now();
    const { objects, lines: updates } = await writeObjects(options, folder, 'updates', updateLines(db, segment));
    if (updates === 0) logger.warn({ folder }, 'bulk storage: no updates in this segment');
    await recordBulkSegment(
      db,
      { folder, kind: 'updates', start: segment.start, end: segment.end, objects: objects.length, updates },
      objects,
    );
    written++;
    logger.info(
      {
        folder,
        endMigrationId: segment.end.migrationId,
        end: formatInstant(segment.end.recordTime),
        objects: objects.length,
        updates,
        bytes: objects.reduce((n, o) => n + o.sizeBytes, 0),
        ms: Date.now() - started,
      },
      'bulk storage: wrote an update history segment',
    );
  }
  return written + (await writeAcsSnapshots(options, signal));
}

/**
 * Runs the writer every `intervalMs` until `signal` aborts; a failed round is logged and retried on
 * the next one (it resumes after the newest recorded segment). Resolves once the loop has stopped.
 */
export async function runBulkWriter(options: BulkWriterOptions, signal: AbortSignal, intervalMs = 5000): Promise<void> {
  while (!signal.aborted) {
    try {
      await writeCompletedSegments(options, signal);
    } catch (err) {
      if (signal.aborted) break;
      options.logger.error({ err }, 'bulk storage: writing a segment failed; retrying');
    }
    await sleep(intervalMs, signal).catch(() => undefined);
  }
}
