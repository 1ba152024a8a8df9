import {
  BULK_HISTORY_START,
  bulkLine,
  bulkSnapshotTimeAfter,
  bulkSnapshotTimeAtOrBefore,
  compareObjectKeys,
  isObjectKey,
  objectKeyOfUrl,
  parseFolder,
  segmentFolder,
  bulkObjectKey,
  updateFromBulkLine,
} from '../../../src/domain/bulk-layout';
import type { TransactionUpdate, TreeEvent, Update } from '../../../src/domain/items';
import type { Json } from '../../../src/domain/json';
import { parseTimestamp } from '../../../src/domain/time';
import { withExternalHash } from '../../../src/domain/update-rendering';
import { generateItems } from '../../../src/simulator/index';

const t = parseTimestamp;

describe('bulk storage layout', () => {
  it('ends segments at the first 00:00 UTC strictly after a time', () => {
    expect(bulkSnapshotTimeAfter(t('2025-03-01T18:13:20.965041Z'))).toBe(t('2025-03-02T00:00:00Z'));
    expect(bulkSnapshotTimeAfter(t('2025-03-02T00:00:00Z'))).toBe(t('2025-03-03T00:00:00Z'));
    expect(bulkSnapshotTimeAfter(t('2025-03-01T23:59:59.999999Z'))).toBe(t('2025-03-02T00:00:00Z'));
    expect(bulkSnapshotTimeAfter(BULK_HISTORY_START.recordTime)).toBe(t('0001-01-02T00:00:00Z'));
    expect(bulkSnapshotTimeAtOrBefore(t('2025-03-02T00:00:00Z'))).toBe(t('2025-03-02T00:00:00Z'));
    expect(bulkSnapshotTimeAtOrBefore(t('2025-03-02T13:00:00Z'))).toBe(t('2025-03-02T00:00:00Z'));
  });

  it("names folders with Java's Instant.toString and objects from 0", () => {
    const folder = segmentFolder(BULK_HISTORY_START.recordTime, t('2025-03-02T00:00:00Z'));
    expect(folder).toBe('0001-01-01T00:00:00Z~2025-03-02T00:00:00Z');
    expect(segmentFolder(t('2025-03-02T00:00:00.5Z'), t('2025-03-03T00:00:00.000123Z'))).toBe(
      '2025-03-02T00:00:00.500Z~2025-03-03T00:00:00.000123Z',
    );
    expect(bulkObjectKey(folder, 'updates', 0)).toBe('0001-01-01T00:00:00Z~2025-03-02T00:00:00Z/updates_0.zstd');
    expect(parseFolder(`${folder}/`)).toEqual({ start: BULK_HISTORY_START.recordTime, end: t('2025-03-02T00:00:00Z') });
    expect(parseFolder('a~b')).toBeUndefined();
    expect(isObjectKey(bulkObjectKey(folder, 'updates', 12))).toBe(true);
    expect(isObjectKey(`${folder}/ACS_3.zstd`)).toBe(true);
    for (const key of [`${folder}/../x`, `${folder}/updates_.zstd`, '../../etc/passwd', `x/${folder}/updates_0.zstd`]) {
      expect(isObjectKey(key)).toBe(false);
    }
  });

  it('orders object keys as a listing: by folder start, then end, then object number (not as text)', () => {
    const a = segmentFolder(t('2025-03-01T00:00:00Z'), t('2025-03-02T00:00:00Z'));
    const b = segmentFolder(t('2025-03-01T00:00:00Z'), t('2025-03-02T00:00:00.5Z'));
    const c = segmentFolder(t('2025-03-02T00:00:00Z'), t('2025-03-03T00:00:00Z'));
    const keys = [
      bulkObjectKey(c, 'updates', 0),
      bulkObjectKey(a, 'updates', 10),
      bulkObjectKey(b, 'updates', 0),
      bulkObjectKey(a, 'updates', 2),
    ];
    expect([...keys].sort(compareObjectKeys)).toEqual([
      bulkObjectKey(a, 'updates', 2),
      bulkObjectKey(a, 'updates', 10),
      bulkObjectKey(b, 'updates', 0),
      bulkObjectKey(c, 'updates', 0),
    ]);
    expect(compareObjectKeys(keys[1]!, keys[1]!)).toBe(0);
  });

  it('writes a line with top-level nulls dropped and every key sorted, integer-like keys included', () => {
    const item = '{"b":null,"a":{"z":1,"10":null,"2":[null,{"y":true,"x":"s"}]},"c":"\\u00e9"}';
    expect(bulkLine(item)).toBe('{"a":{"10":null,"2":[null,{"x":"s","y":true}],"z":1},"c":"é"}\n');
  });

  it('reads a line back as the update the history serves, but for the key order inside Daml values', () => {
    /** The test's own sorting of a Daml value's keys at every level. */
    const sortKeys = (v: Json): Json => {
      if (Array.isArray(v)) return v.map(sortKeys);
      if (v === null || typeof v !== 'object') return v;
      const o = v as Record<string, Json>;
      return Object.fromEntries(
        Object.keys(o)
          .sort()
          .map((k) => [k, sortKeys(o[k]!)]),
      );
    };
    const withSortedValues = (e: TreeEvent): TreeEvent =>
      e.event_type === 'created_event'
        ? { ...e, create_arguments: sortKeys(e.create_arguments) }
        : { ...e, choice_argument: sortKeys(e.choice_argument), exercise_result: sortKeys(e.exercise_result) };
    /** What an update served from a line can at best be: the same text, Daml values' keys sorted. */
    const expected = (u: Update): string => {
      if ('events_by_id' in u) {
        const events = Object.fromEntries(Object.entries(u.events_by_id).map(([id, e]) => [id, withSortedValues(e)]));
        return JSON.stringify({ ...u, events_by_id: events });
      }
      if ('created_event' in u.event) {
        return JSON.stringify({ ...u, event: { ...u.event, created_event: withSortedValues(u.event.created_event) } });
      }
      return JSON.stringify(u);
    };
    const updates = [...generateItems({ seed: 'bulk-lines', updates: 1400, migrations: 2, meanUpdateGapMs: 30_000 })].flatMap((i) =>
      i.update ? [i.update] : [],
    );
    const kinds = new Set(
      updates.map((u) =>
        'events_by_id' in u ? (u.external_transaction_hash ? 'hashed' : 'tx') : 'created_event' in u.event ? 'assign' : 'unassign',
      ),
    );
    expect(kinds).toEqual(new Set(['tx', 'hashed', 'assign', 'unassign']));
    let reordered = 0;
    for (const u of updates) {
      // As the bulk writer writes it: the served item, the external hash appended last.
      const { external_transaction_hash: hash, ...stored } = u as TransactionUpdate;
      const line = bulkLine(withExternalHash(JSON.stringify(stored), hash));
      const back = JSON.stringify(updateFromBulkLine(line));
      expect({ id: u.update_id, back }).toEqual({ id: u.update_id, back: expected(u) });
      if (back !== line.slice(0, -1)) reordered++;
    }
    expect(reordered).toBe(updates.length);
  });

  it("takes an object's key from the end of a ref's URL path, decoded: this indexer's download path or a bucket's signed URL", () => {
    const folder = '2025-03-02T00:00:00Z~2025-03-03T00:00:00Z';
    const ours = `http://scan:5012/api/scan/v0/history/bulk/download/${encodeURIComponent(`${folder}/updates_3.zstd`)}`;
    expect(objectKeyOfUrl(ours, 'updates')).toBe(`${folder}/updates_3.zstd`);
    const signed = `https://bucket.example.com/prefix/${encodeURIComponent(folder)}/ACS_0.zstd?X-Amz-Signature=ab%2Fcd`;
    expect(objectKeyOfUrl(signed, 'ACS')).toBe(`${folder}/ACS_0.zstd`);
    // Another kind of object, a folder that is not two instants, or not a URL: no key.
    expect(objectKeyOfUrl(signed, 'updates')).toBeUndefined();
    expect(objectKeyOfUrl('https://bucket.example.com/a~b/ACS_0.zstd', 'ACS')).toBeUndefined();
    expect(objectKeyOfUrl(`${folder}/ACS_0.zstd`, 'ACS')).toBeUndefined();
  });
});
