import { decodePayload, encodePayload } from '../../../src/store/update-payload';

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
});
