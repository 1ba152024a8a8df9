import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createFileSource } from '../../../src/ingest/sources/file-source';
import { SourceItemError } from '../../../src/ingest/source';

describe('the file source', () => {
  let dir: string;
  beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'file-source-'))));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };
  const read = async (file: string, from?: string) => {
    const got: { id: unknown; position: string; origin: string }[] = [];
    for await (const s of createFileSource(file).read(from, new AbortController().signal)) {
      got.push({ id: s.item.update?.update_id, position: s.position, origin: s.origin });
    }
    return got;
  };
  const line = (id: string, padding = 0) => JSON.stringify({ update: { update_id: id, pad: 'x'.repeat(padding) } });

  it('yields each line with its number, across chunk boundaries, CRLF and blank lines, and a last line without a break', async () => {
    // Lines of about 0.7 MB: read in 1 MB chunks, most of them span two.
    const big = 700_000;
    const file = write('a.ndjson', `${line('u1', big)}\r\n\n  \r\n${line('u2', big)}\n${line('u3', big)}\n${line('u4')}`);
    expect(await read(file)).toEqual([
      { id: 'u1', position: '1', origin: `${file}:1` },
      { id: 'u2', position: '4', origin: `${file}:4` },
      { id: 'u3', position: '5', origin: `${file}:5` },
      { id: 'u4', position: '6', origin: `${file}:6` },
    ]);
    expect((await read(file, '4')).map((i) => i.id)).toEqual(['u3', 'u4']);
  });

  it('keeps the texts of a line in JSON.stringify form', async () => {
    const file = write('b.ndjson', `${line('u1')}\n`);
    const items = [];
    for await (const s of createFileSource(file).read(undefined, new AbortController().signal)) items.push(s);
    expect(items[0]!.texts?.update).toBe(JSON.stringify({ update_id: 'u1', pad: '' }));
  });

  it('names the line of malformed JSON', async () => {
    const file = write('c.ndjson', `${line('u1')}\n{"update":\n`);
    const error = await read(file).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(SourceItemError);
    expect((error as Error).message).toBe(`${file}:2: malformed JSON: ${jsonError('{"update":')}`);
  });
});

function jsonError(text: string): string {
  try {
    JSON.parse(text);
  } catch (err) {
    return (err as Error).message;
  }
  return '';
}
