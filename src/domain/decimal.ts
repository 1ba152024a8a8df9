/**
 * Daml `Numeric 10` (Splice `Decimal`) amounts as bigint counts of 1e-10, so
 * sums and products stay exact. Rendering always prints exactly ten
 * fractional digits, as Scan does ("100.0000000000", "-0.0038051800").
 */

export type Decimal10 = bigint;

const DECIMAL_SCALE = 10_000_000_000n;

const DECIMAL_PATTERN = /^(-)?(\d+)(?:\.(\d{1,10}))?$/;

/** Parses "12", "-0.25" or "1.0000000000"; more than ten fractional digits are rejected. */
export function parseDecimal(text: string): Decimal10 {
  const m = DECIMAL_PATTERN.exec(text);
  if (!m) throw new Error(`Invalid decimal '${text}'`);
  const [, minus, whole, fraction] = m;
  const units = BigInt(whole ?? '0') * DECIMAL_SCALE + BigInt((fraction ?? '').padEnd(10, '0'));
  return minus ? -units : units;
}

/** Exactly ten fractional digits, a leading '-' for negative amounts. */
export function formatDecimal(x: Decimal10): string {
  const negative = x < 0n;
  // One bigint-to-string conversion, then split off the last ten digits.
  const digits = (negative ? -x : x).toString().padStart(11, '0');
  const point = digits.length - 10;
  return `${negative ? '-' : ''}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** An integral amount as a decimal: decimalOf(5) is 5.0000000000. */
export function decimalOf(whole: number | bigint): Decimal10 {
  return BigInt(whole) * DECIMAL_SCALE;
}

// Daml rounds Numeric multiplication and division half-to-even.
function divideHalfEven(n: bigint, d: bigint): bigint {
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  let q = n / d;
  const r = n % d;
  const twice = (r < 0n ? -r : r) * 2n;
  if (twice > d || (twice === d && q % 2n !== 0n)) q += n < 0n ? -1n : 1n;
  return q;
}

export function mulDecimal(a: Decimal10, b: Decimal10): Decimal10 {
  return divideHalfEven(a * b, DECIMAL_SCALE);
}

export function divDecimal(a: Decimal10, b: Decimal10): Decimal10 {
  if (b === 0n) throw new RangeError('Decimal division by zero');
  return divideHalfEven(a * DECIMAL_SCALE, b);
}

export function minDecimal(a: Decimal10, b: Decimal10): Decimal10 {
  return a < b ? a : b;
}
