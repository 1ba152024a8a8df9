import zlib from 'node:zlib';
import { decodePayload, decodePayloadPart, encodePayload } from '../../../src/store/update-payload';

describe('update payloads', () => {
  it.each([
    ['ASCII, both renderings', '{"a":"1"}', '{"a":{"text":"1"}}'],
    ['non-ASCII text, both renderings', '{"name":"Zoë 🌐"}', '{"name":{"text":"Zoë 🌐"}}'],
    ['non-ASCII only in the protobuf rendering', '{"a":"1"}', '{"a":{"text":"é"}}'],
    ['compact only', '{"a":"1"}', null],
    ['an empty object', '{}', '{}'],
  ])('%s: decodes to the exact texts it was given', (_name, compact, protobuf) => {
    const { payload, compactLength } = encodePayload(compact, protobuf);
    expect(decodePayload(payload, compactLength)).toEqual({ compactJson: compact, protobufJson: protobuf });
  });

  it('stores a rendering that repeats the other in far fewer bytes than both', () => {
    const ids = Array.from({ length: 40 }, (_, i) => `00${i.toString(16).padStart(8, '0')}ca101220${'ab'.repeat(30)}`);
    const compact = JSON.stringify({ ids });
    const protobuf = JSON.stringify({ list: { elements: ids.map((contractId) => ({ contractId })) } });
    const { payload } = encodePayload(compact, protobuf);
    expect(payload.length).toBeLessThan((compact.length + protobuf.length) / 4);
  });

  it('decodes each of a run of updates of very different sizes to its own texts', () => {
    const text = (n: number, c: string) => JSON.stringify({ a: c.repeat(n) });
    for (const [n, c] of [
      [100_000, 'x'],
      [3, 'y'],
      [2_000_000, 'z'],
      [10, 'é'],
    ] as const) {
      const { payload, compactLength } = encodePayload(text(n, c), text(n, c.toUpperCase()));
      expect(decodePayload(payload, compactLength)).toEqual({ compactJson: text(n, c), protobufJson: text(n, c.toUpperCase()) });
    }
  });

  const cases: [string, string, string | null][] = [
    ['ASCII', '{"a":"1"}', '{"a":{"text":"1"}}'],
    ['non-ASCII', '{"name":"Zoë 🌐"}', '{"name":{"text":"Zoë 🌐"}}'],
    ['compact only', '{"a":"1"}', null],
  ];

  it.each(cases)('%s: a raw DEFLATE payload, as stored before Brotli, still decodes to its texts', (_name, compact, protobuf) => {
    // What the writer stored until the codec changed: raw DEFLATE of both texts, level 1.
    const payload = zlib.deflateRawSync(Buffer.from(protobuf === null ? compact : compact + protobuf, 'utf8'), { level: 1 });
    expect(decodePayload(payload, Buffer.byteLength(compact))).toEqual({ compactJson: compact, protobufJson: protobuf });
  });

  it('writes Brotli after the marker byte 0x06, which no raw DEFLATE stream begins with', () => {
    const { payload } = encodePayload('{"a":"1"}', '{"a":{"text":"1"}}');
    expect(payload[0]).toBe(0x06);
    expect(zlib.brotliDecompressSync(payload.subarray(1)).toString()).toBe('{"a":"1"}{"a":{"text":"1"}}');
    // Block type 11 is reserved (RFC 1951, 3.2.3): inflating the payload as DEFLATE fails.
    expect(() => zlib.inflateRawSync(payload)).toThrow();
  });

  it.each(cases)('%s: each rendering alone decodes from both codecs, as readers ask for one', (_name, compact, protobuf) => {
    const brotli = encodePayload(compact, protobuf);
    const deflate = zlib.deflateRawSync(Buffer.from(protobuf === null ? compact : compact + protobuf, 'utf8'), { level: 1 });
    for (const payload of [brotli.payload, deflate]) {
      const length = Buffer.byteLength(compact);
      expect([decodePayloadPart(payload, length, 'compact'), decodePayloadPart(payload, length, 'protobuf')]).toEqual([compact, protobuf]);
    }
  });

  it('refuses a payload whose first byte marks no known codec', () => {
    expect(() => decodePayload(Buffer.from([0x0e, 1, 2, 3]), 1)).toThrow('update payload: unknown codec marker 0x0e');
  });
});
