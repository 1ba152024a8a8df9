/**
 * A fake upstream Scan serving `POST /api/scan/v0/events` from a list of
 * canonical items with Scan's paging rules (splice-scan.md §4.4): elements
 * strictly after (M, T) are those of migration M after T and all of later
 * migrations; only the first `visible` items exist yet (Scan's cap), and a
 * rendering is chosen by daml_value_encoding.
 */
import { servedEventItem, updateMigrationId, type CanonicalItem } from '../../../../src/domain/items';
import { parseTimestamp } from '../../../../src/domain/time';
import { startFakeServer, type FakeServer } from './fake-server';

export interface FakeScan extends FakeServer {
  /** How many of the items Scan has so far (grows in live tests). */
  visible: number;
  /** Answer protobuf_json requests with this status instead (an upstream that cannot render it). */
  protobufStatus?: number;
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
  let scan!: FakeScan;
  const server = await startFakeServer((request) => {
    if (request.method !== 'POST' || request.path !== '/api/scan/v0/events') return { status: 404, body: { error: 'not found' } };
    const body = request.body as EventsRequest;
    const encoding = body.daml_value_encoding ?? 'compact_json';
    if (encoding === 'protobuf_json' && scan.protobufStatus) return { status: scan.protobufStatus, body: { error: 'no protobuf' } };
    if (!(body.page_size >= 1 && body.page_size <= 1000)) return { status: 400, body: { error: 'Limit must be at least 1.' } };
    const after = body.after && { m: body.after.after_migration_id, t: parseTimestamp(body.after.after_record_time) };
    const page = items
      .slice(0, scan.visible)
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
