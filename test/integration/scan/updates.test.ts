/**
 * The update-history endpoints through the real HTTP server on a simulated
 * two-migration network (reassignments, rejections, verdicts, traffic, app
 * activity, external hashes, import updates). Every expected body is computed
 * from the simulator items in this file and compared byte for byte.
 */
import type { TransactionUpdate } from '../../../src/domain/items';
import { formatRecordTime, parseTimestamp } from '../../../src/domain/time';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import {
  after,
  byKey,
  expectedEvent,
  expectedMigrationInfo,
  expectedUpdate,
  expectedV1,
  historyItems,
  isImport,
  isTx,
  keyed,
  loadItems,
  migrationOf,
  orderedEvents,
  orderedUpdates,
  synchronizerOf,
  type Encoding,
  type Keyed,
} from './history-fixture';

const items = historyItems();
const ENCODINGS: Encoding[] = ['compact_json', 'protobuf_json'];
const error = (message: string) => JSON.stringify({ error: message });

describe('update history endpoints', () => {
  const t = useTestDatabase();
  let api: TestApi;
  beforeAll(async () => {
    await loadItems(t.db, items);
    api = await startTestApi(t);
  });
  afterAll(async () => api?.close());

  const get = (path: string) => request(api.url, 'GET', `/api/scan${path}`);
  const post = (path: string, body: unknown) => request(api.url, 'POST', `/api/scan${path}`, body);

  const transactions = items.filter((i) => i.update && isTx(i.update) && !isImport(i));
  const hashed = transactions.filter((i) => (i.update as TransactionUpdate).external_transaction_hash);
  const reassignment = items.find((i) => i.update && !isTx(i.update))!;
  const rejection = items.find((i) => !i.update)!;
  const withActivity = items.find((i) => i.update && i.app_activity_records)!;
  const importUpdate = items.find(isImport)!;

  it('has the data the tests need', () => {
    expect(hashed.length).toBeGreaterThan(2);
    expect(reassignment).toBeDefined();
    expect(items.some((i) => i.update && !isTx(i.update) && !('created_event' in i.update.event))).toBe(true);
    expect(rejection).toBeDefined();
    expect(withActivity).toBeDefined();
    expect(importUpdate).toBeDefined();
    expect(new Set(items.filter((i) => i.update).map((i) => migrationOf(i.update!)))).toEqual(new Set([0, 1]));
  });

  /** Follows Scan's cursor from the last element to the end, checking every page against the items. */
  async function pageThrough(
    path: '/v2/updates' | '/v0/events',
    ordered: Keyed[],
    render: (k: Keyed) => unknown,
    key: 'transactions' | 'events',
    pageSize: number,
    encoding?: Encoding,
  ): Promise<number> {
    let cursor: { m: number; t: bigint } | undefined;
    let seen = 0;
    for (let pages = 0; pages < 1000; pages++) {
      const body = {
        page_size: pageSize,
        ...(cursor && { after: { after_migration_id: cursor.m, after_record_time: formatRecordTime(cursor.t) } }),
        ...(encoding && { daml_value_encoding: encoding }),
      };
      const res = await post(path, body);
      const expected = ordered.filter((k) => !cursor || after(k, cursor.m, cursor.t)).slice(0, pageSize);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.text).toBe(JSON.stringify({ [key]: expected.map(render) }));
      seen += expected.length;
      if (expected.length < pageSize) return seen;
      const last = expected[expected.length - 1]!;
      cursor = { m: last.migrationId, t: last.recordTime };
    }
    throw new Error('too many pages');
  }

  describe('POST /v2/updates', () => {
    it.each(ENCODINGS)('pages through every non-import update in order (%s)', async (encoding) => {
      const ordered = orderedUpdates(items);
      expect(await pageThrough('/v2/updates', ordered, (k) => expectedUpdate(k.item, encoding), 'transactions', 97, encoding)).toBe(
        ordered.length,
      );
    });

    it('defaults to compact_json, and a cursor in a migration returns the later migration from its beginning', async () => {
      const ordered = orderedUpdates(items);
      const lastOfM0 = ordered.filter((k) => k.migrationId === 0).at(-1)!;
      const firstOfM1 = ordered.find((k) => k.migrationId === 1)!;
      // A record time far past migration 1's start: migration 1 still comes from its beginning.
      const res = await post('/v2/updates', {
        page_size: 3,
        after: { after_migration_id: 0, after_record_time: formatRecordTime(lastOfM0.recordTime) },
      });
      expect(res.status).toBe(200);
      expect(res.text).toBe(
        JSON.stringify({
          transactions: ordered
            .slice(ordered.indexOf(firstOfM1), ordered.indexOf(firstOfM1) + 3)
            .map((k) => expectedUpdate(k.item, 'compact_json')),
        }),
      );
      // Nanosecond digits are floored; an offset is honoured.
      const floored = await post('/v2/updates', {
        page_size: 1,
        after: { after_migration_id: 1, after_record_time: '1970-01-01T01:00:00.000000999+01:00' },
      });
      expect(floored.text).toBe(JSON.stringify({ transactions: [expectedUpdate(firstOfM1.item, 'compact_json')] }));
      const end = await post('/v2/updates', { page_size: 10, after: { after_migration_id: 5, after_record_time: '2020-01-01T00:00:00Z' } });
      expect(end.text).toBe('{"transactions":[]}');
    });

    it('refuses bad page sizes, cursors and encodings with 400', async () => {
      const cases: [unknown, string][] = [
        [{ page_size: 0 }, 'Limit must be at least 1.'],
        [{ page_size: -5 }, 'Limit must be at least 1.'],
        [{ page_size: 1001 }, 'Exceeded limit maximum (1001 > 1000).'],
        [{}, "Missing required body field 'page_size'."],
        [{ page_size: 2.5 }, "Invalid body field 'page_size': expected an integer."],
        [{ page_size: '10' }, "Invalid body field 'page_size': expected an integer."],
        [{ page_size: 10, after: { after_migration_id: 0 } }, "Missing required body field 'after.after_record_time'."],
        [
          { page_size: 10, after: { after_record_time: '2025-01-01T00:00:00Z' } },
          "Missing required body field 'after.after_migration_id'.",
        ],
        [
          { page_size: 10, after: { after_migration_id: 0, after_record_time: 'yesterday' } },
          "Invalid timestamp: Invalid timestamp 'yesterday': expected an ISO 8601 date-time such as 2025-03-10T14:22:05.123456Z",
        ],
        [
          { page_size: 10, after: { after_migration_id: 0, after_record_time: '2025-02-30T00:00:00Z' } },
          "Invalid timestamp: Invalid timestamp '2025-02-30T00:00:00Z': day out of range",
        ],
        [
          { page_size: 10, daml_value_encoding: 'xml' },
          "Invalid body field 'daml_value_encoding': expected one of compact_json, protobuf_json.",
        ],
      ];
      for (const [body, message] of cases) {
        for (const path of ['/v2/updates', '/v0/events']) {
          const res = await post(path, body);
          expect({ path, body, status: res.status, text: res.text }).toEqual({ path, body, status: 400, text: error(message) });
        }
      }
      const malformed = await post('/v2/updates', '{"page_size": ');
      expect(malformed.status).toBe(400);
      expect((malformed.json as { error: string }).error).toMatch(/^Malformed JSON body/);
    });
  });

  describe('GET /v2/updates/{update_id}', () => {
    it.each(ENCODINGS)('returns a transaction, with its external hash (%s)', async (encoding) => {
      for (const item of [transactions[5]!, hashed[0]!, importUpdate]) {
        const res = await get(`/v2/updates/${item.update!.update_id}?daml_value_encoding=${encoding}`);
        expect(res.status).toBe(200);
        expect(res.text).toBe(JSON.stringify(expectedUpdate(item, encoding)));
      }
    });

    it('defaults to compact_json; 404 for unknown ids and reassignments; 400 for a bad encoding', async () => {
      const item = transactions[7]!;
      expect((await get(`/v2/updates/${item.update!.update_id}`)).text).toBe(JSON.stringify(expectedUpdate(item, 'compact_json')));
      expect(await get('/v2/updates/1220nope')).toMatchObject({ status: 404, text: error('Transaction with id 1220nope not found') });
      const rid = reassignment.update!.update_id;
      expect(await get(`/v2/updates/${rid}`)).toMatchObject({ status: 404, text: error(`Transaction with id ${rid} not found`) });
      expect(await get(`/v2/updates/${item.update!.update_id}?daml_value_encoding=json`)).toMatchObject({
        status: 400,
        text: error("Invalid query field 'daml_value_encoding': expected one of compact_json, protobuf_json."),
      });
      expect(
        await get(`/v2/updates/${item.update!.update_id}?daml_value_encoding=compact_json&daml_value_encoding=protobuf_json`),
      ).toMatchObject({
        status: 400,
      });
    });
  });

  describe('S4 GET /v2/updates/hash/{hash}', () => {
    it.each(ENCODINGS)('returns the transaction with its hash (%s)', async (encoding) => {
      for (const item of hashed) {
        const hash = (item.update as TransactionUpdate).external_transaction_hash!;
        const res = await get(`/v2/updates/hash/${hash}?daml_value_encoding=${encoding}`);
        expect(res.status).toBe(200);
        const body = expectedUpdate(item, encoding);
        expect(Object.keys(body).at(-1)).toBe('external_transaction_hash');
        expect(res.text).toBe(JSON.stringify(body));
      }
    });

    it('accepts upper-case hex, defaults to compact_json, 404 for unknown or non-hex hashes, 400 for a bad encoding', async () => {
      const item = hashed[1]!;
      const hash = (item.update as TransactionUpdate).external_transaction_hash!;
      expect((await get(`/v2/updates/hash/${hash.toUpperCase()}`)).text).toBe(JSON.stringify(expectedUpdate(item, 'compact_json')));
      for (const unknown of ['00'.repeat(32), 'xyz', 'abc']) {
        expect(await get(`/v2/updates/hash/${unknown}`)).toMatchObject({
          status: 404,
          text: error(`Transaction with hash ${unknown} not found`),
        });
      }
      expect(await get(`/v2/updates/hash/${hash}?daml_value_encoding=`)).toMatchObject({
        status: 400,
        text: error("Invalid query field 'daml_value_encoding': expected one of compact_json, protobuf_json."),
      });
    });
  });

  describe('POST /v0/events', () => {
    it.each(ENCODINGS)('pages through every event (updates and rejections) in order (%s)', async (encoding) => {
      const ordered = orderedEvents(items);
      expect(await pageThrough('/v0/events', ordered, (k) => expectedEvent(k.item, encoding), 'events', 113, encoding)).toBe(
        ordered.length,
      );
    });

    it('pages with the smallest and largest page sizes', async () => {
      const ordered = orderedEvents(items);
      const first = await post('/v0/events', { page_size: 1 });
      expect(first.text).toBe(JSON.stringify({ events: [expectedEvent(ordered[0]!.item, 'compact_json')] }));
      const all = await post('/v0/events', { page_size: 1000 });
      expect(all.text).toBe(JSON.stringify({ events: ordered.slice(0, 1000).map((k) => expectedEvent(k.item, 'compact_json')) }));
    });
  });

  describe('GET /v0/events/latest-record-time', () => {
    it('is the older of the newest update and the newest verdict of the newest migration', async () => {
      const newest = Math.max(...items.filter((i) => i.update).map((i) => migrationOf(i.update!)));
      const latest = (times: string[]) => times.map((t) => parseTimestamp(t)).reduce((a, b) => (a > b ? a : b));
      const updates = latest(
        items.filter((i) => i.update && !isImport(i) && migrationOf(i.update) === newest).map((i) => i.update!.record_time),
      );
      const verdicts = latest(items.filter((i) => i.verdict && i.verdict.migration_id === newest).map((i) => i.verdict!.record_time));
      const expected = updates < verdicts ? updates : verdicts;
      const res = await get('/v0/events/latest-record-time');
      expect({ status: res.status, text: res.text }).toEqual({
        status: 200,
        // Scan's date-times drop the fraction's trailing zeros.
        text: JSON.stringify({
          record_time: formatRecordTime(expected)
            .replace(/(\.\d*?)0+Z$/, '$1Z')
            .replace(/\.Z$/, 'Z'),
        }),
      });
    });
  });

  describe('S5 GET /v0/events/{update_id}', () => {
    it.each(ENCODINGS)(
      'returns a transaction with its verdict, traffic and activity; a rejection; an import update (%s)',
      async (encoding) => {
        for (const item of [withActivity, hashed[0]!, rejection, importUpdate]) {
          const id = item.update?.update_id ?? item.verdict!.update_id;
          const res = await get(`/v0/events/${id}?daml_value_encoding=${encoding}`);
          expect(res.status).toBe(200);
          expect(res.text).toBe(JSON.stringify(expectedEvent(item, encoding)));
        }
        expect(rejection.update).toBeNull();
        expect(withActivity.app_activity_records).not.toBeNull();
      },
    );

    it('404 for unknown ids and reassignments, 400 for a bad encoding', async () => {
      expect(await get('/v0/events/unknown-id')).toMatchObject({ status: 404, text: error('Event with id unknown-id not found') });
      const rid = reassignment.update!.update_id;
      expect(await get(`/v0/events/${rid}`)).toMatchObject({ status: 404, text: error(`Event with id ${rid} not found`) });
      expect(await get(`/v0/events/${withActivity.update!.update_id}?daml_value_encoding=COMPACT_JSON`)).toMatchObject({
        status: 400,
        text: error("Invalid query field 'daml_value_encoding': expected one of compact_json, protobuf_json."),
      });
    });
  });

  describe('POST /v0/backfilling/import-updates', () => {
    const imports = (m: number) =>
      items.filter((i) => isImport(i) && migrationOf(i.update!) === m).sort((a, b) => (a.update!.update_id < b.update!.update_id ? -1 : 1));

    it.each([undefined, ...ENCODINGS])('pages through the import updates of a migration by update id (%s)', async (encoding) => {
      const expected = imports(1);
      expect(expected.length).toBeGreaterThan(100);
      let afterId = '';
      let seen = 0;
      for (;;) {
        const res = await post('/v0/backfilling/import-updates', {
          migration_id: 1,
          after_update_id: afterId,
          limit: 77,
          ...(encoding && { daml_value_encoding: encoding }),
        });
        const page = expected.filter((i) => i.update!.update_id > afterId).slice(0, 77);
        expect(res.status).toBe(200);
        // Scan answers protobuf_json unless told otherwise (our extension).
        expect(res.text).toBe(JSON.stringify({ transactions: page.map((i) => expectedV1(i, encoding ?? 'protobuf_json')) }));
        seen += page.length;
        if (page.length < 77) break;
        afterId = page.at(-1)!.update!.update_id;
      }
      expect(seen).toBe(expected.length);
    });

    it('is empty for a migration without imports, and validates its body', async () => {
      expect((await post('/v0/backfilling/import-updates', { migration_id: 0, after_update_id: '', limit: 10 })).text).toBe(
        '{"transactions":[]}',
      );
      expect(await post('/v0/backfilling/import-updates', { migration_id: 1, after_update_id: '', limit: 0 })).toMatchObject({
        status: 400,
        text: error('Limit must be at least 1.'),
      });
      expect(await post('/v0/backfilling/import-updates', { migration_id: 1, limit: 10 })).toMatchObject({
        status: 400,
        text: error("Missing required body field 'after_update_id'."),
      });
    });
  });

  describe('POST /v0/backfilling/updates-before', () => {
    /** Independently of the service: one migration and synchronizer, record times in [atOrAfter, before), newest first. */
    const before = (m: number, sync: string, beforeTime: bigint, atOrAfter?: bigint) =>
      items
        .filter((i) => i.update && (atOrAfter === undefined ? !isImport(i) : true))
        .map(keyed)
        .filter(
          (k) =>
            k.migrationId === m &&
            k.synchronizerId === sync &&
            k.recordTime < beforeTime &&
            (atOrAfter === undefined || k.recordTime >= atOrAfter),
        )
        .sort((a, b) => byKey(b, a));
    const busiest = (m: number) => {
      const counts = new Map<string, number>();
      for (const k of orderedUpdates(items).filter((k) => k.migrationId === m))
        counts.set(k.synchronizerId, (counts.get(k.synchronizerId) ?? 0) + 1);
      return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
    };

    it.each([undefined, ...ENCODINGS])('walks a synchronizer backwards from a record time, newest first (%s)', async (encoding) => {
      const sync = busiest(0);
      const all = before(0, sync, parseTimestamp('9999-01-01T00:00:00Z'));
      expect(all.length).toBeGreaterThan(150);
      // Each page starts before the oldest record time of the previous one, as a backfilling peer does.
      let cursor = all[0]!.recordTime + 1n;
      let seen = 0;
      for (;;) {
        const res = await post('/v0/backfilling/updates-before', {
          migration_id: 0,
          synchronizer_id: sync,
          before: formatRecordTime(cursor),
          count: 60,
          ...(encoding && { daml_value_encoding: encoding }),
        });
        const page = before(0, sync, cursor).slice(0, 60);
        expect(res.status).toBe(200);
        expect(res.text).toBe(JSON.stringify({ transactions: page.map((k) => expectedV1(k.item, encoding ?? 'protobuf_json')) }));
        seen += page.length;
        if (page.length < 60) break;
        cursor = page.at(-1)!.recordTime;
      }
      expect(seen).toBe(all.length);
    });

    it('stops at at_or_after, which can reach the import updates', async () => {
      const sync = busiest(0);
      const all = before(0, sync, parseTimestamp('9999-01-01T00:00:00Z'));
      const from = all[80]!.recordTime;
      const res = await post('/v0/backfilling/updates-before', {
        migration_id: 0,
        synchronizer_id: sync,
        before: formatRecordTime(all[10]!.recordTime),
        at_or_after: formatRecordTime(from),
        count: 1000,
      });
      const expected = before(0, sync, all[10]!.recordTime, from);
      expect(expected).toHaveLength(70);
      expect(res.text).toBe(JSON.stringify({ transactions: expected.map((k) => expectedV1(k.item, 'protobuf_json')) }));
      const imported = items.find((i) => isImport(i) && migrationOf(i.update!) === 1)!;
      const sync1 = synchronizerOf(imported.update!);
      const withImports = await post('/v0/backfilling/updates-before', {
        migration_id: 1,
        synchronizer_id: sync1,
        before: '9999-01-01T00:00:00Z',
        at_or_after: '0001-01-01T00:00:00Z',
        count: 1000,
      });
      const expectedWithImports = before(1, sync1, parseTimestamp('9999-01-01T00:00:00Z'), parseTimestamp('0001-01-01T00:00:00Z'));
      expect(expectedWithImports.some((k) => isImport(k.item))).toBe(true);
      expect(withImports.text).toBe(
        JSON.stringify({ transactions: expectedWithImports.slice(0, 1000).map((k) => expectedV1(k.item, 'protobuf_json')) }),
      );
    });

    it('is empty for an unknown synchronizer or migration, and refuses bad input with 400', async () => {
      const body = { migration_id: 0, synchronizer_id: 'nobody::1220ab', before: '2100-01-01T00:00:00Z', count: 10 };
      expect((await post('/v0/backfilling/updates-before', body)).text).toBe('{"transactions":[]}');
      expect((await post('/v0/backfilling/updates-before', { ...body, migration_id: 7, synchronizer_id: busiest(0) })).text).toBe(
        '{"transactions":[]}',
      );
      expect(await post('/v0/backfilling/updates-before', { ...body, count: 1001 })).toMatchObject({
        status: 400,
        text: error('Exceeded limit maximum (1001 > 1000).'),
      });
      expect(await post('/v0/backfilling/updates-before', { ...body, synchronizer_id: 'no-namespace' })).toMatchObject({
        status: 400,
        text: error('Invalid unique identifier `no-namespace` with missing namespace.'),
      });
      const badTime = await post('/v0/backfilling/updates-before', { ...body, before: 'yesterday' });
      expect(badTime.status).toBe(400);
      expect(badTime.text).toMatch(/^\{"error":"Invalid timestamp: /);
      expect(await post('/v0/backfilling/updates-before', { migration_id: 0, before: body.before, count: 10 })).toMatchObject({
        status: 400,
        text: error("Missing required body field 'synchronizer_id'."),
      });
    });
  });

  describe('S6 POST /v0/backfilling/migration-info', () => {
    it('describes both migrations and 404s for one without updates', async () => {
      for (const m of [0, 1]) {
        const res = await post('/v0/backfilling/migration-info', { migration_id: m });
        expect(res.status).toBe(200);
        expect(res.text).toBe(JSON.stringify(expectedMigrationInfo(items, m)));
      }
      expect(await post('/v0/backfilling/migration-info', { migration_id: 2 })).toMatchObject({
        status: 404,
        text: error('No data for migration 2'),
      });
    });
  });

  describe('S7 POST /v0/history/bulk/checksums', () => {
    it('answers 501: this indexer has no bulk storage', async () => {
      for (const body of [{ object_keys: ['a', 'b'] }, {}]) {
        expect(await post('/v0/history/bulk/checksums', body)).toMatchObject({
          status: 501,
          text: error('Bulk storage is not configured'),
        });
      }
    });
  });
});

describe('GET /v0/events/latest-record-time without events', () => {
  const t = useTestDatabase();
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(t);
  });
  afterAll(async () => api?.close());

  it('is the 404 Scan sends', async () => {
    const res = await request(api.url, 'GET', '/api/scan/v0/events/latest-record-time');
    expect({ status: res.status, text: res.text }).toEqual({ status: 404, text: error('No events found') });
  });
});
