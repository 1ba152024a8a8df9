/**
 * protobuf_json against compact_json: hand-written expectations for each Daml
 * type (docs/interfaces.md, "Scan: value encodings"), and a structural comparison of both renderings of
 * every simulated update that relies only on the rules, not on the encoder.
 */

import { V } from '../../../src/domain/daml-value';
import { formatDecimal, parseDecimal } from '../../../src/domain/decimal';
import type { Json } from '../../../src/domain/json';
import { formatInstant, parseTimestamp } from '../../../src/domain/time';
import { toCompactJson, toProtobufJson } from '../../../src/domain/value-encoding';
import { sampleStream } from './fixtures';

describe('value encodings', () => {
  it('renders each Daml type in both encodings', () => {
    const t = parseTimestamp('2025-03-10T14:22:05.123Z');
    const value = V.record({
      unit: V.unit(),
      flag: V.bool(false),
      count: V.int64(42),
      price: V.numeric(parseDecimal('0.005')),
      name: V.text('alice'),
      who: V.party('alice::1220ab'),
      cid: V.contractId('00ab'),
      at: V.timestamp(t),
      none: V.none(),
      some: V.some(V.int64(1)),
      someNone: V.some(V.none()),
      someSome: V.some(V.some(V.text('x'))),
      empty: V.list([]),
      pairs: V.genMap([[V.text('k'), V.bool(true)]]),
      labels: V.textMap([['a', V.int64(1)]]),
      choice: V.variant('InputAmulet', V.contractId('00cd')),
      state: V.enum('DS_Operational'),
    });
    expect(toCompactJson(value)).toEqual({
      unit: {},
      flag: false,
      count: '42',
      price: '0.0050000000',
      name: 'alice',
      who: 'alice::1220ab',
      cid: '00ab',
      at: '2025-03-10T14:22:05.123Z',
      none: null,
      some: '1',
      someNone: [],
      someSome: ['x'],
      empty: [],
      pairs: [['k', true]],
      labels: { a: '1' },
      choice: { tag: 'InputAmulet', value: '00cd' },
      state: 'DS_Operational',
    });
    const f = (value: Json) => ({ value });
    expect(toProtobufJson(value)).toEqual({
      record: {
        fields: [
          f({ unit: {} }),
          f({ bool: false }),
          f({ int64: '42' }),
          f({ numeric: '0.0050000000' }),
          f({ text: 'alice' }),
          f({ party: 'alice::1220ab' }),
          f({ contractId: '00ab' }),
          f({ timestamp: '1741616525123000' }),
          f({ optional: {} }),
          f({ optional: { value: { int64: '1' } } }),
          f({ optional: { value: { optional: {} } } }),
          f({ optional: { value: { optional: { value: { text: 'x' } } } } }),
          f({ list: {} }),
          f({ genMap: { entries: [{ key: { text: 'k' }, value: { bool: true } }] } }),
          f({ textMap: { entries: [{ key: 'a', value: { int64: '1' } }] } }),
          f({ variant: { constructor: 'InputAmulet', value: { contractId: '00cd' } } }),
          f({ enum: { constructor: 'DS_Operational' } }),
        ],
      },
    });
    expect(toProtobufJson(V.emptyRecord())).toEqual({ record: {} });
  });

  it('formats decimals with ten places', () => {
    expect(formatDecimal(parseDecimal('-0.00380518'))).toBe('-0.0038051800');
    expect(formatDecimal(parseDecimal('100'))).toBe('100.0000000000');
    expect(() => parseDecimal('1.00000000001')).toThrow();
  });
});

/** Checks that `compact` is the compact_json rendering of the protobuf_json value `pb`; returns the first mismatch. */
function mismatch(compact: unknown, pb: unknown, path: string): string | null {
  const obj = pb as Record<string, unknown>;
  const keys = Object.keys(obj ?? {});
  if (keys.length !== 1) return `${path}: protobuf value with keys ${keys.join()}`;
  const kind = keys[0] as string;
  const scalar = obj[kind];
  const inner = (obj[kind] ?? {}) as Record<string, unknown>;
  const tag = Object.hasOwn(inner, 'constructor') ? inner['constructor'] : undefined;
  const fail = (what: string) => `${path}: ${kind} ${what}`;
  switch (kind) {
    case 'unit':
      return JSON.stringify(compact) === '{}' ? null : fail('is not {}');
    case 'bool':
    case 'int64':
    case 'numeric':
    case 'text':
    case 'party':
    case 'contractId':
      return compact === scalar ? null : fail(`${String(scalar)} vs ${JSON.stringify(compact)}`);
    case 'timestamp':
      return typeof compact === 'string' &&
        formatInstant(BigInt(scalar as string)) === compact &&
        parseTimestamp(compact) === BigInt(scalar as string)
        ? null
        : fail(`${String(scalar)} vs ${String(compact)}`);
    case 'optional': {
      const value = inner.value;
      if (value === undefined) return compact === null ? null : fail('None is not null');
      const nested = (value as Record<string, unknown>).optional as { value?: unknown } | undefined;
      if (!nested) return mismatch(compact, value, `${path}?`);
      if (!Array.isArray(compact)) return fail('nested optional is not an array');
      return nested.value === undefined
        ? compact.length === 0
          ? null
          : fail('Some None is not []')
        : mismatch(compact[0], value, `${path}?`);
    }
    case 'list': {
      const elements = (inner.elements ?? []) as unknown[];
      if (!Array.isArray(compact) || compact.length !== elements.length) return fail('length');
      for (let i = 0; i < elements.length; i++) {
        const m = mismatch(compact[i], elements[i], `${path}[${i}]`);
        if (m) return m;
      }
      return null;
    }
    case 'genMap': {
      const entries = (inner.entries ?? []) as { key: unknown; value: unknown }[];
      if (!Array.isArray(compact) || compact.length !== entries.length) return fail('length');
      for (let i = 0; i < entries.length; i++) {
        const pair = compact[i] as unknown[];
        const e = entries[i] as { key: unknown; value: unknown };
        const m = mismatch(pair[0], e.key, `${path}{${i}}`) ?? mismatch(pair[1], e.value, `${path}{${i}}`);
        if (m) return m;
      }
      return null;
    }
    case 'textMap': {
      const entries = (inner.entries ?? []) as { key: string; value: unknown }[];
      const c = compact as Record<string, unknown>;
      if (Object.keys(c).join() !== entries.map((e) => e.key).join()) return fail('keys');
      for (const e of entries) {
        const m = mismatch(c[e.key], e.value, `${path}.${e.key}`);
        if (m) return m;
      }
      return null;
    }
    case 'record': {
      const fields = (inner.fields ?? []) as { value: unknown }[];
      if (compact === null || typeof compact !== 'object' || Array.isArray(compact)) return fail('is not an object');
      const entries = Object.entries(compact);
      if (entries.length !== fields.length) return fail(`has ${fields.length} fields, compact ${entries.length}`);
      for (let i = 0; i < fields.length; i++) {
        const [name, value] = entries[i] as [string, unknown];
        const m = mismatch(value, (fields[i] as { value: unknown }).value, `${path}.${name}`);
        if (m) return m;
      }
      return null;
    }
    case 'variant': {
      const c = compact as { tag?: string; value?: unknown };
      if (c.tag !== tag) return fail(`tag ${String(c.tag)}`);
      return mismatch(c.value, inner.value, `${path}<${String(c.tag)}>`);
    }
    case 'enum':
      return compact === tag ? null : fail(String(compact));
    default:
      return fail('unknown value kind');
  }
}

const VALUE_FIELDS = ['create_arguments', 'choice_argument', 'exercise_result'];

describe('protobuf_json rendering of simulated updates', () => {
  it('corresponds to the compact_json one, value by value', () => {
    const problems: string[] = [];
    let compared = 0;
    for (const [i, item] of sampleStream().entries()) {
      const compact = item.update;
      const pb = item.update_protobuf_json;
      if (!compact || !pb) {
        if (compact) problems.push(`item ${i}: no protobuf rendering`);
        continue;
      }
      const strip = (u: object) => JSON.stringify(u, (k, v: unknown) => (VALUE_FIELDS.includes(k) ? null : v));
      if (strip(compact) !== strip(pb)) problems.push(`item ${i}: renderings differ outside Daml values`);
      const pairs: [unknown, unknown, string][] = [];
      if ('events_by_id' in compact && 'events_by_id' in pb) {
        for (const [id, ev] of Object.entries(compact.events_by_id)) {
          const other = pb.events_by_id[id] as unknown as Record<string, unknown>;
          for (const f of VALUE_FIELDS)
            if (f in ev) pairs.push([(ev as unknown as Record<string, unknown>)[f], other[f], `item ${i} ${id} ${f}`]);
        }
      } else if ('event' in compact && 'event' in pb && 'created_event' in compact.event && 'created_event' in pb.event) {
        pairs.push([compact.event.created_event.create_arguments, pb.event.created_event.create_arguments, `item ${i} assign`]);
      }
      for (const [c, p, where] of pairs) {
        compared++;
        const m = mismatch(c, p, where);
        if (m) problems.push(m);
      }
    }
    expect(problems.slice(0, 10)).toEqual([]);
    expect(compared).toBeGreaterThan(10_000);
  });

  it('the comparison notices a wrong rendering', () => {
    expect(mismatch('1.0000000000', { numeric: '1.0000000001' }, 'x')).not.toBeNull();
    expect(mismatch({ a: '1' }, { record: { fields: [{ value: { int64: '1' } }, { value: { int64: '2' } }] } }, 'x')).not.toBeNull();
    expect(mismatch(null, { optional: { value: { unit: {} } } }, 'x')).not.toBeNull();
    expect(mismatch('2025-01-01T00:00:00Z', { timestamp: '1735689600000001' }, 'x')).not.toBeNull();
  });
});
