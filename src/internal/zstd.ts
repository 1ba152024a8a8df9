/**
 * zstd for bulk storage objects. Node 20's zlib has no zstd; @bokuweb/zstd-wasm is zstd compiled to
 * WebAssembly (no native build, no install scripts). Its one-shot decompress reads only the first
 * frame of a multi-frame input, so the bulk source (SOURCE=bulk) splits a stream into its frames by
 * their headers and decompresses them one by one (zstdDecompressFrames).
 */
import { compress, decompress, init } from '@bokuweb/zstd-wasm';

/** Splice's zstdCompressionLevel (scanStorageConfigV1). */
const LEVEL = 3;

let ready: Promise<void> | undefined;

/** Loads the WebAssembly module once per process. */
export function zstdReady(): Promise<void> {
  ready ??= init();
  return ready;
}

/** One complete zstd frame holding `data`; call after zstdReady() resolved. */
export function zstdFrame(data: Uint8Array): Buffer {
  const out = compress(data, LEVEL);
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

const FRAME_MAGIC = 0xfd2fb528;
/** Skippable frames have magic numbers 0x184D2A50 to 0x184D2A5F (RFC 8878, 3.1.2). */
const isSkippableMagic = (magic: number) => magic >>> 4 === 0x184d2a5;
/** RFC 8878's Block_Maximum_Size: a compressed block never regenerates more. */
const MAX_BLOCK_BYTES = 128 * 1024;

/** A zstd stream that cannot be read: names where, for the caller's error. */
export class ZstdFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZstdFormatError';
  }
}

/**
 * Where the frame starting at `at` ends, and an upper bound of what it decompresses to (exact when the
 * frame header declares its content size; else from its block headers). Reads headers only (RFC 8878, 3.1.1).
 */
function frameExtent(data: Uint8Array, at: number): { end: number; maxBytes: number; skippable: boolean } {
  const need = (n: number, what: string) => {
    if (at + n > data.length) throw new ZstdFormatError(`truncated zstd ${what} at byte ${at}`);
  };
  need(4, 'frame');
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const magic = view.getUint32(at, true);
  if (isSkippableMagic(magic)) {
    need(8, 'skippable frame');
    const end = at + 8 + view.getUint32(at + 4, true);
    if (end > data.length) throw new ZstdFormatError(`truncated zstd skippable frame at byte ${at}`);
    return { end, maxBytes: 0, skippable: true };
  }
  if (magic !== FRAME_MAGIC) throw new ZstdFormatError(`no zstd frame at byte ${at}`);
  const start = at;
  at += 4;
  need(1, 'frame header');
  const descriptor = data[at]!;
  at += 1;
  const fcsFlag = descriptor >> 6;
  const singleSegment = (descriptor & 0x20) !== 0;
  const hasChecksum = (descriptor & 0x04) !== 0;
  const dictionaryIdBytes = [0, 1, 2, 4][descriptor & 0x03]!;
  const contentSizeBytes = [singleSegment ? 1 : 0, 2, 4, 8][fcsFlag]!;
  const headerRest = (singleSegment ? 0 : 1) + dictionaryIdBytes + contentSizeBytes;
  need(headerRest, 'frame header');
  let declared: number | undefined;
  const fcsAt = at + headerRest - contentSizeBytes;
  if (contentSizeBytes === 1) declared = data[fcsAt]!;
  else if (contentSizeBytes === 2) declared = view.getUint16(fcsAt, true) + 256;
  else if (contentSizeBytes === 4) declared = view.getUint32(fcsAt, true);
  else if (contentSizeBytes === 8) declared = Number(view.getBigUint64(fcsAt, true));
  at += headerRest;
  let bound = 0;
  for (;;) {
    need(3, 'block header');
    const header = data[at]! | (data[at + 1]! << 8) | (data[at + 2]! << 16);
    at += 3;
    const last = (header & 1) !== 0;
    const type = (header >> 1) & 3;
    const size = header >>> 3;
    if (type === 3) throw new ZstdFormatError(`reserved zstd block type at byte ${at - 3}`);
    // Raw: `size` bytes follow; RLE: one byte repeated `size` times; compressed: `size` bytes that regenerate at most a block.
    const stored = type === 1 ? 1 : size;
    need(stored, 'block');
    at += stored;
    bound += type === 2 ? MAX_BLOCK_BYTES : size;
    if (last) break;
  }
  if (hasChecksum) {
    need(4, 'frame checksum');
    at += 4;
  }
  if (at <= start) throw new ZstdFormatError('empty zstd frame');
  return { end: at, maxBytes: declared ?? bound, skippable: false };
}

/**
 * Decompresses a stream of concatenated zstd frames (what bulk storage objects are), one frame at a
 * time: @bokuweb/zstd-wasm's one-shot decompress sizes its output by the first frame alone and so
 * fails on more, and this build exports no streaming decoder. Skippable frames are passed over. Call
 * after zstdReady() resolved.
 */
export function* zstdDecompressFrames(data: Uint8Array): Generator<Uint8Array> {
  for (let at = 0; at < data.length;) {
    const { end, maxBytes, skippable } = frameExtent(data, at);
    if (!skippable && maxBytes > 0) {
      let out: Uint8Array;
      try {
        out = decompress(data.subarray(at, end), { defaultHeapSize: maxBytes });
      } catch (err) {
        throw new ZstdFormatError(`zstd frame at byte ${at} does not decompress: ${(err as Error).message}`);
      }
      yield out;
    }
    at = end;
  }
}
