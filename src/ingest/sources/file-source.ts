/**
 * NDJSON file source: one `/v0/events`-shaped item per line. The position is
 * the number of lines consumed, so an interrupted import resumes at the next
 * line; blank lines are skipped but counted.
 */
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import type { CanonicalItem } from '../../domain/items';
import { SourceItemError, type Source, type SourceItem } from '../source';

export interface FileSource extends Source {
  /** Bytes of the file read so far and its size, for progress. */
  progress(): { bytesRead: number; totalBytes: number };
}

export function createFileSource(file: string): FileSource {
  const absolute = path.resolve(file);
  let stream: fs.ReadStream | undefined;
  const totalBytes = fs.statSync(absolute).size;
  return {
    stream: `file:${absolute}`,
    progress: () => ({ bytesRead: stream?.bytesRead ?? 0, totalBytes }),
    async *read(from: string | undefined, signal: AbortSignal): AsyncIterable<SourceItem> {
      const skip = from === undefined ? 0 : Number(from);
      if (!Number.isSafeInteger(skip) || skip < 0) throw new Error(`invalid checkpoint position '${from}' for ${absolute}`);
      stream = fs.createReadStream(absolute, { encoding: 'utf8', highWaterMark: 1 << 20 });
      const lines = readline.createInterface({ input: stream, crlfDelay: Infinity });
      let lineNumber = 0;
      try {
        for await (const line of lines) {
          lineNumber += 1;
          if (lineNumber <= skip || line.trim() === '') continue;
          if (signal.aborted) return;
          const origin = `${absolute}:${lineNumber}`;
          let item: CanonicalItem;
          try {
            item = JSON.parse(line) as CanonicalItem;
          } catch (err) {
            throw new SourceItemError(origin, undefined, `malformed JSON: ${(err as Error).message}`);
          }
          yield { item, position: String(lineNumber), origin };
        }
      } finally {
        lines.close();
        stream.destroy();
      }
    },
  };
}
