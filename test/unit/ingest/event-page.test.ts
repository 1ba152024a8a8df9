/**
 * Reading a /v0/events answer from its text (src/ingest/sources/event-page.ts), as the attested
 * source does: what it gives for an answer in JSON.stringify's form is what parsing gives (keys,
 * items, content hashes), with the texts kept for the writer; another upstream's identical elements
 * are taken as read; anything else is parsed, with the failover source's errors.
 */
import { servedEventItem, type CanonicalItem, type TransactionUpdate } from '../../../src/domain/items';
import { itemHashes, partHashes, type Part } from '../../../src/ingest/sources/attestation';
import { readEventPage, readItem, readProtobufUpdates, type ReceivedEvent } from '../../../src/ingest/sources/event-page';
import { SourceItemError } from '../../../src/ingest/source';
import { simulatedItems } from '../../support/items/simulated-network';

const IMPORT_TIME = '0001-01-01T00:00:00.000000Z';
const isReassignment = (i: CanonicalItem) => i.update !== null && !('events_by_id' in i.update);
/** The first hundred elements of a simulated network, and its first reassignment and rejected transaction (a verdict alone). */
const items = (() => {
  const all = simulatedItems({ seed: 'event-page', updates: 1200, migrations: 1, meanUpdateGapMs: 20_000 }).filter(
    (i) => i.update?.record_time !== IMPORT_TIME,
  );
  const reassignment = all.find(isReassignment);
  const rejected = all.find((i) => i.update === null);
  return all.filter((i, n) => n < 100 || i === reassignment || i === rejected);
})();
const answer = (list: readonly CanonicalItem[], encoding: 'compact_json' | 'protobuf_json' = 'compact_json') =>
  JSON.stringify({ events: list.map((i) => servedEventItem(i, encoding)) });
const copy = <T>(x: T) => JSON.parse(JSON.stringify(x)) as T;
const origin = 'upstream';

/** The hashes of a received element with its protobuf part, as the attested source computes them. */
const hashesOf = (e: ReceivedEvent, protobuf: Part | undefined) => partHashes({ ...e.parts, updateProtobuf: protobuf ?? { value: null } });

describe('reading a /v0/events answer', () => {
  it('has elements of every kind', () => {
    expect(items.filter((i) => i.update && i.verdict).length).toBeGreaterThan(10);
    expect(items.some((i) => i.traffic_summary)).toBe(true);
    expect(items.filter(isReassignment)).toHaveLength(1);
    expect(items.filter((i) => i.update === null)).toHaveLength(1);
  });

  it('gives, from canonical text, the keys, items and hashes that parsing gives, and the texts as served', () => {
    const compact = readEventPage(answer(items), origin, undefined);
    const protobuf = readProtobufUpdates(answer(items, 'protobuf_json'), origin);
    expect(compact.reference).toBeDefined(); // read as text, not parsed
    expect(compact.events).toHaveLength(items.length);
    compact.events.forEach((e, i) => {
      const served = copy(servedEventItem(items[i]!, 'compact_json')) as CanonicalItem;
      const { item, key } = readItem(served);
      expect(e.key).toEqual(key);
      const taken = e.take();
      expect(taken.item).toEqual(item);
      expect(taken.texts).toEqual({
        ...(item.update && { update: JSON.stringify(item.update) }),
        ...(item.verdict && { verdict: JSON.stringify(item.verdict) }),
        ...(item.traffic_summary && { trafficSummary: JSON.stringify(item.traffic_summary) }),
        ...(item.app_activity_records && { appActivityRecords: JSON.stringify(item.app_activity_records) }),
      });
      const protobufPart = e.updateId === undefined ? undefined : protobuf.byId.get(e.updateId);
      if (item.update) expect(protobufPart).toBeDefined();
      const withProtobuf = { ...item, ...(item.update && { update_protobuf_json: items[i]!.update_protobuf_json }) };
      expect(hashesOf(e, protobufPart)).toEqual(itemHashes(withProtobuf));
    });
  });

  it('parses an answer that is not in JSON.stringify form, with the same keys and hashes and no texts', () => {
    const text = JSON.stringify({ events: items.map((i) => servedEventItem(i, 'compact_json')) }, null, 1);
    const pretty = readEventPage(text, origin, undefined);
    const canonical = readEventPage(answer(items), origin, undefined);
    expect(pretty.reference).toBeUndefined();
    expect(pretty.events.map((e) => e.key)).toEqual(canonical.events.map((e) => e.key));
    pretty.events.forEach((e, i) => {
      expect(e.take().texts).toBeUndefined();
      expect(hashesOf(e, undefined)).toEqual(hashesOf(canonical.events[i]!, undefined));
    });
  });

  it("leaves a verdict's finalization time and an update's offset out of the hash, from text as from values", () => {
    const i = items.findIndex((x) => x.update && x.verdict);
    const changed = copy(items);
    changed[i]!.verdict!.finalization_time = '2030-01-01T00:00:00.000000Z';
    (changed[i]!.update as unknown as Record<string, unknown>).offset = '000000000000000042';
    const a = readEventPage(answer(items), origin, undefined).events[i]!;
    const b = readEventPage(answer(changed), origin, undefined).events[i]!;
    expect(hashesOf(b, undefined)).toEqual(hashesOf(a, undefined));
    expect(b.take().texts!.verdict).toContain('2030-01-01');
    changed[i]!.verdict!.mediator_group += 1;
    expect(hashesOf(readEventPage(answer(changed), origin, undefined).events[i]!, undefined).hash).not.toBe(hashesOf(a, undefined).hash);
  });

  it('takes the elements identical to another answer for the same page as read there, and reads the others', () => {
    const reference = readEventPage(answer(items), origin, undefined);
    const changed = copy(items);
    const k = items.findIndex((x) => x.update && 'events_by_id' in x.update && x.verdict);
    (changed[k]!.update as TransactionUpdate).workflow_id = 'changed';
    changed.splice(k + 5, 1); // one left out
    const other = readEventPage(answer(changed), 'other', undefined, reference.reference);
    const fresh = readEventPage(answer(changed), 'other', undefined);
    expect(other.events.map((e) => e.key)).toEqual(fresh.events.map((e) => e.key));
    other.events.forEach((e, i) => {
      const j = i < k + 5 ? i : i + 1;
      // The same parts (so the same hashes, computed once) wherever the element is the same.
      expect(e.parts === reference.events[j]!.parts).toBe(i !== k);
      expect(hashesOf(e, undefined)).toEqual(hashesOf(fresh.events[i]!, undefined));
      expect(e.origin).toBe(`other, element ${i}`);
      expect(e.take()).toEqual(fresh.events[i]!.take());
    });
  });

  it('ends the page at an element out of key order', () => {
    const swapped = copy(items);
    [swapped[10], swapped[11]] = [swapped[11]!, swapped[10]!];
    const page = readEventPage(answer(swapped), origin, undefined);
    expect(page.events).toHaveLength(11);
    expect(page.disorderAt).toEqual(readItem(copy(servedEventItem(items[10]!, 'compact_json'))).key);
  });

  it('refuses a malformed element as the failover source does, naming it', () => {
    const broken = copy(items.map((i) => servedEventItem(i, 'compact_json')));
    delete (broken[3]!.update as unknown as Record<string, unknown>).record_time;
    const read = () => readEventPage(JSON.stringify({ events: broken }), origin, undefined);
    expect(read).toThrow(SourceItemError);
    expect(read).toThrow(
      `upstream, element 3 (update ${broken[3]!.update!.update_id}): item.update.record_time: expected a string, got nothing`,
    );
  });

  it('throws SyntaxError on a body that is not JSON (a cut-off answer, retried by the HTTP client)', () => {
    const text = answer(items);
    expect(() => readEventPage(text.slice(0, text.length / 2), origin, undefined)).toThrow(SyntaxError);
  });
});
