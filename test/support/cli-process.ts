/** The built CLI (`dist/src/cli.js`) in a child process, optionally killed with SIGKILL after a delay. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '../../src/internal/paths';

const CLI = path.join(projectRoot, 'dist/src/cli.js');

export interface CliExit {
  code: number | null;
  signal: string | null;
  stderr: string;
}

/** Runs `scan-indexer <args>` with only PATH, LOG_LEVEL=error and `env` in its environment. */
export function runCli(args: string[], env: Record<string, string>, killAfterMs?: number): Promise<CliExit> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'error', ...env } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}
