/**
 * Rows in PostgreSQL's COPY text format (tab-separated, one row per line,
 * `\N` for null), built in memory and sent with `COPY … FROM STDIN`. COPY
 * takes rows straight into the table, without the per-row JSON that
 * json_to_recordset parses, so the writer's bytes are the table's bytes.
 */

import { CopyData } from './chunked-buffer';

export type CopyValue = string | number | bigint | boolean | null | readonly string[] | readonly number[] | Buffer;

const TAB = 0x09;
const NEWLINE = 0x0a;
const NEEDS_ESCAPE = /[\\\n\r\t]/;
const ESCAPES = /[\\\n\r\t]/g;
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A text value with COPY's four special characters escaped. */
function copyText(value: string): string {
  return NEEDS_ESCAPE.test(value) ? value.replace(ESCAPES, (c) => ESCAPED[c]!) : value;
}

const ARRAY_ELEMENT_ESCAPES = /["\\]/g;

/** An array literal ({"a","b"}), each element quoted, before COPY's own escaping. */
function arrayLiteral(values: readonly (string | number)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (i > 0) out += ',';
    out += typeof v === 'number' ? String(v) : `"${v.replace(ARRAY_ELEMENT_ESCAPES, (c) => `\\${c}`)}"`;
  }
  return `${out}}`;
}

/** Anything an element of an array literal, or the literal in COPY, would escape. */
const NEEDS_ARRAY_ESCAPE = /["\\\n\r\t]/;

/**
 * The COPY field of an array of strings none of which needs escaping (party and template ids): each
 * element quoted, as arrayLiteral would write it, without escaping anything twice. Undefined otherwise.
 */
function plainArrayField(values: readonly (string | number)[]): string | undefined {
  if (values.length === 0) return '{}';
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (typeof v !== 'string' || NEEDS_ARRAY_ESCAPE.test(v)) return undefined;
  }
  return `{"${values.join('","')}"}`;
}

/** One field of a row. */
export function copyField(value: CopyValue): string {
  if (value === null) return '\\N';
  if (typeof value === 'string') return copyText(value);
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (Buffer.isBuffer(value)) return `\\\\x${value.toString('hex')}`;
  return plainArrayField(value) ?? copyText(arrayLiteral(value));
}

/** Fields of a row, joined by tabs. */
export function copyFields(values: readonly CopyValue[]): string {
  // One string per row, written once: a write per field costs more than the concatenation.
  let line = '';
  for (let i = 0; i < values.length; i++) {
    line += (i === 0 ? '' : '\t') + copyField(values[i]!);
  }
  return line;
}

/** Accumulates the rows of one table for one COPY, encoded as they are added. */
export class CopyRows extends CopyData {
  constructor(
    readonly table: string,
    readonly columns: readonly string[],
  ) {
    super();
  }

  add(values: readonly CopyValue[]): void {
    if (values.length !== this.columns.length) {
      throw new Error(`COPY ${this.table}: ${values.length} values for ${this.columns.length} columns`);
    }
    this.out.text(`${copyFields(values)}\n`);
    this.rows += 1;
  }

  /**
   * One row whose fields are encoded already (by copyField or copyFields): `head`, then `rest`, bytes
   * of fields that rows encoded once share. Together they hold every column's value, in order.
   */
  addEncoded(head: string, rest: Buffer): void {
    const o = this.out;
    o.room(head.length * 3 + rest.length + 2);
    o.used += o.chunk.write(head, o.used, 'utf8');
    o.chunk[o.used++] = TAB;
    o.used += rest.copy(o.chunk, o.used);
    o.chunk[o.used++] = NEWLINE;
    this.rows += 1;
  }

  /** One row encoded by its caller: every column's field, in order, tab-separated, ending in a newline. */
  addLine(line: string): void {
    this.out.text(line);
    this.rows += 1;
  }

  statement(): string {
    return `copy ${this.table} (${this.columns.join(', ')}) from stdin`;
  }

  data(): Buffer[] {
    return this.out.data();
  }
}
