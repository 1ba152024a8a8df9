/**
 * Canonical items whose protobuf_json rendering is built on first use.
 *
 * Rendering `update_protobuf_json` costs about as much as the compact update
 * and doubles what every item holds, yet a generator run that only counts,
 * checks or serves compact_json never reads it. The item therefore carries it
 * as an own, enumerable accessor: JSON.stringify, Object.keys, spreads and
 * destructuring see it at its place (the last key) exactly as a data
 * property, and the first read renders it and keeps the result, so every
 * later read returns the same object. Assigning to it replaces it with an
 * ordinary data property.
 */

import type { AppActivityRecords, CanonicalItem, TrafficSummary, Update, Verdict } from '../domain/items';

/** Per item: the render function until the first read, then the rendering. Not enumerable, so invisible to consumers. */
const PROTOBUF = Symbol('update_protobuf_json');

interface LazyItem extends CanonicalItem {
  [PROTOBUF]: (() => Update) | Update;
}

// One getter and setter for all items: accessors are part of V8's hidden class, so
// per-item closures would give every item a class of its own (and slow every reader).
function getProtobuf(this: LazyItem): Update {
  const state = this[PROTOBUF];
  if (typeof state !== 'function') return state;
  const rendered = state();
  this[PROTOBUF] = rendered;
  return rendered;
}

function setProtobuf(this: LazyItem, value: Update | undefined): void {
  Object.defineProperty(this, 'update_protobuf_json', { value, writable: true, enumerable: true, configurable: true });
}

const PROPERTIES: PropertyDescriptorMap = {
  update_protobuf_json: { get: getProtobuf, set: setProtobuf, enumerable: true, configurable: true },
  [PROTOBUF]: { value: undefined, writable: true, enumerable: false, configurable: true },
};

export function lazyProtobufItem(
  update: Update,
  verdict: Verdict | null,
  trafficSummary: TrafficSummary | null,
  appActivityRecords: AppActivityRecords | null,
  renderProtobuf: () => Update,
): CanonicalItem {
  const item = Object.defineProperties(
    { update, verdict, traffic_summary: trafficSummary, app_activity_records: appActivityRecords },
    PROPERTIES,
  ) as LazyItem;
  item[PROTOBUF] = renderProtobuf;
  return item;
}
