import fc from 'fast-check';
import { parseItemLine, withoutLastMember } from '../../../src/ingest/sources/item-text';

describe('item lines', () => {
  const update = {
    update_id: 'u1',
    migration_id: 0,
    record_time: '2025-01-01T00:00:00.000000Z',
    events_by_id: { 'u1:0': { n: -12, ok: true, x: null, s: 'a"b\\c\nd' } },
  };
  const protobuf = { update_id: 'u1', events_by_id: { 'u1:0': { record: { fields: [] } } } };
  const verdict = { update_id: 'u1', verdict_result: 'VERDICT_RESULT_ACCEPTED' };

  it('keeps the texts of a line in JSON.stringify form and leaves the protobuf rendering unparsed', () => {
    const line = JSON.stringify({ update, verdict, traffic_summary: null, app_activity_records: null, update_protobuf_json: protobuf });
    const { item, texts } = parseItemLine(line);
    expect(item).toEqual({ update, verdict, traffic_summary: null, app_activity_records: null });
    expect(texts).toEqual({ update: JSON.stringify(update), verdict: JSON.stringify(verdict), updateProtobuf: JSON.stringify(protobuf) });
  });

  it.each([
    ['whitespace between tokens', '{"update": {"update_id":"u1"}}'],
    ['a fraction', '{"update":{"n":1.5}}'],
    ['an exponent', '{"update":{"n":1e3}}'],
    ['a leading zero', '{"update":{"n":01}}'],
    ['negative zero', '{"update":{"n":-0}}'],
    ['an integer beyond 15 digits', '{"update":{"n":1234567890123456789}}'],
    ['a \\u escape', '{"update":{"s":"\\u0041"}}'],
    ['an escaped slash', '{"update":{"s":"a\\/b"}}'],
  ])('parses a line with %s whole, keeping no texts', (_name, line) => {
    let expected: unknown;
    try {
      expected = JSON.parse(line);
    } catch {
      expect(() => parseItemLine(line)).toThrow(SyntaxError);
      return;
    }
    expect(parseItemLine(line)).toEqual({ item: expected });
  });

  it('throws as JSON.parse does on a line that is not JSON', () => {
    expect(() => parseItemLine('{"update":{"a":1}')).toThrow(SyntaxError);
    expect(() => parseItemLine('{"update":{"a":tru}}')).toThrow(SyntaxError);
  });

  it('never keeps a protobuf rendering that is not JSON (it is stored without being parsed)', () => {
    expect(() => parseItemLine('{"update":null,"update_protobuf_json":{"a":1]}')).toThrow(SyntaxError);
    // A raw control character inside a string.
    expect(() => parseItemLine('{"update":null,"update_protobuf_json":{"a":"b\u0001"}}')).toThrow(SyntaxError);
  });

  it('keeps a key named __proto__ as an own property, as JSON.parse does', () => {
    const { item } = parseItemLine('{"__proto__":{"x":1},"update":null}');
    expect(Object.keys(item)).toEqual(['__proto__', 'update']);
    expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
  });

  it('keeps no text for a null protobuf rendering, as for a parsed item without one', () => {
    const line = JSON.stringify({ update, update_protobuf_json: null });
    expect(parseItemLine(line).texts).toEqual({ update: JSON.stringify(update) });
  });

  it('keeps integer-like keys in the order received, which a parsed object would change', () => {
    const line = '{"update":{"m":{"b":1,"10":2,"2":3}}}';
    expect(parseItemLine(line).texts).toEqual({ update: '{"m":{"b":1,"10":2,"2":3}}' });
  });
});

describe('an object text without its last member', () => {
  const KEY = 'external_transaction_hash';

  it('cuts the member off when it is the last and only occurrence of its key', () => {
    expect(withoutLastMember('{"a":1,"external_transaction_hash":"ab12"}', KEY, 'ab12')).toBe('{"a":1}');
    expect(withoutLastMember('{"a":"q\\"s","external_transaction_hash":"a\\"b"}', KEY, 'a"b')).toBe('{"a":"q\\"s"}');
  });

  it.each([
    ['another value', '{"a":1,"external_transaction_hash":"ab12"}', 'cd34'],
    ['not the last member', '{"external_transaction_hash":"ab12","a":1}', 'ab12'],
    ['the only member', '{"external_transaction_hash":"ab12"}', 'ab12'],
    ['a nested member of that key', '{"a":{"external_transaction_hash":"x"},"external_transaction_hash":"ab12"}', 'ab12'],
    ['the key repeated', '{"external_transaction_hash":"x","external_transaction_hash":"ab12"}', 'ab12'],
    ['a value that is not a string', '{"a":1,"external_transaction_hash":12}', 12],
  ])('gives nothing for %s', (_name, text, value) => {
    expect(withoutLastMember(text, KEY, value)).toBeUndefined();
  });

  it('keeps the key text inside a string value, where it is escaped', () => {
    const text = JSON.stringify({ a: '"external_transaction_hash":"ab12"', external_transaction_hash: 'ab12' });
    expect(withoutLastMember(text, KEY, 'ab12')).toBe(JSON.stringify({ a: '"external_transaction_hash":"ab12"' }));
  });
});

describe('item lines, fuzzed', () => {
  const members = ['update', 'verdict', 'traffic_summary', 'app_activity_records', 'update_protobuf_json'] as const;

  it('texts kept are exactly JSON.stringify of the members, and the item is what JSON.parse gives', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...members), fc.jsonValue()), (value) => {
        const line = JSON.stringify(value);
        const { item, texts } = parseItemLine(line);
        const parsed = JSON.parse(line) as Record<string, unknown>;
        const { update_protobuf_json: protobuf, ...rest } = parsed;
        if (texts) {
          expect(item).toEqual(rest);
          for (const [key, text] of Object.entries(texts)) {
            const member = {
              update: 'update',
              updateProtobuf: 'update_protobuf_json',
              verdict: 'verdict',
              trafficSummary: 'traffic_summary',
              appActivityRecords: 'app_activity_records',
            }[key]!;
            expect(JSON.parse(text)).toEqual(parsed[member]);
            // Equal to what the writer would otherwise write, except where a parsed object reorders integer-like keys.
            if (!/"\d+":/.test(text)) expect(text).toBe(JSON.stringify(parsed[member]));
          }
          // A null rendering is no rendering: the writer then stores none, as for a parsed item.
          if (protobuf !== undefined) expect(texts.updateProtobuf).toBe(protobuf === null ? undefined : JSON.stringify(protobuf));
        } else {
          expect(item).toEqual(parsed);
        }
      }),
      { seed: 20261123, numRuns: 2000 },
    );
  });

  it('any line either parses as JSON.parse does or throws as it does', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json().map((j) => `{"update":${j}}`),
          fc.json(),
        ),
        (line) => {
          let expected: unknown;
          let threw = false;
          try {
            expected = JSON.parse(line);
          } catch {
            threw = true;
          }
          if (threw || typeof expected !== 'object' || expected === null || Array.isArray(expected)) {
            if (threw) expect(() => parseItemLine(line)).toThrow();
            return;
          }
          const { item, texts } = parseItemLine(line);
          const { update_protobuf_json: _p, ...rest } = expected as Record<string, unknown>;
          expect(item).toEqual(texts ? rest : expected);
        },
      ),
      { seed: 20261124, numRuns: 2000 },
    );
  });
});
