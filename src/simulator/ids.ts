/**
 * Identifiers in the shapes a Canton network uses, drawn from the seeded
 * PRNG. 256 random bits make collisions practically impossible, so no
 * uniqueness bookkeeping is needed.
 */

import type { Prng } from './prng';

// Each id is rendered from one buffer in one call: concatenating hex pieces would build
// rope strings that V8 flattens again whenever an id is hashed or compared.
const FINGERPRINT_PREFIX = [0x12, 0x20];
const CONTRACT_ID_SUFFIX_TAG = [0xca, 0x10, 0x12, 0x20];

export class IdFactory {
  private readonly fingerprintBuf = Buffer.from([...FINGERPRINT_PREFIX, ...new Array<number>(32).fill(0)]);
  private readonly contractIdBuf = Buffer.from([
    0x00,
    ...new Array<number>(32).fill(0),
    ...CONTRACT_ID_SUFFIX_TAG,
    ...new Array<number>(32).fill(0),
  ]);

  constructor(private readonly rng: Prng) {}

  /** A 32-byte hash in lowercase hex (64 characters). */
  hash(): string {
    return this.rng.hex(32);
  }

  /** A fingerprint in multihash form: 1220 + 64 hex. */
  fingerprint(): string {
    return this.rng.fill(this.fingerprintBuf, 2).toString('hex');
  }

  /** `name::1220<64 hex>`, the form of party, synchronizer and node identifiers. */
  uid(name: string): string {
    return `${name}::${this.fingerprint()}`;
  }

  participantUid(name: string): string {
    return `PAR::${this.uid(name)}`;
  }

  updateId(): string {
    return this.fingerprint();
  }

  /** Canton V1 contract id: 00, the 32-byte discriminator, then the suffix ca10 + multihash. */
  contractId(): string {
    const buf = this.contractIdBuf;
    this.rng.fill(buf, 1, 33);
    this.rng.fill(buf, 37, 69);
    return buf.toString('hex');
  }
}
