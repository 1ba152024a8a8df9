/**
 * Live push (mounted at /api/indexer):
 *   GET /v0/stream/events   the /v0/events items as they are ingested, as Server-Sent Events, or as
 *                           WebSocket frames when asked with `Upgrade: websocket` (stream-transport.ts)
 *
 * Each message's data is one /v0/events item in exactly the bytes POST /api/scan/v0/events serves for it
 * (the same store read, listEvents, and the same rendering); its `id` is the item's cursor
 * (domain/stream-cursor.ts). A subscriber always reads "the items after my cursor" from the primary, a
 * page of STREAM_PAGE_SIZE at a time: at its start (catch-up) and whenever the hub wakes it (a commit
 * notice, or a poll while notices cannot be heard), so live items follow the catch-up without a gap or
 * a duplicate. Between pages it waits until its connection has taken what it was given: memory per
 * subscriber is one page plus STREAM_MAX_BUFFER_KB, and a subscriber that stays over that bound for
 * STREAM_SLOW_CONSUMER_MS is dropped with an `error` event saying where to resume. With read replicas
 * (DATABASE_READ_URLS), a page is sent only once every replica in use by this process has replayed it.
 */
import type { SharedReads } from './shared-reads';
import type { Request, Response, Router } from 'express';
import { Router as expressRouter } from 'express';
import { WebSocketServer, type WebSocket } from 'ws';
import { z } from 'zod';
import { formatStreamCursor, parseStreamCursor, type StreamCursor } from '../../domain/stream-cursor';
import { compareStreamKeys, type StreamKey } from '../../domain/stream-key';
import { formatDecimal, parseDecimal } from '../../domain/decimal';
import { ACTIVITY_KINDS } from '../../domain/activities';
import { formatDateTime, IMPORT_RECORD_TIME, type Micros } from '../../domain/time';
import type { DamlValueEncoding } from '../../domain/value-encoding';
import { badRequest, HttpError } from '../../internal/errors';
import type { Metrics } from '../../internal/metrics';
import type { Db } from '../../store/pool';
import { readHistoryStart } from '../../store/partitions';
import { firstEventMigrationFrom, listSnapshotsBetween, newestEventPosition, newestSnapshotPosition } from '../../store/stream-repository';
import {
  historyIncomplete,
  listEvents,
  listEventsBySubject,
  type EventRow,
  type SubjectFilter,
  type UpdatePosition,
} from '../../store/update-repository';
import { primaryDbOf, type ApiContext } from '../context';
import { sendJson } from '../json-response';
import { eventJson } from '../scan/update-routes';
import { mountOperations, operation, type OperationOf } from '../operation';
import { ErrorResponse } from '../schema-kit';
import { upgradeOf, type Upgrade } from '../server';
import { StreamHub, type HeartbeatData, type HubMember, type StreamSettings } from './stream-hub';
import { SseTransport, WebSocketTransport, type EndEvent, type StreamItem, type StreamTransport } from './stream-transport';

const ENCODINGS = ['compact_json', 'protobuf_json'] as const;
const STREAM_KINDS = ['transaction', 'reassignment', 'verdict-only'] as const;
type StreamKind = (typeof STREAM_KINDS)[number];

const kind = z.enum(STREAM_KINDS, { error: `expected one of ${STREAM_KINDS.join(', ')}` });
/** Parties or templates one stream may filter on. */
const MAX_SUBJECTS = 100;
const subjectTerm = z.string({ error: 'expected a string' }).min(1, 'expected a party or template id').max(512, 'at most 512 characters');

const activityKind = z.enum(ACTIVITY_KINDS, { error: `expected one of ${ACTIVITY_KINDS.join(', ')}` });

const EventsStreamQuery = z.object({
  after: z
    .string({ error: 'expected a single string' })
    .optional()
    .describe(
      'Send the items after this cursor (the id of an item of this stream: <migration id>/<record time>/<update id>, or <migration id>/<record time> for everything after that record time). The Last-Event-ID header, which EventSource sends when it reconnects, takes precedence. Without either, the stream starts after the newest stored item.',
    ),
  daml_value_encoding: z
    .enum(ENCODINGS, { error: `expected one of ${ENCODINGS.join(', ')}` })
    .optional()
    .describe('As for POST /api/scan/v0/events; compact_json by default.'),
  kind: z
    .union([kind, z.array(kind)])
    .optional()
    .describe(
      'Only items of these kinds (repeatable): transaction, reassignment (an assignment or unassignment), verdict-only (a verdict without an update). All kinds by default. The cursor still moves past the items left out.',
    ),
  party: z
    .union([subjectTerm, z.array(subjectTerm).max(MAX_SUBJECTS, `at most ${MAX_SUBJECTS} parties`)])
    .optional()
    .describe(
      "Only the updates of which one of these parties (repeatable) is a stakeholder (signatory or observer of a created event, an assignment's included) or an acting party of an exercised event, or the submitter of a reassignment. Verdicts without an update name no party. Read from an index the writer keeps, never from payloads.",
    ),
  template: z
    .union([subjectTerm, z.array(subjectTerm).max(MAX_SUBJECTS, `at most ${MAX_SUBJECTS} templates`)])
    .optional()
    .describe(
      'Only the updates with a created or exercised event (or an assignment) of one of these template ids (repeatable, <package id>:<module>:<entity> as the events give it). With party as well, an update must match both.',
    ),
  activity: z
    .union([activityKind, z.array(activityKind)])
    .optional()
    .describe(
      `Only the updates with at least one parsed activity (GET /api/indexer/v0/parties/{party}/activity) of these kinds (repeatable: ${ACTIVITY_KINDS.join(', ')}). Read from the activity projection the writer keeps, never from payloads; with party or template as well, an update must match all.`,
    ),
  snapshots: z
    .enum(['true', 'false'], { error: 'expected true or false' })
    .optional()
    .describe(
      'true: also a `snapshot` event for each ACS snapshot announced, once the stream has passed its record time (data: the snapshot as GET /api/indexer/v0/acs-snapshots lists it). Resumed from a cursor, the snapshots after it are sent again as the stream passes them. false by default.',
    ),
});

/** Seconds a client refused for the subscriber limit is told to wait. */
const RETRY_AFTER_SECONDS = 5;

const BACKFILLING_MESSAGE =
  'This scan instance has not yet replicated all data. This process can take an extended period of time to complete. Wait until replication is complete, or connect to a different scan instance.';

interface StreamServices {
  db: Db;
  hub: StreamHub;
  metrics: Metrics;
}

/** Snapshot events read at a time (snapshots come every 3 hours of ledger time: a catch-up over months has many). */
const SNAPSHOT_PAGE = 100;

const keyOf = (c: StreamCursor): StreamKey => ({ migrationId: c.migrationId, recordTime: c.recordTime });

const kindOf = (row: EventRow): StreamKind =>
  row.update === undefined ? 'verdict-only' : row.update.kind === 'transaction' ? 'transaction' : 'reassignment';

/** Rendered items by row: rows read once for many subscribers (SharedReads) are rendered once. */
const rendered = new WeakMap<EventRow, string>();
/** Items' cursors by row, written once for the subscribers that share the row. */
const cursorTexts = new WeakMap<EventRow, string>();

/** The cursor of a row's item: the stream's position once it is sent. */
function cursorTextOf(row: EventRow): string {
  let text = cursorTexts.get(row);
  if (text === undefined) cursorTexts.set(row, (text = formatStreamCursor(row)));
  return text;
}

/** The item as /v0/events renders it; undefined when its update has no text in the encoding (the list answers 501). */
function streamedJson(row: EventRow): string | undefined {
  if (row.update && row.update.json === null) return undefined;
  let json = rendered.get(row);
  if (json === undefined) rendered.set(row, (json = eventJson(row)));
  return json;
}

/**
 * Reads the events after a cursor, a page at a time. Events that share a record time are told apart
 * by the update ids already sent at it: each page is read from the cursor's record time on (included),
 * so that an event of that time committed after the subscriber passed it (another synchronizer's, in a
 * later batch) is still sent.
 */
class EventReader {
  /** Update ids sent at the cursor's record time; 'through' until the first page resolves a resumed cursor. */
  private sent: Set<string> | 'all' | { through: string } = 'all';
  /** What this reader's reads share besides their position (SharedReads' key), written once. */
  private readonly readKind: string;

  constructor(
    private readonly db: Db,
    private readonly shared: SharedReads,
    private readonly encoding: DamlValueEncoding,
    private readonly pageSize: number,
    public cursor: StreamCursor | undefined,
    private readonly filter: SubjectFilter | undefined,
  ) {
    if (cursor?.updateId !== undefined) this.sent = { through: cursor.updateId };
    this.readKind = JSON.stringify([encoding, filter ?? null]);
  }

  /**
   * The events after `from` that pass the filter; with a filter, the newest update the read saw. Shared
   * with the other subscribers asking the same under the same hub generation (SharedReads).
   */
  private read(
    from: StreamCursor | undefined,
    limit: number,
    generation: number,
  ): Promise<{ rows: readonly EventRow[]; newest?: UpdatePosition }> {
    const at = from === undefined ? '' : `${from.migrationId}/${from.recordTime}/${from.updateId ?? ''}`;
    const key = `${generation} ${limit} ${at} ${this.readKind}`;
    const filter = this.filter;
    return this.shared.read(key, async () =>
      filter
        ? listEventsBySubject(this.db, from, limit, this.encoding, filter)
        : { rows: await listEvents(this.db, from, limit, this.encoding) },
    );
  }

  /**
   * The next events not yet sent, and whether more may follow at once. When none follow and the filter
   * left updates out, `skip` is the newest update the read saw: nothing up to it is left to send.
   */
  async next(generation: number): Promise<{ rows: readonly EventRow[]; more: boolean; skip?: UpdatePosition }> {
    const cursor = this.cursor;
    if (!cursor) {
      const { rows, newest } = await this.read(undefined, this.pageSize, generation);
      const more = rows.length === this.pageSize;
      return { rows, more, skip: more ? undefined : newest };
    }
    const atCursor = (r: EventRow) => r.migrationId === cursor.migrationId && r.recordTime === cursor.recordTime;
    for (let limit = this.pageSize; ; limit *= 2) {
      // From the cursor's record time on; strictly after it when every item at it was sent (or it is the
      // import updates' time, which no event has, and before which PostgreSQL has no year).
      const from =
        this.sent === 'all' || cursor.recordTime <= IMPORT_RECORD_TIME
          ? cursor
          : { migrationId: cursor.migrationId, recordTime: cursor.recordTime - 1n };
      const { rows, newest } = await this.read(from, limit, generation);
      const more = rows.length === limit;
      const same = rows.filter(atCursor);
      if (typeof this.sent === 'object' && 'through' in this.sent) {
        const through = this.sent.through;
        const at = same.findIndex((r) => r.updateId === through);
        // The cursor's item may be further on, in a page of this record time only: read more of it.
        if (at < 0 && more && same.length === rows.length) continue;
        // A cursor whose item is not there stands for the end of its record time, as /v0/events' cursor.
        this.sent = at < 0 ? 'all' : new Set(same.slice(0, at + 1).map((r) => r.updateId));
      }
      const sent = this.sent;
      const fresh = rows.filter((r) => !atCursor(r) || (sent !== 'all' && !sent.has(r.updateId)));
      if (more && fresh.length === 0) continue;
      return { rows: fresh, more, skip: more ? undefined : newest };
    }
  }

  /** Moves the cursor past the updates a filtered read left out, up to `position` (never back). */
  skipTo(position: UpdatePosition): void {
    const c = this.cursor;
    if (c && (position.migrationId < c.migrationId || (position.migrationId === c.migrationId && position.recordTime < c.recordTime)))
      return;
    if (c && c.updateId === position.updateId && c.recordTime === position.recordTime) return;
    this.advance(position);
  }

  /** Moves the cursor past an event (sent, or left out by the filter). */
  advance(row: Pick<EventRow, 'migrationId' | 'recordTime' | 'updateId'>): void {
    const c = this.cursor;
    if (!c || c.migrationId !== row.migrationId || c.recordTime !== row.recordTime) this.sent = new Set([row.updateId]);
    // At the same record time, 'all' stays all: the ids it stands for are not known.
    else if (this.sent instanceof Set) this.sent.add(row.updateId);
    this.cursor = { migrationId: row.migrationId, recordTime: row.recordTime, updateId: row.updateId };
  }
}

/** Why a subscription's waits are cut short; given, so that aborting builds no DOMException and its stack. */
const CLOSED = 'the stream ended';

type EndReason = 'slow_consumer' | 'history_gone' | 'encoding_unavailable' | 'failed';

class EventsSubscription implements HubMember {
  readonly stream = 'events';
  private open = true;
  private readonly aborted = new AbortController();
  /** The id of the last event written with one: a heartbeat carries the cursor when it has moved past left-out items. */
  private lastId: string | undefined;
  /** This stream's metrics, their labels resolved once rather than for every item. */
  private readonly itemsSent: ReturnType<Metrics['streamItemsSent']['labels']>;
  private readonly deliveryLatency: ReturnType<Metrics['streamDeliveryLatency']['labels']>;

  constructor(
    private readonly transport: StreamTransport,
    private readonly hub: StreamHub,
    private readonly metrics: Metrics,
    private readonly reader: EventReader,
    private readonly kinds: ReadonlySet<StreamKind> | undefined,
    /** With snapshot events: the last snapshot sent, or known to the client (undefined: none yet). */
    private snapshots: { after: StreamKey | undefined } | undefined,
  ) {
    this.itemsSent = metrics.streamItemsSent.labels(this.stream);
    this.deliveryLatency = metrics.streamDeliveryLatency.labels(this.stream);
    transport.onClose(() => {
      this.open = false;
      this.aborted.abort(CLOSED);
    });
  }

  private get settings(): StreamSettings {
    return this.hub.settings;
  }

  private cursorText(): string | null {
    return this.reader.cursor ? formatStreamCursor(this.reader.cursor) : null;
  }

  heartbeat(data: HeartbeatData): void {
    if (!this.open || this.transport.buffered > this.settings.maxBufferBytes) return;
    const cursor = this.cursorText();
    const id = cursor !== null && cursor !== this.lastId ? cursor : undefined;
    if (id !== undefined) this.lastId = id;
    this.transport.writeEvent('heartbeat', id, data);
  }

  endForShutdown(): void {
    this.finish(
      'reconnect',
      { reason: 'shutdown', message: 'This server is stopping: reconnect (with Last-Event-ID, or after=the cursor below) to resume.' },
      'shutdown',
    );
  }

  /** The snapshots announced after the last one sent whose record time the stream has passed, as `snapshot` events. */
  private async sendSnapshots(db: Db, state: { after: StreamKey | undefined }, through: StreamKey): Promise<void> {
    for (;;) {
      const page = await listSnapshotsBetween(db, state.after, through, SNAPSHOT_PAGE);
      if (page.length > 0) await this.hub.replayed(this.aborted.signal);
      if (!this.open) return;
      for (const s of page) {
        this.transport.writeEvent('snapshot', undefined, {
          migration_id: s.migrationId,
          // As GET /api/indexer/v0/acs-snapshots lists them.
          record_time: formatDateTime(s.recordTime),
          contract_count: s.contractCount,
          unlocked_amulet: formatDecimal(parseDecimal(s.unlockedAmulet)),
          locked_amulet: formatDecimal(parseDecimal(s.lockedAmulet)),
        });
        state.after = { migrationId: s.migrationId, recordTime: s.recordTime };
      }
      if (page.length < SNAPSHOT_PAGE) return;
    }
  }

  private end(reason: EndReason, message: string): void {
    this.finish('error', { error: message, reason }, reason);
  }

  /**
   * Ends a stream resumed from a cursor older than the retained history with the oldest cursor it could
   * resume after: the history start's migration (that of its first event) just before the start. The
   * event has no id, so that an EventSource does not resume there by itself, over the gap, unasked.
   */
  private async endHistoryGone(db: Db, start: Micros): Promise<void> {
    const oldest = formatStreamCursor({ migrationId: (await firstEventMigrationFrom(db, start)) ?? 0, recordTime: start - 1n });
    const given = this.cursorText();
    this.finish(
      'error',
      {
        error: `The stream cannot resume after ${given}: this indexer keeps history from ${formatDateTime(start)} on, and what came before was dropped by its retention policy. The oldest cursor it can resume after is ${oldest}, which sends everything kept (the items between the two are lost).`,
        reason: 'history_gone',
        history_start: formatDateTime(start),
      },
      'history_gone',
      { id: undefined, after: oldest },
    );
  }

  private finish(
    event: EndEvent,
    body: Record<string, string>,
    reason: string,
    resume: { id: string | undefined; after: string } | undefined = undefined,
  ): void {
    if (!this.open) return;
    this.open = false;
    this.metrics.streamDrops.inc({ stream: this.stream, reason });
    const cursor = this.cursorText();
    if (resume) this.transport.writeEvent(event, resume.id, { ...body, after: resume.after });
    else this.transport.writeEvent(event, cursor ?? undefined, { ...body, after: cursor });
    this.transport.end(event);
    this.aborted.abort(CLOSED);
  }

  async run(db: Db, resumed: boolean): Promise<void> {
    try {
      if (resumed && this.reader.cursor) {
        const start = await readHistoryStart(db);
        // As refuseDroppedHistory (410 for /v0/events): some record time after the cursor was dropped.
        if (start !== undefined && this.reader.cursor.recordTime + 1n < start) return this.endHistoryGone(db, start);
      }
      let committedAtMs: number | undefined;
      while (this.open) {
        const generation = this.hub.generation;
        const { rows, more, skip } = await this.reader.next(generation);
        if (!this.open) return;
        const out: StreamItem[] = [];
        let unavailable: EventRow | undefined;
        for (const row of rows) {
          if (this.kinds && !this.kinds.has(kindOf(row))) {
            this.reader.advance(row);
            continue;
          }
          const json = streamedJson(row);
          if (json === undefined) {
            unavailable = row;
            break;
          }
          this.reader.advance(row);
          this.lastId = cursorTextOf(row);
          out.push({ id: this.lastId, json, source: row });
        }
        // Not before the replicas this process reads from have them (a client may ask the API for them next).
        if (out.length > 0) {
          if (this.hub.waitsForReplicas) await this.hub.replayed(this.aborted.signal);
          if (!this.open) return;
          this.transport.writeItems(out);
          this.itemsSent.inc(out.length);
          if (committedAtMs !== undefined) {
            const seconds = Math.max(0, Date.now() - committedAtMs) / 1000;
            for (let i = 0; i < out.length; i++) this.deliveryLatency.observe(seconds);
          }
        }
        // The updates the party, template or activity filter left out since: the cursor (and a heartbeat's id) moves past them.
        if (skip && !unavailable) this.reader.skipTo(skip);
        if (this.snapshots && this.reader.cursor) await this.sendSnapshots(db, this.snapshots, this.reader.cursor);
        if (!this.open) return;
        if (unavailable) {
          return this.end(
            'encoding_unavailable',
            `protobuf_json is not available for update ${unavailable.updateId}: it was ingested without that encoding. Use compact_json.`,
          );
        }
        const { maxBufferBytes, slowConsumerMs } = this.settings;
        if (this.transport.buffered > maxBufferBytes && !(await this.transport.drained(maxBufferBytes, slowConsumerMs))) {
          return this.end(
            'slow_consumer',
            `The connection took too little of the stream: more than ${Math.round(maxBufferBytes / 1024)} KB stayed unsent for ${slowConsumerMs} ms. Resume after the cursor given.`,
          );
        }
        // Catching up: the next page at once; its items are not fresh from a commit.
        committedAtMs = undefined;
        if (more) continue;
        committedAtMs = await this.hub.waitForChange(generation, this.aborted.signal);
      }
    } catch (err) {
      this.end('failed', `The stream failed: ${(err as Error).message}. Resume after the cursor given.`);
    } finally {
      this.hub.leave(this);
    }
  }
}

function refuse(res: Response): void {
  res.set('Retry-After', String(RETRY_AFTER_SECONDS));
  sendJson(res, { error: 'Too many live streams are open on this server, or it is stopping: try again after Retry-After.' }, 503);
}

/** Streams over WebSocket go one way: a client's messages are ignored, and kept small. */
const webSockets = new WebSocketServer({ noServer: true, clientTracking: false, perMessageDeflate: false, maxPayload: 4096 });

/** The connection as a WebSocket; undefined when the handshake was refused (answered 400 by the library) or the client went. */
function acceptWebSocket(req: Request, upgrade: Upgrade): Promise<WebSocket | undefined> {
  return new Promise((resolve) => {
    const gone = () => resolve(undefined);
    upgrade.socket.once('close', gone);
    webSockets.handleUpgrade(req, upgrade.socket, upgrade.head, (ws) => {
      upgrade.socket.off('close', gone);
      resolve(ws);
    });
  });
}

/** The resume cursor: Last-Event-ID first (EventSource sends it on reconnection, with the URL it first used), then `after`. */
function resumeCursor(req: Request, after: string | undefined): StreamCursor | undefined {
  const header = req.get('last-event-id');
  const text = header !== undefined && header !== '' ? header : after;
  if (text === undefined || text === '') return undefined;
  const parsed = parseStreamCursor(text);
  if (typeof parsed === 'string') throw badRequest(`Invalid cursor ${JSON.stringify(text)}: ${parsed}`);
  return parsed;
}

const streamEvents = operation({
  method: 'get',
  path: '/v0/stream/events',
  summary:
    'The /v0/events items as they are ingested, as Server-Sent Events: each message one item in the bytes POST /api/scan/v0/events serves, its id the cursor to resume after.',
  description:
    'Events: items (no event name; data = the item, id = its cursor), with snapshots=true `snapshot` (data: an announced ACS snapshot, as GET /api/indexer/v0/acs-snapshots lists it; no id), `heartbeat` every STREAM_HEARTBEAT_SECONDS (data {"migration_id", "record_time"}: the position of the newest item stored, null while there is none; its id is the cursor when a filter left items out since the last id), and a last event before the server closes the stream: `error` (data {"error", "reason", "after"}; reason slow_consumer, history_gone, encoding_unavailable or failed; `after` is the cursor to resume after, for history_gone (a cursor older than the retained history) the oldest one the stream can resume after, with "history_start" and no event id) or `reconnect` (data {"reason": "shutdown", "message", "after"}). Resume with after=<cursor> or Last-Event-ID: the items after it are read from the database first, then live ones follow, without a gap or a duplicate. The same stream is served over WebSocket at this path (Upgrade: websocket), one JSON text frame per message: {"id", "item"} for an item (its bytes as the list serves them), {"event", ...the data fields} for the others; 400 and 503 are answered before the upgrade.',
  request: { query: EventsStreamQuery },
  responses: {
    '200': {
      description: 'The stream (text/event-stream); it ends only with a last error or reconnect event, or when the client goes.',
      content: { 'text/event-stream': { schema: { type: 'string' } } },
    },
    '400': { description: 'A malformed cursor, kind, encoding, party, template or activity kind.', body: ErrorResponse },
    '503': {
      description:
        'This process serves as many live streams as it takes (STREAM_MAX_SUBSCRIBERS) or is stopping, answered with Retry-After (seconds); or the history is not yet complete (a mirror backfilling), as for /v0/events.',
      body: ErrorResponse,
    },
  },
  handle: async ({ db, hub, metrics }: StreamServices, { query }, req, res) => {
    const given = resumeCursor(req, query.after);
    const kinds = query.kind === undefined ? undefined : new Set(Array.isArray(query.kind) ? query.kind : [query.kind]);
    const encoding = query.daml_value_encoding ?? 'compact_json';
    const list = (v: string | string[] | undefined) => [...new Set(v === undefined ? [] : Array.isArray(v) ? v : [v])];
    const filter: SubjectFilter = { parties: list(query.party), templates: list(query.template), activities: list(query.activity) };
    if (await historyIncomplete(db)) throw new HttpError(503, BACKFILLING_MESSAGE);
    // Without a cursor: after the newest item stored now (the whole history, if there is none yet).
    const tail = given ?? (await newestEventPosition(db));
    const filtered = filter.parties.length > 0 || filter.templates.length > 0 || filter.activities.length > 0;
    const reader = new EventReader(db, hub.reads, encoding, hub.settings.pageSize, tail, filtered ? filter : undefined);
    // Snapshot events: those announced after the stream's start, or after its cursor when resumed; the newest
    // announced one bounds both, as the client may have been sent those (before it went) but no later one.
    let snapshots: { after: StreamKey | undefined } | undefined;
    if (query.snapshots === 'true') {
      const newest = await newestSnapshotPosition(db);
      snapshots = { after: given && (!newest || compareStreamKeys(given, newest) < 0) ? keyOf(given) : newest };
    }
    const upgrade = upgradeOf(req);
    req.socket.setNoDelay(true);
    req.socket.setTimeout(0);
    if (upgrade) {
      // Refused before the upgrade, so that the client sees the 503 and its Retry-After.
      if (!hub.admits('events')) return refuse(res);
      const ws = await acceptWebSocket(req, upgrade);
      if (!ws) return;
      const subscription = new EventsSubscription(new WebSocketTransport(ws), hub, metrics, reader, kinds, snapshots);
      // Only if the server began to stop meanwhile.
      if (!hub.join(subscription)) return void ws.close(1013, 'The server is stopping: try again.');
      await subscription.run(db, given !== undefined);
      return;
    }
    const sse = new SseTransport(res);
    const subscription = new EventsSubscription(sse, hub, metrics, reader, kinds, snapshots);
    if (!hub.join(subscription)) return refuse(res);
    sse.start();
    await subscription.run(db, given !== undefined);
  },
});

export const streamOperations: readonly OperationOf<StreamServices>[] = [streamEvents];

/** The process's hub, made once (createApp ends its streams when the server closes). */
function streamHubOf(context: ApiContext): StreamHub {
  context.streams ??= new StreamHub({
    pool: context.pool,
    db: primaryDbOf(context),
    logger: context.logger,
    metrics: context.metrics,
    settings: context.config.stream,
    replicas: context.replicas,
  });
  return context.streams;
}

export function streamRouter(context: ApiContext): Router {
  // Reads go to the primary: a notice announces what the primary has committed. With read replicas, what
  // is read there is sent once the replicas in use have replayed it (StreamHub.replayed).
  return mountOperations(expressRouter(), streamOperations, {
    db: primaryDbOf(context),
    hub: streamHubOf(context),
    metrics: context.metrics,
  });
}
