import { BinaryCopyRows } from '../../../src/store/copy-binary';
import { copyField, copyFields, CopyRows } from '../../../src/store/copy-text';

describe('COPY text format', () => {
  it.each([
    [null, '\\N'],
    ['plain', 'plain'],
    ['tab\tnew\nline\rback\\slash', 'tab\\tnew\\nline\\rback\\\\slash'],
    [42, '42'],
    [true, 't'],
    [false, 'f'],
    [['a', 'b"c', 'd\\e'], '{"a","b\\\\"c","d\\\\\\\\e"}'],
    [[1, 2], '{1,2}'],
    [[], '{}'],
    [Buffer.from([0, 255]), '\\\\x00ff'],
  ] as const)('%p is written as %s', (value, text) => {
    expect(copyField(value as never)).toBe(text);
  });

  it('joins fields with tabs and ends each row with a newline', () => {
    const rows = new CopyRows('t', ['a', 'b']);
    rows.add(['x', null]);
    rows.add(['é', 1]);
    expect(Buffer.concat(rows.data()).toString('utf8')).toBe('x\t\\N\né\t1\n');
    expect(rows.size).toBe(2);
    expect(rows.statement()).toBe('copy t (a, b) from stdin');
  });
});

describe('COPY text rows encoded in parts', () => {
  it('writes the head, a tab, the bytes of the rest and a newline, as add would', () => {
    const rest = Buffer.from(copyFields([1, 'a\tb', null]));
    const parts = new CopyRows('t', ['p', 'x', 'y', 'z']);
    const plain = new CopyRows('t', ['p', 'x', 'y', 'z']);
    for (const party of ['alice', 'b\\ob']) {
      parts.addEncoded(copyField(party), rest);
      plain.add([party, 1, 'a\tb', null]);
    }
    expect(Buffer.concat(parts.data()).toString()).toBe('alice\t1\ta\\tb\t\\N\nb\\\\ob\t1\ta\\tb\t\\N\n');
    expect(Buffer.concat(parts.data())).toEqual(Buffer.concat(plain.data()));
    expect(parts.size).toBe(2);
  });
});

describe('COPY binary format', () => {
  it('writes the signature, each field with its length, and the trailer', () => {
    const rows = new BinaryCopyRows('t', [
      { name: 'a', type: 'text' },
      { name: 'b', type: 'int8' },
      { name: 'c', type: 'timestamptz' },
      { name: 'd', type: 'bytea' },
      { name: 'e', type: 'int4' },
    ]);
    rows.add(['é', 7, 946_684_800_000_001n, Buffer.from([9]), null]);
    const data = Buffer.concat(rows.data());
    expect(data.subarray(0, 11).toString('latin1')).toBe('PGCOPY\n\xff\r\n\0');
    const row = data.subarray(19);
    expect(row.readInt16BE(0)).toBe(5);
    expect(row.readInt32BE(2)).toBe(2); // 'é' is two UTF-8 bytes
    expect(row.subarray(6, 8).toString('utf8')).toBe('é');
    expect(row.readInt32BE(8)).toBe(8);
    expect(row.readBigInt64BE(12)).toBe(7n);
    // Microseconds from 2000-01-01, PostgreSQL's epoch.
    expect(row.readBigInt64BE(24)).toBe(1n);
    expect(row.readInt32BE(32)).toBe(1);
    expect(row[36]).toBe(9);
    expect(row.readInt32BE(37)).toBe(-1);
    expect(row.readInt16BE(41)).toBe(-1);
    expect(row.length).toBe(43);
    expect(rows.statement()).toBe('copy t (a, b, c, d, e) from stdin with (format binary)');
  });
});
