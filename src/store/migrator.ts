/**
 * Applies the date-prefixed SQL files of migrations/ in name order, each in
 * its own transaction, under a PostgreSQL advisory lock so that concurrent
 * processes never apply one twice. Each applied file is recorded with a
 * SHA-256 checksum; a landed migration that was edited afterwards, or one the
 * database has but this build lacks, stops start-up.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { migrationsDir as defaultDir } from '../internal/paths';

/** Arbitrary constant: the advisory lock key for schema migrations. */
const MIGRATION_LOCK_KEY = 7_231_004_117n;
const FILE_PATTERN = /^\d{8}_\d{3}_[a-z0-9_]+\.sql$/;

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export class MigrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationError';
  }
}

export function readMigrationFiles(dir = defaultDir): MigrationFile[] {
  const names = fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.sql'))
    .sort();
  return names.map((name) => {
    if (!FILE_PATTERN.test(name)) {
      throw new MigrationError(`migration file name ${name} does not match YYYYMMDD_NNN_description.sql`);
    }
    const sql = fs.readFileSync(path.join(dir, name), 'utf8');
    return { name, sql, checksum: crypto.createHash('sha256').update(sql).digest('hex') };
  });
}

export interface MigrationStatus {
  applied: string[];
  pending: string[];
}

async function appliedChecksums(client: pg.ClientBase): Promise<Map<string, string>> {
  const exists = await client.query<{ present: boolean }>("select to_regclass('schema_migrations') is not null as present");
  if (!exists.rows[0]?.present) return new Map();
  const rows = await client.query<{ name: string; checksum: string }>('select name, checksum from schema_migrations');
  return new Map(rows.rows.map((r) => [r.name, r.checksum]));
}

/** Compares the database with the files; throws on an edited or unknown migration. */
function compare(files: MigrationFile[], applied: Map<string, string>): MigrationStatus {
  const known = new Set(files.map((f) => f.name));
  for (const name of applied.keys()) {
    if (!known.has(name)) {
      throw new MigrationError(`the database has migration ${name}, which this build does not know: is it older than the database?`);
    }
  }
  for (const file of files) {
    const checksum = applied.get(file.name);
    if (checksum !== undefined && checksum !== file.checksum) {
      throw new MigrationError(
        `migration ${file.name} was edited after it was applied (checksum ${checksum.slice(0, 12)} in the database, ${file.checksum.slice(0, 12)} on disk); landed migrations are frozen: add a new one instead`,
      );
    }
  }
  return {
    applied: files.filter((f) => applied.has(f.name)).map((f) => f.name),
    pending: files.filter((f) => !applied.has(f.name)).map((f) => f.name),
  };
}

/** Reads the status without taking the lock (for /readyz). */
export async function migrationStatus(pool: pg.Pool, files = readMigrationFiles()): Promise<MigrationStatus> {
  const client = await pool.connect();
  try {
    return compare(files, await appliedChecksums(client));
  } finally {
    client.release();
  }
}

/** Applies pending migrations; returns the names applied by this call. */
export async function migrate(
  pool: pg.Pool,
  options: { files?: MigrationFile[]; onApply?: (name: string) => void } = {},
): Promise<string[]> {
  const files = options.files ?? readMigrationFiles();
  const client = await pool.connect();
  try {
    // Waiting for another migrator, or long DDL, must not hit the API's statement timeout.
    await client.query('set statement_timeout = 0');
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
    try {
      await client.query(`create table if not exists schema_migrations (
        name text primary key,
        checksum text not null,
        applied_at timestamptz not null default now()
      )`);
      const status = compare(files, await appliedChecksums(client));
      const applied: string[] = [];
      for (const file of files.filter((f) => status.pending.includes(f.name))) {
        await client.query('begin');
        try {
          await client.query(file.sql);
          await client.query('insert into schema_migrations (name, checksum) values ($1, $2)', [file.name, file.checksum]);
          await client.query('commit');
        } catch (err) {
          await client.query('rollback');
          throw new MigrationError(`migration ${file.name} failed: ${(err as Error).message}`);
        }
        applied.push(file.name);
        options.onApply?.(file.name);
      }
      return applied;
    } finally {
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY.toString()]);
      await client.query('reset statement_timeout');
    }
  } finally {
    client.release();
  }
}
