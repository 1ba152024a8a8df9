/**
 * `scan-indexer start` as a new user runs it: no DATABASE_URL, so the embedded
 * PostgreSQL; then Ctrl-C (SIGINT) must stop everything, leaving no postgres.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnCli } from '../../bench/support/cli-child';
import { request } from '../support/http/http';

function postgresRunningOn(dataDir: string): boolean {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return false;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms; output:\n${seen}`)), timeoutMs);
    const onData = (d: Buffer) => {
      seen += d.toString();
      const m = seen.match(pattern);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
  });
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.on('exit', (code) => resolve(code))));

describe('scan-indexer start on the embedded default', () => {
  const env = { PATH: process.env.PATH ?? '', HOME: os.tmpdir() };

  it('serves within 30 s, answers the DSO party id, and stops cleanly on SIGINT', async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-indexer-start-'));
    // As root, postgres runs as its own OS user, which must be able to enter the folder.
    fs.chmodSync(parent, 0o755);
    const dataDir = path.join(parent, 'postgres');
    const child = spawnCli(['start'], {
      env: { ...env, PORT: '0', EMBEDDED_PG_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    });
    try {
      const started = Date.now();
      const [, url, firstLine] = await waitForOutput(child, /scan-indexer is serving at (http:\/\/\S+)\n(.*)\n/, 30_000);
      expect(Date.now() - started).toBeLessThan(30_000);
      // The web UI's address comes first, and it serves the page.
      expect(firstLine).toBe(`  Web UI           ${url}/`);
      const page = await request(url!, 'GET', '/');
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.text).toContain('<script type="module" src="/ui/app.js"></script>');
      expect(await request(url!, 'GET', '/livez')).toMatchObject({ status: 200 });
      expect(await request(url!, 'GET', '/api/scan/v0/dso-party-id')).toMatchObject({
        status: 404,
        json: { error: 'No DSO party is known yet: no DsoRules contract has been ingested.' },
      });
      expect(postgresRunningOn(dataDir)).toBe(true);

      child.kill('SIGINT');
      expect(await exited(child)).toBe(0);
      expect(postgresRunningOn(dataDir)).toBe(false);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('a terminal Ctrl-C (SIGINT to the whole process group) drains, stops postgres last, exits 0 with no error line', async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-indexer-ctrl-c-'));
    fs.chmodSync(parent, 0o755);
    const dataDir = path.join(parent, 'postgres');
    // Its own process group, as a terminal's foreground job: the signal below reaches every process in it.
    const child = spawnCli(['start'], {
      env: { ...env, PORT: '0', EMBEDDED_PG_DATA_DIR: dataDir, LOG_LEVEL: 'info', SIMULATOR_MODE: 'backfill' },
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    try {
      await waitForOutput(child, /scan-indexer is serving at/, 30_000);
      // Backfill keeps the worker writing batches, so that the signal finds it busy.
      await new Promise((r) => setTimeout(r, 3000));
      process.kill(-child.pid!, 'SIGINT');
      expect(await exited(child)).toBe(0);
      expect(postgresRunningOn(dataDir)).toBe(false);
      const levels = output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; msg: string });
      expect(levels.length).toBeGreaterThan(0);
      expect(levels.filter((l) => l.level >= 50)).toEqual([]);
      expect(output).not.toMatch(/terminating connection|ingestion stopped/);
      expect(levels.map((l) => l.msg)).toContain('shutdown complete');
    } finally {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    }
  });

  it('stops at start-up with one line naming a bad variable', async () => {
    const child = spawnCli(['start'], { env: { ...env, PORT: 'eighty' } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    expect(await exited(child)).toBe(1);
    expect(stderr).toBe('scan-indexer: Invalid configuration: PORT="eighty": expected an integer from 0 to 65535.\n');
  });

  it('answers an unknown option with one line and the usage, and --help with the usage alone, never a stack trace', async () => {
    const run = async (args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> => {
      const child = spawnCli(args, { env });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      return { code: await exited(child), stdout, stderr };
    };
    const help = await run(['simulate', '--help']);
    expect(help).toEqual({ code: 0, stdout: expect.stringMatching(/^Usage: scan-indexer <command> \[options\]\n/), stderr: '' });
    const unknown = await run(['simulate', '--seeds', '1']);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr.split('\n')[0]).toBe("scan-indexer: Unknown option '--seeds'");
    expect(unknown.stderr).toContain(`\n\n${help.stdout}`);
    expect(unknown.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses read replicas without DATABASE_URL, before starting the embedded server', async () => {
    const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'scan-indexer-start-')), 'postgres');
    const child = spawnCli(['serve'], {
      env: { ...env, DATABASE_READ_URLS: 'postgres://replica/scan', EMBEDDED_PG_DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    expect(await exited(child)).toBe(1);
    expect(stderr).toBe(
      'scan-indexer: Invalid configuration: DATABASE_READ_URLS needs DATABASE_URL: the replicas are replicas of that server, not of the embedded one.\n',
    );
    expect(fs.existsSync(dataDir)).toBe(false);
  });
});
