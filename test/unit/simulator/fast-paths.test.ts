/**
 * The simulator's shortcuts give what the general code gives: cached
 * timestamp renderings, and items whose protobuf_json rendering is built on
 * first read but looks like an ordinary data property to every consumer.
 */

import type { CanonicalItem, TransactionUpdate } from '../../../src/domain/items';
import * as general from '../../../src/domain/time';
import { generateItems } from '../../../src/simulator/index';
import { Prng } from '../../../src/simulator/prng';
import * as fast from '../../../src/simulator/time-format';

describe('simulator timestamp formatting', () => {
  // Compared in bulk: one expectation per batch keeps the test quick.
  const check = (...ts: bigint[]) => {
    const render = (f: Pick<typeof general, 'formatRecordTime' | 'formatInstant' | 'formatDateTime'>) =>
      ts.map((t) => `${t} ${f.formatRecordTime(t)} ${f.formatInstant(t)} ${f.formatDateTime(t)}`).join('\n');
    expect(render(fast)).toBe(render(general));
  };

  it('matches domain/time.ts on edge cases', () => {
    const max = BigInt(Number.MAX_SAFE_INTEGER);
    check(0n, 1n, -1n, 999_999n, 1_000_000n, -1_000_000n, -1_000_001n, 500_000n, 120_000n, 100_000n, 10n, 1_000n, 123_000n, 100n, 10_000n);
    check(max, max - 1n, max + 1n, -max, -max - 1n, general.IMPORT_RECORD_TIME, general.parseTimestamp('2025-01-01T00:00:00Z'));
    check(253402300799999999n, 253402300800000000n); // the last microsecond of year 9999, and year 10000
  });

  it('matches domain/time.ts on random instants, repeated and in every fraction shape', () => {
    const rng = new Prng('time-format');
    let t = general.parseTimestamp('2024-12-31T23:59:58Z');
    const ts: bigint[] = [];
    for (let i = 0; i < 8_000; i++) {
      t += BigInt(rng.int(1, 900_000));
      ts.push(
        t,
        t - BigInt(rng.int(20_000, 900_000)),
        (t / 1000n) * 1000n,
        (t / 1_000_000n) * 1_000_000n,
        rng.bigint(-(2n ** 60n), 2n ** 60n),
      );
    }
    check(...ts);
  });
});

describe('items with a lazily rendered update_protobuf_json', () => {
  const items = (): CanonicalItem[] => [...generateItems({ seed: 'lazy', updates: 400, migrations: 2 })];

  it('serialise and enumerate exactly like plain objects', () => {
    for (const item of items()) {
      const plain = JSON.parse(JSON.stringify(item)) as CanonicalItem;
      expect(Object.keys(item)).toEqual(Object.keys(plain));
      expect(JSON.stringify({ ...item })).toBe(JSON.stringify(plain));
      expect(item).toEqual(plain);
      if (item.update !== null) expect('update_protobuf_json' in item).toBe(true);
    }
  });

  it('render the same whether read at once or after the rest of the stream was generated', () => {
    const options = { seed: 'late', updates: 1500, migrations: 2, tickSeconds: 60, parties: 40 };
    const atOnce: string[] = [];
    for (const item of generateItems(options)) atOnce.push(JSON.stringify(item.update_protobuf_json ?? null));
    const later = [...generateItems(options)].map((item) => JSON.stringify(item.update_protobuf_json ?? null));
    expect(later.join('\n')).toBe(atOnce.join('\n'));
  });

  it('render once: every read returns the same object', () => {
    const item = items().find((i) => i.update !== null && 'events_by_id' in i.update) as CanonicalItem;
    const first = item.update_protobuf_json as TransactionUpdate;
    expect(item.update_protobuf_json).toBe(first);
    expect({ ...item }.update_protobuf_json).toBe(first);
    expect(Object.keys(first.events_by_id)).toEqual(Object.keys((item.update as TransactionUpdate).events_by_id));
  });

  it('can be replaced or removed like a data property', () => {
    const [a, b] = items().filter((i) => i.update !== null && !i.created_event_blobs);
    const replacement = (b as CanonicalItem).update!;
    (a as CanonicalItem).update_protobuf_json = replacement;
    expect((a as CanonicalItem).update_protobuf_json).toBe(replacement);
    expect(Object.keys(a as CanonicalItem)).toContain('update_protobuf_json');
    delete (b as CanonicalItem).update_protobuf_json;
    expect(Object.keys(b as CanonicalItem)).toEqual(['update', 'verdict', 'traffic_summary', 'app_activity_records']);
    expect(JSON.parse(JSON.stringify(b))).not.toHaveProperty('update_protobuf_json');
  });
});
