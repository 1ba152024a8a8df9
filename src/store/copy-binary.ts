/**
 * Rows in PostgreSQL's binary COPY format, for tables whose rows are mostly
 * bytes: a bytea goes in as its bytes (the text format would double them as
 * hex for Node to write and PostgreSQL to decode), integers and timestamps as
 * their 8 bytes. Format: a signature and two zero words, then per row a field
 * count and each field's length and bytes (-1 for null), then -1.
 */
import type { Micros } from '../domain/time';
import { CopyData } from './chunked-buffer';

export type BinaryType = 'text' | 'int4' | 'int8' | 'timestamptz' | 'bytea';
export type BinaryValue = string | number | bigint | Buffer | null;

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
/** PostgreSQL counts timestamps in microseconds from 2000-01-01T00:00:00Z. */
const POSTGRES_EPOCH: Micros = 946_684_800_000_000n;
export class BinaryCopyRows extends CopyData {
  constructor(
    readonly table: string,
    readonly columns: readonly { name: string; type: BinaryType }[],
  ) {
    super();
    const o = this.out;
    o.room(SIGNATURE.length + 8);
    o.used += SIGNATURE.copy(o.chunk, o.used);
    o.used = o.chunk.writeInt32BE(0, o.used);
    o.used = o.chunk.writeInt32BE(0, o.used);
  }

  /** One row; timestamptz values are microseconds since the Unix epoch. */
  add(values: readonly BinaryValue[]): void {
    if (values.length !== this.columns.length) {
      throw new Error(`COPY ${this.table}: ${values.length} values for ${this.columns.length} columns`);
    }
    this.out.room(2);
    this.out.used = this.out.chunk.writeInt16BE(values.length, this.out.used);
    for (let i = 0; i < values.length; i++) this.field(this.columns[i]!.type, values[i]!);
    this.rows += 1;
  }

  statement(): string {
    return `copy ${this.table} (${this.columns.map((c) => c.name).join(', ')}) from stdin with (format binary)`;
  }

  /** The encoded rows with the trailer, in order. */
  data(): Buffer[] {
    const trailer = Buffer.alloc(2);
    trailer.writeInt16BE(-1);
    return [...this.out.data(), trailer];
  }

  private field(type: BinaryType, value: BinaryValue): void {
    const o = this.out;
    if (value === null) {
      o.room(4);
      o.used = o.chunk.writeInt32BE(-1, o.used);
      return;
    }
    switch (type) {
      case 'text': {
        const text = value as string;
        o.room(4 + text.length * 3);
        const length = o.chunk.write(text, o.used + 4, 'utf8');
        o.chunk.writeInt32BE(length, o.used);
        o.used += 4 + length;
        return;
      }
      case 'int4':
        o.room(8);
        o.used = o.chunk.writeInt32BE(4, o.used);
        o.used = o.chunk.writeInt32BE(Number(value), o.used);
        return;
      case 'int8':
        o.room(12);
        o.used = o.chunk.writeInt32BE(8, o.used);
        o.used = o.chunk.writeBigInt64BE(BigInt(value as number | bigint), o.used);
        return;
      case 'timestamptz':
        o.room(12);
        o.used = o.chunk.writeInt32BE(8, o.used);
        o.used = o.chunk.writeBigInt64BE((value as bigint) - POSTGRES_EPOCH, o.used);
        return;
      case 'bytea': {
        const bytes = value as Buffer;
        o.room(4 + bytes.length);
        o.used = o.chunk.writeInt32BE(bytes.length, o.used);
        o.used += bytes.copy(o.chunk, o.used);
        return;
      }
    }
  }
}
