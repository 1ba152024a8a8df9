/**
 * A fake upstream Scan serving `POST /api/scan/v0/events` from a list of
 * canonical items with Scan's paging rules (docs/interfaces.md, "Scan: events"): elements
 * strictly after (M, T) are those of migration M after T and all of later
 * migrations; only the first `visible` items exist yet (Scan's cap), and a
 * rendering is chosen by daml_value_encoding. Import updates (record time
 * 0001-01-01) are left out of /v0/events and served, as Scan's v1 items, by
 * `POST /api/scan/v0/backfilling/import-updates` (by update id) and
 * `GET /api/scan/v2/updates/{update_id}`; migration-info tells whether they are complete.
 */
import { servedEventItem, updateMigrationId, type CanonicalItem } from '../../../src/domain/items';
import { IMPORT_RECORD_TIME_ISO, parseTimestamp } from '../../../src/domain/time';
import { startFakeServer, type FakeServer } from './fake-server';

export interface FakeScan extends FakeServer {
  /** How many of the items Scan has so far (grows in live tests). */
  visible: number;
  /** Answer protobuf_json requests with this status instead (an upstream that cannot render it). */
  protobufStatus?: number;
  /** Answer import-updates in protobuf_json whatever daml_value_encoding asks (as Scan does). */
  importsProtobufOnly?: boolean;
  /** migration-info's import_updates_complete (default true). */
  importsComplete?: boolean;
}

const isImport = (item: CanonicalItem) => item.update?.record_time === IMPORT_RECORD_TIME_ISO;

/** Scan's v1 item: offset "000000000000000001" after effective_at. */
function v1(update: object): object {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(update)) {
    out[k] = v;
    if (k === 'effective_at') out.offset = '000000000000000001';
  }
  return out;
}

interface ImportUpdatesRequest {
  migration_id: number;
  after_update_id: string;
  limit: number;
  daml_value_encoding?: 'compact_json' | 'protobuf_json';
}

function keyOf(item: CanonicalItem): [number, bigint] {
  if (item.update) return [updateMigrationId(item.update), parseTimestamp(item.update.record_time)];
  if (item.verdict) return [item.verdict.migration_id, parseTimestamp(item.verdict.record_time)];
  throw new Error('item without update or verdict');
}

interface EventsRequest {
  page_size: number;
  after?: { after_migration_id: number; after_record_time: string };
  daml_value_encoding?: 'compact_json' | 'protobuf_json';
}

export async function startFakeScan(items: readonly CanonicalItem[]): Promise<FakeScan> {
  // Assigned below; the handler reads the live settings tests change.
  // eslint-disable-next-line prefer-const -- declared before the handler that reads it
  let scan!: FakeScan;
  const server = await startFakeServer((request) => {
    const visible = items.slice(0, scan.visible);
    if (request.method === 'POST' && request.path === '/api/scan/v0/backfilling/import-updates') {
      const body = request.body as ImportUpdatesRequest;
      const encoding = scan.importsProtobufOnly ? 'protobuf_json' : (body.daml_value_encoding ?? 'protobuf_json');
      const page = visible
        .filter(
          (item) =>
            isImport(item) && updateMigrationId(item.update!) === body.migration_id && item.update!.update_id > body.after_update_id,
        )
        .sort((a, b) => (a.update!.update_id < b.update!.update_id ? -1 : 1))
        .slice(0, body.limit)
        .map((item) => v1(servedEventItem(item, encoding).update!));
      return { body: { transactions: page } };
    }
    if (request.method === 'POST' && request.path === '/api/scan/v0/backfilling/migration-info') {
      const m = (request.body as { migration_id: number }).migration_id;
      const imports = visible
        .filter((item) => isImport(item) && updateMigrationId(item.update!) === m)
        .map((i) => i.update!.update_id)
        .sort();
      return {
        body: {
          previous_migration_id: m > 0 ? m - 1 : null,
          record_time_range: [],
          last_import_update_id: imports.at(-1) ?? null,
          complete: true,
          import_updates_complete: scan.importsComplete ?? true,
        },
      };
    }
    const byId = /^\/api\/scan\/v2\/updates\/([^/]+)$/.exec(request.path);
    if (request.method === 'GET' && byId) {
      const item = visible.find((i) => i.update && 'events_by_id' in i.update && i.update.update_id === byId[1]);
      if (!item) return { status: 404, body: { error: `Transaction with id ${byId[1]} not found` } };
      return { body: servedEventItem(item, (request.query.get('daml_value_encoding') as 'compact_json') ?? 'compact_json').update };
    }
    if (request.method !== 'POST' || request.path !== '/api/scan/v0/events') return { status: 404, body: { error: 'not found' } };
    const body = request.body as EventsRequest;
    const encoding = body.daml_value_encoding ?? 'compact_json';
    if (encoding === 'protobuf_json' && scan.protobufStatus) return { status: scan.protobufStatus, body: { error: 'no protobuf' } };
    if (!(body.page_size >= 1 && body.page_size <= 1000)) return { status: 400, body: { error: 'Limit must be at least 1.' } };
    const after = body.after && { m: body.after.after_migration_id, t: parseTimestamp(body.after.after_record_time) };
    const page = visible
      .filter((item) => !isImport(item))
      .filter((item) => {
        if (!after) return true;
        const [m, t] = keyOf(item);
        return (m === after.m && t > after.t) || m > after.m;
      })
      .slice(0, body.page_size)
      .map((item) => servedEventItem(item, encoding));
    return { body: { events: page } };
  });
  scan = Object.assign(server, { visible: items.length });
  return scan;
}
