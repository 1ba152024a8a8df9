/**
 * scan-indexer as operators run it: the built CLI in a child process, so that
 * a crash is seen as the process ending, not as a failed test.
 */
import type { ChildProcess } from 'node:child_process';
import { spawnCli } from '../../bench/support/cli-child';
import { GENEROUS_LIMITS } from '../support/http/http';

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Exits seen since start (a crash, or the end asked for). */
  exits: { code: number | null; signal: string | null }[];
  /** Everything the process wrote to stdout and stderr. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Runs `scan-indexer <command>` on the database and resolves once it prints where it serves. Like
 * startTestApi, the server gets rate limits no test reaches (GENEROUS_LIMITS) unless `env` sets its own:
 * tests ask from 127.0.0.1 faster than the defaults allow.
 */
export function startServerProcess(command: 'serve' | 'start' | 'ingest', env: Record<string, string>): Promise<ServerProcess> {
  const child = spawnCli([command], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', ...GENEROUS_LIMITS, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exits: ServerProcess['exits'] = [];
  child.on('exit', (code, signal) => exits.push({ code, signal }));
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /serving at (http:\/\/[^\s]+)/.exec(output);
      if (match && match[1]) {
        child.stdout.off('data', onData);
        child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
        resolve({
          url: match[1],
          child,
          exits,
          output: () => output,
          stop: async () => {
            if (child.exitCode !== null || child.signalCode !== null) return;
            const exited = new Promise((done) => child.once('exit', done));
            child.kill('SIGTERM');
            await exited;
          },
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.once('exit', (code) => reject(new Error(`scan-indexer ${command} exited with ${code} before serving:\n${output}`)));
  });
}
