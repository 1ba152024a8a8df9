/**
 * The scanner of text in JSON.stringify's form (src/ingest/sources/canonical-json.ts): it accepts
 * what JSON.stringify writes (within its rules) and nothing that JSON.parse refuses.
 */
import fc from 'fast-check';
import { CanonicalScanner, NotCanonical } from '../../../src/ingest/sources/canonical-json';

/** The index after the value at 0, or 'not canonical'. */
function scan(text: string): number | 'not canonical' {
  try {
    return new CanonicalScanner(text).value(0);
  } catch (err) {
    if (err instanceof NotCanonical) return 'not canonical';
    throw err;
  }
}

/** JSON values that JSON.stringify writes in the scanner's form: no fractions, big integers or control characters. */
const canonicalValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    // Control characters other than these five JSON.stringify writes as \u escapes, which the scanner leaves to JSON.parse.
    fc.string().filter((s) => [...s.replace(/[\b\f\n\r\t]/g, '')].every((c) => c >= ' ')),
    fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value')),
    fc.dictionary(fc.string(), tie('value')),
  ),
})).value;

describe('the canonical JSON scanner', () => {
  it('reads what JSON.stringify writes to its end', () => {
    fc.assert(
      fc.property(canonicalValue, (value) => {
        const text = JSON.stringify(value);
        expect(scan(text)).toBe(text.length);
      }),
      { seed: 20261126, numRuns: 2000 },
    );
  });

  it('accepts nothing JSON.parse refuses: any text it reads to its end parses', () => {
    const mutated = fc
      .tuple(
        canonicalValue.map((v) => JSON.stringify(v)),
        fc.nat(),
        fc.constantFrom('', '"', ',', ':', '{', '}', '[', ']', '\\', '\u0001', ' ', '0', '-', 'n', '.'),
        fc.boolean(),
      )
      .map(([text, at, c, replace]) => {
        const i = text.length === 0 ? 0 : at % text.length;
        return text.slice(0, i) + c + text.slice(replace ? i + 1 : i);
      });
    fc.assert(
      fc.property(mutated, (text) => {
        if (scan(text) === text.length) expect(() => JSON.parse(text) as unknown).not.toThrow();
      }),
      { seed: 20261127, numRuns: 5000 },
    );
  });

  it.each([
    ['a bracket closing an object', '{"a":1]'],
    ['a brace closing an array', '[1}'],
    ['a trailing comma', '[1,]'],
    ['a trailing comma in an object', '{"a":1,}'],
    ['a key without a value', '{"a"}'],
    ['a member without a key', '{:1}'],
    ['a raw control character in a string', '["a\u0001b"]'],
    ['a raw newline in a string', '["a\nb"]'],
    ['a cut-off literal', '[tru]'],
    ['a leading zero', '[01]'],
    ['a fraction', '[1.5]'],
    ['an exponent', '[1e3]'],
    ['an integer beyond 15 digits', '[1234567890123456]'],
    ['a \\u escape', '["\\u0041"]'],
    ['whitespace', '[1, 2]'],
    ['a cut-off string', '["abc'],
    ['nothing', ''],
  ])('refuses %s', (_name, text) => {
    expect(scan(text)).toBe('not canonical');
  });

  it('reads the members of an object, nested ones where asked, in one pass', () => {
    const text = '{"a":1,"u":{"x":"y\\"z","o":[1,{"u":2}]},"b":null}';
    const read = new CanonicalScanner(text).members(0, new Set(['u']));
    expect(read.end).toBe(text.length);
    expect(read.members.map((m) => [m.key, text.slice(m.at, m.end)])).toEqual([
      ['a', '"a":1'],
      ['u', '"u":{"x":"y\\"z","o":[1,{"u":2}]}'],
      ['b', '"b":null'],
    ]);
    expect(read.members[1]!.members!.map((m) => [m.key, text.slice(m.start, m.end)])).toEqual([
      ['x', '"y\\"z"'],
      ['o', '[1,{"u":2}]'],
    ]);
  });

  it('reads a string again after reading past it (escapes are found wherever it starts)', () => {
    const text = '["a\\"b","c"]';
    const scanner = new CanonicalScanner(text);
    expect(scanner.value(0)).toBe(text.length);
    expect(scanner.string(1)).toBe(7);
  });
});
