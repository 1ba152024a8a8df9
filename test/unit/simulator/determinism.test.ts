import { Writable } from 'node:stream';
import { generateItems, writeNdjson, type SimulatorOptions } from '../../../src/simulator/index';

/** Collects everything written; `slow` acknowledges each write asynchronously with a tiny buffer, forcing backpressure. */
function sink(slow = false): { stream: Writable; bytes: () => Buffer; drains: () => number } {
  const chunks: Buffer[] = [];
  let drains = 0;
  const stream = new Writable({
    highWaterMark: slow ? 1024 : 16 * 1024 * 1024,
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      if (slow) setImmediate(done);
      else done();
    },
  });
  stream.on('drain', () => drains++);
  return { stream, bytes: () => Buffer.concat(chunks), drains: () => drains };
}

async function ndjson(options: SimulatorOptions, slow = false): Promise<{ bytes: Buffer; drains: number }> {
  const s = sink(slow);
  await writeNdjson(options, s.stream);
  return { bytes: s.bytes(), drains: s.drains() };
}

describe('determinism', () => {
  const options: SimulatorOptions = { seed: 42, updates: 800, migrations: 2, tickSeconds: 60, parties: 40 };

  it('the same seed gives byte-identical NDJSON, also under backpressure', async () => {
    const a = await ndjson(options);
    const b = await ndjson(options, true);
    expect(b.drains).toBeGreaterThan(0);
    expect(a.bytes.length).toBeGreaterThan(100_000);
    expect(a.bytes.equals(b.bytes)).toBe(true);
  });

  it('a different seed gives a different stream', async () => {
    const a = await ndjson(options);
    const c = await ndjson({ ...options, seed: 43 });
    expect(a.bytes.equals(c.bytes)).toBe(false);
  });

  it('writes one generated item per line', async () => {
    const { bytes } = await ndjson(options);
    const lines = bytes.toString('utf8').split('\n');
    expect(lines.pop()).toBe('');
    const generated = [...generateItems(options)].map((item) => JSON.stringify(item));
    expect(lines).toEqual(generated);
    expect(lines.filter((l) => JSON.parse(l).update !== null && !l.includes('"record_time":"0001-01-01T00:00:00.000000Z"'))).toHaveLength(
      800,
    );
  });
});
