/**
 * Rendering of stored update-history JSON into Scan answers by text
 * concatenation (docs/interfaces.md, "Scan: update history", "Scan: events"): the stored v2 item
 * is served verbatim, never parsed and rebuilt.
 *
 * - `external_transaction_hash` is kept out of the stored JSON; it is the last
 *   key of a v2 transaction and is appended where an endpoint serves it.
 * - v1 items (import updates) have `"offset": "000000000000000001"` after
 *   `effective_at`.
 */

/** Scan's constant offset of cross-SV consistent v1 items (`LegacyOffset.Api.fromLong(1)`). */
export const CONSISTENT_OFFSET = '000000000000000001';

/** The stored item with `external_transaction_hash` as its last key, or unchanged when there is none. */
export function withExternalHash(storedJson: string, hash: string | null | undefined): string {
  if (hash === null || hash === undefined) return storedJson;
  if (!storedJson.endsWith('}')) throw new Error('stored update JSON is not an object');
  return `${storedJson.slice(0, -1)},"external_transaction_hash":${JSON.stringify(hash)}}`;
}

const ROOT_EVENT_IDS = ',"root_event_ids":';

/**
 * The v1 shape of a stored v2 transaction: `offset` inserted before
 * `root_event_ids`. Inside a JSON string a quote is always escaped, so the
 * first unescaped `,"root_event_ids":` is the top-level key (the keys before
 * it hold only scalars).
 */
export function toV1Transaction(storedJson: string): string {
  const at = storedJson.indexOf(ROOT_EVENT_IDS);
  if (at < 0) throw new Error('stored transaction JSON has no root_event_ids');
  return `${storedJson.slice(0, at)},"offset":"${CONSISTENT_OFFSET}"${storedJson.slice(at)}`;
}

/** One `/v0/events` element (EventHistoryItem) from its parts' JSON text; a missing part is null. */
export function eventItemJson(parts: {
  update: string | null;
  verdict: string | null;
  trafficSummary: string | null;
  appActivityRecords: string | null;
}): string {
  return (
    `{"update":${parts.update ?? 'null'},"verdict":${parts.verdict ?? 'null'},` +
    `"traffic_summary":${parts.trafficSummary ?? 'null'},"app_activity_records":${parts.appActivityRecords ?? 'null'}}`
  );
}

/** `{"<key>":[a,b,…]}` from element JSON texts. */
export function jsonArrayObject(key: string, elements: readonly string[]): string {
  return `{${JSON.stringify(key)}:[${elements.join(',')}]}`;
}
