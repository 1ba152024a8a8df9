/**
 * Reading JSON text that is in JSON.stringify's form without parsing it.
 *
 * Text in that form (no insignificant whitespace, integers in their shortest
 * form that a double holds exactly, no fractions or exponents, only the
 * escapes JSON.stringify writes for the characters it escapes) is what
 * JSON.stringify would write again for the parsed value, except for a key
 * repeated in one object and integer-like keys out of ascending order, which
 * a parsed object would change. Such text can be stored, compared and hashed
 * as received. The scanner checks the whole grammar, so text it accepts is
 * valid JSON; anything else throws NotCanonical, and the caller parses it
 * instead (JSON.parse then reports what is wrong, if anything is).
 */

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

/** JSON.stringify escapes these (and writes \u escapes for the other control characters, which the scanner refuses). */
const SHORT_ESCAPES = new Set(['"', '\\', 'b', 'f', 'n', 'r', 't'].map((c) => c.charCodeAt(0)));

/** Raw control characters are never in JSON.stringify's output (nor valid JSON inside a string). */
// eslint-disable-next-line no-control-regex -- finding them is the point
const CONTROL = /[\u0000-\u001f]/g;

/**
 * The first match in a text at or after a position. Strings are many and mostly free of escapes
 * and control characters, so the text is searched once and the answer kept until a string passes it.
 */
class NextMatch {
  private found = -1;
  private searchedFrom = -1;

  constructor(private readonly search: (from: number) => number) {}

  at(from: number): number {
    if (this.searchedFrom === -1 || from < this.searchedFrom || (this.found !== -1 && this.found < from)) {
      this.found = this.search(from);
      this.searchedFrom = from;
    }
    return this.found;
  }
}

export class NotCanonical extends Error {
  constructor() {
    super('not in JSON.stringify form');
    this.name = 'NotCanonical';
  }
}

/** A member of an object: its key, where its key's opening quote is, and where its value starts and ends (exclusive). */
export interface Member {
  key: string;
  at: number;
  start: number;
  end: number;
  /** The members of its value, where it is an object that was asked to be read member by member. */
  members?: Member[];
}

/** An object's text (`start` to `end`, exclusive) and its members. */
export interface ObjectText {
  start: number;
  end: number;
  members: Member[];
}

export class CanonicalScanner {
  private readonly backslash: NextMatch;
  private readonly control: NextMatch;

  constructor(readonly text: string) {
    this.backslash = new NextMatch((from) => text.indexOf('\\', from));
    const control = new RegExp(CONTROL);
    this.control = new NextMatch((from) => {
      control.lastIndex = from;
      return control.exec(text)?.index ?? -1;
    });
  }

  /** The index after the string whose opening quote is at `i`. */
  string(i: number): number {
    const { text } = this;
    if (text.charCodeAt(i) !== QUOTE) throw new NotCanonical();
    let from = i + 1;
    for (;;) {
      const quote = text.indexOf('"', from);
      if (quote === -1) throw new NotCanonical();
      const control = this.control.at(from);
      if (control !== -1 && control < quote) throw new NotCanonical();
      const backslash = this.backslash.at(from);
      if (backslash === -1 || backslash > quote) return quote + 1;
      if (!SHORT_ESCAPES.has(text.charCodeAt(backslash + 1))) throw new NotCanonical();
      from = backslash + 2;
    }
  }

  /** The decoded string whose opening quote is at `i`, and the index after it. */
  stringValue(i: number): { value: string; end: number } {
    const end = this.string(i);
    const raw = this.text.slice(i + 1, end - 1);
    return { value: raw.includes('\\') ? (JSON.parse(this.text.slice(i, end)) as string) : raw, end };
  }

  /** The index after the value starting at `i`, its whole grammar checked. */
  value(i: number): number {
    const { text } = this;
    const first = text.charCodeAt(i);
    if (first === QUOTE) return this.string(i);
    if (first !== OPEN_BRACE && first !== OPEN_BRACKET) return this.scalar(i);
    // The containers open around the current position: true for an object, false for an array.
    const open: boolean[] = [];
    let at = i;
    for (;;) {
      // A value starts at `at`.
      const c = text.charCodeAt(at);
      if (c === QUOTE) {
        at = this.string(at);
      } else if (c === OPEN_BRACE) {
        if (text.charCodeAt(at + 1) === CLOSE_BRACE) {
          at += 2;
        } else {
          open.push(true);
          at = this.key(at + 1);
          continue;
        }
      } else if (c === OPEN_BRACKET) {
        if (text.charCodeAt(at + 1) === CLOSE_BRACKET) {
          at += 2;
        } else {
          open.push(false);
          at += 1;
          continue;
        }
      } else {
        at = this.scalar(at);
      }
      // After a value: close the containers it ends, or go on to the next member or element.
      for (;;) {
        if (open.length === 0) return at;
        const inObject = open[open.length - 1];
        const next = text.charCodeAt(at);
        if (next === COMMA) {
          at = inObject ? this.key(at + 1) : at + 1;
          break;
        }
        if (next !== (inObject ? CLOSE_BRACE : CLOSE_BRACKET)) throw new NotCanonical();
        open.pop();
        at += 1;
      }
    }
  }

  /**
   * Reads the object at `i`, each member's value by `member` (given the key, where the key's quote
   * is and where the value starts; it returns the index after the value); the index after the object.
   */
  object(i: number, member: (key: string, at: number, start: number) => number): number {
    const { text } = this;
    if (text.charCodeAt(i) !== OPEN_BRACE) throw new NotCanonical();
    if (text.charCodeAt(i + 1) === CLOSE_BRACE) return i + 2;
    for (let at = i + 1; ;) {
      const { value: key, end: keyEnd } = this.stringValue(at);
      if (text.charCodeAt(keyEnd) !== COLON) throw new NotCanonical();
      const end = member(key, at, keyEnd + 1);
      const next = text.charCodeAt(end);
      if (next === CLOSE_BRACE) return end + 1;
      if (next !== COMMA) throw new NotCanonical();
      at = end + 1;
    }
  }

  /**
   * The members of the object at `i`. Members whose key is in `nested` and whose value is an object
   * have their own members read too, at any depth (in the same pass).
   */
  members(i: number, nested?: ReadonlySet<string>): ObjectText {
    const members: Member[] = [];
    const end = this.object(i, (key, at, start) => {
      if (nested?.has(key) && this.text.charCodeAt(start) === OPEN_BRACE) {
        const inner = this.members(start, nested);
        members.push({ key, at, start, end: inner.end, members: inner.members });
        return inner.end;
      }
      const valueEnd = this.value(start);
      members.push({ key, at, start, end: valueEnd });
      return valueEnd;
    });
    return { start: i, end, members };
  }

  /** Reads the array at `i`, each element by `element` (which returns the index after it); the index after the array. */
  array(i: number, element: (start: number) => number): number {
    const { text } = this;
    if (text.charCodeAt(i) !== OPEN_BRACKET) throw new NotCanonical();
    if (text.charCodeAt(i + 1) === CLOSE_BRACKET) return i + 2;
    for (let at = i + 1; ;) {
      const end = element(at);
      const next = text.charCodeAt(end);
      if (next === CLOSE_BRACKET) return end + 1;
      if (next !== COMMA) throw new NotCanonical();
      at = end + 1;
    }
  }

  /** The index after the colon of the member key at `i`. */
  private key(i: number): number {
    const end = this.string(i);
    if (this.text.charCodeAt(end) !== COLON) throw new NotCanonical();
    return end + 1;
  }

  /** The index after the integer, true, false or null at `i`. */
  private scalar(i: number): number {
    const { text } = this;
    const c = text.charCodeAt(i);
    if (c === MINUS || (c >= ZERO && c <= NINE)) return this.integer(i);
    if (text.startsWith('true', i) || text.startsWith('null', i)) return i + 4;
    if (text.startsWith('false', i)) return i + 5;
    throw new NotCanonical();
  }

  /** An integer as JSON.stringify writes one that a double holds exactly. */
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
