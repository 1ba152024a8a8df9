/**
 * Seeded pseudo-random numbers (xoshiro128**, seeded through splitmix32 from
 * a hash of the seed). Everything the simulator draws comes from here, never
 * from Math.random, so one seed always gives the same network. Only integer
 * arithmetic and division by powers of two are used, which are exact in every
 * JavaScript engine.
 */

const TWO_POW_32 = 4294967296;

function hashSeed(seed: string): number {
  // FNV-1a over UTF-16 code units.
  let h = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) {
    h ^= seed.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function splitmix32(state: number): [number, number] {
  const next = (state + 0x9e3779b9) | 0;
  let z = next;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return [next, (z ^ (z >>> 16)) >>> 0];
}

export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number | string) {
    let s = hashSeed(String(seed));
    const words: number[] = [];
    for (let i = 0; i < 4; i++) {
      const [next, word] = splitmix32(s);
      s = next;
      words.push(word);
    }
    [this.a, this.b, this.c, this.d] = words as [number, number, number, number];
    if ((this.a | this.b | this.c | this.d) === 0) this.a = 1; // the all-zero state is a fixed point
  }

  /** Uniform 32-bit unsigned integer. */
  u32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.u32() / TWO_POW_32;
  }

  /** Uniform integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.float() * (hi - lo + 1));
  }

  /** Uniform bigint in [lo, hi]; the span may exceed 2^53. */
  bigint(lo: bigint, hi: bigint): bigint {
    const span = hi - lo + 1n;
    const r = (BigInt(this.u32()) << 32n) | BigInt(this.u32());
    return lo + (r % span);
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[Math.floor(this.float() * items.length)] as T;
  }

  /** Fills buf[start, end) with random bytes. */
  fill(buf: Buffer, start = 0, end = buf.length): Buffer {
    let i = start;
    for (; i + 4 <= end; i += 4) buf.writeUInt32BE(this.u32(), i);
    if (i < end) {
      const w = this.u32();
      for (let shift = 24; i < end; i++, shift -= 8) buf[i] = (w >>> shift) & 255;
    }
    return buf;
  }

  /** `bytes` random bytes as lowercase hex. */
  hex(bytes: number): string {
    return this.fill(Buffer.allocUnsafe(bytes)).toString('hex');
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** Picks keys with probability proportional to their weight, by binary search over cumulative weights. */
export class WeightedPicker<T> {
  private readonly cumulative: number[] = [];
  private readonly items: T[] = [];
  private total = 0;

  constructor(entries: Iterable<readonly [T, number]>) {
    for (const [item, weight] of entries) {
      if (weight <= 0) continue;
      this.total += weight;
      this.items.push(item);
      this.cumulative.push(this.total);
    }
    if (this.items.length === 0) throw new RangeError('WeightedPicker needs a positive weight');
  }

  pick(rng: Prng): T {
    const x = rng.float() * this.total;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.cumulative[mid] as number) > x) hi = mid;
      else lo = mid + 1;
    }
    return this.items[lo] as T;
  }
}
