/**
 * `npm run bench -- --only csv`: the CSV export of a party's activities
 * (GET /api/indexer/v0/parties/{party}/activity, Accept: text/csv) over a history of 1,000,000 rows,
 * streamed from a real `serve` process while its RSS is sampled every 100 ms from /proc: the export
 * reads the rows a page at a time, so the RSS must stay flat however long the history. The rows are
 * generated in the database (one INSERT ... SELECT), valid rows of the activity projection: transfers
 * sent and received, taps and validator reward claims. Fails when a row is missing.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { sql } from 'kysely';
import { formatRecordTime, parseTimestamp } from '../src/domain/time';
import { freePort } from '../src/store/embedded-postgres';
import { migrate } from '../src/store/migrator';
import { createDb, createPool } from '../src/store/pool';
import { BENCH_LIMITS } from './support/bench-limits';
import { spawnCli } from './support/cli-child';

export interface CsvBenchOptions {
  databaseUrl: string;
  scale: 'full' | 'quick' | 'tiny';
  log: (line: string) => void;
}

const ROWS = { full: 1_000_000, quick: 100_000, tiny: 2_000 } as const;
/** Rows of other parties beside the exported one's, so that the export reads a range of the index, not all of it. */
const OTHER_ROWS = { full: 100_000, quick: 10_000, tiny: 200 } as const;
const PARTY = 'csv-bench-party::1220' + 'ab'.repeat(32);
const DAY0 = parseTimestamp('2026-10-01T00:00:00Z');
/** A row every 2 s of record time: 1,000,000 rows span 23 days, within one monthly partition. */
const STEP_MICROS = 2_000_000n;
const SAMPLE_MS = 100;
const TENTHS = [1, 2, 3, 4, 5, 6, 7, 8, 9];
/** V8's old space for the capped run, in MB: a small fraction of the export's 230 MB at full size. */
const HEAP_CAP_MB = 48;

/** The resident set of a process, in bytes, from /proc (Linux); undefined where there is none. */
function rssOf(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The activities: the party's `rows` (four kinds in turn) and `others` of other parties, interleaved in time. */
function insertActivities(rows: number, others: number) {
  const t0 = formatRecordTime(DAY0);
  const step = `${Number(STEP_MICROS) / 1e6} seconds`;
  return sql`insert into activities (migration_id, record_time, update_id, node, kind, leg, party, round, amount, fees, holding_fees,
      burned, counterparties)
    select 0, ${t0}::timestamptz + i * ${step}::interval, 'csv-bench-' || i, 0,
      case i % 4 when 0 then 'transfer' when 1 then 'transfer' when 2 then 'tap' else 'validator_reward' end,
      case i % 4 when 1 then 1 else 0 end,
      ${PARTY}, i / 100, (i % 1000) + 0.25,
      case i % 4 when 0 then 0.03 else 0 end,
      case i % 4 when 0 then 0.0001 else null end,
      case i % 4 when 0 then 0.0301 else null end,
      case when i % 4 < 2 then array['receiver-' || (i % 17) || '::1220' || md5((i % 17)::text)] else '{}'::text[] end
    from generate_series(1, ${rows}) i
    union all
    select 0, ${t0}::timestamptz + (i * ${rows / Math.max(1, others)}) * ${step}::interval + interval '1 millisecond',
      'csv-bench-other-' || i, 0, 'tap', 0, 'other-' || (i % 50) || '::1220' || md5(i::text), i / 100, 1, 0, null, null, '{}'::text[]
    from generate_series(1, ${others}) i`;
}

/** `scan-indexer serve` on a free port, ready once /readyz answers. */
async function startServe(
  databaseUrl: string,
  extraEnv: Record<string, string> = {},
): Promise<{ url: string; child: ChildProcess; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = spawnCli(['serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      PAGE_TOKEN_SECRET: 'csvbench-page-token-secret-0123456789abcdef',
      // The export is all it is asked for: no ledger API users.
      LEDGER_AUTH_DISABLED: 'true',
      ...BENCH_LIMITS,
      ...extraEnv,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString('utf8')).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`serve exited (${child.exitCode ?? child.signalCode}): ${stderr.trim()}`);
    const ready = await new Promise<boolean>((resolve) => {
      http
        .get(`${url}/readyz`, (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        })
        .on('error', () => resolve(false));
    });
    if (ready) return { url, child, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`serve did not become ready in 120 s: ${stderr.trim()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Streamed {
  status: number;
  contentType: string;
  bytes: number;
  /** Lines ended by CRLF, the header included. */
  lines: number;
  firstLine: string;
  firstByteMs: number;
  totalMs: number;
}

/** GETs `path` as CSV and counts what arrives, keeping none of it but the first line. */
function streamCsv(url: string, path: string, onProgress: (lines: number) => void = () => undefined): Promise<Streamed> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const ms = () => Number(process.hrtime.bigint() - start) / 1e6;
    http
      .get(`${url}${path}`, { headers: { accept: 'text/csv' } }, (res) => {
        const firstByteMs = ms();
        let bytes = 0;
        let lines = 0;
        let head = '';
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (head.length < 1000 && !head.includes('\r\n')) head += chunk.toString('utf8', 0, Math.min(chunk.length, 1000));
          for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines += 1;
          onProgress(lines);
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            bytes,
            lines,
            firstLine: head.split('\r\n')[0] ?? '',
            firstByteMs,
            totalMs: ms(),
          }),
        );
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

interface Measured {
  got: Streamed;
  samples: number;
  startRss: number | undefined;
  peakRss: number;
  endRss: number | undefined;
  /** The RSS as each tenth of the rows had arrived. */
  tenths: (number | undefined)[];
}

/** One whole export from `serve`, its RSS sampled every SAMPLE_MS and at each tenth of the rows. */
async function measuredExport(serve: { url: string; child: ChildProcess }, path: string, rows: number): Promise<Measured> {
  const pid = serve.child.pid!;
  const startRss = rssOf(pid);
  let peakRss = startRss ?? 0;
  let samples = 0;
  const marks = new Map<number, number | undefined>();
  const sampler = setInterval(() => {
    const rss = rssOf(pid);
    if (rss === undefined) return;
    samples += 1;
    peakRss = Math.max(peakRss, rss);
  }, SAMPLE_MS);
  let got: Streamed;
  try {
    got = await streamCsv(serve.url, path, (n) => {
      for (const q of TENTHS)
        if (!marks.has(q) && n >= (rows * q) / 10) {
          const rss = rssOf(pid);
          marks.set(q, rss);
          peakRss = Math.max(peakRss, rss ?? 0);
        }
    });
  } finally {
    clearInterval(sampler);
  }
  const endRss = rssOf(pid);
  peakRss = Math.max(peakRss, endRss ?? 0);
  return { got, samples, startRss, peakRss, endRss, tenths: TENTHS.map((q) => marks.get(q)) };
}

/** Prints an export's figures; throws when it is not the whole CSV. */
function report(what: string, m: Measured, rows: number, add: (line: string) => void): void {
  const { got } = m;
  const gotRows = got.lines - 1;
  const seconds = got.totalMs / 1000;
  add(
    `${what}CSV export of ${fmt(gotRows)} rows (${mb(got.bytes)}) through serve: ${fmt(Math.round(gotRows / seconds))} rows/s, ` +
      `${(got.bytes / 1048576 / seconds).toFixed(1)} MB/s; first byte after ${got.firstByteMs.toFixed(0)} ms, all in ${seconds.toFixed(1)} s`,
  );
  const half = m.tenths[4];
  const secondHalf = [...m.tenths.slice(4), m.endRss].map((x) => x ?? 0);
  add(
    `${what}serve RSS during the export (${fmt(m.samples)} samples every ${SAMPLE_MS} ms): start ${mb(m.startRss)}, peak ${mb(m.peakRss)}, ` +
      `end ${mb(m.endRss)}; peak - start ${m.startRss === undefined ? 'n/a' : mb(m.peakRss - m.startRss)}; ` +
      `growth over the second half of the rows ${half === undefined ? 'n/a' : mb(Math.max(...secondHalf) - half)}`,
  );
  add(`${what}serve RSS at each tenth of the rows: ${m.tenths.map((x) => mb(x).replace(' MB', '')).join(', ')} MB`);
  if (got.status !== 200 || !got.contentType.startsWith('text/csv') || !got.firstLine.startsWith('migration_id,record_time,'))
    throw new Error(`the export answered ${got.status} ${got.contentType}: ${got.firstLine}`);
  if (gotRows !== rows) throw new Error(`the CSV export gave ${fmt(gotRows)} rows of the ${fmt(rows)} stored`);
}

const mb = (bytes: number | undefined) => (bytes === undefined ? 'n/a' : `${(bytes / 1048576).toFixed(1)} MB`);
const fmt = (n: number) => n.toLocaleString('en-US');

export async function runCsvBench(options: CsvBenchOptions): Promise<void> {
  const { log } = options;
  const rows = ROWS[options.scale];
  const others = OTHER_ROWS[options.scale];
  const pool = createPool({ connectionString: options.databaseUrl, max: 2 });
  const db = createDb(pool);
  const add = (line: string) => log(`  ${line}`);
  let serve: Awaited<ReturnType<typeof startServe>> | undefined;
  try {
    await migrate(pool);
    const last = DAY0 + BigInt(rows + 1) * STEP_MICROS;
    for (const t of [DAY0, last]) await sql`select ensure_history_partitions(0, ${formatRecordTime(t)}::timestamptz)`.execute(db);
    const start = process.hrtime.bigint();
    await insertActivities(rows, others).execute(db);
    await sql`vacuum analyze activities`.execute(db);
    const loadS = Number(process.hrtime.bigint() - start) / 1e9;
    const stored = await sql<{ n: string }>`select count(*)::text as n from activities where party = ${PARTY}`.execute(db);
    add(
      `dataset: ${fmt(Number(stored.rows[0]!.n))} activities of one party (and ${fmt(others)} of others), generated in ${loadS.toFixed(1)} s`,
    );

    const path = `/api/indexer/v0/parties/${encodeURIComponent(PARTY)}/activity`;
    serve = await startServe(options.databaseUrl);
    // A first small export, so that the RSS at the start is the warmed-up server's, not its cold start.
    const warm = await streamCsv(serve.url, `${path}?to=${encodeURIComponent(formatRecordTime(DAY0 + 200n * STEP_MICROS))}`);
    if (warm.status !== 200) throw new Error(`the warm-up export answered ${warm.status}`);
    report('', await measuredExport(serve, path, rows), rows, add);
    // The same export again on the same process: memory kept by the first would show as a higher peak.
    report('again, same process: ', await measuredExport(serve, path, rows), rows, add);
    await serve.stop();
    // And with V8's old space capped far below the export's size: it can finish only if it holds a bounded part of it.
    serve = await startServe(options.databaseUrl, { NODE_OPTIONS: `--max-old-space-size=${HEAP_CAP_MB}` });
    report(`with --max-old-space-size=${HEAP_CAP_MB}: `, await measuredExport(serve, path, rows), rows, add);
    add(`rows: all ${fmt(rows)} exported`);
  } finally {
    await serve?.stop();
    await db.destroy();
  }
}
