/**
 * The two `daml_value_encoding`s of Scan (docs/interfaces.md, "Scan: value encodings"),
 * rendered from the typed model in daml-value.ts.
 *
 * compact_json: the Daml JSON API encoding. Int64 and Numeric are strings,
 * Time is ISO_INSTANT, Optional is null or the value (nested optionals use
 * [] and [x]), variants are {"tag","value"}, enums their constructor name,
 * generic maps arrays of [key, value] pairs, text maps objects, Unit {}.
 *
 * protobuf_json: canonical protobuf JSON of the Ledger API v2 `Value`
 * message, as Scan stores it: int64 and timestamps (microseconds since the
 * epoch) are strings, Optional None is {"optional":{}}, empty repeated fields
 * are omitted ({"list":{}}), and records carry no field labels or type ids.
 */

import type { DamlValue } from './daml-value';
import type { Json } from './json';
import { formatInstant } from './time';

export type DamlValueEncoding = 'compact_json' | 'protobuf_json';

export function toCompactJson(v: DamlValue): Json {
  switch (v.kind) {
    case 'unit':
      return {};
    case 'bool':
    case 'int64':
    case 'numeric':
    case 'text':
    case 'party':
    case 'contractId':
      return v.value;
    case 'timestamp':
      return formatInstant(v.value);
    case 'optional':
      if (v.value === null) return null;
      // Some(x) of a nested Optional: Some None is [], Some (Some y) is [encoding of Some y].
      if (v.value.kind === 'optional') return v.value.value === null ? [] : [toCompactJson(v.value)];
      return toCompactJson(v.value);
    case 'list':
      return v.elements.map(toCompactJson);
    case 'textMap': {
      const out: { [key: string]: Json } = {};
      for (const [key, value] of v.entries) out[key] = toCompactJson(value);
      return out;
    }
    case 'genMap':
      return v.entries.map(([key, value]) => [toCompactJson(key), toCompactJson(value)]);
    case 'record': {
      const out: { [key: string]: Json } = {};
      for (const name in v.fields) out[name] = toCompactJson(v.fields[name] as DamlValue);
      return out;
    }
    case 'variant':
      return { tag: v.tag, value: toCompactJson(v.value) };
    case 'enum':
      return v.tag;
  }
}

export function toProtobufJson(v: DamlValue): Json {
  switch (v.kind) {
    case 'unit':
      return { unit: {} };
    case 'bool':
      return { bool: v.value };
    case 'int64':
      return { int64: v.value };
    case 'numeric':
      return { numeric: v.value };
    case 'text':
      return { text: v.value };
    case 'party':
      return { party: v.value };
    case 'contractId':
      return { contractId: v.value };
    case 'timestamp':
      return { timestamp: v.value.toString() };
    case 'optional':
      return { optional: v.value === null ? {} : { value: toProtobufJson(v.value) } };
    case 'list':
      return { list: v.elements.length === 0 ? {} : { elements: v.elements.map(toProtobufJson) } };
    case 'textMap':
      return {
        textMap: v.entries.length === 0 ? {} : { entries: v.entries.map(([key, value]) => ({ key, value: toProtobufJson(value) })) },
      };
    case 'genMap':
      return {
        genMap:
          v.entries.length === 0
            ? {}
            : { entries: v.entries.map(([key, value]) => ({ key: toProtobufJson(key), value: toProtobufJson(value) })) },
      };
    case 'record': {
      const fields: Json[] = [];
      for (const name in v.fields) fields.push({ value: toProtobufJson(v.fields[name] as DamlValue) });
      return { record: fields.length === 0 ? {} : { fields } };
    }
    case 'variant':
      return { variant: { constructor: v.tag, value: toProtobufJson(v.value) } };
    case 'enum':
      return { enum: { constructor: v.tag } };
  }
}
