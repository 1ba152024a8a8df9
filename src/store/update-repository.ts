/**
 * All SQL of the update-history endpoints (docs/interfaces.md, "Scan: update history"):
 * updates, verdicts, traffic summaries and app-activity records read back as
 * the JSON text the writer stored, never parsed here. Every list is a keyset
 * page on (migration_id, record_time, synchronizer_id, update_id) over an
 * index; no OFFSET, no scan of a whole table.
 */
import { sql, type RawBuilder } from 'kysely';
import type { DamlValueEncoding } from '../domain/value-encoding';
import type { Db } from './pool';
import { decodePayloadPart } from './update-payload';
import { compareStreamKeys, type StreamKey } from '../domain/stream-key';
import { formatRecordTime, fromPgTimestamp, type Micros } from '../domain/time';
import { firstOfRanges, rangesAfter, rangesBetween } from './keyset';
import { repositoryOperation } from './query-operation';

/** Record time of import updates, as a literal so the planner matches the partial indexes. */
const IMPORT_TIME = sql.raw(`'0001-01-01 00:00:00+00'::timestamptz`);

export interface StoredUpdate {
  updateId: string;
  migrationId: number;
  recordTime: Micros;
  synchronizerId: string;
  kind: 'transaction' | 'assignment' | 'unassignment';
  externalTransactionHash: string | null;
  /**
   * The stored v2 item in the requested encoding; null when protobuf_json was asked for and the
   * source gave only compact_json (an unassignment carries no Daml values: both are the same).
   */
  json: string | null;
}

/** A position strictly after which a list continues: (migration id, record time). */
export type HistoryCursor = StreamKey;

/** Where an event sits: an update, or a verdict without an update (a rejection). */
export interface EventRow {
  update: StoredUpdate | undefined;
  updateId: string;
  migrationId: number;
  recordTime: Micros;
  synchronizerId: string;
  verdictJson: string | null;
  trafficJson: string | null;
  appActivityJson: string | null;
}

interface UpdateDbRow extends StoredJsonColumns {
  update_id: string;
  migration_id: number;
  record_time: string;
  synchronizer_id: string;
  kind: StoredUpdate['kind'];
  external_transaction_hash: string | null;
}

/** The stored JSON of an update: its payload, or the text columns of rows written before payload existed. */
export interface StoredJsonColumns {
  payload: Buffer | null;
  payload_compact_length: number | null;
  json_compact: string | null;
  json_protobuf: string | null;
}

const STORED_JSON_COLUMNS = sql`u.payload, u.payload_compact_length, u.json_compact, u.json_protobuf`;

/**
 * The update's JSON in `encoding`; null when protobuf_json was asked for and the
 * source gave only compact_json (an unassignment carries no Daml values: both are the same).
 */
export function storedJson(r: StoredJsonColumns & { kind: string }, encoding: DamlValueEncoding): string | null {
  const stored = r.payload !== null && r.payload_compact_length !== null;
  const compactJson = () => (stored ? decodePayloadPart(r.payload!, r.payload_compact_length!, 'compact')! : (r.json_compact ?? ''));
  if (encoding === 'compact_json') return compactJson();
  const protobufJson = stored ? decodePayloadPart(r.payload!, r.payload_compact_length!, 'protobuf') : r.json_protobuf;
  return protobufJson ?? (r.kind === 'unassignment' ? compactJson() : null);
}

const updateColumns = sql`u.update_id, u.migration_id, u.record_time, u.synchronizer_id, u.kind, u.external_transaction_hash, ${STORED_JSON_COLUMNS}`;

function toStored(r: UpdateDbRow, encoding: DamlValueEncoding): StoredUpdate {
  return {
    updateId: r.update_id,
    migrationId: r.migration_id,
    recordTime: fromPgTimestamp(r.record_time),
    synchronizerId: r.synchronizer_id,
    kind: r.kind,
    externalTransactionHash: r.external_transaction_hash,
    json: storedJson(r, encoding),
  };
}

/** Strictly after (M, T): migration M after T, then every later migration from its beginning (./keyset.ts). */
function afterCursorRanges(
  column: { migration: RawBuilder<unknown>; recordTime: RawBuilder<unknown> },
  after: HistoryCursor | undefined,
): RawBuilder<unknown>[] {
  return rangesAfter(
    { migration: column.migration, rest: column.recordTime },
    after && { migrationId: after.migrationId, rest: sql`${formatRecordTime(after.recordTime)}::timestamptz` },
  );
}

const UPDATE_ORDER = ['migration_id', 'record_time', 'synchronizer_id', 'update_id'] as const;

/** A transaction by update id, import updates included; reassignments are not looked up by id (Scan's getUpdate). */
export const findTransactionById = repositoryOperation(
  'findTransactionById',
  async function findTransactionById(db: Db, updateId: string, encoding: DamlValueEncoding): Promise<StoredUpdate | undefined> {
    const { rows } = await sql<UpdateDbRow>`
    select ${updateColumns} from updates u
    where u.update_id = ${updateId} and u.kind = 'transaction'`.execute(db);
    return rows[0] && toStored(rows[0], encoding);
  },
);

/** A transaction by its external transaction hash (lowercase hex). */
export const findTransactionByHash = repositoryOperation(
  'findTransactionByHash',
  async function findTransactionByHash(db: Db, hash: string, encoding: DamlValueEncoding): Promise<StoredUpdate | undefined> {
    const { rows } = await sql<UpdateDbRow>`
    select ${updateColumns} from updates u
    where u.external_transaction_hash = ${hash} and u.kind = 'transaction'
    order by u.migration_id, u.record_time, u.update_id
    limit 1`.execute(db);
    return rows[0] && toStored(rows[0], encoding);
  },
);

/** A page of non-import updates after the cursor, in the network's order. */
export const listUpdates = repositoryOperation(
  'listUpdates',
  async function listUpdates(
    db: Db,
    after: HistoryCursor | undefined,
    limit: number,
    encoding: DamlValueEncoding,
  ): Promise<StoredUpdate[]> {
    const ranges = afterCursorRanges({ migration: sql`u.migration_id`, recordTime: sql`u.record_time` }, after);
    const page = firstOfRanges(
      ranges,
      (range) => sql`select ${updateColumns} from updates u where ${range} and u.record_time > ${IMPORT_TIME}`,
      { alias: 'u', columns: UPDATE_ORDER },
      limit,
    );
    const { rows } = await sql<UpdateDbRow>`${page}`.execute(db);
    return rows.map((r) => toStored(r, encoding));
  },
);

/** A stored update's compact JSON and key, as the backfills read them (readUpdatesBetween). */
export interface StoredUpdateText {
  key: UpdatePosition;
  kind: string;
  /** The compact JSON; undefined for a reassignment when only transactions were asked for. */
  compactJson: string | undefined;
}

/**
 * The live updates after `position` (from the start without one) up to `end` (inclusive), in the stream's
 * order, `limit` at a time, as the backfills of the projections walk the history: the ranges after the
 * position (./keyset.ts), each bounded by `end`. With `transactionsOnly`, a reassignment's payload is
 * not read.
 */
export const readUpdatesBetween = repositoryOperation(
  'readUpdatesBetween',
  async function readUpdatesBetween(
    db: Db,
    position: UpdatePosition | undefined,
    end: UpdatePosition,
    limit: number,
    transactionsOnly: boolean,
  ): Promise<StoredUpdateText[]> {
    const at = (p: UpdatePosition) => sql`${formatRecordTime(p.recordTime)}::timestamptz, ${p.synchronizerId}::text, ${p.updateId}::text`;
    const stored = transactionsOnly
      ? sql`case when u.kind = 'transaction' then u.payload end as payload, u.payload_compact_length,
          case when u.kind = 'transaction' then u.json_compact end as json_compact`
      : sql`u.payload, u.payload_compact_length, u.json_compact`;
    const page = firstOfRanges(
      rangesBetween(
        { migration: sql`u.migration_id`, rest: sql`(u.record_time, u.synchronizer_id, u.update_id)` },
        position && { migrationId: position.migrationId, rest: sql`(${at(position)})` },
        { migrationId: end.migrationId, rest: sql`(${at(end)})` },
      ),
      (range) => sql`select u.migration_id, u.record_time, u.synchronizer_id, u.update_id, u.kind, ${stored},
          null::text as json_protobuf
        from updates u
        where u.record_time > ${IMPORT_TIME} and ${range}`,
      { alias: 'u', columns: UPDATE_ORDER },
      limit,
    );
    const { rows } = await sql<
      StoredJsonColumns & { kind: string; migration_id: number; record_time: string; synchronizer_id: string; update_id: string }
    >`${page}`.execute(db);
    return rows.map((r) => ({
      key: {
        migrationId: r.migration_id,
        recordTime: fromPgTimestamp(r.record_time),
        synchronizerId: r.synchronizer_id,
        updateId: r.update_id,
      },
      kind: r.kind,
      compactJson: transactionsOnly && r.kind !== 'transaction' ? undefined : storedJson(r, 'compact_json')!,
    }));
  },
);

/** Import updates of one migration with update id > afterUpdateId, by update id. */
/** Which updates `/v0/backfilling/updates-before` lists: one migration and synchronizer, record times in [atOrAfter, before). */
export interface UpdatesBeforeQuery {
  migrationId: number;
  synchronizerId: string;
  before: Micros;
  /** Without it, import updates are left out (Scan's `record_time > MinValue`). */
  atOrAfter: Micros | undefined;
}

/** Up to `limit` updates before a record time, newest first (how a peer Scan backfills history). */
export const listUpdatesBefore = repositoryOperation(
  'listUpdatesBefore',
  async function listUpdatesBefore(db: Db, q: UpdatesBeforeQuery, limit: number, encoding: DamlValueEncoding): Promise<StoredUpdate[]> {
    const lower =
      q.atOrAfter === undefined ? sql`u.record_time > ${IMPORT_TIME}` : sql`u.record_time >= ${formatRecordTime(q.atOrAfter)}::timestamptz`;
    const { rows } = await sql<UpdateDbRow>`
    select ${updateColumns} from updates u
    where u.migration_id = ${q.migrationId} and u.synchronizer_id = ${q.synchronizerId}
      and u.record_time < ${formatRecordTime(q.before)}::timestamptz and ${lower}
    order by u.record_time desc, u.update_id desc
    limit ${limit}`.execute(db);
    return rows.map((r) => toStored(r, encoding));
  },
);

export const listImportUpdates = repositoryOperation(
  'listImportUpdates',
  async function listImportUpdates(
    db: Db,
    migrationId: number,
    afterUpdateId: string,
    limit: number,
    encoding: DamlValueEncoding,
  ): Promise<StoredUpdate[]> {
    const { rows } = await sql<UpdateDbRow>`
    select ${updateColumns} from updates u
    where u.migration_id = ${migrationId} and u.record_time = ${IMPORT_TIME} and u.update_id > ${afterUpdateId}
    order by u.update_id
    limit ${limit}`.execute(db);
    return rows.map((r) => toStored(r, encoding));
  },
);

interface Side {
  verdicts: Map<string, string>;
  traffic: Map<string, string>;
  appActivity: Map<string, string>;
}

/** Where an event sits: traffic summaries and activity records are keyed by it. */
type EventPosition = Pick<EventRow, 'updateId' | 'migrationId' | 'recordTime' | 'synchronizerId'>;

async function sideData(db: Db, events: EventPosition[]): Promise<Side> {
  if (events.length === 0) return { verdicts: new Map(), traffic: new Map(), appActivity: new Map() };
  const keys = sql`unnest(${events.map((e) => e.migrationId)}::bigint[], ${events.map((e) => formatRecordTime(e.recordTime))}::timestamptz[],
      ${events.map((e) => e.synchronizerId)}::text[], ${events.map((e) => e.updateId)}::text[])
      as k(migration_id, record_time, synchronizer_id, update_id)`;
  // A verdict has its update's record time (Splice's ScanEventStore.getEvents merges the two by it):
  // looked up by its whole key, each in the one partition it can be in.
  const [verdicts, traffic, appActivity] = await Promise.all([
    sql<{ update_id: string; json: string }>`
      select v.update_id, v.json from ${keys}
      join verdicts v on v.update_id = k.update_id and v.migration_id = k.migration_id and v.record_time = k.record_time`.execute(db),
    sql<{ update_id: string; json: string }>`
      select t.update_id, t.json from ${keys} join traffic_summaries t
        on t.migration_id = k.migration_id and t.record_time = k.record_time and t.synchronizer_id = k.synchronizer_id
      where t.update_id is not null`.execute(db),
    sql<{ update_id: string; json: string }>`
      select a.update_id, a.json from ${keys} join app_activity_records a
        on a.migration_id = k.migration_id and a.record_time = k.record_time and a.synchronizer_id = k.synchronizer_id
      where a.update_id is not null`.execute(db),
  ]);
  const byId = (rows: { update_id: string; json: string }[]) => new Map(rows.map((r) => [r.update_id, r.json]));
  return { verdicts: byId(verdicts.rows), traffic: byId(traffic.rows), appActivity: byId(appActivity.rows) };
}

function eventRow(base: Omit<EventRow, 'verdictJson' | 'trafficJson' | 'appActivityJson'>, side: Side): EventRow {
  return {
    ...base,
    verdictJson: side.verdicts.get(base.updateId) ?? null,
    trafficJson: side.traffic.get(base.updateId) ?? null,
    appActivityJson: side.appActivity.get(base.updateId) ?? null,
  };
}

/**
 * The event of an update id: its transaction (if any) with the verdict, traffic and activity of
 * that id, in one statement (the traffic and activity rows by the event's key).
 */
export const findEvent = repositoryOperation(
  'findEvent',
  async function findEvent(db: Db, updateId: string, encoding: DamlValueEncoding): Promise<EventRow | undefined> {
    const { rows } = await sql<
      Partial<UpdateDbRow> &
        StoredJsonColumns & {
          found_update: boolean;
          event_migration_id: number | null;
          event_record_time: string | null;
          event_synchronizer_id: string | null;
          verdict_json: string | null;
          traffic_json: string | null;
          activity_json: string | null;
        }
    >`
    select u.update_id is not null as found_update, ${updateColumns},
      coalesce(u.migration_id, v.migration_id) as event_migration_id,
      coalesce(u.record_time, v.record_time) as event_record_time,
      coalesce(u.synchronizer_id, v.domain_id) as event_synchronizer_id,
      v.json as verdict_json, t.json as traffic_json, a.json as activity_json
    from (select ${updateId}::text as update_id) k
    left join updates u on u.update_id = k.update_id and u.kind = 'transaction'
    left join verdicts v on v.update_id = k.update_id
    left join traffic_summaries t on t.migration_id = coalesce(u.migration_id, v.migration_id)
      and t.record_time = coalesce(u.record_time, v.record_time)
      and t.synchronizer_id = coalesce(u.synchronizer_id, v.domain_id) and t.update_id = k.update_id
    left join app_activity_records a on a.migration_id = coalesce(u.migration_id, v.migration_id)
      and a.record_time = coalesce(u.record_time, v.record_time)
      and a.synchronizer_id = coalesce(u.synchronizer_id, v.domain_id) and a.update_id = k.update_id`.execute(db);
    const r = rows[0];
    if (!r || r.event_migration_id === null) return undefined;
    return {
      update: r.found_update ? toStored(r as UpdateDbRow, encoding) : undefined,
      updateId,
      migrationId: r.event_migration_id,
      recordTime: fromPgTimestamp(r.event_record_time!),
      synchronizerId: r.event_synchronizer_id!,
      verdictJson: r.verdict_json,
      trafficJson: r.traffic_json,
      appActivityJson: r.activity_json,
    };
  },
);

interface VerdictKeyRow {
  update_id: string;
  migration_id: number;
  record_time: string;
  domain_id: string;
}

/** Sort key of an event: the network's order, then synchronizer and update id. */
export interface EventKey extends StreamKey {
  synchronizerId: string;
  updateId: string;
}

function compareEventKeys(a: EventKey, b: EventKey): number {
  const byStream = compareStreamKeys(a, b);
  if (byStream !== 0) return byStream;
  if (a.synchronizerId !== b.synchronizerId) return a.synchronizerId < b.synchronizerId ? -1 : 1;
  return a.updateId < b.updateId ? -1 : a.updateId > b.updateId ? 1 : 0;
}

/**
 * A page of events after the cursor: non-import updates merged with verdicts
 * that have no update (rejections), each with its verdict, traffic summary
 * and activity records. `keyOf` turns a stored row's position into a sort key.
 */
export const listEvents = repositoryOperation(
  'listEvents',
  async function listEvents(db: Db, after: HistoryCursor | undefined, limit: number, encoding: DamlValueEncoding): Promise<EventRow[]> {
    // The verdict-only events are read after the updates, so some may come from a batch committed between
    // the two statements, whose earlier updates the first did not see; the next page (after this one's
    // last event) would never serve those. Batches are committed in key order: such a batch has nothing
    // before the record time of the newest update the first statement saw. So when a verdict-only event
    // is at or after the last update's record time (or no update was read), both are read again from one
    // snapshot (a read-only repeatable-read transaction). That is rare: a full page's verdicts are bounded
    // by its last update, and at the live edge it takes a rejection after the last update. The side data
    // is read after, outside: it is committed with its event.
    let { updates, verdictOnly } = await updatesAndVerdictOnly(db, after, limit, encoding);
    if (mayHoldLaterBatch(updates, verdictOnly)) {
      ({ updates, verdictOnly } = await db
        .transaction()
        .setIsolationLevel('repeatable read')
        .setAccessMode('read only')
        .execute((trx) => updatesAndVerdictOnly(trx, after, limit, encoding)));
    }
    type Entry = { key: EventKey; base: Omit<EventRow, 'verdictJson' | 'trafficJson' | 'appActivityJson'> };
    const entries: Entry[] = [
      ...updates.map((u) => ({
        key: { migrationId: u.migrationId, recordTime: u.recordTime, synchronizerId: u.synchronizerId, updateId: u.updateId },
        base: { update: u, updateId: u.updateId, migrationId: u.migrationId, recordTime: u.recordTime, synchronizerId: u.synchronizerId },
      })),
      ...verdictOnly.map((v) => {
        const recordTime = fromPgTimestamp(v.record_time);
        return {
          key: { migrationId: v.migration_id, recordTime, synchronizerId: v.domain_id, updateId: v.update_id },
          base: { update: undefined, updateId: v.update_id, migrationId: v.migration_id, recordTime, synchronizerId: v.domain_id },
        };
      }),
    ];
    entries.sort((a, b) => compareEventKeys(a.key, b.key));
    const page = entries.slice(0, limit);
    const side = await sideData(
      db,
      page.map((e) => e.base),
    );
    return page.map((e) => eventRow(e.base, side));
  },
);

/** Whether a verdict-only event is at or after the record time of the last update (the updates in key order), or there is no update. */
function mayHoldLaterBatch(updates: readonly StoredUpdate[], verdictOnly: readonly VerdictKeyRow[]): boolean {
  if (verdictOnly.length === 0) return false;
  const last = updates[updates.length - 1];
  if (!last) return true;
  return verdictOnly.some(
    (v) => v.migration_id > last.migrationId || (v.migration_id === last.migrationId && fromPgTimestamp(v.record_time) >= last.recordTime),
  );
}

/** The non-import updates after the cursor, and the verdicts without an update that can be in the same page of `limit` events. */
async function updatesAndVerdictOnly(
  db: Db,
  after: HistoryCursor | undefined,
  limit: number,
  encoding: DamlValueEncoding,
): Promise<{ updates: StoredUpdate[]; verdictOnly: VerdictKeyRow[] }> {
  const updates = await listUpdates(db, after, limit, encoding);
  // Verdict-only events past a full page of updates cannot be in this page: bound the verdict walk there.
  const lastUpdate = updates.length === limit ? updates[updates.length - 1] : undefined;
  const verdictKey = { migration: sql`v.migration_id`, rest: sql`(v.record_time, v.domain_id, v.update_id)` };
  const verdictRanges = lastUpdate
    ? rangesBetween(
        verdictKey,
        after && {
          migrationId: after.migrationId,
          rest: sql`${formatRecordTime(after.recordTime)}::timestamptz`,
          restColumns: sql`v.record_time`,
        },
        {
          migrationId: lastUpdate.migrationId,
          rest: sql`(${formatRecordTime(lastUpdate.recordTime)}::timestamptz, ${lastUpdate.synchronizerId}::text, ${lastUpdate.updateId}::text)`,
        },
      )
    : afterCursorRanges({ migration: sql`v.migration_id`, recordTime: sql`v.record_time` }, after);
  const verdictPage = firstOfRanges(
    verdictRanges,
    (range) => sql`select v.update_id, v.migration_id, v.record_time, v.domain_id from verdicts v
        where ${range} and v.record_time > ${IMPORT_TIME}
          and not exists (select 1 from updates u
            where u.update_id = v.update_id and u.migration_id = v.migration_id and u.record_time = v.record_time)`,
    { alias: 'v', columns: ['migration_id', 'record_time', 'domain_id', 'update_id'] },
    limit,
  );
  const verdictOnly = await sql<VerdictKeyRow>`${verdictPage}`.execute(db);
  return { updates, verdictOnly: verdictOnly.rows };
}

/** The live stream's filters on an update's events (update_subjects): any of the parties, and any of the templates. */
export interface SubjectFilter {
  /** Empty: any party. */
  parties: readonly string[];
  /** Empty: any template. */
  templates: readonly string[];
  /** Empty: any update; else those with an activities row of one of these kinds. */
  activities: readonly string[];
}

/** An update's key in /v0/events' order. */
export type UpdatePosition = Pick<EventRow, 'migrationId' | 'recordTime' | 'synchronizerId' | 'updateId'>;

/**
 * The events after a cursor whose update names one of the parties and one of the templates (as
 * update_subjects stores them; a verdict without an update names none), up to `limit`, in /v0/events'
 * order, and `newest`: the newest live update stored as the same statement saw it, so that a reader
 * given fewer than `limit` events knows that nothing else up to there matches. Never reads a payload
 * it does not return: the keys come from update_subjects, walked in order or found by its GIN indexes.
 */
export const listEventsBySubject = repositoryOperation(
  'listEventsBySubject',
  async function listEventsBySubject(
    db: Db,
    after: HistoryCursor | undefined,
    limit: number,
    encoding: DamlValueEncoding,
    filter: SubjectFilter,
  ): Promise<{ rows: EventRow[]; newest: UpdatePosition | undefined }> {
    const conditions = [
      ...(filter.parties.length > 0 ? [sql`s.parties && ${[...filter.parties]}::text[]`] : []),
      ...(filter.templates.length > 0 ? [sql`s.templates && ${[...filter.templates]}::text[]`] : []),
      // A probe of the activities' primary key (migration_id, record_time, update_id, ...) per update walked.
      ...(filter.activities.length > 0
        ? [
            sql`exists (select 1 from activities a where a.migration_id = s.migration_id and a.record_time = s.record_time
              and a.update_id = s.update_id and a.kind = any(${[...filter.activities]}::text[]))`,
          ]
        : []),
    ];
    const { rows } = await sql<
      UpdateDbRow & { n_migration_id: number; n_record_time: string; n_synchronizer_id: string; n_update_id: string }
    >`
    with newest as (
      select migration_id, record_time, synchronizer_id, update_id from updates
      where record_time > ${IMPORT_TIME}
      order by migration_id desc, record_time desc, synchronizer_id desc, update_id desc limit 1
    ), matching as (${firstOfRanges(
      afterCursorRanges({ migration: sql`s.migration_id`, recordTime: sql`s.record_time` }, after),
      (range) => sql`select s.migration_id, s.record_time, s.synchronizer_id, s.update_id from update_subjects s
        where ${sql.join([range, ...conditions], sql` and `)}`,
      { alias: 's', columns: UPDATE_ORDER },
      limit,
    )})
    select ${updateColumns}, n.migration_id as n_migration_id, n.record_time as n_record_time,
      n.synchronizer_id as n_synchronizer_id, n.update_id as n_update_id
    from newest n left join lateral (
      select u.* from matching k join updates u on u.migration_id = k.migration_id and u.record_time = k.record_time
        and u.synchronizer_id = k.synchronizer_id and u.update_id = k.update_id
    ) u on true
    order by u.migration_id, u.record_time, u.synchronizer_id, u.update_id`.execute(db);
    const first = rows[0];
    if (!first) return { rows: [], newest: undefined };
    const newest = {
      migrationId: first.n_migration_id,
      recordTime: fromPgTimestamp(first.n_record_time),
      synchronizerId: first.n_synchronizer_id,
      updateId: first.n_update_id,
    };
    const updates = rows.filter((r) => r.update_id !== null).map((r) => toStored(r, encoding));
    const bases = updates.map((u) => ({
      update: u,
      updateId: u.updateId,
      migrationId: u.migrationId,
      recordTime: u.recordTime,
      synchronizerId: u.synchronizerId,
    }));
    const side = await sideData(db, bases);
    return { rows: bases.map((b) => eventRow(b, side)), newest };
  },
);

/** True while some migration is not yet held in full (Scan's backfilling gate, HttpScanHandler.confirmBackfillingIsCompleteThen). */
export const historyIncomplete = repositoryOperation('historyIncomplete', async function historyIncomplete(db: Db): Promise<boolean> {
  const { rows } = await sql<{ incomplete: boolean }>`
    select exists (select 1 from migrations where not complete) as incomplete`.execute(db);
  return rows[0]?.incomplete ?? false;
});

/**
 * The record time up to which /v0/events has every event of the newest migration: the newest update's
 * or verdict's, and where the migration has both, the older of the two (as Scan caps its events, so
 * that an update is not served before its verdict). Undefined when the newest migration has no events.
 */
export const latestEventRecordTime = repositoryOperation('latestEventRecordTime', async function latestEventRecordTime(db: Db): Promise<
  Micros | undefined
> {
  const { rows } = await sql<{ updates: string | null; verdicts: string | null }>`
      select
        (select u.record_time from updates u
          where u.migration_id = (select max(migration_id) from migrations) and u.record_time > ${IMPORT_TIME}
          order by u.record_time desc limit 1) as updates,
        (select v.record_time from verdicts v
          where v.migration_id = (select max(migration_id) from migrations) and v.record_time > ${IMPORT_TIME}
          order by v.record_time desc limit 1) as verdicts`.execute(db);
  const times = [rows[0]?.updates, rows[0]?.verdicts].filter((t): t is string => t != null).map(fromPgTimestamp);
  return times.length === 0 ? undefined : times.reduce((a, b) => (a < b ? a : b));
});
