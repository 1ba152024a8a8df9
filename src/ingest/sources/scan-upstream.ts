/**
 * Reading one upstream Scan: pages of `POST /api/scan/v0/events` (both
 * renderings), pages of import updates, and migration-info. The scan source
 * (scan-source.ts) reads one upstream at a time with failover; the attested
 * source (attested-scan-source.ts) reads several side by side. How the pages
 * are asked for and checked is described in scan-source.ts.
 */
import type { CanonicalItem, Update } from '../../domain/items';
import type { DamlValueEncoding } from '../../domain/value-encoding';
import { IMPORT_RECORD_TIME, formatRecordTime, tryParseTimestamp } from '../../domain/time';
import type { Logger } from '../../internal/logger';
import { HttpStatusError, type HttpClient } from '../http-client';
import { SourceItemError, type SourceItem } from '../source';
import type { Part } from './attestation';
import {
  compareKeys,
  eventsOf,
  readEventPage,
  readItem,
  readProtobufUpdates,
  updateIdOf,
  type EventKey,
  type ReceivedEvent,
  type Reference,
} from './event-page';
import { array, integer, isObject, object, objectField, ShapeError, string, timestamp, type JsonObject } from './shape';

/** A position in the stream: the /v0/events key of the last element. */
export interface Cursor extends EventKey {
  /** Within the import updates of the migration: the last one yielded. */
  importAfter?: string;
}

export interface Page {
  items: SourceItem[];
  /** The migration id of each item. */
  migrations: number[];
  /** The key of each item. */
  keys: Cursor[];
  /** As many elements as asked for: more may follow at once. */
  full: boolean;
  /** The key of the last element, or the cursor asked with when there was none. */
  last: Cursor | undefined;
}

export function positionOf(cursor: Cursor): string {
  return JSON.stringify({
    migration_id: cursor.migrationId,
    record_time: formatRecordTime(cursor.recordTime),
    ...(cursor.importAfter !== undefined && { after_import_update_id: cursor.importAfter }),
  });
}

export function parsePosition(position: string): Cursor {
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

/** Orders cursors by their /v0/events key. */
export const compare: (a: Cursor, b: Cursor) => number = compareKeys;

/** An element as received, with its update's protobuf_json rendering where the upstream gave one. */
export interface ReceivedElement extends ReceivedEvent {
  protobuf: Part | undefined;
}

export interface ReceivedEventsPage {
  events: ReceivedElement[];
  /** The position of an element out of key order, where the page was cut before it. */
  disorderAt?: string;
}

export interface UpstreamReaderOptions {
  pageSize: number;
  wantProtobuf: boolean;
  http: HttpClient;
  logger: Logger;
}

/** The requests to one upstream, by its base URL. */
export function createUpstreamReader(options: UpstreamReaderOptions) {
  const { pageSize, wantProtobuf, http, logger } = options;
  /** URLs that answered the protobuf_json request with a 4xx. */
  const noProtobuf = new Set<string>();
  /**
   * The first canonical answer read for each recent page (by encoding and position), which answers of
   * other upstreams for the same page are compared with (event-page.ts). Pages only move forward, so
   * a few are enough.
   */
  const references = new Map<string, Reference>();
  const remember = (key: string, reference: Reference | undefined) => {
    if (reference === undefined || references.has(key)) return;
    references.set(key, reference);
    if (references.size > 4) references.delete(references.keys().next().value!);
  };

  function request(url: string, after: Cursor | undefined, encoding: DamlValueEncoding) {
    const body = {
      page_size: pageSize,
      ...(after && { after: { after_migration_id: after.migrationId, after_record_time: formatRecordTime(after.recordTime) } }),
      daml_value_encoding: encoding,
    };
    return { method: 'POST' as const, url: `${url}/api/scan/v0/events`, body };
  }

  /** The protobuf_json answer for the page after `after` as `read` makes it, or undefined when the upstream cannot render it. */
  async function protobufAnswer<T>(
    url: string,
    after: Cursor | undefined,
    signal: AbortSignal,
    read: (text: string) => T,
  ): Promise<T | undefined> {
    if (noProtobuf.has(url)) return undefined;
    try {
      return await http.text(request(url, after, 'protobuf_json'), signal, read);
    } catch (err) {
      if (!(err instanceof HttpStatusError)) throw err;
      logger.warn({ url, err: err.message }, 'upstream refuses protobuf_json; items from it have only compact_json');
      noProtobuf.add(url);
      return undefined;
    }
  }

  const protobufOrigin = (url: string) => `${url}/api/scan/v0/events (protobuf_json)`;

  /** The protobuf_json updates of the page by update id, or undefined when the upstream cannot render them. */
  function protobufUpdates(url: string, after: Cursor | undefined, signal: AbortSignal): Promise<Map<string, Update> | undefined> {
    return protobufAnswer(url, after, signal, (text) => {
      const byId = new Map<string, Update>();
      for (const raw of eventsOf(JSON.parse(text), protobufOrigin(url))) {
        const update = isObject(raw) ? raw.update : undefined;
        if (isObject(update) && typeof update.update_id === 'string') byId.set(update.update_id, update as unknown as Update);
      }
      return byId;
    });
  }

  /** A page of events after `after`. An element whose key is not after the one before it is an error. */
  async function pageFrom(url: string, after: Cursor | undefined, signal: AbortSignal): Promise<Page> {
    const origin = `${url}/api/scan/v0/events after ${after ? positionOf(after) : 'the beginning'}`;
    const received = eventsOf(await http.json(request(url, after, 'compact_json'), signal), origin);
    const items: SourceItem[] = [];
    const migrations: number[] = [];
    const keys: Cursor[] = [];
    let last = after;
    for (const [index, raw] of received.entries()) {
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
      keys.push(read.key);
    }
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
      keys,
      full: received.length >= pageSize,
      last: last && { migrationId: last.migrationId, recordTime: last.recordTime },
    };
  }

  /**
   * A page of events after `after` as received (event-page.ts), for the attested source: each element
   * with its parts and the part of its update's protobuf_json rendering, unparsed where the answers
   * are in JSON.stringify's form. An element out of key order ends the page, its key reported as
   * `disorderAt` (the attested source must not stop for one faulty upstream).
   */
  async function receivedPageFrom(url: string, after: Cursor | undefined, signal: AbortSignal): Promise<ReceivedEventsPage> {
    const at = after ? positionOf(after) : 'the beginning';
    const origin = `${url}/api/scan/v0/events after ${at}`;
    const page = await http.text(request(url, after, 'compact_json'), signal, (text) => {
      const read = readEventPage(text, origin, after, references.get(`compact_json ${at}`));
      remember(`compact_json ${at}`, read.reference);
      return read;
    });
    const protobuf =
      wantProtobuf && page.events.some((e) => e.updateId !== undefined)
        ? await protobufAnswer(url, after, signal, (text) => {
            const read = readProtobufUpdates(text, protobufOrigin(url), references.get(`protobuf_json ${at}`));
            remember(`protobuf_json ${at}`, read.reference);
            return read;
          })
        : undefined;
    return {
      events: page.events.map((event) => ({
        ...event,
        protobuf: (event.updateId !== undefined && protobuf?.byId.get(event.updateId)) || undefined,
      })),
      ...(page.disorderAt !== undefined && { disorderAt: positionOf(page.disorderAt) }),
    };
  }

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

  /** migration-info's import_updates_complete: false while the upstream lacks some; true when complete or without data (404). */
  async function importsComplete(url: string, migrationId: number, signal: AbortSignal): Promise<boolean> {
    let info: unknown;
    try {
      info = await http.json(
        { method: 'POST', url: `${url}/api/scan/v0/backfilling/migration-info`, body: { migration_id: migrationId } },
        signal,
      );
    } catch (err) {
      if (err instanceof HttpStatusError && err.status === 404) return true;
      throw err;
    }
    return !isObject(info) || info.import_updates_complete !== false;
  }

  return { pageFrom, receivedPageFrom, importPageFrom, importsComplete };
}
