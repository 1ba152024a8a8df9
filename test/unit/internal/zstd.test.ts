/**
 * Decompressing multi-frame zstd streams frame by frame (zstdDecompressFrames): streams written by the
 * `zstd` command-line tool (frames without a declared content size, with checksums, raw and RLE
 * blocks) and by this project's writer (frames with their content size), skippable frames between
 * them, and malformed streams refused with where they break.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { zstdDecompressFrames, zstdFrame, zstdReady, ZstdFormatError } from '../../../src/internal/zstd';

/** The zstd tool's own compression of `data` (from a pipe: no content size in the frame header). */
const cliFrame = (data: Buffer, ...flags: string[]): Buffer =>
  execFileSync('zstd', ['-c', '-q', ...flags], { input: data, maxBuffer: 1 << 28 });

const decompressAll = (stream: Uint8Array): Buffer => Buffer.concat([...zstdDecompressFrames(stream)]);

/** Pseudo-random bytes that do not compress (raw blocks). */
const noise = (n: number, seed: string): Buffer => {
  const chunks: Buffer[] = [];
  for (let i = 0; chunks.length * 32 < n; i++) chunks.push(createHash('sha256').update(`${seed}${i}`).digest());
  return Buffer.concat(chunks).subarray(0, n);
};

const skippable = (payload: Buffer): Buffer => {
  const head = Buffer.alloc(8);
  head.writeUInt32LE(0x184d2a53, 0);
  head.writeUInt32LE(payload.length, 4);
  return Buffer.concat([head, payload]);
};

describe('zstdDecompressFrames', () => {
  beforeAll(() => zstdReady());

  it('decompresses every frame of a concatenation, in order, whatever wrote them', () => {
    const parts = [
      Buffer.from('{"a":1}\n'.repeat(40_000)), // several compressed blocks, more than 128 KiB out
      noise(300_000, 'raw'), // raw blocks
      Buffer.alloc(200_000, 0x61), // RLE blocks
      Buffer.from('short line\n'),
    ];
    const stream = Buffer.concat([
      cliFrame(parts[0]!, '--check'),
      zstdFrame(parts[1]!),
      skippable(Buffer.from('ignored')),
      cliFrame(parts[2]!, '--no-check'),
      zstdFrame(parts[3]!),
    ]);
    const frames = [...zstdDecompressFrames(stream)].map((f) => Buffer.from(f));
    expect(frames.map((f) => f.length)).toEqual(parts.map((p) => p.length));
    expect(frames.every((f, i) => f.equals(parts[i]!))).toBe(true);
    // The same bytes the zstd tool reads from the whole stream.
    expect(decompressAll(stream).equals(execFileSync('zstd', ['-dc'], { input: stream, maxBuffer: 1 << 28 }))).toBe(true);
  });

  it('reads an empty stream as nothing, and refuses a truncated or foreign one with where it breaks', () => {
    expect([...zstdDecompressFrames(new Uint8Array(0))]).toEqual([]);
    const frame = zstdFrame(Buffer.from('x'.repeat(5000)));
    const two = Buffer.concat([frame, frame]);
    // Cut inside the second frame: the error names a byte within it.
    let error: unknown;
    try {
      decompressAll(two.subarray(0, two.length - 3));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ZstdFormatError);
    const at = Number(/^truncated zstd (?:block|block header|frame checksum) at byte (\d+)$/.exec((error as Error).message)?.[1]);
    expect(at).toBeGreaterThanOrEqual(frame.length);
    expect(() => decompressAll(Buffer.concat([frame, Buffer.from('not zstd')]))).toThrow(
      new ZstdFormatError(`no zstd frame at byte ${frame.length}`),
    );
  });

  it('refuses a frame whose blocks are corrupt', () => {
    const frame = Buffer.from(cliFrame(Buffer.from('{"k":"v"}\n'.repeat(5000)), '--check'));
    // Flip a byte of the checksum: the headers still parse, the content check fails.
    frame.writeUInt8(frame.readUInt8(frame.length - 1) ^ 0xff, frame.length - 1);
    expect(() => decompressAll(frame)).toThrow(/^zstd frame at byte 0 does not decompress: /);
  });
});
