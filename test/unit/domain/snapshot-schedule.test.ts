import { dueSnapshotTimes, firstSnapshotTime } from '../../../src/domain/snapshot-schedule';
import { formatRecordTime, parseTimestamp } from '../../../src/domain/time';

const at = (s: string) => parseTimestamp(s);
const iso = (t: bigint) => formatRecordTime(t);

describe('ACS snapshot schedule', () => {
  it('takes the first boundary strictly after the hour of the first update', () => {
    expect(iso(firstSnapshotTime(at('2025-01-01T14:22:05Z')))).toBe('2025-01-01T15:00:00.000000Z');
    expect(iso(firstSnapshotTime(at('2025-01-01T15:00:00.000001Z')))).toBe('2025-01-01T18:00:00.000000Z');
    expect(iso(firstSnapshotTime(at('2025-01-01T15:00:00Z')))).toBe('2025-01-01T18:00:00.000000Z');
    expect(iso(firstSnapshotTime(at('2025-01-01T14:59:59.999999Z')))).toBe('2025-01-01T15:00:00.000000Z');
    expect(iso(firstSnapshotTime(at('2025-01-01T22:10:00Z')))).toBe('2025-01-02T00:00:00.000000Z');
    expect(iso(firstSnapshotTime(at('2025-01-01T00:00:00Z')))).toBe('2025-01-01T03:00:00.000000Z');
    expect(iso(firstSnapshotTime(at('2024-12-31T21:00:00Z')))).toBe('2025-01-01T00:00:00.000000Z');
  });

  it('lists the due times up to and including the last record time', () => {
    expect(dueSnapshotTimes(at('2025-01-01T14:22:05Z'), at('2025-01-01T21:00:00Z'), undefined).map(iso)).toEqual([
      '2025-01-01T15:00:00.000000Z',
      '2025-01-01T18:00:00.000000Z',
      '2025-01-01T21:00:00.000000Z',
    ]);
    expect(dueSnapshotTimes(at('2025-01-01T14:22:05Z'), at('2025-01-01T20:59:59Z'), at('2025-01-01T18:00:00Z'))).toEqual([]);
    expect(dueSnapshotTimes(at('2025-01-01T14:22:05Z'), at('2025-01-01T14:59:59Z'), undefined)).toEqual([]);
  });
});
