/**
 * How an update's two JSON renderings are stored (migration 20261123_001):
 * one compressed stream of the compact_json text followed by the
 * protobuf_json text, and the byte length of the first. The renderings share
 * every id, party and template, so in one stream the second costs a few
 * hundred bytes instead of its 11 KB: about 2.9 KB for both, against 21 KB of
 * text. Reading decompresses them back to the exact bytes the writer was given.
 *
 * Two codecs, told apart by the first byte, so rows already stored stay
 * readable without a column saying which:
 * - raw DEFLATE (RFC 1951), what the writer stored first;
 * - Brotli (RFC 7932) after one marker byte, what it stores now: at quality 0
 *   it takes about half the CPU of DEFLATE at level 1 for the same size
 *   (docs/performance.md).
 * A raw DEFLATE stream begins with a block header whose bits 1–2 give the
 * block type, and type 11 is reserved (RFC 1951, section 3.2.3): no DEFLATE
 * stream begins with the marker 0x06.
 */
import zlib from 'node:zlib';

const BROTLI_MARKER = 0x06;
/** The bits of the first byte that hold a DEFLATE stream's first block type. */
const BLOCK_TYPE_BITS = 0x06;

const BROTLI_OPTIONS: zlib.BrotliOptions = {
  params: {
    // Quality 1 is about 2% smaller and a quarter slower; 2 and up cost more than DEFLATE did.
    [zlib.constants.BROTLI_PARAM_QUALITY]: 0,
  },
};

export interface EncodedPayload {
  payload: Buffer;
  /** Byte length of the compact_json text at the start of the decompressed payload. */
  compactLength: number;
}

/** Where the two texts are put together for the compressor, reused: a new buffer of some 20 KB per update costs more than the copy. */
let scratch = Buffer.allocUnsafe(1 << 16);
const SCRATCH_LIMIT = 1 << 20;

export function encodePayload(compactJson: string, protobufJson: string | null): EncodedPayload {
  const compactLength = Buffer.byteLength(compactJson, 'utf8');
  const protobufLength = protobufJson === null ? 0 : Buffer.byteLength(protobufJson, 'utf8');
  const length = compactLength + protobufLength;
  // An outsized update gets a buffer of its own, which is not kept.
  const text =
    length <= scratch.length ? scratch : length <= SCRATCH_LIMIT ? (scratch = Buffer.allocUnsafe(length)) : Buffer.allocUnsafe(length);
  // Both texts written into one buffer, not joined first: a joined string would be copied once more.
  // JSON is mostly ASCII, whose UTF-8 bytes are its Latin-1 bytes: a copy, not an encoding.
  text.write(compactJson, 0, compactLength === compactJson.length ? 'latin1' : 'utf8');
  if (protobufJson !== null) text.write(protobufJson, compactLength, protobufLength === protobufJson.length ? 'latin1' : 'utf8');
  const compressed = zlib.brotliCompressSync(text.subarray(0, length), BROTLI_OPTIONS);
  const payload = Buffer.allocUnsafe(compressed.length + 1);
  payload[0] = BROTLI_MARKER;
  compressed.copy(payload, 1);
  return { payload, compactLength };
}

export interface DecodedPayload {
  compactJson: string;
  /** Null when the source gave no protobuf_json rendering. */
  protobufJson: string | null;
}

/** The bytes a payload holds, whichever codec wrote it. */
export function decompressPayload(payload: Buffer): Buffer {
  if (payload.length === 0 || (payload[0]! & BLOCK_TYPE_BITS) !== BLOCK_TYPE_BITS) return zlib.inflateRawSync(payload);
  if (payload[0] === BROTLI_MARKER) return zlib.brotliDecompressSync(payload.subarray(1));
  throw new Error(`update payload: unknown codec marker 0x${payload[0]!.toString(16).padStart(2, '0')}`);
}

export function decodePayload(payload: Buffer, compactLength: number): DecodedPayload {
  const text = decompressPayload(payload);
  return {
    compactJson: text.toString('utf8', 0, compactLength),
    protobufJson: text.length > compactLength ? text.toString('utf8', compactLength) : null,
  };
}

/**
 * One of the two renderings, as text (null: protobuf_json asked for, and the source gave none):
 * a reader serves one, and the other is never turned into a string.
 */
export function decodePayloadPart(payload: Buffer, compactLength: number, part: 'compact' | 'protobuf'): string | null {
  const text = decompressPayload(payload);
  if (part === 'compact') return text.toString('utf8', 0, compactLength);
  return text.length > compactLength ? text.toString('utf8', compactLength) : null;
}
