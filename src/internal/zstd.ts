/**
 * zstd compression for bulk storage objects. Node 20's zlib has no zstd; @bokuweb/zstd-wasm is zstd
 * compiled to WebAssembly (no native build, no install scripts). Its one-shot decompress reads only
 * the first frame of a multi-frame input, so readers of our objects use a real zstd decoder.
 */
import { compress, init } from '@bokuweb/zstd-wasm';

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
