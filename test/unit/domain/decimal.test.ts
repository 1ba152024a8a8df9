import fc from 'fast-check';
import { formatDecimal, parseDecimal } from '../../../src/domain/decimal';

/** The grammar as a pattern, and its value by plain string arithmetic: what parseDecimal must agree with. */
function reference(text: string): bigint | 'invalid' {
  const m = /^(-)?(\d+)(?:\.(\d{1,10}))?$/.exec(text);
  if (!m) return 'invalid';
  const units = BigInt(`${m[2]}${(m[3] ?? '').padEnd(10, '0')}`);
  return m[1] ? -units : units;
}

function parsed(text: string): bigint | 'invalid' {
  try {
    return parseDecimal(text);
  } catch (err) {
    expect((err as Error).message).toBe(`Invalid decimal '${text}'`);
    return 'invalid';
  }
}

describe('parseDecimal', () => {
  it('reads whole numbers, fractions of one to ten digits and a leading minus', () => {
    expect(parseDecimal('12')).toBe(120_000_000_000n);
    expect(parseDecimal('-0.25')).toBe(-2_500_000_000n);
    expect(parseDecimal('1.0000000000')).toBe(10_000_000_000n);
    expect(parseDecimal('0.0000000001')).toBe(1n);
    expect(parseDecimal('123456789012345678901234567.5')).toBe(1_234_567_890_123_456_789_012_345_675_000_000_000n);
  });

  it.each(['', '-', '.', '1.', '.5', '-.5', '1.00000000001', '1e5', '+1', '1.2.3', ' 1', '1 ', '0x10', '１'])('refuses %j', (text) => {
    expect(() => parseDecimal(text)).toThrow(`Invalid decimal '${text}'`);
  });

  it('agrees with the grammar on any text of digits, points and minus signs', () => {
    const char = fc.constantFrom('0', '1', '5', '9', '.', '-', 'e', ' ');
    fc.assert(
      fc.property(fc.array(char, { maxLength: 16 }), (chars) => {
        const text = chars.join('');
        expect(parsed(text)).toBe(reference(text));
      }),
      { numRuns: 5000 },
    );
  });

  it.each([
    [0n, '0.0000000000'],
    [1n, '0.0000000001'],
    [-25_000_000_000n, '-2.5000000000'],
    [120_000_000_000n, '12.0000000000'],
  ])('formatDecimal writes %p as %s', (x, text) => {
    expect(formatDecimal(x)).toBe(text);
  });

  it('reads back what formatDecimal writes', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), (x) => {
        expect(parseDecimal(formatDecimal(x))).toBe(x);
      }),
    );
  });
});
