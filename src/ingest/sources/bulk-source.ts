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
 * By default (`fillFromEvents`) the events source is read in step with the lines, from where the bulk
 * phase stands, and what it serves is stored: each line's update must be the next update it serves, at
 * the same key and the same once written as a line; rejections and import updates between lines are
 * passed on. So the mirror stores what SOURCE=scan stores, each update checked against the objects,
 * and after the last line the same read goes on. With the lines alone, the mirror does not get what
 * they do not carry for the bulk range: verdicts (and so rejected transactions), traffic summaries, app
 * activity records, the protobuf_json rendering, and the field order of Daml records (a line's keys are
 * sorted). docs/bulk-history.md says what that changes.
 *
 * Position. In the bulk phase, `{"migration_id":M,"record_time":T,"bulk":{"page":P,"object":K,
 * "digest":D,"lines":N}}`: the item is line N (from 1) of object K, which the listing page asked with
 * token P (null: the first page) holds, and whose digest is D. Within the import updates of M read
 * before line N+1, `record_time` is 0001-01-01, `after_import_update_id` names the last one, and N is
 * the lines taken before them. With `fillFromEvents` a rejection or an import update from /v0/events
 * after line N is positioned so too, with its own key as (M, T). Resuming asks for page P again, finds
 * K in it (its digest must still be D), skips N lines, reads /v0/events on from (M, T) when filling, and
 * goes on: nothing is lost or read twice. Once the listing is exhausted the scan source goes on (the
 * same read when filling; else from the key of the last bulk update, or from the beginning when there
 * was none); every position from then on is the scan source's, and a restart there resumes the scan
 * source directly.
 *
 * Attestation. With a threshold of 1 the objects are read from the first upstream alone. Above 1,
 * every upstream is asked for the same listing page and for the checksums of what it lists, and the
 * objects are decided by key with the attested scan source's rule (attestation.ts's `decide`): an
 * object is taken only when `threshold` upstreams list it with the same digest and give that digest
 * as its checksum; it is downloaded from one of them and its bytes must have that digest (another of
 * them is tried when they do not). An outvoted upstream is logged and counted as the scan source's
 * disagreements are (reportOutcomes); an object no quorum can agree on stops ingestion with an error
 * naming each upstream's digest. Where too few upstreams list the next objects yet (they lag), the
 * bulk phase ends at the last attested object and /v0/events goes on from there. Import updates are
 * then the attested scan source's (`imports`). A position names objects by key and agreed digest,
 * so it resumes over the same quorum.
 *
 * An upstream whose listing answers 501 does not serve bulk history (Splice's answer when bulk
 * storage is not configured): that is not retried; when it leaves fewer than `threshold` upstreams
 * the source fails at once naming each upstream and its answer, rather than falling back to
 * /v0/events, which is SOURCE=scan's job (an operator who asked for bulk learns it is not there).
 */
import { createHash } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { bulkLine, compareObjectKeys, objectKeyOfUrl, updateFromBulkLine } from '../../domain/bulk-layout';
import { itemKey } from '../../domain/items';
import { compareStreamKeys, type StreamKey } from '../../domain/stream-key';
import { formatRecordTime, IMPORT_RECORD_TIME, tryParseTimestamp } from '../../domain/time';
import type { Logger } from '../../internal/logger';
import { zstdDecompressFrames, ZstdFormatError, zstdReady } from '../../internal/zstd';
import { createHttpClient, HttpStatusError, type HttpClient, type HttpClientOptions } from '../http-client';
import { SourceItemError, type Source, type SourceItem } from '../source';
import { decide, type Answer, type Element } from './attestation';
import { reportOutcomes, type AttestationObserver } from './attested-scan-source';
import { readItem } from './event-page';
import { createUpstreamReader, positionOf } from './scan-upstream';
import { array, isObject, object, ShapeError, string } from './shape';

export interface BulkSourceOptions {
  /** Base URLs of the upstream Scans whose bulk objects are read (without /api/scan). */
  urls: readonly string[];
  /** How many of them must list an object with the same checksum (default 1: the first URL alone is read). */
  threshold?: number;
  /** Reads the history after the bulk objects from /v0/events: the scan source over the same upstreams. */
  events: Source;
  /**
   * Read the bulk range's /v0/events beside its objects (default true): each update is taken from
   * /v0/events once it matches its line, with what lines lack (verdicts and rejections, traffic
   * summaries, app activity records, protobuf_json, the field order of Daml values). False: the lines
   * alone, and /v0/events only after them.
   */
  fillFromEvents?: boolean;
  /**
   * The import updates of a migration after an update id, once all are held. Default: the first URL's;
   * required with a threshold above 1 (the attested scan source's `importsOf`).
   */
  imports?: (migrationId: number, afterUpdateId: string, signal: AbortSignal) => AsyncIterable<SourceItem>;
  /** Told of each upstream's part in the attested listings (the attested scan source's metrics). */
  observer?: AttestationObserver;
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

/** One upstream's listing page: its refs, the checksums it gives for them, and its next token. */
interface Listing {
  refs: ObjectRef[];
  checksums: string[];
  next: string | undefined;
}

/** An object a quorum of upstreams list alike: its digest and checksum, and where each of them serves it. */
interface AttestedObject {
  key: string;
  digest: string;
  checksum: string;
  sources: { upstream: string; url: string }[];
}

/** A downloaded object whose bytes matched its checksums. */
interface VerifiedObject {
  key: string;
  digest: string;
  /** The upstream it was downloaded from. */
  from: string;
  bytes: Buffer;
}

/** Too few upstreams serve bulk history (their listing answers 501): not retried. */
export class BulkHistoryNotServedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BulkHistoryNotServedError';
  }
}

const LISTING_START = '0001-01-01T00:00:00Z';
const LISTING_PATH = '/api/scan/v0/history/bulk/updates';
const LISTING_END = '9999-12-31T23:59:59Z';

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
  const urls = options.urls.map((u) => u.replace(/\/+$/, ''));
  const threshold = options.threshold ?? 1;
  if (!Number.isInteger(threshold) || threshold < 1 || threshold > urls.length) {
    throw new Error(`The bulk source needs a threshold from 1 to ${urls.length} (the number of URLs); got ${threshold}`);
  }
  if (threshold > 1 && options.imports === undefined) {
    throw new Error('The attested bulk source needs attested import updates (options.imports)');
  }
  /** The upstreams whose listings are read: the first alone without attestation. */
  const upstreams = threshold === 1 ? urls.slice(0, 1) : urls;
  const pageSize = options.pageSize ?? 1000;
  const pollIntervalMs = options.pollIntervalMs ?? 5000;
  const downloadTimeoutMs = options.downloadTimeoutMs ?? 600_000;
  const observer = options.observer;
  const logger = options.logger.child({ source: 'bulk', ...(threshold > 1 && { threshold }) });
  // A 501 is Splice's "bulk storage is not configured": retrying does not change it. With several
  // upstreams a 503 fails that upstream's answer, as in the attested scan source, rather than holding the round.
  const http: HttpClient = createHttpClient(logger, {
    waitWhileUnavailable: upstreams.length === 1,
    ...options.http,
    finalStatuses: [501],
  });
  const upstream = createUpstreamReader({ pageSize: 1000, wantProtobuf: true, http, logger });
  const pageName = (token: string | null) => `page ${token ?? 'first'}`;
  const fill = options.fillFromEvents ?? true;

  /** One page of an upstream's listing: the refs, and the token of the next page. */
  async function listPage(
    url: string,
    token: string | null,
    signal: AbortSignal,
  ): Promise<{ refs: ObjectRef[]; next: string | undefined }> {
    const listingUrl = `${url}${LISTING_PATH}`;
    const origin = `${listingUrl} (${pageName(token)})`;
    let body: unknown;
    try {
      body = await http.json(
        {
          method: 'POST',
          url: listingUrl,
          body: {
            start_record_time: LISTING_START,
            end_record_time: LISTING_END,
            page_size: pageSize,
            ...(token !== null && { next_page_token: token }),
          },
        },
        signal,
      );
    } catch (err) {
      if (err instanceof HttpStatusError && err.status === 501) throw new NotServed(url, err.bodyText);
      throw err;
    }
    try {
      const page = object(body, 'response');
      const refs = array(page, 'object_refs', 'response').map((raw, i) => {
        const path = `response.object_refs[${i}]`;
        const ref = object(raw, path);
        const refUrl = string(ref, 'url', path);
        const key = objectKeyOfUrl(refUrl, 'updates');
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

  /** An upstream's checksums of the objects by key, waiting while it answers "not yet" (404, 501). */
  async function checksumsOf(url: string, keys: string[], signal: AbortSignal): Promise<string[]> {
    const origin = `${url}/api/scan/v0/history/bulk/checksums`;
    for (;;) {
      let body: unknown;
      try {
        body = await http.json({ method: 'POST', url: origin, body: { object_keys: keys } }, signal);
      } catch (err) {
        if (!(err instanceof HttpStatusError) || (err.status !== 404 && err.status !== 501)) throw err;
        logger.info(
          { upstream: url, keys: keys.length, status: err.status, err: err.message },
          'bulk checksums not available yet: waiting',
        );
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

  async function listingOf(url: string, token: string | null, signal: AbortSignal): Promise<Listing> {
    const { refs, next } = await listPage(url, token, signal);
    const checksums =
      refs.length === 0
        ? []
        : await checksumsOf(
            url,
            refs.map((r) => r.key),
            signal,
          );
    return { refs, checksums, next };
  }

  /**
   * An upstream's listing as elements to decide on: one per object, its vote the listing's digest
   * (with the checksum beside it where the checksums answer says otherwise, so that such an object
   * can never be taken). Cut before a key that is not after the one before it.
   */
  function elementsOf(url: string, listing: Listing): Element<string, { ref: ObjectRef; checksum: string }>[] {
    const elements: Element<string, { ref: ObjectRef; checksum: string }>[] = [];
    for (const [i, ref] of listing.refs.entries()) {
      const checksum = listing.checksums[i]!;
      const previous = elements.at(-1);
      if (previous && compareObjectKeys(previous.key, ref.key) >= 0) {
        logger.warn(
          { upstream: url, object: ref.key, after: previous.key },
          'an upstream listed a bulk object out of order; its page ends there',
        );
        break;
      }
      const hash = checksum === ref.digest ? ref.digest : `${ref.digest} (checksums: ${checksum})`;
      elements.push({ key: ref.key, hash, value: { ref, checksum } });
    }
    return elements;
  }

  /** What an upstream's answer says of an object, for an error. */
  function whatListed(answer: Answer<string, { ref: ObjectRef; checksum: string }>, key: string): string {
    if (!answer.ok) return `did not answer (${answer.reason})`;
    const e = answer.elements.find((x) => x.key === key);
    return e ? `lists digest ${e.hash}` : 'does not list it';
  }

  /**
   * One listing page of every upstream read, decided: the objects attested in listing order, the
   * next token a quorum gives, whether every object any of them listed was decided, and the error
   * to stop with after the objects attested when no quorum can attest the next one.
   */
  async function attestedPage(
    token: string | null,
    signal: AbortSignal,
  ): Promise<{ objects: AttestedObject[]; next: string | undefined; complete: boolean; refused: SourceItemError | undefined }> {
    const settled = await Promise.allSettled(upstreams.map((u) => listingOf(u, token, signal)));
    if (signal.aborted) throw signal.reason;
    const notServed = settled.flatMap((r) => (r.status === 'rejected' && r.reason instanceof NotServed ? [r.reason] : []));
    if (notServed.length > 0) {
      const answers = notServed.map((n) => `${n.url}${LISTING_PATH} answered HTTP 501 (${n.body})`).join('; ');
      if (upstreams.length - notServed.length < threshold) {
        const which =
          upstreams.length === 1
            ? 'that upstream does not serve bulk history'
            : `${notServed.length} of the ${upstreams.length} upstreams do not serve bulk history, which leaves fewer than the threshold (${threshold}) to attest objects`;
        throw new BulkHistoryNotServedError(`${answers}: ${which}. SOURCE=scan backfills from /v0/events instead.`);
      }
      logger.warn({ answers }, 'some upstreams do not serve bulk history; the others attest the objects');
    }
    // An upstream without bulk storage is left out of the decision: it will never list anything, and as
    // an upstream not heard from it would keep a lone dissent from ever being outvoted.
    const served = upstreams.flatMap((url, i) => (notServed.some((n) => n.url === url) ? [] : [{ url, listing: settled[i]! }]));
    for (const n of notServed) observer?.counted(n.url, 'unavailable', 1);
    const urlsServed = served.map((u) => u.url);
    const answers: Answer<string, { ref: ObjectRef; checksum: string }>[] = served.map(({ url, listing }) =>
      listing.status === 'fulfilled'
        ? { ok: true, elements: elementsOf(url, listing.value) }
        : { ok: false, reason: listing.reason instanceof Error ? listing.reason.message : String(listing.reason) },
    );
    if (answers.filter((a) => a.ok).length < threshold) {
      // Not enough answers for a quorum: the first failure (a retryable one restarts from the checkpoint).
      throw served.map((u) => u.listing).find((r): r is PromiseRejectedResult => r.status === 'rejected')!.reason;
    }
    const decision = decide(answers, threshold, compareObjectKeys);
    let refused: SourceItemError | undefined;
    reportOutcomes(decision, answers, urlsServed, (key) => `bulk object ${key}`, logger, observer);
    if (decision.stalled) {
      const { key, reason } = decision.stalled;
      const why =
        reason === 'conflict'
          ? `two digests are each listed by ${threshold} or more upstreams`
          : `no digest is listed by ${threshold} upstreams, nor can be`;
      const each = urlsServed.map((u, i) => `${u} ${whatListed(answers[i]!, key)}`).join('; ');
      logger.error({ object: key, reason, upstreams: each }, 'no quorum of upstreams attests a bulk object');
      refused = new SourceItemError(`bulk object ${key}`, undefined, `${why} (${each}): refusing the object`);
    }
    const outcomes = new Map(decision.outcomes.map((o) => [o.key, o.byUpstream]));
    const objects = decision.committed.map(({ key, value }): AttestedObject => {
      const sources = outcomes
        .get(key)!
        .flatMap((o, i) => (o.kind === 'agreed' ? [i] : []))
        .map((i) => ({
          upstream: urlsServed[i]!,
          url: (answers[i] as { ok: true; elements: Element<string, { ref: ObjectRef }>[] }).elements.find((e) => e.key === key)!.value.ref
            .url,
        }));
      return { key, digest: value.ref.digest, checksum: value.checksum, sources };
    });
    const listed = new Set(answers.flatMap((a) => (a.ok ? a.elements.map((e) => e.key) : [])));
    const tokens = new Map<string | undefined, number>();
    for (const r of settled) if (r.status === 'fulfilled') tokens.set(r.value.next, (tokens.get(r.value.next) ?? 0) + 1);
    const next = [...tokens].find(([, n]) => n >= threshold);
    return { objects, next: next?.[0], complete: outcomes.size === listed.size && next !== undefined, refused };
  }

  /** Downloads an object from an upstream that lists it, its bytes checked against the agreed checksum. */
  async function download(obj: AttestedObject, signal: AbortSignal): Promise<VerifiedObject> {
    const holders = obj.sources.map((s) => s.upstream).join(', ');
    const origin = `bulk object ${obj.key} of ${holders}`;
    if (obj.checksum !== obj.digest) {
      throw new SourceItemError(
        origin,
        undefined,
        `the upstream's checksum (${obj.checksum}) differs from the digest its listing gives (${obj.digest}): refusing the object`,
      );
    }
    const agreed = threshold === 1 ? "the upstream's checksum" : `the checksum ${obj.sources.length} upstreams agree on,`;
    const refused: string[] = [];
    let failure: Error | undefined;
    for (const { upstream: from, url } of obj.sources) {
      let bytes: Buffer;
      try {
        bytes = await http.bytes({ method: 'GET', url, timeoutMs: downloadTimeoutMs }, signal);
      } catch (err) {
        if (signal.aborted || obj.sources.length === 1) throw err;
        logger.warn(
          { upstream: from, object: obj.key, err: (err as Error).message },
          'a bulk object could not be downloaded; trying another upstream',
        );
        failure = err as Error;
        continue;
      }
      const actual = sha256(bytes);
      if (actual === obj.digest) return { key: obj.key, digest: obj.digest, from, bytes };
      refused.push(`the SHA-256 of the ${bytes.length} bytes downloaded from ${url} is ${actual}, not ${agreed} ${obj.digest}`);
      logger.error(
        { upstream: from, object: obj.key, url, sha256: actual, expected: obj.digest },
        'a bulk object downloaded does not have the agreed checksum',
      );
      if (threshold > 1) {
        observer?.disagreed(from, `bulk object ${obj.key}`, actual, obj.digest);
        observer?.counted(from, 'disagreed', 1);
      }
    }
    // A download that failed may yet succeed: retried from the checkpoint.
    if (failure !== undefined) throw failure;
    throw new SourceItemError(origin, undefined, `${refused.join('; ')}: refusing the object`);
  }

  /** The first upstream's import updates of a migration (no attestation). */
  async function* firstUpstreamImports(migrationId: number, afterUpdateId: string, signal: AbortSignal): AsyncGenerator<SourceItem> {
    const url = upstreams[0]!;
    for (;;) {
      if (await upstream.importsComplete(url, migrationId, signal)) break;
      logger.info({ migrationId }, 'the upstream does not hold all import updates of the migration yet: waiting');
      await delay(pollIntervalMs, undefined, { signal });
    }
    let after = afterUpdateId;
    for (;;) {
      const got = await upstream.importPageFrom(url, migrationId, after, signal);
      yield* got.items;
      if (!got.full) return;
      after = got.lastId;
    }
  }
  const readImports = options.imports ?? firstUpstreamImports;

  /** The import updates of a migration after an update id, each positioned before line `at.lines + 1`. */
  async function* importsOf(migrationId: number, afterUpdateId: string, at: BulkAt, signal: AbortSignal): AsyncGenerator<SourceItem> {
    for await (const got of readImports(migrationId, afterUpdateId, signal)) {
      const importAfter = got.item.update!.update_id;
      yield { ...got, position: formatPosition({ migrationId, recordTime: IMPORT_RECORD_TIME, bulk: at, importAfter }) };
    }
  }

  /**
   * The /v0/events items up to a line's update, the update checked against the line: a rejection or
   * an import update before it is passed on; the update must be the line's, the same once both are
   * written as a line; anything else refuses the line. Each item is positioned after the lines taken.
   */
  async function* eventsUpTo(
    events: AsyncIterator<SourceItem>,
    line: { text: string; updateId: string; key: StreamKey },
    at: BulkAt,
    origin: string,
  ): AsyncGenerator<SourceItem> {
    const before: BulkAt = { ...at, lines: at.lines - 1 };
    for (;;) {
      const got = await events.next();
      if (got.done) {
        throw new SourceItemError(
          origin,
          line.updateId,
          `/v0/events ends before this line's update at ${positionOf(line.key)}: refusing the line`,
        );
      }
      const ev = got.value;
      // The events source checked the item's shape, so it has a key.
      const key = itemKey(ev.item)!;
      const update = ev.item.update;
      if (update && key.recordTime === IMPORT_RECORD_TIME) {
        yield { ...ev, position: formatPosition({ ...key, bulk: before, importAfter: update.update_id }) };
        continue;
      }
      if (update?.update_id === line.updateId && compareStreamKeys(key, line.key) === 0) {
        if (bulkLine(JSON.stringify(update)) !== bulkLine(line.text)) {
          throw new SourceItemError(
            origin,
            line.updateId,
            `/v0/events serves this update otherwise than the line holds it (${ev.origin}): refusing the update`,
          );
        }
        yield { ...ev, position: formatPosition({ ...key, bulk: at }) };
        return;
      }
      if (update || compareStreamKeys(key, line.key) >= 0) {
        const what = update ? `update ${update.update_id}` : `a verdict of ${ev.item.verdict!.update_id}`;
        throw new SourceItemError(
          origin,
          line.updateId,
          `/v0/events (${ev.origin}) serves ${what} at ${positionOf(key)} where the objects hold this line's update at ${positionOf(line.key)} next: refusing the line`,
        );
      }
      // A verdict without an update (a rejection): no line holds one.
      yield { ...ev, position: formatPosition({ ...key, bulk: before }) };
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
      /** With `fill`, /v0/events from where the bulk phase stands: read in step with the lines, then on. */
      const events = fill ? options.events.read(resume && positionOf(resume), signal)[Symbol.asyncIterator]() : undefined;
      try {
        for (;;) {
          const page = await attestedPage(token, inner);
          let first = 0;
          if (pending) {
            const at = pending.bulk;
            first = page.objects.findIndex((o) => o.key === at.object);
            if (first < 0) {
              if (page.refused) throw page.refused;
              throw new SourceItemError(
                `${upstreams.join(', ')} (listing ${pageName(token)})`,
                undefined,
                `bulk object ${at.object}, where ingestion stopped, is no longer listed there${threshold > 1 ? ' by a quorum' : ''}: cannot resume`,
              );
            }
          }
          const listed = page.objects.slice(first);
          if (listed.length === 0) {
            if (page.refused) throw page.refused;
            break;
          }
          let next: Promise<VerifiedObject> | undefined = download(listed[0]!, inner);
          for (let i = 0; i < listed.length; i++) {
            const current = await next!;
            next = i + 1 < listed.length ? download(listed[i + 1]!, inner) : undefined;
            // Its failure surfaces when it is awaited; this only keeps an abandoned one from being reported as unhandled.
            next?.catch(() => undefined);
            const objectOrigin = `bulk object ${current.key} of ${current.from}`;
            let skip = 0;
            if (pending) {
              if (current.digest !== pending.bulk.digest) {
                throw new SourceItemError(
                  objectOrigin,
                  undefined,
                  `its digest is now ${current.digest}, not ${pending.bulk.digest} as when ingestion stopped in it: cannot resume`,
                );
              }
              skip = pending.bulk.lines;
              if (pending.importAfter !== undefined && !events) {
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
                const origin = `${objectOrigin}, line ${n}`;
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
                last = key;
                lines++;
                if (events) {
                  yield* eventsUpTo(events, { text, updateId: item.update!.update_id, key }, at, origin);
                  continue;
                }
                if (entered === undefined || key.migrationId > entered) {
                  yield* importsOf(key.migrationId, '', { ...at, lines: n - 1 }, inner);
                  entered = key.migrationId;
                }
                yield { item, origin, position: formatPosition({ ...key, bulk: at }) };
              }
            } catch (err) {
              if (err instanceof ZstdFormatError) {
                throw new SourceItemError(objectOrigin, undefined, `not a zstd stream: ${err.message}`);
              }
              throw err;
            }
            objects++;
            if (n < skip) {
              throw new SourceItemError(objectOrigin, undefined, `has ${n} lines, fewer than the ${skip} ingested before: cannot resume`);
            }
          }
          logger.info({ page: token, objects, lines }, 'bulk: read a page of objects');
          // The objects before one no quorum attests are taken; that one stops ingestion.
          if (page.refused) throw page.refused;
          if (!page.complete) {
            logger.warn(
              { page: token, after: listed.at(-1)!.key },
              'fewer than the threshold of upstreams list the next bulk objects alike yet: the bulk phase ends here',
            );
            break;
          }
          if (page.next === undefined || page.next === token) break;
          token = page.next;
        }
        logger.info(
          { objects, lines, last: last ? positionOf(last) : null },
          'bulk: every listed object is read; going on from /v0/events',
        );
        if (!events) {
          yield* options.events.read(last ? positionOf({ migrationId: last.migrationId, recordTime: last.recordTime }) : undefined, signal);
          return;
        }
        for (let got = await events.next(); !got.done; got = await events.next()) yield got.value;
      } catch (err) {
        // Aborting is how a live source is stopped, not a failure.
        if (signal.aborted) return;
        throw err;
      } finally {
        stop.abort();
        // Ends a read of /v0/events the consumer left unfinished.
        await events?.return?.();
      }
    },
  };
}

/** An upstream's listing answered 501: it does not serve bulk history. */
class NotServed extends Error {
  constructor(
    readonly url: string,
    readonly body: string,
  ) {
    super(`${url}${LISTING_PATH} answered HTTP 501: ${body}`);
  }
}
