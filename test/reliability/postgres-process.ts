/**
 * A PostgreSQL the test starts and stops itself: the embedded one
 * (src/store/embedded-postgres.ts, built), run by a small controller process
 * so that stopping it is what an operator's `pg_ctl stop -m fast` does, and
 * starting it again reuses its data directory and port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../src/internal/paths';

const MODULE = path.join(projectRoot, 'dist/src/store/embedded-postgres.js');

// Starts the cluster, prints its URL, and on SIGTERM stops it (a fast shutdown) and exits.
const CONTROLLER = `
const { startEmbeddedPostgres } = require(${JSON.stringify(MODULE)});
const [dataDir, port] = process.argv.slice(1);
startEmbeddedPostgres({ dataDir, port: Number(port) }).then((pg) => {
  process.stdout.write('URL ' + pg.url + '\\n');
  process.on('SIGTERM', () => pg.stop().then(() => process.exit(0)));
}, (err) => { process.stderr.write(String(err && err.stack || err)); process.exit(1); });
`;

export interface PostgresProcess {
  url: string;
  dataDir: string;
  port: number;
  /** Stops the server (fast shutdown); resolves once it has exited. */
  stop(): Promise<void>;
  /** Starts it again on the same data directory and port. */
  start(): Promise<void>;
  /** Stops it and removes its data. */
  destroy(): Promise<void>;
}

export async function startPostgresProcess(port: number): Promise<PostgresProcess> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'outage-pg-'));
  fs.rmdirSync(dataDir);
  let child: ChildProcess | undefined;
  let url = '';
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const c = spawn(process.execPath, ['-e', CONTROLLER, dataDir, String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
      child = c;
      let out = '';
      c.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const match = /URL (\S+)/.exec(out);
        if (match?.[1]) {
          url = match[1];
          resolve();
        }
      });
      c.stderr.on('data', (d: Buffer) => (out += d.toString()));
      c.once('exit', (code) => reject(new Error(`PostgreSQL controller exited with ${code}: ${out}`)));
    });
  const stop = async () => {
    const c = child;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((resolve) => c.once('exit', resolve));
    c.kill('SIGTERM');
    await exited;
  };
  await start();
  return {
    get url() {
      return url;
    },
    dataDir,
    port,
    stop,
    start,
    destroy: async () => {
      await stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
      fs.rmSync(`${dataDir}.password`, { force: true });
    },
  };
}
