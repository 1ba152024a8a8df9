/**
 * `npm run bench` at tiny scale, so that the benchmark cannot rot: it must run
 * to its end and print every figure of both parts. It asserts nothing about
 * speed (machines here are shared and noisy); the figures are benchmarks'.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '../../src/internal/paths';
import { adminUrl } from '../support/database/database';

function runBench(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(projectRoot, 'dist/bench/run.js'), ...args], {
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
  it('runs the ingest, mirror, read and beside parts to the end and prints every figure with its baseline', async () => {
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
      'API beside ingestion on',
      'ingest under load / idle',
      'serve + ingest processes',
      'peak RSS of the service',
    ]) {
      expect(output).toContain(figure);
    }
  }, 600_000);
});
