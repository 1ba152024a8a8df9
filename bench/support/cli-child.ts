/**
 * The built CLI (`dist/src/cli.js`, written by `npm run build`) in a child process: how bench/ and the
 * tests start `scan-indexer <command>` as operators run it. Readiness, output and stopping are the
 * callers' own, as each waits for something else.
 */
import {
  spawn,
  type ChildProcess,
  type ChildProcessByStdio,
  type ChildProcessWithoutNullStreams,
  type SpawnOptions,
  type SpawnOptionsWithoutStdio,
} from 'node:child_process';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { projectRoot } from '../../src/internal/paths';

/** The built CLI of this checkout. */
export const CLI_SCRIPT = path.join(projectRoot, 'dist/src/cli.js');

/**
 * Starts `node <cli> <args>` with `options` as given to spawn: with the default stdio (pipes), stdout
 * and stderr are there to read. `cli` is this checkout's by default, or another build's to compare.
 */
export function spawnCli(args: readonly string[], options?: SpawnOptionsWithoutStdio, cli?: string): ChildProcessWithoutNullStreams;
export function spawnCli(
  args: readonly string[],
  options: SpawnOptions & { stdio: ['ignore', 'pipe', 'pipe'] },
  cli?: string,
): ChildProcessByStdio<null, Readable, Readable>;
export function spawnCli(args: readonly string[], options: SpawnOptions, cli?: string): ChildProcess;
export function spawnCli(args: readonly string[], options: SpawnOptions = {}, cli = CLI_SCRIPT): ChildProcess {
  return spawn(process.execPath, [cli, ...args], options);
}
