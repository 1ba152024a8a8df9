/**
 * The elements of a `POST /v0/events` answer, read from its text.
 *
 * The attested source compares what N upstreams served by content hashes
 * (attestation.ts) and stores one copy of what the threshold agree on, so it
 * reads every answer N times and needs each element's key, its parts and
 * their hashes, but the parsed element only for the one copy it stores. An
 * answer in JSON.stringify's form (canonical-json.ts; what Scan and
 * scan-indexer send) is therefore read as text: each element's parts are
 * ranges of the answer, hashed as they are, and an element is parsed only
 * when it is stored, its texts going to the writer unchanged. An answer not in
 * that form, or with an element of an unexpected shape, is parsed whole and
 * checked as the failover source checks it (`readItem`), with the same
 * errors.
 */
import type { CanonicalItem, Update } from '../../domain/items';
import { tryParseTimestamp, type Micros } from '../../domain/time';
import { SourceItemError } from '../source';
import type { Part } from './attestation';
import { CanonicalScanner, NotCanonical, type Member, type ObjectText } from './canonical-json';
import type { ItemTexts } from './item-text';
import { array, integer, isObject, object, objectField, ShapeError, string, timestamp, type JsonObject } from './shape';

/** The /v0/events key of an element. */
export interface EventKey {
  migrationId: number;
  recordTime: Micros;
}

export function compareKeys(a: EventKey, b: EventKey): number {
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
export function readItem(raw: unknown): { item: CanonicalItem; key: EventKey } {
  const o = object(raw, 'item');
  const update = nullableObject(o, 'update', 'item');
  const verdict = nullableObject(o, 'verdict', 'item');
  let key: EventKey;
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

export function updateIdOf(raw: unknown): string | undefined {
  if (!isObject(raw)) return undefined;
  for (const part of [raw.update, raw.verdict]) {
    if (isObject(part) && typeof part.update_id === 'string') return part.update_id;
  }
  return undefined;
}

/** The parts of an element that its content hash covers, besides the protobuf rendering of its update. */
interface EventParts {
  update: Part;
  verdict: Part;
  trafficSummary: Part;
  appActivityRecords: Part;
}

/** One element of an answer. */
export interface ReceivedEvent {
  key: EventKey;
  /** Its update's id; undefined for an element without an update. */
  updateId: string | undefined;
  hasVerdict: boolean;
  /** The same object for an element identical to one of the answer compared with (see `Reference`). */
  parts: EventParts;
  /** Where it came from, for error messages. */
  origin: string;
  /** The element as a canonical item, with the texts of its parts that the writer can store as they are. */
  take(this: ReceivedEvent): { item: CanonicalItem; texts?: ItemTexts };
}

export interface ReceivedPage {
  events: ReceivedEvent[];
  /** The key of an element out of key order, where the page was cut before it. */
  disorderAt?: EventKey;
  /** The answer's elements, to compare other answers for the same page with; absent when it was parsed. */
  reference?: Reference;
}

/**
 * The elements of a canonical answer, which other upstreams' answers for the same page are compared
 * with: an element whose text is identical to the one at the same place here (or one further, when
 * an element was left out) is taken as read here, with the same parts (and so the same hashes),
 * without reading or hashing it again. Honest upstreams serve the same text for most elements.
 */
export type Reference = readonly ScannedElement[];

/** An element of a canonical answer: where it is, and what it holds, read on first use. */
interface ScannedElement {
  /** The answer. */
  page: string;
  start: number;
  end: number;
  /** Its text, a slice of the answer. */
  text: string;
  /** Its members, where it was read in this answer; otherwise `same`, the identical element it repeats. */
  object?: ObjectText;
  same?: ScannedElement;
  event?: ReceivedEvent;
  protobuf?: { id: string; part: Part } | null;
}

/** Top-level members read member by member: the element's update and verdict, and a reassignment's event. */
const NESTED = new Set(['update', 'verdict', 'event']);

/** A shape that `readItem` would refuse or that JSON.parse would read differently: the answer is parsed whole instead. */
class Unusual extends Error {}

/** The member with `key`; a key repeated (JSON.parse would keep the last) is unusual. */
function find(members: readonly Member[], key: string): Member | undefined {
  let found: Member | undefined;
  for (const m of members) {
    if (m.key !== key) continue;
    if (found) throw new Unusual();
    found = m;
  }
  return found;
}

const firstChar = (text: string, m: Member | undefined): string => (m === undefined ? '' : (text[m.start] ?? ''));

function stringOf(text: string, m: Member | undefined): string {
  if (firstChar(text, m) !== '"') throw new Unusual();
  const raw = text.slice(m!.start + 1, m!.end - 1);
  return raw.includes('\\') ? (JSON.parse(text.slice(m!.start, m!.end)) as string) : raw;
}

function integerOf(text: string, m: Member | undefined): number {
  const c = firstChar(text, m);
  // The scanner admits only integers a double holds exactly, so a number here is a safe integer.
  if (c !== '-' && !(c >= '0' && c <= '9')) throw new Unusual();
  return Number(text.slice(m!.start, m!.end));
}

function timestampOf(text: string, m: Member | undefined): Micros {
  const t = tryParseTimestamp(stringOf(text, m));
  if (t === undefined) throw new Unusual();
  return t;
}

/** An object member, null or absent (null); anything else is unusual. */
function nullableObjectOf(text: string, m: Member | undefined): Member | null {
  if (m === undefined || text.startsWith('null', m.start)) return null;
  if (text[m.start] !== '{') throw new Unusual();
  return m;
}

const partOf = (text: string, m: Member | null): Part =>
  m === null ? { value: null } : { text, start: m.start, end: m.end, ...(m.members && { members: m.members }) };

/**
 * The elements of a canonical answer `{"events":[…]}` (other members allowed), or undefined when it
 * is not one. Elements identical to the reference's at the same place are not read again.
 */
function canonicalElements(text: string, reference: Reference | undefined): ScannedElement[] | undefined {
  const scanner = new CanonicalScanner(text);
  /** The reference's element expected next. */
  let next = 0;
  const repeated = (at: number): ScannedElement | undefined => {
    for (const k of [next, next + 1]) {
      const candidate = reference?.[k];
      if (candidate && text.slice(at, at + candidate.text.length) === candidate.text) {
        next = k + 1;
        return candidate;
      }
    }
    return undefined;
  };
  try {
    let elements: ScannedElement[] | undefined;
    const end = scanner.object(0, (key, _at, start) => {
      if (key !== 'events') return scanner.value(start);
      if (elements) throw new NotCanonical(); // repeated: JSON.parse would keep the last
      const found: ScannedElement[] = [];
      elements = found;
      return scanner.array(start, (at) => {
        const same = repeated(at);
        if (same) {
          const element = { page: text, start: at, end: at + same.text.length, text: same.text, same: same.same ?? same };
          found.push(element);
          return element.end;
        }
        const object = scanner.members(at, NESTED);
        found.push({ page: text, start: at, end: object.end, text: text.slice(at, object.end), object });
        return object.end;
      });
    });
    return end === text.length ? elements : undefined;
  } catch (err) {
    if (err instanceof NotCanonical) return undefined;
    throw err;
  }
}

/** The element `e` of a canonical answer, checked as `readItem` checks it. */
function canonicalEvent(e: ScannedElement, origin: string): ReceivedEvent {
  if (e.same) return { ...canonicalEvent(e.same, origin), origin };
  if (e.event) return e.event;
  const { page: text, object } = e;
  const members = object!.members;
  const update = nullableObjectOf(text, find(members, 'update'));
  const verdict = nullableObjectOf(text, find(members, 'verdict'));
  const trafficSummary = nullableObjectOf(text, find(members, 'traffic_summary'));
  const appActivityRecords = nullableObjectOf(text, find(members, 'app_activity_records'));
  let key: EventKey;
  let updateId: string | undefined;
  if (update) {
    const u = update.members!;
    updateId = stringOf(text, find(u, 'update_id'));
    const recordTime = timestampOf(text, find(u, 'record_time'));
    if (find(u, 'events_by_id')) {
      if (firstChar(text, find(u, 'events_by_id')) !== '{' || firstChar(text, find(u, 'root_event_ids')) !== '[') throw new Unusual();
      stringOf(text, find(u, 'synchronizer_id'));
      key = { migrationId: integerOf(text, find(u, 'migration_id')), recordTime };
    } else {
      const event = find(u, 'event');
      if (firstChar(text, event) !== '{') throw new Unusual();
      key = { migrationId: integerOf(text, find(event!.members!, 'migration_id')), recordTime };
    }
  } else if (verdict) {
    const v = verdict.members!;
    stringOf(text, find(v, 'update_id'));
    key = { migrationId: integerOf(text, find(v, 'migration_id')), recordTime: timestampOf(text, find(v, 'record_time')) };
  } else {
    throw new Unusual();
  }
  const slice = (m: Member | null) => (m === null ? undefined : text.slice(m.start, m.end));
  e.event = {
    key,
    updateId,
    hasVerdict: verdict !== null,
    parts: {
      update: partOf(text, update),
      verdict: partOf(text, verdict),
      trafficSummary: partOf(text, trafficSummary),
      appActivityRecords: partOf(text, appActivityRecords),
    },
    origin,
    take() {
      let item: CanonicalItem;
      try {
        item = readItem(JSON.parse(e.text)).item;
      } catch (err) {
        // Not expected: the text was checked as readItem checks it.
        if (err instanceof ShapeError) throw new SourceItemError(this.origin, updateId, err.message);
        throw err;
      }
      const texts: ItemTexts = {
        update: slice(update),
        verdict: slice(verdict),
        trafficSummary: slice(trafficSummary),
        appActivityRecords: slice(appActivityRecords),
      };
      for (const k of Object.keys(texts) as (keyof ItemTexts)[]) if (texts[k] === undefined) delete texts[k];
      return { item, texts };
    },
  };
  return e.event;
}

function parsedEvent(item: CanonicalItem, key: EventKey, origin: string): ReceivedEvent {
  return {
    key,
    updateId: item.update?.update_id,
    hasVerdict: item.verdict !== null,
    parts: {
      update: { value: item.update },
      verdict: { value: item.verdict },
      trafficSummary: { value: item.traffic_summary },
      appActivityRecords: { value: item.app_activity_records },
    },
    origin,
    take: () => ({ item }),
  };
}

/** The `events` list of a parsed answer. */
export function eventsOf(body: unknown, origin: string): unknown[] {
  try {
    return array(object(body, 'response'), 'events', 'response');
  } catch (err) {
    if (err instanceof ShapeError) throw new SourceItemError(origin, undefined, `not a /v0/events answer: ${err.message}`);
    throw err;
  }
}

/**
 * The elements of the answer `text` to a request for the page after `after`, in order, up to the
 * first that is not after the one before it (`disorderAt`). `reference`: another upstream's answer
 * for the same page. Throws SyntaxError when the text is not JSON, SourceItemError when it is not a
 * /v0/events answer or an element is malformed.
 */
export function readEventPage(text: string, origin: string, after: EventKey | undefined, reference?: Reference): ReceivedPage {
  const canonical = canonicalElements(text, reference);
  if (canonical) {
    try {
      return { ...inOrder(canonical, after, (e, i) => canonicalEvent(e, `${origin}, element ${i}`)), reference: canonical };
    } catch (err) {
      if (!(err instanceof Unusual)) throw err;
    }
  }
  const received = eventsOf(JSON.parse(text), origin);
  return inOrder(received, after, (raw, index) => {
    const itemOrigin = `${origin}, element ${index}`;
    try {
      const { item, key } = readItem(raw);
      return parsedEvent(item, key, itemOrigin);
    } catch (err) {
      if (err instanceof ShapeError) throw new SourceItemError(itemOrigin, updateIdOf(raw), err.message);
      throw err;
    }
  });
}

function inOrder<E>(elements: readonly E[], after: EventKey | undefined, read: (e: E, index: number) => ReceivedEvent): ReceivedPage {
  const events: ReceivedEvent[] = [];
  let last = after;
  for (const [index, e] of elements.entries()) {
    const event = read(e, index);
    if (last && compareKeys(event.key, last) <= 0) return { events, disorderAt: event.key };
    last = event.key;
    events.push(event);
  }
  return { events };
}

/** The update of an element of a canonical protobuf_json answer, by its id; null when it has none. */
function protobufUpdate(e: ScannedElement): { id: string; part: Part } | null {
  if (e.same) return protobufUpdate(e.same);
  if (e.protobuf !== undefined) return e.protobuf;
  const update = nullableObjectOf(e.page, find(e.object!.members, 'update'));
  const id = update ? find(update.members!, 'update_id') : undefined;
  e.protobuf = update && firstChar(e.page, id) === '"' ? { id: stringOf(e.page, id), part: partOf(e.page, update) } : null;
  return e.protobuf;
}

export interface ProtobufUpdates {
  byId: Map<string, Part>;
  /** As `ReceivedPage.reference`. */
  reference?: Reference;
}

/**
 * The updates of a protobuf_json answer by update id (elements without one are left out), as
 * parts. `reference`: another upstream's answer for the same page. Throws as `readEventPage` does.
 */
export function readProtobufUpdates(text: string, origin: string, reference?: Reference): ProtobufUpdates {
  const canonical = canonicalElements(text, reference);
  if (canonical) {
    try {
      const byId = new Map<string, Part>();
      for (const e of canonical) {
        const update = protobufUpdate(e);
        if (update) byId.set(update.id, update.part);
      }
      return { byId, reference: canonical };
    } catch (err) {
      if (!(err instanceof Unusual)) throw err;
    }
  }
  const byId = new Map<string, Part>();
  for (const raw of eventsOf(JSON.parse(text), origin)) {
    const update = isObject(raw) ? raw.update : undefined;
    if (isObject(update) && typeof update.update_id === 'string') byId.set(update.update_id, { value: update });
  }
  return { byId };
}
