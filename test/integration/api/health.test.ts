/** /livez and /readyz through the real server. */
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
  });

  it('is not ready while a migration is pending', async () => {
    const files = [...readMigrationFiles(), { name: '29991231_001_next.sql', sql: 'select 1', checksum: 'x' }];
    const other = await startTestApi(t, { migrationFiles: files });
    try {
      const res = await request(other.url, 'GET', '/readyz');
      expect(res.status).toBe(503);
      expect(res.json).toEqual({ status: 'not ready', reason: 'pending migrations: 29991231_001_next.sql' });
    } finally {
      await other.close();
    }
  });
});
