import {
  BULK_HISTORY_START,
  bulkLine,
  bulkSnapshotTimeAfter,
  bulkSnapshotTimeAtOrBefore,
  isObjectKey,
  parseFolder,
  segmentFolder,
  bulkObjectKey,
} from '../../../src/domain/bulk-layout';
import { parseTimestamp } from '../../../src/domain/time';

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

  it('writes a line with top-level nulls dropped and every key sorted, integer-like keys included', () => {
    const item = '{"b":null,"a":{"z":1,"10":null,"2":[null,{"y":true,"x":"s"}]},"c":"\\u00e9"}';
    expect(bulkLine(item)).toBe('{"a":{"10":null,"2":[null,{"x":"s","y":true}],"z":1},"c":"é"}\n');
  });
});
