/**
 * A migrated template database, named by the checksums of the migrations, from
 * which each test file gets its own fresh database in milliseconds.
 */
import crypto from 'node:crypto';
import pg from 'pg';
import { migrate, readMigrationFiles } from '../../../src/store/migrator';
import { createPool } from '../../../src/store/pool';

export const TEST_DATABASE_PREFIX = 'scan_indexer_test_';
// Serialises CREATE DATABASE … TEMPLATE, which fails while another copy of the template is being made.
const CREATE_LOCK_KEY = 7_231_004_118;

export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withAdminClient<T>(adminUrl: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** Creates the template if this set of migrations has none yet; returns its name. */
export async function ensureTemplateDatabase(adminUrl: string): Promise<string> {
  const files = readMigrationFiles();
  const digest = crypto
    .createHash('sha256')
    .update(files.map((f) => f.checksum).join(','))
    .digest('hex')
    .slice(0, 16);
  const template = `scan_indexer_template_${digest}`;
  const exists = await withAdminClient(
    adminUrl,
    async (c) => (await c.query('select 1 from pg_database where datname = $1', [template])).rowCount,
  );
  if (exists) return template;

  const building = `${template}_build_${process.pid}`;
  await withAdminClient(adminUrl, (c) => c.query(`create database ${building}`));
  const pool = createPool({ connectionString: databaseUrl(adminUrl, building), max: 2 });
  try {
    await migrate(pool, { files });
  } finally {
    await pool.end();
  }
  await withAdminClient(adminUrl, async (c) => {
    try {
      await c.query(`alter database ${building} rename to ${template}`);
    } catch (err) {
      // Another run finished the same template first.
      if ((err as { code?: string }).code !== '42P04') throw err;
      await c.query(`drop database ${building}`);
    }
  });
  return template;
}

export async function createDatabaseFromTemplate(adminUrl: string, template: string, name: string): Promise<void> {
  await withAdminClient(adminUrl, async (c) => {
    await c.query('select pg_advisory_lock($1)', [CREATE_LOCK_KEY]);
    try {
      await c.query(`create database ${name} template ${template}`);
    } finally {
      await c.query('select pg_advisory_unlock($1)', [CREATE_LOCK_KEY]);
    }
  });
}

export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  await withAdminClient(adminUrl, (c) => c.query(`drop database if exists ${name} with (force)`));
}
