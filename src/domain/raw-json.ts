/**
 * JSON bodies that embed stored JSON text verbatim. Contract payloads are kept
 * as the compact_json text the source gave; splicing that text into the
 * response (instead of JSON.parse and re-stringify) keeps its key order exact,
 * also for TextMap keys that look like integers, which a JS object would move.
 */

/** JSON text inserted as is; the caller vouches that it is valid JSON. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** A JSON value that may hold RawJson; `undefined` object members are left out. */
export type JsonBody = null | boolean | number | string | RawJson | JsonBody[] | { readonly [key: string]: JsonBody | undefined };

/** Serialises like JSON.stringify (no whitespace, keys in insertion order), inserting RawJson text. */
export function toJsonText(value: JsonBody): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members: string[] = [];
    for (const [key, member] of Object.entries(value)) {
      if (member !== undefined) members.push(`${JSON.stringify(key)}:${toJsonText(member)}`);
    }
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}
