/**
 * Updates ingested from a source that gave only compact_json (for example an
 * NDJSON dump of a real Scan) are never served as protobuf_json: that would
 * be compact values under the wrong label. The answer is a 501 naming the
 * update; compact_json still works, and an unassignment, which carries no
 * Daml values, is the same in both encodings.
 */
import { ingestItems } from '../../support/ingest';
import { useTestDatabase } from '../../support/database/database';
import { created, reassignment, transaction } from '../../support/items/hand-items';
import { request, startTestApi, type TestApi } from '../../support/http/http';

const UNAVAILABLE = { error: 'protobuf_json is not available for update u1: it was ingested without that encoding. Use compact_json.' };

describe('protobuf_json of updates ingested without it', () => {
  const t = useTestDatabase();
  let api: TestApi;
  const tx = transaction('u1', '2025-01-01T00:00:00.000000Z', [created('u1', 0, '00c1')]);
  const unassign = reassignment('u2', '2025-01-01T00:00:01.000000Z', 'unassign', '00c1', 1);
  beforeAll(async () => {
    await ingestItems(t.db, 'hand', [
      { item: tx, position: '1', origin: 'test' },
      { item: unassign, position: '2', origin: 'test' },
    ]);
    api = await startTestApi(t, { env: { LEDGER_AUTH_DISABLED: 'true' } });
  });
  afterAll(async () => {
    await api.close();
  });

  it('answers 501 for a transaction, by id, in events and in lists', async () => {
    for (const [method, path, body] of [
      ['GET', '/api/scan/v2/updates/u1?daml_value_encoding=protobuf_json', undefined],
      ['GET', '/api/scan/v0/events/u1?daml_value_encoding=protobuf_json', undefined],
      ['POST', '/api/scan/v2/updates', { page_size: 10, daml_value_encoding: 'protobuf_json' }],
      ['POST', '/api/scan/v0/events', { page_size: 10, daml_value_encoding: 'protobuf_json' }],
    ] as const) {
      const res = await request(api.url, method, path, body);
      expect({ path, status: res.status, json: res.json }).toEqual({ path, status: 501, json: UNAVAILABLE });
    }
  });

  it('still serves compact_json, and an unassignment in either encoding', async () => {
    const compact = await request(api.url, 'GET', '/api/scan/v2/updates/u1');
    expect({ status: compact.status, json: compact.json }).toEqual({ status: 200, json: tx.update });
    const after = { after_migration_id: 0, after_record_time: '2025-01-01T00:00:00.000000Z' };
    for (const encoding of ['compact_json', 'protobuf_json']) {
      const res = await request(api.url, 'POST', '/api/scan/v2/updates', { page_size: 10, after, daml_value_encoding: encoding });
      expect({ encoding, status: res.status, json: res.json }).toEqual({
        encoding,
        status: 200,
        json: { transactions: [unassign.update] },
      });
    }
  });
});
