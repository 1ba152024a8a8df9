/**
 * Bytes appended into 1 MB buffers as they come: a COPY's data without one
 * joined string or buffer of the whole batch, and without a second copy.
 */
const CHUNK_SIZE = 1 << 20;

export class ChunkedBuffer {
  private readonly full: Buffer[] = [];
  /** The chunk being filled; callers write into it after room(). */
  chunk = Buffer.allocUnsafe(CHUNK_SIZE);
  used = 0;

  /** Makes room for `bytes` more in the current chunk, starting a new one if needed. */
  room(bytes: number): void {
    if (this.used + bytes <= this.chunk.length) return;
    if (this.used > 0) this.full.push(this.chunk.subarray(0, this.used));
    this.chunk = Buffer.allocUnsafe(Math.max(CHUNK_SIZE, bytes));
    this.used = 0;
  }

  /** Appends a string in UTF-8. */
  text(s: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    this.room(s.length * 3);
    this.used += this.chunk.write(s, this.used, 'utf8');
  }

  get bytes(): number {
    return this.full.reduce((n, c) => n + c.length, this.used);
  }

  /** What was appended, in order. */
  data(): Buffer[] {
    return this.used === 0 ? [...this.full] : [...this.full, this.chunk.subarray(0, this.used)];
  }
}

/** The rows of one COPY: what the writer's copy step needs of either format. */
export abstract class CopyData {
  protected readonly out = new ChunkedBuffer();
  protected rows = 0;

  /** Rows added. */
  get size(): number {
    return this.rows;
  }

  /** Bytes encoded so far. */
  get bytes(): number {
    return this.out.bytes;
  }

  abstract statement(): string;

  /** The encoded rows, in order. */
  abstract data(): Buffer[];
}
