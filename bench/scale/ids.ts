/**
 * Identifiers of generated history as pure functions of a counter, so that a
 * contract's archiving update (a later one) is named when the contract is
 * written, without keeping anything in memory.
 *
 * Each id is 32 bytes or more of 32-bit words, the first a bijection of the
 * counter (murmur3's finalizer is invertible on 32 bits), so two ids of one
 * kind differ for counters below 2^32, while the words look random and their
 * order follows nothing: index pages keyed by them are as scattered as on a
 * real network, whose ids are hashes.
 */

/** murmur3's 32-bit finalizer: a bijection of unsigned 32-bit integers. */
function fmix32(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const MAX_COUNTER = 2 ** 32;

/** `words` pseudo-random 32-bit words for a counter; the first is a bijection of it. */
function fillWords(buf: Buffer, offset: number, counter: number, salt: number, words: number): void {
  if (!Number.isSafeInteger(counter) || counter < 0 || counter >= MAX_COUNTER) throw new RangeError(`id counter out of range: ${counter}`);
  let w = fmix32((counter ^ salt) >>> 0);
  buf.writeUInt32BE(w, offset);
  for (let i = 1; i < words; i++) {
    w = fmix32((w + Math.imul(salt, i + 1) + counter) >>> 0);
    buf.writeUInt32BE(w, offset + 4 * i);
  }
}

/** A 32-byte hash in multihash form (1220 + 64 hex), the form of update ids and party fingerprints. */
export class FingerprintIds {
  private readonly buf = Buffer.from([0x12, 0x20, ...new Array<number>(32).fill(0)]);

  constructor(private readonly salt: number) {}

  of(counter: number): string {
    fillWords(this.buf, 2, counter, this.salt, 8);
    return this.buf.toString('hex');
  }
}

/**
 * Canton contract ids of authenticated version V11 (00, a 32-byte discriminator, then the suffix
 * ca11 + a multihash; Canton's CantonContractIdVersion, AuthenticatedContractIdVersionV11). The
 * simulator writes only version V10 ids (suffix ca10, src/simulator/ids.ts), so a generated
 * contract id can never be one of the simulator's.
 */
export class ContractIds {
  private readonly buf = Buffer.from([0x00, ...new Array<number>(32).fill(0), 0xca, 0x11, 0x12, 0x20, ...new Array<number>(32).fill(0)]);

  constructor(private readonly salt: number) {}

  of(counter: number): string {
    fillWords(this.buf, 1, counter, this.salt, 8);
    fillWords(this.buf, 37, counter, fmix32(this.salt ^ 0x5bd1e995), 8);
    return this.buf.toString('hex');
  }
}

/** A uniform number in [0, 1) drawn from a counter and a salt: the same inputs, the same number. */
export function unitOf(counter: number, salt: number): number {
  return fmix32((fmix32((counter ^ salt) >>> 0) + Math.floor(counter / MAX_COUNTER)) >>> 0) / MAX_COUNTER;
}
