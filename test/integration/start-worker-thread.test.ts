/**
 * `scan-indexer start` runs the ingestion worker in a worker thread of its process (src/worker-thread/):
 * its writer role and metrics still show on the API's /status and /metrics, each part runs at its own
 * nice value (API_NICE, INGEST_NICE; Linux), a failure of the worker stops the process with the
 * worker's error as before, and a stop ends the thread before the process exits.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { spawnCli } from '../../bench/support/cli-child';
import { useTestDatabase } from '../support/database/database';
import { request } from '../support/http/http';

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
  exit: Promise<number | null>;
}

function start(env: Record<string, string>): Promise<Started> {
  const child = spawnCli(['start'], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', LEDGER_AUTH_DISABLED: 'true', ...env },
  });
  let output = '';
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      const match = /serving at (http:\/\/\S+)/.exec(output);
      if (match?.[1]) resolve({ child, url: match[1], output: () => output, exit });
    });
    void exit.then((code) => reject(new Error(`start exited with ${code} before serving:\n${output}`)));
  });
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < 150; i++) {
    last = await read();
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what}: still ${JSON.stringify(last)}`);
}

/** The nice value of each thread of a process (Linux: /proc/<pid>/task/<tid>/stat, field 19). */
function threadNiceValues(pid: number): Map<number, number> {
  const values = new Map<number, number>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    const fields = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    values.set(Number(tid), Number(fields[16]));
  }
  return values;
}

/** The value of a series in a Prometheus text exposition, and how many times the series is there. */
function series(text: string, name: string): { count: number; value: number | undefined } {
  const lines = text.split('\n').filter((line) => line.startsWith(`${name} `));
  return { count: lines.length, value: lines[0] === undefined ? undefined : Number(lines[0].split(' ')[1]) };
}

describe('scan-indexer start: the ingestion worker in a worker thread', () => {
  const t = useTestDatabase();

  it("shows the worker's role and metrics on the API, runs each part at its nice value, and stops cleanly", async () => {
    const server = await start({
      DATABASE_URL: t.url,
      SIMULATOR_MODE: 'backfill',
      SIMULATOR_RATE: '5',
      API_NICE: '3',
      INGEST_NICE: '7',
    });
    try {
      const status = await eventually(
        async () => (await request(server.url, 'GET', '/status')).json as { writer: string; streams: { items_applied: number }[] },
        (s) => s.writer === 'active' && (s.streams[0]?.items_applied ?? 0) > 0,
        'the worker thread writing, as /status shows it',
      );
      expect(status.streams.map((s) => s.items_applied)).toEqual([expect.any(Number)]);

      const metrics = (await request(server.url, 'GET', '/metrics')).text;
      // The worker thread's series, merged into the main thread's scrape.
      expect(series(metrics, 'scan_indexer_writer_active')).toEqual({ count: 1, value: 1 });
      expect(series(metrics, 'scan_indexer_ingested_updates_total{kind="transaction"}').value).toBeGreaterThan(0);
      // Node's process metrics once (the main thread's registry), the API's own series as before.
      expect(series(metrics, 'scan_indexer_process_cpu_seconds_total').count).toBe(1);
      expect(metrics).toContain('scan_indexer_http_requests_total{method="GET",route="/status",status_code="200"}');

      if (process.platform === 'linux') {
        const nice = threadNiceValues(server.child.pid!);
        // The main thread (its id is the process's) serves the API; the worker thread is the one at 7.
        expect(nice.get(server.child.pid!)).toBe(3);
        expect([...nice.values()].filter((n) => n === 7).length).toBeGreaterThanOrEqual(1);
      }

      server.child.kill('SIGTERM');
      expect(await server.exit).toBe(0);
      const messages = server
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; msg: string; thread?: string });
      expect(messages.filter((m) => m.level >= 50)).toEqual([]);
      // The thread's own shutdown completes before the process's.
      const done = messages.filter((m) => m.msg === 'shutdown complete').map((m) => m.thread ?? 'main');
      expect(done).toEqual(['ingestion worker', 'main']);
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    }
  });

  it("stops the process with the worker's error when the worker fails in its thread", async () => {
    // A checkpoint the simulator cannot resume from: the worker fails at its first read.
    await t.pool.query(
      `insert into ingest_checkpoints (stream, position) values ('simulator:seed=1', 'not a position')
       on conflict (stream) do update set position = excluded.position`,
    );
    const server = await start({ DATABASE_URL: t.url, SIMULATOR_MODE: 'backfill' });
    try {
      expect(await server.exit).toBe(1);
      expect(server.output()).toMatch(/^scan-indexer: ingestion stopped: .+$/m);
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    }
  });
});
