/** The built CLI (`dist/src/cli.js`) in a child process, optionally killed with SIGKILL after a delay. */
import { spawnCli } from '../../bench/support/cli-child';

export interface CliExit {
  code: number | null;
  signal: string | null;
  stderr: string;
  /** The log lines (JSON, one per line). */
  stdout: string;
}

/** Runs `scan-indexer <args>` with only PATH, LOG_LEVEL=error and `env` in its environment. */
export function runCli(args: string[], env: Record<string, string>, killAfterMs?: number): Promise<CliExit> {
  return new Promise((resolve) => {
    const child = spawnCli(args, { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'error', ...env } });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    // Once its output is read to the end, not only once it exited.
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr, stdout });
    });
  });
}
