/** Simulated networks written as NDJSON for ingestion tests. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CanonicalItem } from '../../src/domain/items';
import { generateItems, type SimulatorOptions } from '../../src/simulator';

export function simulatedItems(options: SimulatorOptions): CanonicalItem[] {
  return [...generateItems(options)];
}

export function writeItems(items: CanonicalItem[], file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'items-')), 'items.ndjson')): string {
  fs.writeFileSync(file, items.map((i) => `${JSON.stringify(i)}\n`).join(''));
  return file;
}
