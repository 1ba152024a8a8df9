/**
 * A typed Daml value. The compact_json encoding drops type information (a
 * string may be a party, a decimal or a timestamp), so code that needs both
 * encodings builds values in this model and renders each one from it
 * (value-encoding.ts). Record fields keep their declaration order, which is
 * the key order of compact_json and the field order of protobuf_json.
 */

import { formatDecimal, type Decimal10 } from './decimal';
import type { Micros } from './time';

export type DamlValue =
  | { readonly kind: 'unit' }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'int64'; readonly value: string }
  | { readonly kind: 'numeric'; readonly value: string }
  | { readonly kind: 'text'; readonly value: string }
  | { readonly kind: 'party'; readonly value: string }
  | { readonly kind: 'contractId'; readonly value: string }
  | { readonly kind: 'timestamp'; readonly value: Micros }
  | { readonly kind: 'optional'; readonly value: DamlValue | null }
  | { readonly kind: 'list'; readonly elements: readonly DamlValue[] }
  | { readonly kind: 'textMap'; readonly entries: readonly (readonly [string, DamlValue])[] }
  | { readonly kind: 'genMap'; readonly entries: readonly (readonly [DamlValue, DamlValue])[] }
  | { readonly kind: 'record'; readonly fields: Readonly<Record<string, DamlValue>> }
  | { readonly kind: 'variant'; readonly tag: string; readonly value: DamlValue }
  | { readonly kind: 'enum'; readonly tag: string };

export type DamlRecord = Extract<DamlValue, { kind: 'record' }>;

const UNIT: DamlValue = { kind: 'unit' };
const NONE: DamlValue = { kind: 'optional', value: null };
const EMPTY_RECORD: DamlRecord = { kind: 'record', fields: {} };
const TRUE: DamlValue = { kind: 'bool', value: true };
const FALSE: DamlValue = { kind: 'bool', value: false };

// Values are immutable, so the few parties of a network can share one value each: the
// simulator keeps the arguments of every active contract, and this keeps them small.
const PARTY_CACHE_LIMIT = 100_000;
const parties = new Map<string, DamlValue>();
function party(value: string): DamlValue {
  let v = parties.get(value);
  if (v === undefined) {
    if (parties.size >= PARTY_CACHE_LIMIT) parties.clear();
    v = { kind: 'party', value };
    parties.set(value, v);
  }
  return v;
}

/** Constructors, one per Daml type; `record` takes its fields in declaration order. Equal values may be one shared object. */
export const V = {
  unit: (): DamlValue => UNIT,
  bool: (value: boolean): DamlValue => (value ? TRUE : FALSE),
  int64: (value: number | bigint): DamlValue => ({ kind: 'int64', value: String(value) }),
  numeric: (value: Decimal10): DamlValue => ({ kind: 'numeric', value: formatDecimal(value) }),
  text: (value: string): DamlValue => ({ kind: 'text', value }),
  party,
  contractId: (value: string): DamlValue => ({ kind: 'contractId', value }),
  timestamp: (value: Micros): DamlValue => ({ kind: 'timestamp', value }),
  none: (): DamlValue => NONE,
  some: (value: DamlValue): DamlValue => ({ kind: 'optional', value }),
  optional: (value: DamlValue | null | undefined): DamlValue => (value == null ? NONE : { kind: 'optional', value }),
  list: (elements: readonly DamlValue[]): DamlValue => ({ kind: 'list', elements }),
  textMap: (entries: readonly (readonly [string, DamlValue])[]): DamlValue => ({ kind: 'textMap', entries }),
  genMap: (entries: readonly (readonly [DamlValue, DamlValue])[]): DamlValue => ({ kind: 'genMap', entries }),
  record: (fields: Readonly<Record<string, DamlValue>>): DamlRecord => ({ kind: 'record', fields }),
  emptyRecord: (): DamlRecord => EMPTY_RECORD,
  variant: (tag: string, value: DamlValue): DamlValue => ({ kind: 'variant', tag, value }),
  enum: (tag: string): DamlValue => ({ kind: 'enum', tag }),
};
