import { Writable } from 'node:stream';

/**
 * A pino destination that keeps the service's log lines, each parsed, as an operator's collector would
 * receive them: pass `sink` to createLogger and read `lines`.
 */
export function collectLogLines(): { lines: Record<string, unknown>[]; sink: Writable } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, sink };
}
