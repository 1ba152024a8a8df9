/**
 * `npm run bench` at tiny scale, so that the benchmark cannot rot: it must run
 * to its end and print every figure of both parts. It asserts nothing about
 * speed (machines here are shared and noisy); the figures are benchmarks'.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../src/internal/paths';
import { adminUrl } from '../support/database/database';

function runBench(args: string[], script = 'dist/bench/run.js'): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(projectRoot, script), ...args], {
      // The test's own server, as an external one: no second embedded PostgreSQL.
      env: { ...process.env, DATABASE_URL: adminUrl() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('npm run bench -- --tiny', () => {
  it('runs the ingest, mirror, read, hot-answer and beside parts to the end and prints every figure with its baseline', async () => {
    const { code, output } = await runBench(['--tiny', '--server', 'external']);
    if (code !== 0) throw new Error(`the benchmark failed (${code}):\n${output}`);
    for (const figure of [
      'updates/s',
      'events/s',
      'raw COPY of the rows, as updates/s',
      'raw COPY of the feed',
      'per-update wall time, last 10%',
      'database bytes per update',
      'worker peak RSS',
      'S4 req/s',
      'L1 req/s',
      'S1 1,000',
      'S3 last page',
      '/v0/state/acs first page',
      'start on an empty data folder',
      'N = 1 (failover source)',
      'threshold 2 (attested)',
      'hot dso-party-id req/s',
      'hot open-and-issuing-mining-rounds req/s',
      'hot proxy transfer-factory req/s',
      'hot-answer goals met',
      'API beside ingestion on',
      'ingest under load / idle',
      'serve + ingest processes',
      'peak RSS of the service',
    ]) {
      expect(output).toContain(figure);
    }
  }, 600_000);

  it('runs the scale part to the end: the stream on an empty database and on a generated large state, side by side', async () => {
    // The server's disk may be out of this process's sight (a container): the tiny run needs a few megabytes.
    const { code, output } = await runBench(['--tiny', '--only', 'scale', '--server', 'external', '--assume-free-gb', '10']);
    if (code !== 0) throw new Error(`the benchmark failed (${code}):\n${output}`);
    for (const figure of [
      'bytes per generated update',
      'built: 2,000 updates',
      'table and index sizes:',
      'empty database',
      'large state',
      'the empty database)',
      'per-update wall time, first / last 10%',
      'worker CPU per update',
      'database bytes per update',
      'worker peak RSS',
      'shared_buffers',
      'max_wal_size',
      'machine:',
    ]) {
      expect(output).toContain(figure);
    }
  }, 600_000);

  it("runs the csv part to the end: a party's whole CSV export through serve, every row counted, the RSS sampled", async () => {
    const { code, output } = await runBench(['--tiny', '--only', 'csv', '--server', 'external']);
    if (code !== 0) throw new Error(`the benchmark failed (${code}):\n${output}`);
    expect(output).toContain('dataset: 2,000 activities of one party (and 200 of others)');
    expect(output).toMatch(/CSV export of 2,000 rows \(\d+\.\d MB\) through serve: [\d,]+ rows\/s, [\d.]+ MB\/s; first byte after \d+ ms/);
    expect(output).toMatch(/serve RSS during the export \(\d+ samples every 100 ms\): start [\d.]+ MB, peak [\d.]+ MB, end [\d.]+ MB/);
    expect(output).toMatch(/serve RSS at each tenth of the rows: ([\d.]+, ){8}[\d.]+ MB/);
    expect(output).toContain('rows: all 2,000 exported');
  }, 300_000);
});

describe('npm run bench -- --tiny --only stream', () => {
  it('runs the live-stream part to the end: subscribers on a start process, checked against /v0/events, and catch-up against paging', async () => {
    const { code, output } = await runBench(['--tiny', '--only', 'stream', '--server', 'external']);
    if (code !== 0) throw new Error(`the benchmark failed (${code}):\n${output}`);
    for (const figure of [
      'delivery from commit to receipt p50',
      'missed 0, duplicated 0 (checked against /v0/events over the same range)',
      'RSS per idle subscriber',
      'paging /v0/events (page_size 1000)',
      'same items both ways: yes',
      'load average',
    ]) {
      expect(output).toContain(figure);
    }
  }, 300_000);
});

describe('bench/ingest-cpu.ts', () => {
  it('ingests one feed with each build given, taking turns, and prints the CPU and bytes per update of each', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-indexer-ingest-cpu-'));
    try {
      const feed = path.join(dir, 'feed.ndjson');
      execFileSync(process.execPath, [
        path.join(projectRoot, 'dist/src/cli.js'),
        'simulate',
        '--seed',
        '7',
        '--updates',
        '100',
        '--out',
        feed,
      ]);
      // The same build twice: the comparison runs end to end, whatever the builds.
      const { code, output } = await runBench(['--feed', feed, '--runs', '1', projectRoot, projectRoot], 'dist/bench/ingest-cpu.js');
      if (code !== 0) throw new Error(`the comparison failed (${code}):\n${output}`);
      expect(
        output.match(/^run 1, .*: 100 network updates \(\+ \d+ import updates\), \d+ µs of worker CPU per update, \d+ bytes per update/gm),
      ).toHaveLength(2);
      expect(output).toMatch(/mean \d+ µs per update \(1\.00× the first\), \d+ bytes per update \(1\.000×\)/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
