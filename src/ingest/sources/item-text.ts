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

/** The members an item line has. */
const ITEM_MEMBERS = new Set([...Object.keys(MEMBER_TEXT), 'created_event_blobs']);

const QUOTE = 34;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const COLON = 58;
const COMMA = 44;
const MINUS = 45;
const ZERO = 48;
const NINE = 57;

class NotCanonical extends Error {}

/** A scanner over one line; it only locates values, JSON.parse validates them. */
class Scanner {
  private nextBackslash: number;

  constructor(private readonly text: string) {
    this.nextBackslash = text.indexOf('\\');
  }

  /** The index after the string whose opening quote is at `i`; throws NotCanonical on an escape JSON.stringify does not write. */
  string(i: number): number {
    const { text } = this;
    let from = i + 1;
    for (;;) {
      const quote = text.indexOf('"', from);
      if (quote === -1) throw new NotCanonical();
      while (this.nextBackslash !== -1 && this.nextBackslash < from) this.nextBackslash = text.indexOf('\\', from);
      if (this.nextBackslash === -1 || this.nextBackslash > quote) return quote + 1;
      // \" \\ \b \f \n \r \t are JSON.stringify's; \u escapes of control characters need a closer look: leave them to it.
      const escaped = text[this.nextBackslash + 1];
      if (escaped === undefined || !'"\\bfnrt'.includes(escaped)) throw new NotCanonical();
      from = this.nextBackslash + 2;
      this.nextBackslash = text.indexOf('\\', from);
    }
  }

  /** The index after the value starting at `i`. */
  value(i: number): number {
    const { text } = this;
    let depth = 0;
    let at = i;
    do {
      const c = text.charCodeAt(at);
      if (c === QUOTE) {
        at = this.string(at);
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        depth += 1;
        at += 1;
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth -= 1;
        at += 1;
      } else if (c === COLON || c === COMMA) {
        at += 1;
      } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
        at = this.integer(at);
      } else if (text.startsWith('true', at) || text.startsWith('null', at)) {
        at += 4;
      } else if (text.startsWith('false', at)) {
        at += 5;
      } else {
        // Whitespace, a fraction or exponent, or not JSON at all.
        throw new NotCanonical();
      }
    } while (depth > 0);
    return at;
  }

  /** An integer as JSON.stringify writes one that a double holds exactly; anything else is not canonical. */
  private integer(i: number): number {
    const { text } = this;
    let at = i;
    if (text.charCodeAt(at) === MINUS) at += 1;
    const first = at;
    while (at < text.length && text.charCodeAt(at) >= ZERO && text.charCodeAt(at) <= NINE) at += 1;
    const digits = at - first;
    const leadingZero = text.charCodeAt(first) === ZERO && digits > 1;
    const negativeZero = first > i && digits === 1 && text.charCodeAt(first) === ZERO;
    if (digits === 0 || digits > 15 || leadingZero || negativeZero) throw new NotCanonical();
    return at;
  }
}

/** The members of the line's top-level object; undefined unless the whole line is in JSON.stringify's form. */
function members(text: string): { key: string; start: number; end: number }[] | undefined {
  if (text.charCodeAt(0) !== OPEN_BRACE) return undefined;
  if (text === '{}') return [];
  const scanner = new Scanner(text);
  const found = [];
  try {
    for (let at = 1; ;) {
      if (text.charCodeAt(at) !== QUOTE) return undefined;
      const keyEnd = scanner.string(at);
      if (text.charCodeAt(keyEnd) !== COLON) return undefined;
      const end = scanner.value(keyEnd + 1);
      // The item's own member names need no parse; any other key is read (and checked) by JSON.parse.
      const keyText = text.slice(at + 1, keyEnd - 1);
      const key = ITEM_MEMBERS.has(keyText) ? keyText : (JSON.parse(text.slice(at, keyEnd)) as string);
      found.push({ key, start: keyEnd + 1, end });
      const next = text.charCodeAt(end);
      if (next === CLOSE_BRACE) return end + 1 === text.length ? found : undefined;
      if (next !== COMMA) return undefined;
      at = end + 1;
    }
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
