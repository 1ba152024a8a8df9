/**
 * An independent replay of an item stream to the live contracts of each
 * migration, for tests that compute expected API answers without our
 * repository code: creates add, consuming exercises remove, assignments add
 * or move, unassignments leave the contract in flight (synchronizer null).
 * Also small renderers of the timestamp formats, written from the rules in
 * docs/interfaces.md ("Scan: JSON rendering and timestamps"), not from src/domain/time.ts.
 */
import type { CanonicalItem, CreatedEvent } from '../../../src/domain/items';
import type { Json } from '../../../src/domain/json';

export interface LiveContract {
  migrationId: number;
  event: CreatedEvent;
  synchronizerId: string | null;
  /** Position of the creating item in the stream, then of the event in it: ingestion order. */
  order: number;
  /** Record time at which the contract became live here. */
  recordTime: string;
  /** False for contracts imported over a hard migration or assigned: no creating update. */
  viaUpdate: boolean;
  /** The newest created-event blob the stream gave for the contract id, or ''. */
  blob: string;
}

export interface Replay {
  /** Highest migration id with an update. */
  currentMigration: number;
  /** Newest record time of a non-import update. */
  latestRecordTime: string;
  /** Live contracts of the current migration, in ingestion order. */
  live: LiveContract[];
}

const IMPORT_TIME = '0001-01-01T00:00:00.000000Z';

export function replay(items: CanonicalItem[]): Replay {
  const live = new Map<string, LiveContract>();
  let order = 0;
  let currentMigration = -1;
  let latestRecordTime = '';
  const blobs = new Map<string, string>();
  for (const item of items) {
    const u = item.update;
    if (!u) continue;
    for (const [cid, blob] of Object.entries(item.created_event_blobs ?? {})) blobs.set(cid, blob);
    if (u.record_time !== IMPORT_TIME && u.record_time > latestRecordTime) latestRecordTime = u.record_time;
    if ('events_by_id' in u) {
      currentMigration = Math.max(currentMigration, u.migration_id);
      const events = Object.values(u.events_by_id);
      for (const e of events) {
        if (e.event_type === 'created_event') {
          const viaUpdate = u.record_time !== IMPORT_TIME;
          const contract = {
            migrationId: u.migration_id,
            event: e,
            synchronizerId: u.synchronizer_id,
            order: order++,
            recordTime: u.record_time,
            viaUpdate,
            blob: '',
          };
          live.set(`${u.migration_id}/${e.contract_id}`, contract);
        }
      }
      for (const e of events) if (e.event_type === 'exercised_event' && e.consuming) live.delete(`${u.migration_id}/${e.contract_id}`);
    } else {
      const ev = u.event;
      currentMigration = Math.max(currentMigration, ev.migration_id);
      if ('created_event' in ev) {
        const key = `${ev.migration_id}/${ev.created_event.contract_id}`;
        const known = live.get(key);
        if (known) known.synchronizerId = ev.target_synchronizer;
        else
          live.set(key, {
            migrationId: ev.migration_id,
            event: ev.created_event,
            synchronizerId: ev.target_synchronizer,
            order: order++,
            recordTime: u.record_time,
            viaUpdate: false,
            blob: '',
          });
      } else {
        const known = live.get(`${ev.migration_id}/${ev.contract_id}`);
        if (known) known.synchronizerId = null;
      }
    }
  }
  return {
    currentMigration,
    latestRecordTime,
    // Ingestion order, except that contracts without a creating update (imports, assignments), whose
    // order depends on how a source lists them, go by contract id within their record time.
    live: [...live.values()]
      .filter((c) => c.migrationId === currentMigration)
      .map((c) => ({ ...c, blob: blobs.get(c.event.contract_id) ?? '' }))
      .sort(ingestionOrder),
  };
}

function ingestionOrder(a: LiveContract, b: LiveContract): number {
  if (a.recordTime !== b.recordTime) return a.recordTime < b.recordTime ? -1 : 1;
  if (!a.viaUpdate && !b.viaUpdate && a.event.contract_id !== b.event.contract_id)
    return a.event.contract_id < b.event.contract_id ? -1 : 1;
  return a.order - b.order;
}

/** Live contracts of "<Module>:<Entity>". */
export function ofTemplate(r: Replay, qualifiedName: string): LiveContract[] {
  return r.live.filter((c) => c.event.template_id.split(':').slice(1).join(':') === qualifiedName);
}

export function arg(c: LiveContract, ...path: string[]): Json {
  let v = c.event.create_arguments;
  for (const k of path) v = (v as Record<string, Json>)[k] as Json;
  return v;
}

const ISO = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?Z$/;

function split(iso: string): { base: string; micros: string } {
  const m = ISO.exec(iso);
  if (!m) throw new Error(`test helper: unexpected timestamp ${iso}`);
  return { base: m[1]!, micros: (m[2] ?? '').padEnd(6, '0') };
}

/** Timestamp form 4 (Daml Timestamp / ISO_INSTANT): fraction in groups of three, none when zero. */
export function isoInstant(iso: string): string {
  const { base, micros } = split(iso);
  if (micros === '000000') return `${base}Z`;
  return `${base}.${micros.endsWith('000') ? micros.slice(0, 3) : micros}Z`;
}

/** Timestamp form 3 (OpenAPI date-time): trailing zeros of the fraction stripped. */
export function dateTime(iso: string): string {
  const { base, micros } = split(iso);
  const fraction = micros.replace(/0+$/, '');
  return fraction ? `${base}.${fraction}Z` : `${base}Z`;
}

/** Microseconds since the epoch, for comparing times. */
export function micros(iso: string): bigint {
  const { base, micros: us } = split(iso);
  return BigInt(Date.parse(`${base}Z`)) * 1000n + BigInt(us);
}

/** The Contract JSON a Scan serves for a live contract, with the blob the stream gave ('' when none). */
export function expectedContract(c: LiveContract): unknown {
  return {
    template_id: c.event.template_id,
    contract_id: c.event.contract_id,
    payload: c.event.create_arguments,
    created_event_blob: c.blob,
    created_at: isoInstant(c.event.created_at),
  };
}
