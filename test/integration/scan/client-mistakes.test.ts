/**
 * Client mistakes that reach past the per-operation schemas — NUL characters,
 * malformed percent-escapes, times PostgreSQL cannot hold — are 400s with a
 * clear message on every Scan and validator route, never a 500.
 */
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';

const NUL = { error: 'Text in the request must not contain NUL characters (\\u0000).' };
const SNAPSHOT = { migration_id: 0, record_time: '2025-03-10T12:00:00Z' };

describe('client mistakes the operation schemas do not see', () => {
  const t = useTestDatabase();
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(t, { env: { LEDGER_AUTH_DISABLED: 'true' } });
  });
  afterAll(async () => {
    await api.close();
  });

  const expectError = async (method: string, path: string, body: unknown, expected: { status: number; json: unknown }) => {
    const res = await request(api.url, method, path, body);
    expect({ method, path, status: res.status, json: res.json }).toEqual({ method, path, ...expected });
  };

  it('refuses NUL characters in bodies, paths and queries', async () => {
    const cases: [string, string, unknown][] = [
      ['POST', '/api/scan/v1/holdings/summary', { ...SNAPSHOT, owner_party_ids: ['a\u0000::1220'] }],
      ['POST', '/api/scan/v2/holdings/state', { ...SNAPSHOT, page_size: 1, owner_party_ids: ['a\u0000::1220'] }],
      ['POST', '/api/scan/v0/state/acs', { ...SNAPSHOT, page_size: 1, templates: ['a\u0000:b:c'] }],
      ['POST', '/api/scan/v0/backfilling/import-updates', { migration_id: 0, after_update_id: '\u0000', limit: 1 }],
      ['GET', '/api/scan/v2/updates/%00', undefined],
      ['GET', '/api/scan/v0/events/ab%00cd', undefined],
      ['GET', '/api/scan/v2/updates/hash/%00', undefined],
      ['GET', '/api/scan/v0/state/acs/snapshot-timestamp?before=2025-01-01T00:00:00Z%00&migration_id=0', undefined],
      ['GET', '/api/validator/v0/scan-proxy/ans-entries?page_size=1&name_prefix=a%00', undefined],
    ];
    for (const [method, path, body] of cases) await expectError(method, path, body, { status: 400, json: NUL });
  });

  it('refuses malformed percent-escapes in paths', async () => {
    const malformed = { status: 400, json: { error: 'Malformed percent-encoding in the request path.' } };
    await expectError('GET', '/api/scan/v2/updates/%ZZ', undefined, malformed);
    await expectError('GET', '/api/scan/v2/updates/hash/%E0%A4%A', undefined, malformed);
    await expectError('GET', '/api/scan/v0/events/%', undefined, malformed);
  });

  it('refuses history cursors outside the years 0001–9999', async () => {
    for (const time of ['0000-06-01T00:00:00Z', '0001-01-01T00:00:00+00:01', '9999-12-31T23:59:59Z-00:01'.replace('Z', '')]) {
      for (const path of ['/api/scan/v2/updates', '/api/scan/v0/events']) {
        const res = await request(api.url, 'POST', path, { page_size: 1, after: { after_migration_id: 0, after_record_time: time } });
        expect({ path, time, status: res.status }).toEqual({ path, time, status: 400 });
        expect((res.json as { error: string }).error).toMatch(/^Invalid timestamp: /);
      }
    }
  });

  it('reads null optional history fields as absent', async () => {
    for (const path of ['/api/scan/v2/updates', '/api/scan/v0/events']) {
      const res = await request(api.url, 'POST', path, { page_size: 5, after: null, daml_value_encoding: null });
      expect({ path, status: res.status, json: res.json }).toEqual({
        path,
        status: 200,
        json: path.endsWith('events') ? { events: [] } : { transactions: [] },
      });
    }
  });

  it('refuses bodies labelled compressed that are not, or are cut off, with a 400 (a 401 first on the guarded proxy)', async () => {
    const badBody = { status: 400, json: { error: 'The request body could not be decompressed as its Content-Encoding says.' } };
    for (const encoding of ['br', 'gzip', 'deflate']) {
      for (const path of ['/api/scan/v2/updates', '/api/validator/v0/scan-proxy/holdings/summary']) {
        const res = await request(api.url, 'POST', path, { page_size: 1 }, { 'content-encoding': encoding });
        expect({ encoding, path, status: res.status, json: res.json }).toEqual({ encoding, path, ...badBody });
      }
    }
    const guarded = await startTestApi(t, { env: { LEDGER_AUTH_HS256_SECRET: 'a-test-secret-of-at-least-32-bytes!!' } });
    try {
      const res = await request(
        guarded.url,
        'POST',
        '/api/validator/v0/scan-proxy/holdings/summary',
        { a: 1 },
        { 'content-encoding': 'br' },
      );
      expect(res.status).toBe(401);
    } finally {
      await guarded.close();
    }
  });

  it('cuts long echoed input out of error messages, keeping their fixed text', async () => {
    const huge = 'x'.repeat(900_000);
    const cases: [string, string, unknown, RegExp][] = [
      ['POST', '/api/scan/v2/updates', { page_size: 1, after: { after_migration_id: 0, after_record_time: huge } }, /^Invalid timestamp: /],
      ['GET', `/api/scan/v0/transfer-preapprovals/by-party/${'p'.repeat(8_000)}`, undefined, /with missing namespace\.$/],
      [
        'POST',
        '/api/scan/v0/holdings/summary',
        { ...SNAPSHOT, owner_party_ids: [huge], as_of_round: 1 },
        /in 'owner_party_ids': expected <name>::<fingerprint>\.$/,
      ],
    ];
    for (const [method, path, body, shape] of cases) {
      const res = await request(api.url, method, path, body);
      const error = (res.json as { error: string }).error;
      expect({ path: path.slice(0, 60), status: res.status, length: error.length <= 1000, shape: shape.test(error) }).toEqual({
        path: path.slice(0, 60),
        status: 400,
        length: true,
        shape: true,
      });
      expect(res.text.length).toBeLessThan(1100);
    }
  });
});
