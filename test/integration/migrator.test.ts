import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrate, migrationStatus, MigrationError, readMigrationFiles } from '../../src/store/migrator';
import { createTestDatabase, destroyTestDatabase, type TestDatabase } from '../support/database/database';
import { spawnCli } from '../../bench/support/cli-child';

function copyMigrations(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
  for (const f of readMigrationFiles()) fs.writeFileSync(path.join(dir, f.name), f.sql);
  return dir;
}

async function appliedNames(t: TestDatabase): Promise<string[]> {
  const rows = await t.pool.query<{ name: string }>('select name from schema_migrations order by name');
  return rows.rows.map((r) => r.name);
}

describe('migrator', () => {
  let t: TestDatabase;
  beforeEach(async () => {
    t = await createTestDatabase({ empty: true });
  });
  afterEach(async () => {
    await destroyTestDatabase(t);
  });

  it('applies every file once, records checksums, and is a no-op the second time', async () => {
    const files = readMigrationFiles();
    expect(await migrate(t.pool)).toEqual(files.map((f) => f.name));
    expect(await migrate(t.pool)).toEqual([]);
    const rows = await t.pool.query<{ name: string; checksum: string }>('select name, checksum from schema_migrations order by name');
    expect(rows.rows).toEqual(files.map((f) => ({ name: f.name, checksum: f.checksum })));
    expect(await migrationStatus(t.pool)).toEqual({ applied: files.map((f) => f.name), pending: [] });
  });

  it('reports pending migrations without applying them', async () => {
    const dir = copyMigrations();
    await migrate(t.pool, { files: readMigrationFiles(dir) });
    fs.writeFileSync(path.join(dir, '29991231_001_later_change.sql'), 'create table later_change (id int);');
    expect(await migrationStatus(t.pool, readMigrationFiles(dir))).toEqual({
      applied: readMigrationFiles().map((f) => f.name),
      pending: ['29991231_001_later_change.sql'],
    });
  });

  it('refuses to start when a landed migration was edited', async () => {
    const dir = copyMigrations();
    await migrate(t.pool, { files: readMigrationFiles(dir) });
    const [first] = readMigrationFiles(dir);
    fs.appendFileSync(path.join(dir, first!.name), '\n-- a quiet edit\n');
    await expect(migrate(t.pool, { files: readMigrationFiles(dir) })).rejects.toThrow(
      new RegExp(`migration ${first!.name} was edited after it was applied`),
    );
    await expect(migrationStatus(t.pool, readMigrationFiles(dir))).rejects.toBeInstanceOf(MigrationError);
  });

  it('refuses a database that has a migration this build does not know', async () => {
    await migrate(t.pool);
    await t.pool.query("insert into schema_migrations (name, checksum) values ('29991231_001_from_the_future.sql', 'x')");
    await expect(migrate(t.pool)).rejects.toThrow(/29991231_001_from_the_future.sql, which this build does not know/);
  });

  it('rolls back a failing migration and records nothing for it', async () => {
    const dir = copyMigrations();
    fs.writeFileSync(path.join(dir, '29991231_001_broken.sql'), 'create table half_done (id int); select * from no_such_table;');
    await expect(migrate(t.pool, { files: readMigrationFiles(dir) })).rejects.toThrow(/migration 29991231_001_broken.sql failed/);
    const half = await t.pool.query("select to_regclass('half_done') as t");
    expect(half.rows[0].t).toBeNull();
    expect(await appliedNames(t)).toEqual(readMigrationFiles().map((f) => f.name));
  });

  it('lets concurrent migrators in one process apply each file exactly once', async () => {
    const results = await Promise.all([migrate(t.pool), migrate(t.pool), migrate(t.pool)]);
    expect(results.flat().sort()).toEqual(readMigrationFiles().map((f) => f.name));
  });

  it('lets two processes migrate at once without colliding', async () => {
    const run = () =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawnCli(['migrate'], {
          env: { PATH: process.env.PATH ?? '', DATABASE_URL: t.url, LOG_LEVEL: 'silent' },
        });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (out += d.toString()));
        child.on('close', (code) => resolve({ code, out }));
      });
    const [a, b] = await Promise.all([run(), run()]);
    expect([a.code, b.code]).toEqual([0, 0]);
    const outputs = [a.out.trim(), b.out.trim()].sort();
    // One applied everything; the other found the schema current.
    expect(outputs).toEqual(
      [
        `applied ${readMigrationFiles()
          .map((f) => f.name)
          .join(', ')}`,
        'the database schema is current',
      ].sort(),
    );
    expect(await appliedNames(t)).toEqual(readMigrationFiles().map((f) => f.name));
  });
});
