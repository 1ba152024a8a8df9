/** Locations inside the installed package, the same from src/ (tests) and dist/src/ (built). */
import fs from 'node:fs';
import path from 'node:path';

function findProjectRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'migrations'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find the scan-indexer package root above ${start}`);
    dir = parent;
  }
}

export const projectRoot = findProjectRoot(__dirname);
export const migrationsDir = path.join(projectRoot, 'migrations');
/** The built web UI (`npm run build` writes it). */
export const webUiDir = path.join(projectRoot, 'dist', 'web');
