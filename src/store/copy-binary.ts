/**
 * Rows in PostgreSQL's binary COPY format, for tables whose rows are mostly
 * bytes: a bytea goes in as its bytes (the text format would double them as
 * hex for Node to write and PostgreSQL to decode), integers and timestamps as
 * their 8 bytes. Format: a signature and two zero words, then per row a field
 * count and each field's length and bytes (-1 for null), then -1.
 */
import type { Micros } from '../domain/time';

export type BinaryType = 'text' | 'int4' | 'int8' | 'timestamptz' | 'bytea';
export type BinaryValue = string | number | bigint | Buffer | null;

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
/** PostgreSQL counts timestamps in microseconds from 2000-01-01T00:00:00Z. */
const POSTGRES_EPOCH: Micros = 946_684_800_000_000n;
const CHUNK_SIZE = 1 << 20;

export class BinaryCopyRows {
  private readonly chunks: Buffer[] = [];
  private chunk = Buffer.allocUnsafe(CHUNK_SIZE);
  private used = 0;
  private rows = 0;

  constructor(
    readonly table: string,
    readonly columns: readonly { name: string; type: BinaryType }[],
  ) {
    this.room(SIGNATURE.length + 8);
    this.used += SIGNATURE.copy(this.chunk, this.used);
    this.used = this.chunk.writeInt32BE(0, this.used);
    this.used = this.chunk.writeInt32BE(0, this.used);
  }

  /** One row; timestamptz values are microseconds since the Unix epoch. */
  add(values: readonly BinaryValue[]): void {
    if (values.length !== this.columns.length) {
      throw new Error(`COPY ${this.table}: ${values.length} values for ${this.columns.length} columns`);
    }
    this.room(2);
    this.used = this.chunk.writeInt16BE(values.length, this.used);
    for (let i = 0; i < values.length; i++) this.field(this.columns[i]!.type, values[i]!);
    this.rows += 1;
  }

  get size(): number {
    return this.rows;
  }

  get bytes(): number {
    return this.chunks.reduce((n, c) => n + c.length, this.used);
  }

  statement(): string {
    return `copy ${this.table} (${this.columns.map((c) => c.name).join(', ')}) from stdin with (format binary)`;
  }

  /** The encoded rows with the trailer, in order. */
  data(): Buffer[] {
    const trailer = Buffer.alloc(2);
    trailer.writeInt16BE(-1);
    return [...this.chunks, this.chunk.subarray(0, this.used), trailer];
  }

  private field(type: BinaryType, value: BinaryValue): void {
    if (value === null) {
      this.room(4);
      this.used = this.chunk.writeInt32BE(-1, this.used);
      return;
    }
    switch (type) {
      case 'text': {
        const text = value as string;
        this.room(4 + text.length * 3);
        const length = this.chunk.write(text, this.used + 4, 'utf8');
        this.chunk.writeInt32BE(length, this.used);
        this.used += 4 + length;
        return;
      }
      case 'int4':
        this.room(8);
        this.used = this.chunk.writeInt32BE(4, this.used);
        this.used = this.chunk.writeInt32BE(Number(value), this.used);
        return;
      case 'int8':
        this.room(12);
        this.used = this.chunk.writeInt32BE(8, this.used);
        this.used = this.chunk.writeBigInt64BE(BigInt(value as number | bigint), this.used);
        return;
      case 'timestamptz':
        this.room(12);
        this.used = this.chunk.writeInt32BE(8, this.used);
        this.used = this.chunk.writeBigInt64BE((value as bigint) - POSTGRES_EPOCH, this.used);
        return;
      case 'bytea': {
        const bytes = value as Buffer;
        this.room(4 + bytes.length);
        this.used = this.chunk.writeInt32BE(bytes.length, this.used);
        this.used += bytes.copy(this.chunk, this.used);
        return;
      }
    }
  }

  private room(bytes: number): void {
    if (this.used + bytes <= this.chunk.length) return;
    if (this.used > 0) this.chunks.push(this.chunk.subarray(0, this.used));
    this.chunk = Buffer.allocUnsafe(Math.max(CHUNK_SIZE, bytes));
    this.used = 0;
  }
}
