/**
 * The live stream (`npm run bench -- --only stream`; issue #30's goals), in two parts, each on a fresh
 * database:
 *
 * - Fan-out: `scan-indexer start` (one process: the API and the worker thread) ingesting the live
 *   simulator, with N concurrent Server-Sent-Events subscribers from this process. Delivery latency is
 *   from commit to receipt: the commit time of an item is the `at` of the writer's commit notice that
 *   covers it (the first notice, on the channel the API listens to, whose batch ends at or after the
 *   item; the writer takes `at` from its clock just before COMMIT, so the commit itself is counted), and
 *   the receipt time is when this process has read the item's whole SSE event; both clocks are this
 *   machine's. Only items committed after every subscriber is connected are counted. Each subscriber's
 *   items are then checked against /v0/events over the same range: none missing, none twice. RSS growth
 *   per idle subscriber: the process's resident memory with N subscribers that receive nothing (a
 *   `party` filter no update names) against without, the median of samples each side.
 * - Catch-up: N updates of the simulator ingested, then served by `scan-indexer serve`; one subscriber
 *   from the start of history until it has every item, against paging /v0/events with page_size 1000
 *   over the same items, taking turns (two rounds). The ids read both ways must be the same sequence.
 *
 * Exits 1 (through process.exitCode) when a subscriber missed or repeated an item. Asserts nothing
 * about speed: the machines here are shared.
 */
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatRecordTime, parseTimestamp, type Micros } from '../src/domain/time';
import { createSimulatorSource } from '../src/ingest/sources/simulator-source';
import { runWorker } from '../src/ingest/worker';
import { createLogger } from '../src/internal/logger';
import { listenForCommits, type CommitNotice } from '../src/store/commit-notifications';
import { ensureDatabase } from '../src/store/embedded-postgres';
import { migrate } from '../src/store/migrator';
import { createDb, createPool } from '../src/store/pool';
import { BENCH_LIMITS } from './support/bench-limits';
import { spawnCli } from './support/cli-child';
import { SseReader } from './support/sse-reader';

export interface StreamBenchSettings {
  subscribers: number;
  /** The window over which live deliveries are timed. */
  liveSeconds: number;
  /** Simulated updates ingested for the catch-up part. */
  catchUpUpdates: number;
  /**
   * Another build's checkout (built: its dist/src/cli.js), whose `start` serves the fan-out taking turns
   * with this checkout's: baseline, this, baseline, this, each on a fresh database. The clients and the
   * measure are this checkout's either way.
   */
  baselineRoot?: string;
}

export const STREAM_SETTINGS: Record<'full' | 'quick' | 'tiny', StreamBenchSettings> = {
  full: { subscribers: 1000, liveSeconds: 60, catchUpUpdates: 1_000_000 },
  quick: { subscribers: 1000, liveSeconds: 20, catchUpUpdates: 20_000 },
  tiny: { subscribers: 50, liveSeconds: 5, catchUpUpdates: 1_000 },
};

/** The simulated network of the fan-out part: released as the wall clock reaches each update. */
const LIVE_RATE = 5;
const FROM_THE_START = '0/0001-01-01T00:00:00.000000Z';
const STREAM_PATH = '/api/indexer/v0/stream/events';

export interface StreamBenchReport {
  settings: StreamBenchSettings;
  /** One fan-out, or with a baseline four taking turns. */
  live: LiveReport[];
  catchUp: CatchUpReport;
  loadAverage: { start: number[]; end: number[] };
}

interface LiveReport {
  /** "this checkout", or the baseline's root. */
  build: string;
  subscribers: number;
  /** Items each subscriber had to get (from /v0/events over the range). */
  items: number;
  timedDeliveries: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Medians over the commits timed: this process hearing the notice, the first subscriber's receipt, and the last one's after it. */
  noticeHeardMedianMs: number;
  firstReceiptMedianMs: number;
  spreadMedianMs: number;
  /** The commits whose last receipt came latest: when (ms into the window), heard, first and last receipt (ms after the commit), and items. */
  slowest: { atMs: number; heardMs: number; firstMs: number; lastMs: number; items: number }[];
  /**
   * The API's own histogram of the window (scan_indexer_stream_delivery_latency_seconds): items written
   * to a waiting subscriber's connection, and how many within 50 and 100 ms of the commit. What is left
   * between these and the receipts above is the connection and this process's reading.
   */
  serverWrites: { total: number; within50Ms: number; within100Ms: number };
  missed: number;
  duplicated: number;
  /** Subscribers refused or ended early (status other than 200, or an error event). */
  failedSubscribers: number;
  /** 503s of /v0/events to this process's checks while the subscribers ran (each retried). */
  busyAnswers: number;
  /** The API thread's V8 heap in use (its /metrics) without and with the idle subscribers. */
  heapBeforeBytes: number;
  heapIdleBytes: number;
  rssBeforeBytes: number;
  rssIdleBytes: number;
  /** Spread (max - min) of the samples before the subscribers, to judge the difference by. */
  rssNoiseBytes: number;
  rssPerIdleSubscriberBytes: number;
}

interface CatchUpReport {
  updates: number;
  items: number;
  /** Items per second, per round. */
  streamRates: number[];
  pagingRates: number[];
  same: boolean;
}

// ---------------------------------------------------------------------------------------------
// Paging /v0/events (the subscribers are bench/support/sse-reader.ts)

interface EventItem {
  /** A reassignment has its migration id in its event. */
  update: { migration_id?: number; event?: { migration_id: number }; record_time: string; update_id: string } | null;
  verdict: { migration_id: number; record_time: string; update_id: string } | null;
}

/** The key of a /v0/events item. */
function keyOf(item: EventItem): { migrationId: number; recordTime: string; updateId: string } {
  const u = item.update;
  if (u) return { migrationId: u.migration_id ?? u.event!.migration_id, recordTime: u.record_time, updateId: u.update_id };
  const v = item.verdict!;
  return { migrationId: v.migration_id, recordTime: v.record_time, updateId: v.update_id };
}

/** The stream's id of a /v0/events item (src/domain/stream-cursor.ts). */
function cursorOf(item: EventItem): string {
  const k = keyOf(item);
  return `${k.migrationId}/${formatRecordTime(parseTimestamp(k.recordTime))}/${k.updateId}`;
}

/** 503s (busy: every database connection taken) that /v0/events answered this process, each retried after its Retry-After. */
let busyAnswers = 0;

/** Pages /v0/events (page_size 1000) after `after` to the end, handing each item's id over in order. */
async function pageEvents(url: string, onId: (id: string) => void, after?: { migrationId: number; recordTime: string }): Promise<number> {
  let count = 0;
  let from = after;
  for (;;) {
    const body = {
      page_size: 1000,
      ...(from && { after: { after_migration_id: from.migrationId, after_record_time: from.recordTime } }),
    };
    const res = await fetch(`${url}/api/scan/v0/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status === 503 && busyAnswers < 1000) {
      busyAnswers += 1;
      await res.text();
      await sleep(Number(res.headers.get('retry-after') ?? '1') * 1000);
      continue;
    }
    if (res.status !== 200) throw new Error(`/v0/events answered ${res.status}: ${await res.text()}`);
    const events = ((await res.json()) as { events: EventItem[] }).events;
    if (events.length === 0) return count;
    for (const e of events) onId(cursorOf(e));
    count += events.length;
    const k = keyOf(events[events.length - 1]!);
    from = { migrationId: k.migrationId, recordTime: k.recordTime };
  }
}

// ---------------------------------------------------------------------------------------------
// Processes

function startCli(command: 'start' | 'serve', env: Record<string, string>, cli?: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawnCli(
    [command],
    {
      env: {
        PATH: process.env.PATH ?? '',
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'warn',
        LEDGER_AUTH_DISABLED: 'true',
        ...BENCH_LIMITS,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
    cli,
  );
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /serving at (http:\/\/\S+)/.exec(output);
      if (match?.[1]) {
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve({ url: match[1], child });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('exit', (code) => reject(new Error(`scan-indexer ${command} exited with ${code} before serving:\n${output}`)));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

function rssOf(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** RSS samples every 250 ms for `seconds`: their median and spread. */
async function rssSamples(pid: number, seconds: number): Promise<{ median: number; spread: number }> {
  const samples: number[] = [];
  for (let i = 0; i < seconds * 4; i++) {
    samples.push(rssOf(pid));
    await sleep(250);
  }
  samples.sort((a, b) => a - b);
  return { median: samples[Math.floor(samples.length / 2)]!, spread: samples[samples.length - 1]! - samples[0]! };
}

/** The API thread's V8 heap in use, from its /metrics (prom-client's default metrics). */
async function heapUsed(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^scan_indexer_nodejs_heap_size_used_bytes (\S+)/m.exec(text)?.[1] ?? NaN);
}

/** The API's own delivery histogram (commit to write, stream "events"): cumulative counts by upper bound in seconds. */
async function sendBuckets(url: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^scan_indexer_stream_delivery_latency_seconds_bucket\{le="([^"]+)",stream="events"\} (\S+)$/gm))
    out.set(m[1]!, Number(m[2]));
  return out;
}

async function itemsApplied(url: string): Promise<number> {
  const status = (await (await fetch(`${url}/status`)).json()) as { streams: { items_applied: number }[] };
  return status.streams.reduce((n, s) => n + Number(s.items_applied), 0);
}

/** Opens subscribers, `concurrency` connections at a time. */
async function openAll(count: number, url: string, concurrency = 50): Promise<SseReader[]> {
  const subscribers = Array.from({ length: count }, () => new SseReader());
  for (let i = 0; i < count; i += concurrency) {
    await Promise.all(subscribers.slice(i, i + concurrency).map((s) => s.open(url)));
  }
  return subscribers;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]! : NaN;

// ---------------------------------------------------------------------------------------------
// The parts

async function fanOut(
  databaseUrl: string,
  settings: StreamBenchSettings,
  log: (line: string) => void,
  baseline: string | undefined,
): Promise<LiveReport> {
  const n = settings.subscribers;
  busyAnswers = 0;
  const service = await startCli(
    'start',
    {
      DATABASE_URL: databaseUrl,
      SOURCE: 'simulator',
      SIMULATOR_MODE: 'live',
      SIMULATOR_RATE: String(LIVE_RATE),
      SIMULATOR_SEED: '11',
      STREAM_MAX_SUBSCRIBERS: String(n + 10),
    },
    baseline === undefined ? undefined : path.join(baseline, 'dist/src/cli.js'),
  );
  const pool = createPool({ connectionString: databaseUrl, max: 1 });
  const notices: HeardNotice[] = [];
  const listener = listenForCommits(pool, {
    onCommit: (notice: CommitNotice) => {
      if (notice.stream === 'acs-snapshots' || notice.migrationId === null || notice.recordTime === null) return;
      notices.push({ key: [notice.migrationId, notice.recordTime], atMs: notice.committedAtMs, seenAtMs: Date.now() });
    },
    onConnected: () => undefined,
    onDisconnected: () => undefined,
  });
  const pid = service.child.pid!;
  try {
    // Past the genesis: the simulator's first updates and a first snapshot.
    for (let i = 0; i < 600 && (await itemsApplied(service.url)) < 20; i++) await sleep(200);

    // Idle subscribers: connected, caught up, sent nothing but heartbeats.
    await sleep(3000);
    const heapBefore = await heapUsed(service.url);
    const before = await rssSamples(pid, 3);
    const idle = await openAll(n, `${service.url}${STREAM_PATH}?party=${encodeURIComponent('bench-idle::nobody')}`);
    await sleep(2000);
    const withIdle = await rssSamples(pid, 3);
    const heapIdle = await heapUsed(service.url);
    const idleFailed = idle.filter((s) => s.status !== 200 || s.ended).length;
    for (const s of idle) s.close();
    log(
      `  ${n} idle subscribers: RSS ${(before.median / 2 ** 20).toFixed(1)} MB -> ${(withIdle.median / 2 ** 20).toFixed(1)} MB` +
        (idleFailed ? ` (${idleFailed} refused or ended)` : ''),
    );
    await sleep(1000);

    // Everything stored now is before the range: the subscribers start after its newest item.
    let newest: string | undefined;
    await pageEvents(service.url, (id) => (newest = id));
    const [migration, time] = newest!.split('/');
    const after = `${migration}/${time}`;
    const subscribers = await openAll(n, `${service.url}${STREAM_PATH}?after=${encodeURIComponent(after)}`);
    const sentBefore = await sendBuckets(service.url);
    const liveFromMs = Date.now();
    log(`  ${n} subscribers connected; timing deliveries for ${settings.liveSeconds} s`);
    await sleep(settings.liveSeconds * 1000);
    const liveToMs = Date.now();
    const sentAfter = await sendBuckets(service.url);
    const sent = (le: string) => (sentAfter.get(le) ?? 0) - (sentBefore.get(le) ?? 0);

    // The range checked ends with the last batch committed in the window: every subscriber is given up to
    // CATCH_UP_GRACE_MS to reach it, then closed (so that /v0/events is read without their load), and its
    // items up to there compared with /v0/events' over the same range.
    const end = notices[notices.length - 1]?.key;
    const upToEnd = (id: string) => end !== undefined && compareKeys(keyOfId(id), end) <= 0;
    // Items come in order: one at or after the last batch's key means that batch and all before it arrived.
    const reached = (s: SseReader) =>
      s.ended || end === undefined || (s.ids.length > 0 && compareKeys(keyOfId(s.ids[s.ids.length - 1]!), end) >= 0);
    const deadline = Date.now() + CATCH_UP_GRACE_MS;
    while (Date.now() < deadline && !subscribers.every(reached)) await sleep(200);
    const behind = subscribers.filter((s) => !reached(s)).length;
    for (const s of subscribers) s.close();
    if (behind > 0) log(`  ${behind} subscribers had not reached the window's last commit ${CATCH_UP_GRACE_MS / 1000} s after it`);
    const expected: string[] = [];
    await pageEvents(service.url, (id) => upToEnd(id) && expected.push(id), { migrationId: Number(migration), recordTime: time! });

    const expectedSet = new Set(expected);
    let missed = 0;
    let duplicated = 0;
    let failed = 0;
    const sortedNotices = notices; // commit order is key order
    const latencies: number[] = [];
    // Where the time goes, by commit: when this process heard its notice, and its first and last receipt.
    const byCommit = new Map<HeardNotice, { heardMs: number; first: number; last: number; deliveries: number }>();
    for (const s of subscribers) {
      if (s.status !== 200 || s.finalEvent !== undefined) failed += 1;
      const seen = new Set<string>();
      for (const [i, id] of s.ids.entries()) {
        if (seen.has(id)) duplicated += 1;
        seen.add(id);
        if (!expectedSet.has(id)) continue;
        const commit = commitOf(sortedNotices, id);
        if (commit !== undefined && commit.seenAtMs >= liveFromMs && commit.atMs <= liveToMs) {
          const ms = s.receivedAtMs[i]! - commit.atMs;
          latencies.push(ms);
          const c = byCommit.get(commit) ?? { heardMs: commit.seenAtMs - commit.atMs, first: ms, last: ms, deliveries: 0 };
          byCommit.set(commit, {
            heardMs: c.heardMs,
            first: Math.min(c.first, ms),
            last: Math.max(c.last, ms),
            deliveries: c.deliveries + 1,
          });
        }
      }
      for (const id of expected) if (!seen.has(id)) missed += 1;
    }
    latencies.sort((a, b) => a - b);
    const medianOf = (xs: number[]) =>
      percentile(
        xs.sort((a, b) => a - b),
        0.5,
      );
    const commits = [...byCommit.values()];
    const slowest = [...byCommit.entries()]
      .sort(([, a], [, b]) => b.last - a.last)
      .slice(0, SLOWEST_COMMITS)
      .map(([notice, c]) => ({
        atMs: notice.atMs - liveFromMs,
        heardMs: c.heardMs,
        firstMs: c.first,
        lastMs: c.last,
        items: Math.round(c.deliveries / n),
      }));
    return {
      build: baseline ?? 'this checkout',
      subscribers: n,
      items: expected.length,
      timedDeliveries: latencies.length,
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      maxMs: latencies[latencies.length - 1] ?? NaN,
      serverWrites: { total: sent('+Inf'), within50Ms: sent('0.05'), within100Ms: sent('0.1') },
      noticeHeardMedianMs: medianOf(commits.map((c) => c.heardMs)),
      firstReceiptMedianMs: medianOf(commits.map((c) => c.first)),
      spreadMedianMs: medianOf(commits.map((c) => c.last - c.first)),
      slowest,
      missed,
      duplicated,
      failedSubscribers: failed + idleFailed,
      busyAnswers,
      heapBeforeBytes: heapBefore,
      heapIdleBytes: heapIdle,
      rssBeforeBytes: before.median,
      rssIdleBytes: withIdle.median,
      rssNoiseBytes: before.spread,
      rssPerIdleSubscriberBytes: (withIdle.median - before.median) / n,
    };
  } finally {
    await listener.close();
    await pool.end();
    await stopChild(service.child);
  }
}

/** A commit notice as the bench heard it: its batch's last key, its commit time and when it was heard. */
interface HeardNotice {
  key: [number, Micros];
  atMs: number;
  seenAtMs: number;
}

/** Commits listed in the report as the slowest. */
const SLOWEST_COMMITS = 5;

/** How long after the window subscribers may take to reach its last commit before they are checked. */
const CATCH_UP_GRACE_MS = 60_000;

function keyOfId(id: string): [number, Micros] {
  const first = id.indexOf('/');
  const second = id.indexOf('/', first + 1);
  return [Number(id.slice(0, first)), parseTimestamp(id.slice(first + 1, second))];
}

const compareKeys = (a: [number, Micros], b: [number, Micros]) => (a[0] !== b[0] ? a[0] - b[0] : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);

/** The first commit notice whose batch ends at or after the item of this id. */
function commitOf(notices: HeardNotice[], id: string): HeardNotice | undefined {
  const [m, t] = keyOfId(id);
  let lo = 0;
  let hi = notices.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const [nm, nt] = notices[mid]!.key;
    if (nm < m || (nm === m && nt < t)) lo = mid + 1;
    else hi = mid;
  }
  return notices[lo];
}

async function catchUp(databaseUrl: string, settings: StreamBenchSettings, log: (line: string) => void): Promise<CatchUpReport> {
  const pool = createPool({ connectionString: databaseUrl, max: 4 });
  try {
    await migrate(pool);
    log(`  ingesting ${settings.catchUpUpdates.toLocaleString('en-US')} simulated updates`);
    await runWorker(
      {
        db: createDb(pool),
        pool,
        source: createSimulatorSource({ seed: 13, mode: 'backfill', updates: settings.catchUpUpdates, ratePerSecond: 5, migrations: 1 }),
        logger: createLogger('warn'),
        batchSize: 500,
        batchMaxWaitMs: 1000,
      },
      new AbortController().signal,
    );
  } finally {
    await pool.end();
  }
  const service = await startCli('serve', { DATABASE_URL: databaseUrl, STREAM_MAX_SUBSCRIBERS: '10' });
  try {
    const streamRates: number[] = [];
    const pagingRates: number[] = [];
    const digests = new Set<string>();
    // The ids of each way's first round, kept up to a size, to say where they part if they do.
    const kept: Record<string, string[]> = { paging: [], stream: [] };
    const keep = (way: string, round: number, id: string) => {
      if (round === 0 && kept[way]!.length < 100_000) kept[way]!.push(id);
    };
    let items = 0;
    for (let round = 0; round < 2; round++) {
      // Paging first in one round and streaming first in the other, so that neither always finds the cache warm.
      const order = round === 0 ? (['paging', 'stream'] as const) : (['stream', 'paging'] as const);
      for (const way of order) {
        const hash = createHash('sha256');
        const started = performance.now();
        let count = 0;
        if (way === 'paging') {
          count = await pageEvents(service.url, (id) => {
            hash.update(`${id}\n`);
            keep(way, round, id);
          });
          items = count;
        } else {
          const target = items || (await pageEvents(service.url, () => undefined));
          items = target;
          const t0 = performance.now();
          const s = new SseReader((id) => {
            count += 1;
            hash.update(`${id}\n`);
            keep(way, round, id);
          });
          await s.open(`${service.url}${STREAM_PATH}?after=${encodeURIComponent(FROM_THE_START)}`);
          while (count < target && !s.ended) await sleep(5);
          s.close();
          if (s.status !== 200) throw new Error(`the catch-up stream answered ${s.status}`);
          const seconds = (performance.now() - t0) / 1000;
          streamRates.push(count / seconds);
          digests.add(`${count}:${hash.digest('hex')}`);
          log(`  round ${round + 1}: stream ${count.toLocaleString('en-US')} items in ${seconds.toFixed(1)} s`);
          continue;
        }
        const seconds = (performance.now() - started) / 1000;
        pagingRates.push(count / seconds);
        digests.add(`${count}:${hash.digest('hex')}`);
        log(`  round ${round + 1}: paging ${count.toLocaleString('en-US')} items in ${seconds.toFixed(1)} s`);
      }
    }
    if (digests.size !== 1) {
      const at = kept.paging!.findIndex((id, i) => kept.stream![i] !== id);
      log(`  the ways differ (${[...digests].join(' / ')}); first at ${at}: paging ${kept.paging![at]}, stream ${kept.stream![at]}`);
    }
    return { updates: settings.catchUpUpdates, items, streamRates, pagingRates, same: digests.size === 1 };
  } finally {
    await stopChild(service.child);
  }
}

export async function runStreamBench(options: {
  adminUrl: string;
  settings: StreamBenchSettings;
  log: (line: string) => void;
}): Promise<StreamBenchReport> {
  const { adminUrl, settings, log } = options;
  const start = os.loadavg();
  const admin = createPool({ connectionString: adminUrl, max: 1 });
  const names = [`scan_indexer_bench_stream_live_${process.pid}`, `scan_indexer_bench_stream_catchup_${process.pid}`];
  try {
    for (const name of names) await admin.query(`drop database if exists ${name} with (force)`);
    const live: LiveReport[] = [];
    // With a baseline, taking turns (baseline first), so that neither build always meets the machine's quieter minutes.
    const builds = settings.baselineRoot === undefined ? [undefined] : [settings.baselineRoot, undefined, settings.baselineRoot, undefined];
    for (const baseline of builds) {
      log(
        `  fan-out: ${settings.subscribers} subscribers on one start process (${baseline ?? 'this checkout'}) ingesting the live simulator (${LIVE_RATE} updates/s)`,
      );
      await admin.query(`drop database if exists ${names[0]!} with (force)`);
      live.push(await fanOut(await ensureDatabase(adminUrl, names[0]!), settings, log, baseline));
    }
    log(`  catch-up: one subscriber against paging /v0/events`);
    const catchUpReport = await catchUp(await ensureDatabase(adminUrl, names[1]!), settings, log);
    return { settings, live, catchUp: catchUpReport, loadAverage: { start, end: os.loadavg() } };
  } finally {
    for (const name of names) await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const pct = (part: number, whole: number) => (whole > 0 ? `${((100 * part) / whole).toFixed(1)}%` : 'n/a');
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

export function formatStreamReport(server: string, r: StreamBenchReport): string {
  const c = r.catchUp;
  const load = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' ');
  return [
    `live stream on ${server} (load average ${load(r.loadAverage.start)} at the start, ${load(r.loadAverage.end)} at the end; ${os.cpus().length} cores):`,
    ...r.live.flatMap((l) => [
      ...(r.live.length > 1 ? [`  fan-out on ${l.build}:`] : []),
      `  ${l.subscribers} subscribers, ${l.items} items each over ${r.settings.liveSeconds} s: ` +
        `delivery from commit to receipt p50 ${fmt(l.p50Ms)} ms, p99 ${fmt(l.p99Ms)} ms, max ${fmt(l.maxMs)} ms (${fmt(l.timedDeliveries)} deliveries timed)`,
      `  by commit (medians): notice heard here after ${fmt(l.noticeHeardMedianMs)} ms, first subscriber's receipt after ${fmt(l.firstReceiptMedianMs)} ms, ` +
        `the last one's ${fmt(l.spreadMedianMs)} ms after the first`,
      `  the slowest commits (at ms into the window: heard / first / last receipt ms, items): ` +
        l.slowest.map((c) => `${fmt(c.atMs)}: ${fmt(c.heardMs)} / ${fmt(c.firstMs)} / ${fmt(c.lastMs)}, ${c.items}`).join('; '),
      `  the server's own writes (its delivery histogram over the window): ${fmt(l.serverWrites.total)}, ` +
        `${pct(l.serverWrites.within50Ms, l.serverWrites.total)} within 50 ms of the commit, ${pct(l.serverWrites.within100Ms, l.serverWrites.total)} within 100 ms`,
      `  missed ${l.missed}, duplicated ${l.duplicated} (checked against /v0/events over the same range); subscribers refused or ended: ${l.failedSubscribers}`,
      `  RSS per idle subscriber: ${fmt(l.rssPerIdleSubscriberBytes)} bytes ` +
        `(${(l.rssBeforeBytes / 2 ** 20).toFixed(1)} MB -> ${(l.rssIdleBytes / 2 ** 20).toFixed(1)} MB with ${l.subscribers}; ` +
        `spread of the samples without them ${(l.rssNoiseBytes / 2 ** 20).toFixed(1)} MB); ` +
        `API thread's V8 heap in use ${(l.heapBeforeBytes / 2 ** 20).toFixed(1)} MB -> ${(l.heapIdleBytes / 2 ** 20).toFixed(1)} MB`,
      `  /v0/events answered 503 (busy) ${l.busyAnswers} times to the checks while the subscribers ran (each retried after Retry-After)`,
    ]),
    `  catch-up of ${fmt(c.items)} items (${fmt(c.updates)} updates): stream ${c.streamRates.map(fmt).join(', ')} items/s, ` +
      `paging /v0/events (page_size 1000) ${c.pagingRates.map(fmt).join(', ')} items/s; ` +
      `stream / paging ${(mean(c.streamRates) / mean(c.pagingRates)).toFixed(2)}x; same items both ways: ${c.same ? 'yes' : 'NO'}`,
  ].join('\n');
}
