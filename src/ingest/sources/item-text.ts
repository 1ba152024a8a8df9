/**
 * Decoding an NDJSON item line without rebuilding JSON that arrived as text.
 *
 * An item line is a JSON object whose members hold the update, its protobuf
 * rendering, the verdict, traffic and activity records. The writer stores
 * each of them as JSON text. When a member's text is already what
 * JSON.stringify would write for its value (no insignificant whitespace,
 * integers in their shortest form, only the escapes JSON.stringify uses), it
 * is kept as is, and only the members the writer must read are parsed; the
 * protobuf rendering, half the line, is never parsed at all. Otherwise the
 * line is parsed whole and the writer writes its members again, as for any
 * other source. (A key repeated inside a member is kept as received: clients,
 * like JSON.parse, read the last.)
 */
import type { CanonicalItem } from '../../domain/items';
import { CanonicalScanner, NotCanonical, type Member } from './canonical-json';

/** JSON texts of an item's members, present where they are in JSON.stringify's form. */
export interface ItemTexts {
  update?: string;
  updateProtobuf?: string;
  verdict?: string;
  trafficSummary?: string;
  appActivityRecords?: string;
}

const MEMBER_TEXT: Record<string, keyof ItemTexts> = {
  update: 'update',
  update_protobuf_json: 'updateProtobuf',
  verdict: 'verdict',
  traffic_summary: 'trafficSummary',
  app_activity_records: 'appActivityRecords',
};

/** The members of the line's top-level object; undefined unless the whole line is in JSON.stringify's form. */
function members(text: string): Member[] | undefined {
  const scanner = new CanonicalScanner(text);
  try {
    const read = scanner.members(0);
    return read.end === text.length ? read.members : undefined;
  } catch (err) {
    if (err instanceof NotCanonical) return undefined;
    throw err;
  }
}

/**
 * Parses an item line. With `texts`, the members of the line that are in
 * JSON.stringify's form; the item then lacks `update_protobuf_json`, whose
 * text is all the writer needs. A line that is not a compact JSON object is
 * parsed whole, without texts (JSON.parse throws on a line that is not JSON).
 */
export function parseItemLine(line: string): { item: CanonicalItem; texts?: ItemTexts } {
  const found = members(line);
  if (!found) return { item: JSON.parse(line) as CanonicalItem };
  const item: Record<string, unknown> = {};
  const texts: ItemTexts = {};
  for (const m of found) {
    const text = line.slice(m.start, m.end);
    const as = MEMBER_TEXT[m.key];
    if (as === 'updateProtobuf') {
      // A null rendering is no rendering, as for a parsed item.
      if (text !== 'null') texts.updateProtobuf = text;
      continue;
    }
    const value = JSON.parse(text) as unknown;
    // As JSON.parse: an own property whatever the key (even __proto__), the last of a repeated key.
    Object.defineProperty(item, m.key, { value, enumerable: true, writable: true, configurable: true });
    if (as && value !== null) texts[as] = text;
  }
  return { item: item as unknown as CanonicalItem, texts };
}

/**
 * The text of a JSON object in JSON.stringify's form without its last member,
 * when that member is `key` with the string `value` and the key occurs nowhere
 * else in the text; otherwise undefined. It is then what JSON.stringify writes
 * for the object without that key.
 */
export function withoutLastMember(objectText: string, key: string, value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const keyText = `${JSON.stringify(key)}:`;
  const member = `,${keyText}${JSON.stringify(value)}}`;
  if (!objectText.endsWith(member)) return undefined;
  const at = objectText.length - member.length;
  // Inside a string a quote is escaped, so any other match of the key text is a key: a nested or repeated one.
  if (objectText.indexOf(keyText) !== at + 1) return undefined;
  return `${objectText.slice(0, at)}}`;
}
