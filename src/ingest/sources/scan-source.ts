/**
 * The `scan` source: mirrors one or more upstream Scan instances (or other
 * scan-indexers) through `POST /api/scan/v0/events` (reference
 * splice-scan.md §4.4), whose elements already are canonical items.
 *
 * Paging and why nothing is skipped or repeated. Scan returns the events
 * strictly after `after = (M, T)`: those of migration M with record time
 * > T, then every later migration from its beginning, ordered by
 * (migration_id, record_time). /v0/events merges updates and verdicts into
 * one map keyed by (migration_id, record_time), so no two elements share a
 * key. The cursor is the key of the last element received; the next page
 * therefore starts at exactly the first element after it, and an element
 * that shares its record time with another exists only in another
 * migration, which orders by migration first. Every key is checked to be
 * strictly greater than the one before (across pages too), so an upstream
 * that broke this would stop ingestion rather than lose data silently.
 * (`/v2/updates` could not be paged this way: there two updates on different
 * synchronizers may share a key, and a page boundary between them would
 * skip the second.)
 *
 * The protobuf_json rendering of the same updates comes from a second
 * `/v0/events` call with the same cursor, made after the compact one on the
 * same URL. What Scan has served never changes and its cap only moves
 * forward, so that answer begins with the same elements; they are matched by
 * update id. An upstream that refuses protobuf_json (a 4xx) leaves
 * `update_protobuf_json` absent.
 *
 * A full page means more may follow, so the next page is fetched while this
 * one is consumed (one page of read-ahead, bounded). A short page means the
 * upstream has nothing more for now: the live source polls, `stopAtEnd` ends.
 *
 * Several URLs are mirrors of the same network, so the cursor is valid on
 * each: when one keeps failing (the client gave up), the page is asked of
 * the next, round-robin, indefinitely. With one URL a 503 (still
 * backfilling) is waited out; with several it counts as a failure, because
 * Scan's own message says to "connect to a different scan instance".
 *
 * Import updates. After a hard migration, the ACS of migration M-1 is
 * carried into M by import updates (record time 0001-01-01), which Scan
 * leaves out of /v0/events and /v2/updates. They are read from
 * `POST /v0/backfilling/import-updates` (Scan's own peer backfilling
 * endpoint: `{migration_id, after_update_id, limit}`, pages by update id)
 * when the stream first reaches migration M, and yielded before M's first
 * event, which is where their record time puts them. Scan answers that
 * endpoint in protobuf_json only; the compact_json rendering is asked for
 * with a `daml_value_encoding` field (honoured by scan-indexer), and when an
 * upstream ignores it (both answers equal) each import update is fetched in
 * compact_json by id from `GET /v2/updates/{update_id}`, which serves import
 * updates. A Scan backfills import updates apart from the rest, so they are
 * read only once migration-info reports `import_updates_complete` for the
 * migration (waited for, polling). Import items are converted from Scan's v1 item (`offset` removed,
 * `events_by_id` sorted by id) to the canonical v2 item. A page that enters a
 * migration is not read ahead, so the import pages follow it in order.
 *
 * Position: `{"migration_id":M,"record_time":"…six digits…Z"}`; within the
 * import updates of M, `{"migration_id":M,"record_time":"0001-01-01T00:00:00.000000Z",
 * "after_import_update_id":"<last import update id>"}`.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { CanonicalItem, Update } from '../../domain/items';
import type { DamlValueEncoding } from '../../domain/value-encoding';
import { IMPORT_RECORD_TIME, formatRecordTime, tryParseTimestamp, type Micros } from '../../domain/time';
import type { Logger } from '../../internal/logger';
import { createHttpClient, HttpStatusError, UpstreamError, type HttpClientOptions } from '../http-client';
import { SourceItemError, type Source, type SourceItem } from '../source';
import { array, integer, isObject, object, objectField, ShapeError, string, timestamp, type JsonObject } from './shape';

export interface ScanSourceOptions {
  /** Base URLs of Scan instances of one network, e.g. https://scan.sv-1.example.com (without /api/scan). */
  urls: readonly string[];
  /** Elements per request; Scan allows at most 1000 (default 1000). */
  pageSize?: number;
  /** Renderings to fetch; compact_json is always fetched (default both). */
  encodings?: readonly DamlValueEncoding[];
  /** Wait after a short page before asking again (default 5000 ms). */
  pollIntervalMs?: number;
  /** End at the first short page instead of polling (backfills, tests). */
  stopAtEnd?: boolean;
  logger: Logger;
  http?: HttpClientOptions;
}

interface Cursor {
  migrationId: number;
  recordTime: Micros;
  /** Within the import updates of the migration: the last one yielded. */
  importAfter?: string;
}

interface Page {
  items: SourceItem[];
  /** The migration id of each item. */
  migrations: number[];
  /** As many elements as asked for: more may follow at once. */
  full: boolean;
  /** The key of the last element, or the cursor asked with when there was none. */
  last: Cursor | undefined;
}

function positionOf(cursor: Cursor): string {
  return JSON.stringify({
    migration_id: cursor.migrationId,
    record_time: formatRecordTime(cursor.recordTime),
    ...(cursor.importAfter !== undefined && { after_import_update_id: cursor.importAfter }),
  });
}

function parsePosition(position: string): Cursor {
  const fail = () =>
    new Error(`Invalid scan checkpoint '${position}': expected {"migration_id": <integer>, "record_time": "<ISO 8601 timestamp>"}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(position);
  } catch {
    throw fail();
  }
  if (!isObject(parsed) || !Number.isSafeInteger(parsed.migration_id) || typeof parsed.record_time !== 'string') throw fail();
  const recordTime = tryParseTimestamp(parsed.record_time);
  if (recordTime === undefined) throw fail();
  const importAfter = parsed.after_import_update_id;
  if (importAfter !== undefined && (typeof importAfter !== 'string' || recordTime !== IMPORT_RECORD_TIME)) throw fail();
  return { migrationId: parsed.migration_id as number, recordTime, ...(importAfter !== undefined && { importAfter }) };
}

/**
 * A v1 import update (UpdateHistoryItem) as the canonical v2 item: without the
 * constant `offset`, with `events_by_id` in id order, other keys as received.
 */
function importToV2(raw: JsonObject): Update {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'offset') continue;
    if (key === 'events_by_id' && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    } else {
      out[key] = value;
    }
  }
  return out as unknown as Update;
}

function compare(a: Cursor, b: Cursor): number {
  if (a.migrationId !== b.migrationId) return a.migrationId - b.migrationId;
  return a.recordTime < b.recordTime ? -1 : a.recordTime > b.recordTime ? 1 : 0;
}

function nullableObject(o: JsonObject, key: string, path: string): JsonObject | null {
  return o[key] === undefined || o[key] === null ? null : objectField(o, key, path);
}

/**
 * Checks the parts of an element that ingestion relies on (ids, keys, the
 * tree or reassignment event) and returns it as a canonical item with its
 * key. Deeper content is the writer's to validate.
 */
function readItem(raw: unknown): { item: CanonicalItem; key: Cursor } {
  const o = object(raw, 'item');
  const update = nullableObject(o, 'update', 'item');
  const verdict = nullableObject(o, 'verdict', 'item');
  let key: Cursor;
  if (update) {
    const path = 'item.update';
    string(update, 'update_id', path);
    const recordTime = timestamp(update, 'record_time', path);
    if ('events_by_id' in update) {
      objectField(update, 'events_by_id', path);
      array(update, 'root_event_ids', path);
      string(update, 'synchronizer_id', path);
      key = { migrationId: integer(update, 'migration_id', path), recordTime };
    } else {
      key = { migrationId: integer(objectField(update, 'event', path), 'migration_id', `${path}.event`), recordTime };
    }
  } else if (verdict) {
    const path = 'item.verdict';
    string(verdict, 'update_id', path);
    key = { migrationId: integer(verdict, 'migration_id', path), recordTime: timestamp(verdict, 'record_time', path) };
  } else {
    throw new ShapeError('item', 'an update or a verdict', o);
  }
  const item: CanonicalItem = {
    update: update as Update | null,
    verdict: verdict as CanonicalItem['verdict'],
    traffic_summary: nullableObject(o, 'traffic_summary', 'item') as CanonicalItem['traffic_summary'],
    app_activity_records: nullableObject(o, 'app_activity_records', 'item') as CanonicalItem['app_activity_records'],
  };
  return { item, key };
}

function updateIdOf(raw: unknown): string | undefined {
  if (!isObject(raw)) return undefined;
  for (const part of [raw.update, raw.verdict]) {
    if (isObject(part) && typeof part.update_id === 'string') return part.update_id;
  }
  return undefined;
}

export function createScanSource(options: ScanSourceOptions): Source {
  const urls = options.urls.map((u) => u.replace(/\/+$/, ''));
  if (urls.length === 0) throw new Error('The scan source needs at least one URL');
  const pageSize = options.pageSize ?? 1000;
  const pollIntervalMs = options.pollIntervalMs ?? 5000;
  const wantProtobuf = (options.encodings ?? ['compact_json', 'protobuf_json']).includes('protobuf_json');
  const logger = options.logger.child({ source: 'scan' });
  const http = createHttpClient(logger, { waitWhileUnavailable: urls.length === 1, ...options.http });
  /** URLs that answered the protobuf_json request with a 4xx. */
  const noProtobuf = new Set<string>();
  let urlIndex = 0;

  function request(url: string, after: Cursor | undefined, encoding: DamlValueEncoding) {
    const body = {
      page_size: pageSize,
      ...(after && { after: { after_migration_id: after.migrationId, after_record_time: formatRecordTime(after.recordTime) } }),
      daml_value_encoding: encoding,
    };
    return { method: 'POST' as const, url: `${url}/api/scan/v0/events`, body };
  }

  function events(body: unknown, origin: string): unknown[] {
    try {
      return array(object(body, 'response'), 'events', 'response');
    } catch (err) {
      if (err instanceof ShapeError) throw new SourceItemError(origin, undefined, `not a /v0/events answer: ${err.message}`);
      throw err;
    }
  }

  /** The protobuf_json updates of the page by update id, or undefined when the upstream cannot render them. */
  async function protobufUpdates(url: string, after: Cursor | undefined, signal: AbortSignal): Promise<Map<string, Update> | undefined> {
    if (noProtobuf.has(url)) return undefined;
    let body: unknown;
    try {
      body = await http.json(request(url, after, 'protobuf_json'), signal);
    } catch (err) {
      if (!(err instanceof HttpStatusError)) throw err;
      logger.warn({ url, err: err.message }, 'upstream refuses protobuf_json; items from it have only compact_json');
      noProtobuf.add(url);
      return undefined;
    }
    const byId = new Map<string, Update>();
    for (const raw of events(body, `${url}/api/scan/v0/events (protobuf_json)`)) {
      const update = isObject(raw) ? raw.update : undefined;
      if (isObject(update) && typeof update.update_id === 'string') byId.set(update.update_id, update as unknown as Update);
    }
    return byId;
  }

  async function pageFrom(url: string, after: Cursor | undefined, signal: AbortSignal): Promise<Page> {
    const origin = `${url}/api/scan/v0/events after ${after ? positionOf(after) : 'the beginning'}`;
    const received = events(await http.json(request(url, after, 'compact_json'), signal), origin);
    const items: SourceItem[] = [];
    const migrations: number[] = [];
    let last = after;
    received.forEach((raw, index) => {
      const itemOrigin = `${origin}, element ${index}`;
      let read;
      try {
        read = readItem(raw);
      } catch (err) {
        if (err instanceof ShapeError) throw new SourceItemError(itemOrigin, updateIdOf(raw), err.message);
        throw err;
      }
      if (last && compare(read.key, last) <= 0) {
        throw new SourceItemError(itemOrigin, updateIdOf(raw), `key ${positionOf(read.key)} is not after ${positionOf(last)}`);
      }
      last = read.key;
      items.push({ item: read.item, position: positionOf(read.key), origin: itemOrigin });
      migrations.push(read.key.migrationId);
    });
    if (wantProtobuf && items.some((i) => i.item.update)) {
      const byId = await protobufUpdates(url, after, signal);
      for (const { item } of items) {
        const protobuf = item.update && byId?.get(item.update.update_id);
        if (protobuf) item.update_protobuf_json = protobuf;
      }
    }
    return {
      items,
      migrations,
      full: received.length >= pageSize,
      last: last && { migrationId: last.migrationId, recordTime: last.recordTime },
    };
  }

  /** Runs a request against the current URL, moving round-robin to the next one while they keep failing. */
  async function withFailover<T>(run: (url: string) => Promise<T>): Promise<T> {
    for (;;) {
      const url = urls[urlIndex] as string;
      try {
        return await run(url);
      } catch (err) {
        if (!(err instanceof UpstreamError)) throw err;
        urlIndex = (urlIndex + 1) % urls.length;
        logger.warn({ url, next: urls[urlIndex], err: err.message }, 'scan keeps failing, moving to the next URL');
      }
    }
  }

  const page = (after: Cursor | undefined, signal: AbortSignal) => withFailover((url) => pageFrom(url, after, signal));

  function importRequest(url: string, migrationId: number, afterUpdateId: string, encoding: DamlValueEncoding) {
    return {
      method: 'POST' as const,
      url: `${url}/api/scan/v0/backfilling/import-updates`,
      body: { migration_id: migrationId, after_update_id: afterUpdateId, limit: pageSize, daml_value_encoding: encoding },
    };
  }

  function transactions(body: unknown, origin: string): JsonObject[] {
    try {
      return array(object(body, 'response'), 'transactions', 'response').map((t, i) => object(t, `response.transactions[${i}]`));
    } catch (err) {
      if (err instanceof ShapeError) throw new SourceItemError(origin, undefined, `not an import-updates answer: ${err.message}`);
      throw err;
    }
  }

  /** One page of the import updates of a migration, in both renderings. */
  async function importPageFrom(url: string, migrationId: number, afterUpdateId: string, signal: AbortSignal) {
    const origin = `${url}/api/scan/v0/backfilling/import-updates of migration ${migrationId} after '${afterUpdateId}'`;
    const compactBody = await http.json(importRequest(url, migrationId, afterUpdateId, 'compact_json'), signal);
    const protobufBody = await http.json(importRequest(url, migrationId, afterUpdateId, 'protobuf_json'), signal);
    let compact = transactions(compactBody, origin);
    const protobuf = transactions(protobufBody, `${origin} (protobuf_json)`);
    const ids = (list: JsonObject[]) => list.map((t) => t.update_id);
    if (JSON.stringify(ids(compact)) !== JSON.stringify(ids(protobuf))) {
      throw new SourceItemError(origin, undefined, 'the compact_json and protobuf_json answers hold different import updates');
    }
    if (compact.length > 0 && JSON.stringify(compact) === JSON.stringify(protobuf)) {
      // The upstream ignores daml_value_encoding here (Scan answers protobuf_json only): fetch each in compact_json by id.
      compact = [];
      for (const raw of protobuf) {
        const id = String(raw.update_id);
        const body = await http.json(
          { method: 'GET', url: `${url}/api/scan/v2/updates/${encodeURIComponent(id)}?daml_value_encoding=compact_json` },
          signal,
        );
        compact.push(object(body, `GET /v2/updates/${id}`));
      }
    }
    const items: SourceItem[] = compact.map((raw, index) => {
      const itemOrigin = `${origin}, element ${index}`;
      const path = 'import update';
      let updateId: string | undefined;
      try {
        updateId = string(raw, 'update_id', path);
        objectField(raw, 'events_by_id', path);
        array(raw, 'root_event_ids', path);
        const recordTime = timestamp(raw, 'record_time', path);
        const m = integer(raw, 'migration_id', path);
        if (recordTime !== IMPORT_RECORD_TIME || m !== migrationId) {
          throw new SourceItemError(
            itemOrigin,
            updateId,
            `not an import update of migration ${migrationId} (migration ${m}, record time ${formatRecordTime(recordTime)})`,
          );
        }
      } catch (err) {
        if (err instanceof ShapeError) throw new SourceItemError(itemOrigin, updateId, err.message);
        throw err;
      }
      const item: CanonicalItem = { update: importToV2(raw), verdict: null, traffic_summary: null, app_activity_records: null };
      if (wantProtobuf) item.update_protobuf_json = importToV2(protobuf[index] as JsonObject);
      return {
        item,
        position: positionOf({ migrationId, recordTime: IMPORT_RECORD_TIME, importAfter: updateId }),
        origin: itemOrigin,
      };
    });
    return {
      items,
      full: compact.length >= pageSize,
      lastId: compact.length ? String(compact[compact.length - 1]!.update_id) : afterUpdateId,
    };
  }

  /**
   * Waits until the upstream holds all import updates of the migration: a
   * Scan backfills them separately and may serve the migration's events
   * first (migration-info's `import_updates_complete`). An upstream without
   * data for it (404) has nothing to wait for.
   */
  async function awaitImportsComplete(migrationId: number, signal: AbortSignal): Promise<void> {
    for (;;) {
      let info: unknown;
      try {
        info = await withFailover((url) =>
          http.json({ method: 'POST', url: `${url}/api/scan/v0/backfilling/migration-info`, body: { migration_id: migrationId } }, signal),
        );
      } catch (err) {
        if (err instanceof HttpStatusError && err.status === 404) return;
        throw err;
      }
      if (!isObject(info) || info.import_updates_complete !== false) return;
      logger.info({ migrationId }, 'the upstream does not hold all import updates of the migration yet: waiting');
      await delay(pollIntervalMs, undefined, { signal });
    }
  }

  /** The import updates of a migration after an update id, page by page. */
  async function* importsOf(migrationId: number, afterUpdateId: string, signal: AbortSignal): AsyncGenerator<SourceItem> {
    await awaitImportsComplete(migrationId, signal);
    let after = afterUpdateId;
    for (;;) {
      const got = await withFailover((url) => importPageFrom(url, migrationId, after, signal));
      yield* got.items;
      if (!got.full) return;
      after = got.lastId;
    }
  }

  return {
    stream: 'scan',
    async *read(from, signal) {
      // Aborted when the consumer stops early, so a read-ahead request does not outlive the read.
      const stop = new AbortController();
      const inner = AbortSignal.any([signal, stop.signal]);
      let cursor = from === undefined ? undefined : parsePosition(from);
      let next: Promise<Page> | undefined;
      try {
        if (cursor?.importAfter !== undefined) {
          // Stopped within the import updates of a migration: finish them first.
          yield* importsOf(cursor.migrationId, cursor.importAfter, inner);
          cursor = { migrationId: cursor.migrationId, recordTime: IMPORT_RECORD_TIME };
        }
        for (;;) {
          const got = await (next ?? page(cursor, inner));
          next = undefined;
          /** The migration the stream is in; its import updates are behind us. */
          let entered = cursor?.migrationId;
          const entersMigration = got.migrations.some((m) => entered === undefined || m > entered);
          cursor = got.last;
          if (got.full && !entersMigration) {
            next = page(cursor, inner);
            // Its failure surfaces when it is awaited; this only keeps an abandoned one from being reported as unhandled.
            next.catch(() => undefined);
          }
          for (let i = 0; i < got.items.length; i++) {
            const migrationId = got.migrations[i] as number;
            if (entered === undefined || migrationId > entered) {
              yield* importsOf(migrationId, '', inner);
              entered = migrationId;
            }
            yield got.items[i] as SourceItem;
          }
          if (!got.full) {
            if (options.stopAtEnd) return;
            await delay(pollIntervalMs, undefined, { signal: inner });
          }
        }
      } catch (err) {
        // Aborting is how a live source is stopped, not a failure.
        if (signal.aborted) return;
        throw err;
      } finally {
        stop.abort();
      }
    },
  };
}
