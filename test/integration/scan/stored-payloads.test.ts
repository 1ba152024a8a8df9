/**
 * Update payloads stored by an earlier writer (raw DEFLATE, before the codec
 * marker and Brotli) are served byte for byte as the same updates stored now:
 * the history endpoints and the point reads, in both encodings, through the
 * real HTTP server on the simulated network of the history tests.
 */
import zlib from 'node:zlib';
import { decompressPayload } from '../../../src/store/update-payload';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { historyItems, loadItems } from './history-fixture';

const items = historyItems();

describe('payloads stored as raw DEFLATE', () => {
  const t = useTestDatabase();
  let api: TestApi;
  beforeAll(async () => {
    await loadItems(t.db, items);
    api = await startTestApi(t);
  });
  afterAll(async () => api?.close());

  const ids = items.filter((i) => i.update).map((i) => i.update!.update_id);
  const reads = [
    ...['compact_json', 'protobuf_json'].map((encoding) => [
      'POST',
      '/api/scan/v0/events',
      { page_size: 1000, daml_value_encoding: encoding },
    ]),
    ...['compact_json', 'protobuf_json'].map((encoding) => [
      'POST',
      '/api/scan/v2/updates',
      { page_size: 1000, daml_value_encoding: encoding },
    ]),
    ...ids.filter((_, i) => i % 25 === 0).map((id) => ['GET', `/api/scan/v2/updates/${id}?daml_value_encoding=protobuf_json`, undefined]),
    ...ids.filter((_, i) => i % 25 === 0).map((id) => ['GET', `/api/scan/v0/events/${id}`, undefined]),
  ] as [string, string, unknown][];
  const served = () => Promise.all(reads.map(([method, path, body]) => request(api.url, method, path, body)));

  it('are served exactly as the same updates stored now', async () => {
    const now = await served();
    expect(now.every((r) => r.status === 200)).toBe(true);

    // What the writer stored before the codec changed: raw DEFLATE at level 1 of the same bytes.
    const { rows } = await t.pool.query<{ update_id: string; payload: Buffer }>('select update_id, payload from updates');
    expect(rows.length).toBe(ids.length);
    expect(rows.every((r) => r.payload[0] === 0x06)).toBe(true);
    for (const r of rows) {
      const deflated = zlib.deflateRawSync(decompressPayload(r.payload), { level: 1 });
      await t.pool.query('update updates set payload = $2 where update_id = $1', [r.update_id, deflated]);
    }
    const { rows: after } = await t.pool.query<{ payload: Buffer }>('select payload from updates');
    expect(after.some((r) => r.payload[0] === 0x06)).toBe(false);

    const before = await served();
    expect(before.map((r) => [r.status, r.text])).toEqual(now.map((r) => [r.status, r.text]));
  });
});
