/**
 * The `bulk` source (SOURCE=bulk, docs/bulk-history.md): backfills from another Scan's (or
 * scan-indexer's) bulk storage objects, then goes on from its `/v0/events` with the scan source.
 *
 * Bulk phase. `POST /api/scan/v0/history/bulk/updates` is paged over the whole written history
 * (start 0001-01-01, end 9999-12-31, the listing's own tokens) until a page lists no object. Each
 * object is downloaded from the url of its ref, and taken only when the SHA-256 of its bytes (base64)
 * is the digest of its ref and the checksum `POST /v0/history/bulk/checksums` gives for its key; any
 * mismatch stops ingestion naming the object. A 404 or 501 from checksums is Splice's "not yet": it
 * is asked again after the poll interval. An object is a multi-frame zstd stream of NDJSON lines,
 * decompressed frame by frame (src/internal/zstd.ts); each line is a `/v2/updates` item with its keys
 * sorted, read back to the served member order (updateFromBulkLine) and checked as a /v0/events
 * element's update is (readItem), in the upstream's order (a key before the previous one stops
 * ingestion). The next object is downloaded while one is read.
 *
 * Import updates are not in bulk objects (Splice leaves them out): as the scan source does, they are
 * read from `POST /v0/backfilling/import-updates` of the same upstream when the stream first reaches a
 * migration, before its first update.
 *
 * What the lines do not carry, the mirror does not get for the bulk range: verdicts (and so rejected
 * transactions), traffic summaries, app activity records, the protobuf_json rendering, and the field
 * order of Daml records (a line's keys are sorted). docs/bulk-history.md says what that changes.
 *
 * Position. In the bulk phase, `{"migration_id":M,"record_time":T,"bulk":{"page":P,"object":K,
 * "digest":D,"lines":N}}`: the item is line N (from 1) of object K, which the listing page asked with
 * token P (null: the first page) holds, and whose digest is D. Within the import updates of M read
 * before line N+1, `record_time` is 0001-01-01, `after_import_update_id` names the last one, and N is
 * the lines taken before them. Resuming asks for page P again, finds K in it (its digest must still be
 * D), skips N lines, and goes on: nothing is lost or read twice. Once the listing is exhausted the
 * scan source goes on from the key of the last bulk update (or from the beginning when there was
 * none); every position from then on is the scan source's, and a restart there resumes the scan
 * source directly.
 *
 * The objects are read from one upstream (the first of SCAN_SOURCE_URLS): a position names that
 * upstream's objects, and another Scan may cut its objects elsewhere.
 */
import { createHash } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { isObjectKey, updateFromBulkLine } from '../../domain/bulk-layout';
import { compareStreamKeys, type StreamKey } from '../../domain/stream-key';
import { formatRecordTime, IMPORT_RECORD_TIME, tryParseTimestamp } from '../../domain/time';
import type { Logger } from '../../internal/logger';
import { zstdDecompressFrames, ZstdFormatError, zstdReady } from '../../internal/zstd';
import { createHttpClient, HttpStatusError, type HttpClient, type HttpClientOptions } from '../http-client';
import { SourceItemError, type Source, type SourceItem } from '../source';
import { readItem } from './event-page';
import { createUpstreamReader, positionOf } from './scan-upstream';
import { array, isObject, object, ShapeError, string } from './shape';

export interface BulkSourceOptions {
  /** Base URL of the Scan whose bulk objects are read (without /api/scan). */
  url: string;
  /** Reads the history after the bulk objects from /v0/events: the scan source over the same upstreams. */
  events: Source;
  /** Object refs per listing page, 1 to 1000 (default 1000). */
  pageSize?: number;
  /** Wait before asking for checksums again after a "not yet" (default 5000 ms). */
  pollIntervalMs?: number;
  /** Limit of one object's download (default 10 minutes: an object holds up to 128 MiB). */
  downloadTimeoutMs?: number;
  logger: Logger;
  http?: HttpClientOptions;
}

/** Where the bulk phase stands: after line `lines` of `object`, listed on the page asked with `page`. */
interface BulkAt {
  page: string | null;
  object: string;
  digest: string;
  lines: number;
}

interface BulkPosition extends StreamKey {
  bulk: BulkAt;
  importAfter?: string;
}

interface ObjectRef {
  url: string;
  digest: string;
  key: string;
}

/** A downloaded object whose bytes matched its checksums. */
interface VerifiedObject extends ObjectRef {
  bytes: Buffer;
}

const LISTING_START = '0001-01-01T00:00:00Z';
const LISTING_END = '9999-12-31T23:59:59Z';
const OBJECT_KEY_AT_END = /([^/]+\/updates_\d+\.zstd)$/;

function formatPosition(p: BulkPosition): string {
  return JSON.stringify({
    migration_id: p.migrationId,
    record_time: formatRecordTime(p.recordTime),
    bulk: p.bulk,
    ...(p.importAfter !== undefined && { after_import_update_id: p.importAfter }),
  });
}

/** A bulk-phase position, or undefined for any other (the scan source's, past the bulk phase). */
function parseBulkPosition(position: string): BulkPosition | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(position);
  } catch {
    return undefined;
  }
  if (!isObject(parsed) || parsed.bulk === undefined) return undefined;
  const fail = () =>
    new Error(
      `Invalid bulk checkpoint '${position}': expected {"migration_id": <integer>, "record_time": "<timestamp>", "bulk": {"page": <string or null>, "object": "<key>", "digest": "<base64>", "lines": <integer>}}`,
    );
  const bulk = parsed.bulk;
  const recordTime = typeof parsed.record_time === 'string' ? tryParseTimestamp(parsed.record_time) : undefined;
  if (
    !Number.isSafeInteger(parsed.migration_id) ||
    recordTime === undefined ||
    !isObject(bulk) ||
    !(bulk.page === null || typeof bulk.page === 'string') ||
    typeof bulk.object !== 'string' ||
    typeof bulk.digest !== 'string' ||
    !Number.isSafeInteger(bulk.lines) ||
    (bulk.lines as number) < 0
  ) {
    throw fail();
  }
  const importAfter = parsed.after_import_update_id;
  if (importAfter !== undefined && (typeof importAfter !== 'string' || recordTime !== IMPORT_RECORD_TIME)) throw fail();
  return {
    migrationId: parsed.migration_id as number,
    recordTime,
    bulk: { page: bulk.page, object: bulk.object, digest: bulk.digest, lines: bulk.lines as number },
    ...(importAfter !== undefined && { importAfter }),
  };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('base64');

/** The object key a ref's url names: the end of its path, decoded (`<folder>/updates_<n>.zstd`). */
function keyOfUrl(url: string): string | undefined {
  let path: string;
  try {
    path = decodeURIComponent(new URL(url).pathname);
  } catch {
    return undefined;
  }
  const key = OBJECT_KEY_AT_END.exec(path)?.[1];
  return key !== undefined && isObjectKey(key) ? key : undefined;
}

/** The NDJSON lines of an object's bytes, frame by frame, a line cut by a frame boundary joined. */
function* linesOf(bytes: Buffer): Generator<string> {
  let carry: Buffer | undefined;
  for (const frame of zstdDecompressFrames(bytes)) {
    let chunk = Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength);
    if (carry) chunk = Buffer.concat([carry, chunk]);
    let start = 0;
    for (let end = chunk.indexOf(0x0a, start); end >= 0; end = chunk.indexOf(0x0a, start)) {
      yield chunk.toString('utf8', start, end);
      start = end + 1;
    }
    carry = start < chunk.length ? chunk.subarray(start) : undefined;
  }
  if (carry) yield carry.toString('utf8');
}

export function createBulkSource(options: BulkSourceOptions): Source {
  const url = options.url.replace(/\/+$/, '');
  const pageSize = options.pageSize ?? 1000;
  const pollIntervalMs = options.pollIntervalMs ?? 5000;
  const downloadTimeoutMs = options.downloadTimeoutMs ?? 600_000;
  const logger = options.logger.child({ source: 'bulk' });
  const http: HttpClient = createHttpClient(logger, options.http);
  const upstream = createUpstreamReader({ pageSize: 1000, wantProtobuf: true, http, logger });
  const listingOrigin = `${url}/api/scan/v0/history/bulk/updates`;

  /** One page of the listing: the refs, and the token of the next page. */
  async function listPage(token: string | null, signal: AbortSignal): Promise<{ refs: ObjectRef[]; next: string | undefined }> {
    const origin = `${listingOrigin} (page ${token ?? 'first'})`;
    const body = await http.json(
      {
        method: 'POST',
        url: listingOrigin,
        body: {
          start_record_time: LISTING_START,
          end_record_time: LISTING_END,
          page_size: pageSize,
          ...(token !== null && { next_page_token: token }),
        },
      },
      signal,
    );
    try {
      const page = object(body, 'response');
      const refs = array(page, 'object_refs', 'response').map((raw, i) => {
        const path = `response.object_refs[${i}]`;
        const ref = object(raw, path);
        const refUrl = string(ref, 'url', path);
        const key = keyOfUrl(refUrl);
        if (key === undefined)
          throw new ShapeError(`${path}.url`, 'the url of an updates object (…/<start>~<end>/updates_<n>.zstd)', refUrl);
        return { url: refUrl, digest: string(ref, 'digest', path), key };
      });
      const next = page.next_page_token;
      if (next !== undefined && next !== null && typeof next !== 'string')
        throw new ShapeError('response.next_page_token', 'a string', next);
      return { refs, next: next ?? undefined };
    } catch (err) {
      if (err instanceof ShapeError) throw new SourceItemError(origin, undefined, `not a bulk updates listing: ${err.message}`);
      throw err;
    }
  }

  /** The upstream's checksums of the objects by key, waiting while it answers "not yet" (404, 501). */
  async function checksumsOf(keys: string[], signal: AbortSignal): Promise<string[]> {
    const origin = `${url}/api/scan/v0/history/bulk/checksums`;
    for (;;) {
      let body: unknown;
      try {
        body = await http.json({ method: 'POST', url: origin, body: { object_keys: keys } }, signal);
      } catch (err) {
        if (!(err instanceof HttpStatusError) || (err.status !== 404 && err.status !== 501)) throw err;
        logger.info({ keys: keys.length, status: err.status, err: err.message }, 'bulk checksums not available yet: waiting');
        await delay(pollIntervalMs, undefined, { signal });
        continue;
      }
      try {
        const values = array(object(body, 'response'), 'checksums', 'response').map((c, i) =>
          string(object(c, `response.checksums[${i}]`), 'value', `response.checksums[${i}]`),
        );
        if (values.length !== keys.length) {
          throw new SourceItemError(origin, undefined, `asked for ${keys.length} checksums, got ${values.length}`);
        }
        return values;
      } catch (err) {
        if (err instanceof ShapeError) throw new SourceItemError(origin, undefined, `not a bulk checksums answer: ${err.message}`);
        throw err;
      }
    }
  }

  /** Downloads an object and checks its bytes against both the listing's digest and the upstream's checksum. */
  async function download(ref: ObjectRef, checksum: string, signal: AbortSignal): Promise<VerifiedObject> {
    const origin = `bulk object ${ref.key} of ${url}`;
    if (checksum !== ref.digest) {
      throw new SourceItemError(
        origin,
        undefined,
        `the upstream's checksum (${checksum}) differs from the digest its listing gives (${ref.digest}): refusing the object`,
      );
    }
    const bytes = await http.bytes({ method: 'GET', url: ref.url, timeoutMs: downloadTimeoutMs }, signal);
    const actual = sha256(bytes);
    if (actual !== checksum) {
      throw new SourceItemError(
        origin,
        undefined,
        `the SHA-256 of the ${bytes.length} bytes downloaded from ${ref.url} is ${actual}, not the upstream's checksum ${checksum}: refusing the object`,
      );
    }
    return { ...ref, bytes };
  }

  /** The import updates of a migration after an update id, each positioned before line `at.lines + 1`. */
  async function* importsOf(migrationId: number, afterUpdateId: string, at: BulkAt, signal: AbortSignal): AsyncGenerator<SourceItem> {
    for (;;) {
      if (await upstream.importsComplete(url, migrationId, signal)) break;
      logger.info({ migrationId }, 'the upstream does not hold all import updates of the migration yet: waiting');
      await delay(pollIntervalMs, undefined, { signal });
    }
    let after = afterUpdateId;
    for (;;) {
      const got = await upstream.importPageFrom(url, migrationId, after, signal);
      for (const { item, origin } of got.items) {
        const importAfter = item.update!.update_id;
        yield { item, origin, position: formatPosition({ migrationId, recordTime: IMPORT_RECORD_TIME, bulk: at, importAfter }) };
      }
      if (!got.full) return;
      after = got.lastId;
    }
  }

  return {
    stream: 'bulk',
    async *read(from, signal) {
      const resume = from === undefined ? undefined : parseBulkPosition(from);
      if (from !== undefined && resume === undefined) {
        // Past the bulk phase: the scan source's own position.
        yield* options.events.read(from, signal);
        return;
      }
      await zstdReady();
      // Aborted when the consumer stops early, so that a download read ahead does not outlive the read.
      const stop = new AbortController();
      const inner = AbortSignal.any([signal, stop.signal]);
      /** The key of the last item yielded, and the migration whose import updates are behind us. */
      let last: StreamKey | undefined = resume && { migrationId: resume.migrationId, recordTime: resume.recordTime };
      let entered = resume?.migrationId;
      let token: string | null = resume ? resume.bulk.page : null;
      let pending = resume;
      let objects = 0;
      let lines = 0;
      try {
        for (;;) {
          const page = await listPage(token, inner);
          let first = 0;
          if (pending) {
            const at = pending.bulk;
            first = page.refs.findIndex((r) => r.key === at.object);
            if (first < 0) {
              throw new SourceItemError(
                `${listingOrigin} (page ${token ?? 'first'})`,
                undefined,
                `bulk object ${at.object}, where ingestion stopped, is no longer listed there: cannot resume`,
              );
            }
          }
          const refs = page.refs.slice(first);
          if (refs.length === 0) break;
          const checksums = await checksumsOf(
            refs.map((r) => r.key),
            inner,
          );
          let next: Promise<VerifiedObject> | undefined = download(refs[0]!, checksums[0]!, inner);
          for (let i = 0; i < refs.length; i++) {
            const current = await next!;
            next = i + 1 < refs.length ? download(refs[i + 1]!, checksums[i + 1]!, inner) : undefined;
            // Its failure surfaces when it is awaited; this only keeps an abandoned one from being reported as unhandled.
            next?.catch(() => undefined);
            let skip = 0;
            if (pending) {
              if (current.digest !== pending.bulk.digest) {
                throw new SourceItemError(
                  `bulk object ${current.key} of ${url}`,
                  undefined,
                  `its digest is now ${current.digest}, not ${pending.bulk.digest} as when ingestion stopped in it: cannot resume`,
                );
              }
              skip = pending.bulk.lines;
              if (pending.importAfter !== undefined) {
                yield* importsOf(pending.migrationId, pending.importAfter, pending.bulk, inner);
              }
              pending = undefined;
            }
            let n = 0;
            try {
              for (const text of linesOf(current.bytes)) {
                n++;
                if (n <= skip) continue;
                const at: BulkAt = { page: token, object: current.key, digest: current.digest, lines: n };
                const origin = `bulk object ${current.key} of ${url}, line ${n}`;
                let read;
                try {
                  read = readItem({ update: updateFromBulkLine(text) });
                } catch (err) {
                  if (err instanceof ShapeError || err instanceof SyntaxError) {
                    throw new SourceItemError(origin, undefined, `not an update line: ${err.message}`);
                  }
                  throw err;
                }
                const { item, key } = read;
                if (last && compareStreamKeys(key, last) < 0) {
                  throw new SourceItemError(origin, item.update!.update_id, `key ${positionOf(key)} is before ${positionOf(last)}`);
                }
                if (entered === undefined || key.migrationId > entered) {
                  yield* importsOf(key.migrationId, '', { ...at, lines: n - 1 }, inner);
                  entered = key.migrationId;
                }
                last = key;
                lines++;
                yield { item, origin, position: formatPosition({ ...key, bulk: at }) };
              }
            } catch (err) {
              if (err instanceof ZstdFormatError) {
                throw new SourceItemError(`bulk object ${current.key} of ${url}`, undefined, `not a zstd stream: ${err.message}`);
              }
              throw err;
            }
            objects++;
            if (n < skip) {
              throw new SourceItemError(
                `bulk object ${current.key} of ${url}`,
                undefined,
                `has ${n} lines, fewer than the ${skip} ingested before: cannot resume`,
              );
            }
          }
          logger.info({ page: token, objects, lines }, 'bulk: read a page of objects');
          if (page.next === undefined || page.next === token) break;
          token = page.next;
        }
      } catch (err) {
        // Aborting is how a live source is stopped, not a failure.
        if (signal.aborted) return;
        throw err;
      } finally {
        stop.abort();
      }
      logger.info({ objects, lines, last: last ? positionOf(last) : null }, 'bulk: every listed object is read; going on from /v0/events');
      yield* options.events.read(last ? positionOf({ migrationId: last.migrationId, recordTime: last.recordTime }) : undefined, signal);
    },
  };
}
