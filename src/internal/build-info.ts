/**
 * What this build is, for `GET /api/scan/version` (the Scan app's `Version`:
 * its release and the time of the commit it was built from). `npm run build`
 * records the commit time in dist/build-info.json (`scan-indexer build-info`):
 * from git when the build has the repository, otherwise the time of the build,
 * and says which.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from './paths';

export interface BuildInfo {
  /** package.json's version. */
  version: string;
  /** ISO 8601 time of the commit (or of the build, when the commit is unknown). */
  commitTime: string;
  commitTimeSource: 'git' | 'build time' | 'unknown';
}

const BUILD_INFO_FILE = path.join(projectRoot, 'dist', 'build-info.json');

function packageVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;
}

/** Writes dist/build-info.json; run by `npm run build`. */
export function writeBuildInfo(now: Date = new Date()): BuildInfo {
  let info: BuildInfo;
  try {
    const time = execFileSync('git', ['log', '-1', '--format=%cI'], {
      cwd: projectRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 10_000,
    }).trim();
    if (Number.isNaN(Date.parse(time))) throw new Error('no commit');
    info = { version: packageVersion(), commitTime: new Date(time).toISOString(), commitTimeSource: 'git' };
  } catch {
    info = { version: packageVersion(), commitTime: now.toISOString(), commitTimeSource: 'build time' };
  }
  fs.mkdirSync(path.dirname(BUILD_INFO_FILE), { recursive: true });
  fs.writeFileSync(BUILD_INFO_FILE, `${JSON.stringify(info, null, 2)}\n`);
  return info;
}

let cached: BuildInfo | undefined;

/** The recorded build information; without a recorded build (tests from sources), the commit time is unknown (the epoch). */
export function readBuildInfo(): BuildInfo {
  if (cached) return cached;
  try {
    cached = JSON.parse(fs.readFileSync(BUILD_INFO_FILE, 'utf8')) as BuildInfo;
  } catch {
    cached = { version: packageVersion(), commitTime: new Date(0).toISOString(), commitTimeSource: 'unknown' };
  }
  return cached;
}
