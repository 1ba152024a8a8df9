/**
 * A simulated two-migration network for the update-history tests, and the
 * answers Scan would give for it computed from the simulator items alone
 * (sorting and rendering here, never through the repository code).
 */
import type { CanonicalItem, TransactionUpdate, Update } from '../../../src/domain/items';
import { ingestItems } from '../../support/ingest';
import type { SourceItem } from '../../../src/ingest/source';
import type { Db } from '../../../src/store/pool';
import { parseTimestamp } from '../../../src/domain/time';
import { dateTime } from '../../support/replays/live-acs';
import { simulatedItems } from '../../support/items/simulated-network';

export type Encoding = 'compact_json' | 'protobuf_json';

const IMPORT_TIME = '0001-01-01T00:00:00.000000Z';

/** Enough updates for external hashes, reassignments, rejections and app activity in both migrations. */
export function historyItems(): CanonicalItem[] {
  return simulatedItems({ seed: 'history-20', updates: 450, migrations: 2 });
}

export async function loadItems(db: Db, items: CanonicalItem[], stream = 'test', batchSize = 250): Promise<void> {
  const source: SourceItem[] = items.map((item, i) => ({ item, position: String(i + 1), origin: `item ${i}` }));
  await ingestItems(db, stream, source, { batchSize });
}

export const isTx = (u: Update): u is TransactionUpdate => 'events_by_id' in u;
export const migrationOf = (u: Update) => (isTx(u) ? u.migration_id : u.event.migration_id);
export const synchronizerOf = (u: Update) =>
  isTx(u) ? u.synchronizer_id : 'created_event' in u.event ? u.event.target_synchronizer : u.event.source_synchronizer;
export const isImport = (item: CanonicalItem) => item.update?.record_time === IMPORT_TIME;

export interface Keyed {
  item: CanonicalItem;
  migrationId: number;
  recordTime: bigint;
  synchronizerId: string;
  updateId: string;
}

export function keyed(item: CanonicalItem): Keyed {
  if (item.update) {
    return {
      item,
      migrationId: migrationOf(item.update),
      recordTime: parseTimestamp(item.update.record_time),
      synchronizerId: synchronizerOf(item.update),
      updateId: item.update.update_id,
    };
  }
  const v = item.verdict!;
  return {
    item,
    migrationId: v.migration_id,
    recordTime: parseTimestamp(v.record_time),
    synchronizerId: v.domain_id,
    updateId: v.update_id,
  };
}

export function byKey(a: Keyed, b: Keyed): number {
  if (a.migrationId !== b.migrationId) return a.migrationId - b.migrationId;
  if (a.recordTime !== b.recordTime) return a.recordTime < b.recordTime ? -1 : 1;
  if (a.synchronizerId !== b.synchronizerId) return a.synchronizerId < b.synchronizerId ? -1 : 1;
  return a.updateId < b.updateId ? -1 : 1;
}

/** Scan's "strictly after (M, T)": migration M after T, and every later migration. */
export const after = (k: Keyed, m: number, t: bigint) => (k.migrationId === m && k.recordTime > t) || k.migrationId > m;

/**
 * The v2 update item as served in an encoding: the simulator's rendering, with
 * external_transaction_hash (when the update has one) as the last key.
 */
export function expectedUpdate(item: CanonicalItem, encoding: Encoding): Record<string, unknown> {
  const update = item.update!;
  const base = encoding === 'protobuf_json' && item.update_protobuf_json ? item.update_protobuf_json : update;
  const { external_transaction_hash: _dropped, ...rest } = base as TransactionUpdate;
  const hash = (update as TransactionUpdate).external_transaction_hash;
  return hash === undefined ? rest : { ...rest, external_transaction_hash: hash };
}

export function expectedEvent(item: CanonicalItem, encoding: Encoding): Record<string, unknown> {
  return {
    update: item.update ? expectedUpdate(item, encoding) : null,
    verdict: item.verdict,
    traffic_summary: item.traffic_summary,
    app_activity_records: item.app_activity_records,
  };
}

/** The v1 item of an import update: offset "000000000000000001" after effective_at. */
export function expectedV1(item: CanonicalItem, encoding: Encoding): Record<string, unknown> {
  const u = expectedUpdate(item, encoding);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(u)) {
    out[k] = v;
    if (k === 'effective_at') out.offset = '000000000000000001';
  }
  return out;
}

/** Non-import updates in the network's order. */
export function orderedUpdates(items: CanonicalItem[]): Keyed[] {
  return items
    .filter((i) => i.update && !isImport(i))
    .map(keyed)
    .sort(byKey);
}

/** Events (updates and rejections) in the network's order. */
export function orderedEvents(items: CanonicalItem[]): Keyed[] {
  return items
    .filter((i) => !isImport(i))
    .map(keyed)
    .sort(byKey);
}

/** GetMigrationInfoResponse for a migration, from the items. */
export function expectedMigrationInfo(items: CanonicalItem[], migrationId: number): Record<string, unknown> | undefined {
  const live = orderedUpdates(items).filter((k) => k.migrationId === migrationId);
  if (live.length === 0) return undefined;
  // Record times as the items carry them (six fractional digits, Z), rendered by the test's own formatter.
  const ranges = new Map<string, { min: bigint; max: bigint; minText: string; maxText: string }>();
  for (const k of live) {
    const text = k.item.update!.record_time;
    const r = ranges.get(k.synchronizerId);
    if (!r) ranges.set(k.synchronizerId, { min: k.recordTime, max: k.recordTime, minText: text, maxText: text });
    else {
      if (k.recordTime < r.min) Object.assign(r, { min: k.recordTime, minText: text });
      if (k.recordTime > r.max) Object.assign(r, { max: k.recordTime, maxText: text });
    }
  }
  const earlier = items.filter((i) => i.update && migrationOf(i.update) < migrationId).map((i) => migrationOf(i.update!));
  const imports = items
    .filter((i) => isImport(i) && migrationOf(i.update!) === migrationId)
    .map((i) => i.update!.update_id)
    .sort();
  return {
    previous_migration_id: earlier.length ? Math.max(...earlier) : null,
    record_time_range: [...ranges.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([synchronizer_id, r]) => ({ synchronizer_id, min: dateTime(r.minText), max: dateTime(r.maxText) })),
    last_import_update_id: imports.at(-1) ?? null,
    complete: true,
    import_updates_complete: true,
  };
}
