/** /livez and /readyz (and their Splice-style aliases under /api/scan and /api/validator) through the real server. */
import { readMigrationFiles } from '../../../src/store/migrator';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';

describe('health endpoints', () => {
  const t = useTestDatabase();
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(t);
  });
  afterAll(async () => {
    await api.close();
  });

  it('answers liveness and readiness', async () => {
    expect(await request(api.url, 'GET', '/livez')).toMatchObject({ status: 200, json: { status: 'ok' } });
    expect(await request(api.url, 'GET', '/readyz')).toMatchObject({ status: 200, json: { status: 'ready' } });
    // Under the app prefixes, as Splice serves them: the status code, no body, and no authentication.
    for (const prefix of ['/api/scan', '/api/validator']) {
      for (const path of ['/livez', '/readyz']) {
        const res = await request(api.url, 'GET', `${prefix}${path}`);
        expect({ path: `${prefix}${path}`, status: res.status, text: res.text }).toEqual({
          path: `${prefix}${path}`,
          status: 200,
          text: '',
        });
      }
    }
  });

  it("needs no token for the validator prefix's health, where the scan-proxy does", async () => {
    const guarded = await startTestApi(t, { env: { LEDGER_AUTH_HS256_SECRET: 'a-test-secret-of-at-least-32-bytes!!' } });
    try {
      expect((await request(guarded.url, 'GET', '/api/validator/v0/scan-proxy/dso-party-id')).status).toBe(401);
      expect((await request(guarded.url, 'GET', '/api/validator/readyz')).status).toBe(200);
      expect((await request(guarded.url, 'GET', '/api/validator/livez')).status).toBe(200);
    } finally {
      await guarded.close();
    }
  });

  it('is not ready while a migration is pending', async () => {
    const files = [...readMigrationFiles(), { name: '29991231_001_next.sql', sql: 'select 1', checksum: 'x' }];
    const other = await startTestApi(t, { migrationFiles: files });
    try {
      const res = await request(other.url, 'GET', '/readyz');
      expect(res.status).toBe(503);
      expect(res.json).toEqual({ status: 'not ready', reason: 'pending migrations: 29991231_001_next.sql' });
      for (const prefix of ['/api/scan', '/api/validator']) {
        const app = await request(other.url, 'GET', `${prefix}/readyz`);
        expect({ status: app.status, text: app.text }).toEqual({ status: 503, text: '' });
      }
    } finally {
      await other.close();
    }
  });
});
