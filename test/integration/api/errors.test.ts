/** The error mapping of the Scan API: unknown routes, client mistakes, unexpected failures. */
import net from 'node:net';
import { sql } from 'kysely';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';

describe('error answers', () => {
  const t = useTestDatabase();
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(t);
  });
  afterAll(async () => {
    await api.close();
  });

  it('answers unknown routes with a ScanError 404', async () => {
    for (const path of ['/nope', '/api/scan/v0/nope', '/api/scan/v0/dso-party-id/extra']) {
      const res = await request(api.url, 'GET', path);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.json).toEqual({ error: 'The requested resource could not be found.' });
    }
  });

  it('answers a URL over the HTTP limit with 431 and malformed HTTP with 400, in the Scan error shape', async () => {
    for (const path of ['/api/scan/v0/dso', '/v2/version', '/metrics']) {
      const res = await request(api.url, 'GET', `${path}?x=${'a'.repeat(20_000)}`);
      expect({ status: res.status, type: res.headers.get('content-type'), json: res.json }).toEqual({
        status: 431,
        type: 'application/json; charset=utf-8',
        json: { error: 'The request URL and headers are too large: at most 16 KB.' },
      });
    }
    // Not HTTP at all, over a raw socket.
    const { hostname, port } = new URL(api.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), hostname, () => socket.write('HELLO WORLD\r\n\r\n'));
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(raw.slice(raw.indexOf('\r\n\r\n') + 4)).toBe('{"error":"The request is not valid HTTP."}');
  });

  it('answers malformed JSON and invalid bodies with 400', async () => {
    const malformed = await request(api.url, 'POST', '/api/scan/v0/backfilling/migration-info', '{"migration_id": ');
    expect(malformed.status).toBe(400);
    expect((malformed.json as { error: string }).error).toMatch(/^Malformed JSON body: /);
    expect(Object.keys(malformed.json as object)).toEqual(['error']);

    expect(await request(api.url, 'POST', '/api/scan/v0/backfilling/migration-info', {})).toEqual(
      expect.objectContaining({ status: 400, json: { error: "Missing required body field 'migration_id'." } }),
    );
    expect(await request(api.url, 'POST', '/api/scan/v0/backfilling/migration-info', { migration_id: 1.5 })).toEqual(
      expect.objectContaining({ status: 400, json: { error: "Invalid body field 'migration_id': expected an integer." } }),
    );
    expect(await request(api.url, 'POST', '/api/scan/v0/backfilling/migration-info', { migration_id: 2 ** 60 })).toEqual(
      expect.objectContaining({ status: 400, json: { error: "Invalid body field 'migration_id': integer out of range." } }),
    );
  });

  it('answers an unexpected failure with a generic 500 and no detail', async () => {
    const broken = await startTestApi({ db: t.db, pool: t.pool });
    await sql`alter table migrations rename to migrations_moved`.execute(t.db);
    try {
      const res = await request(broken.url, 'GET', '/api/scan/v0/migrations/last');
      expect(res.status).toBe(500);
      expect(res.json).toEqual({ error: 'An unexpected error occurred.' });
    } finally {
      await sql`alter table migrations_moved rename to migrations`.execute(t.db);
      await broken.close();
    }
  });
});
