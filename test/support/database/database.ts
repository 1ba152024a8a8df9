/**
 * A fresh, migrated database for one test file: `const t = useTestDatabase()`
 * at the top of a describe block gives `t.db`, `t.pool` and `t.url` inside tests.
 */
import crypto from 'node:crypto';
import type pg from 'pg';
import { createDb, createPool, type Db } from '../../../src/store/pool';
import { createDatabaseFromTemplate, databaseUrl, dropDatabase, TEST_DATABASE_PREFIX } from './template-database';

export interface TestDatabase {
  name: string;
  url: string;
  pool: pg.Pool;
  db: Db;
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run integration tests through jest (global setup resolves the database)`);
  return value;
}

export const adminUrl = () => required('SCAN_INDEXER_TEST_ADMIN_URL');

export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const admin = adminUrl();
  const name = `${TEST_DATABASE_PREFIX}${crypto.randomBytes(6).toString('hex')}`;
  await createDatabaseFromTemplate(admin, options.empty ? 'template0' : required('SCAN_INDEXER_TEST_TEMPLATE'), name);
  const url = databaseUrl(admin, name);
  const pool = createPool({ connectionString: url, max: 5 });
  return { name, url, pool, db: createDb(pool) };
}

export async function destroyTestDatabase(t: TestDatabase): Promise<void> {
  await t.db.destroy();
  await dropDatabase(adminUrl(), t.name);
}

/** Registers beforeAll/afterAll hooks and returns a handle filled in before the tests run. */
export function useTestDatabase(options: { empty?: boolean } = {}): TestDatabase {
  const handle = {} as TestDatabase;
  beforeAll(async () => {
    Object.assign(handle, await createTestDatabase(options));
  });
  afterAll(async () => {
    if (handle.name) await destroyTestDatabase(handle);
  });
  return handle;
}
