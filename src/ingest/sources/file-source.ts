/**
 * NDJSON file source: one `/v0/events`-shaped item per line. The position is
 * the number of lines consumed, so an interrupted import resumes at the next
 * line; blank lines are skipped but counted. Lines are cut from the file's
 * bytes and decoded one at a time (readline's string decoding and line regex
 * cost more than the JSON parse of an item), keeping the members' JSON texts
 * for the writer (item-text.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CanonicalItem } from '../../domain/items';
import { SourceItemError, type Source, type SourceItem } from '../source';
import { parseItemLine, type ItemTexts } from './item-text';

export interface FileSource extends Source {
  /** Bytes of the file read so far and its size, for progress. */
  progress(): { bytesRead: number; totalBytes: number };
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

const withoutCarriageReturn = (line: Buffer) => (line[line.length - 1] === CARRIAGE_RETURN ? line.subarray(0, line.length - 1) : line);

/**
 * The lines of a file as byte ranges, those each chunk completes at a time: each buffer is one line
 * without its line break. (One await per chunk, not per line, which cost a promise and a turn each.)
 */
async function* lines(stream: fs.ReadStream): AsyncGenerator<Buffer[]> {
  let rest: Buffer | undefined;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const completed: Buffer[] = [];
    let start = 0;
    if (rest) {
      const end = chunk.indexOf(NEWLINE);
      if (end === -1) {
        rest = Buffer.concat([rest, chunk]);
        continue;
      }
      // Only a line that spans two chunks is copied.
      completed.push(withoutCarriageReturn(Buffer.concat([rest, chunk.subarray(0, end)])));
      rest = undefined;
      start = end + 1;
    }
    for (let end = chunk.indexOf(NEWLINE, start); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      completed.push(withoutCarriageReturn(chunk.subarray(start, end)));
      start = end + 1;
    }
    if (start < chunk.length) rest = chunk.subarray(start);
    yield completed;
  }
  if (rest && rest.length > 0) yield [withoutCarriageReturn(rest)];
}

const isBlank = (line: Buffer) => line.every((b) => b === 0x20 || b === 0x09 || b === CARRIAGE_RETURN);

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
      stream = fs.createReadStream(absolute, { highWaterMark: 1 << 20 });
      let lineNumber = 0;
      try {
        for await (const completed of lines(stream)) {
          for (const line of completed) {
            lineNumber += 1;
            if (lineNumber <= skip || isBlank(line)) continue;
            if (signal.aborted) return;
            const origin = `${absolute}:${lineNumber}`;
            let parsed: { item: CanonicalItem; texts?: ItemTexts };
            try {
              parsed = parseItemLine(line.toString('utf8'));
            } catch (err) {
              throw new SourceItemError(origin, undefined, `malformed JSON: ${(err as Error).message}`);
            }
            yield { ...parsed, position: String(lineNumber), origin };
          }
        }
      } finally {
        stream.destroy();
      }
    },
  };
}
