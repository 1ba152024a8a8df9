import { migrationAtInstant } from '../../../src/domain/migration-at-instant';
import { parseTimestamp } from '../../../src/domain/time';

const at = (s: string) => parseTimestamp(s);
// Migration 1 began before migration 0's record times ended (the ids decide, not the order of the rows).
const starts = [
  { migrationId: 1, first: at('2025-01-05T00:00:00Z') },
  { migrationId: 0, first: at('2025-01-01T12:00:00Z') },
  { migrationId: 2, first: at('2025-01-09T00:00:00.000001Z') },
];

describe('the migration an instant reads', () => {
  it('is the newest migration begun at or before the instant, none before every migration', () => {
    expect(
      [
        '2025-01-01T11:59:59.999999Z',
        '2025-01-01T12:00:00Z',
        '2025-01-04T23:59:59.999999Z',
        '2025-01-05T00:00:00Z',
        '2025-01-09T00:00:00Z',
      ].map((t) => migrationAtInstant(starts, at(t))),
    ).toEqual([undefined, 0, 0, 1, 1]);
    expect(migrationAtInstant(starts, at('2025-01-09T00:00:00.000001Z'))).toBe(2);
    expect(migrationAtInstant([], at('2025-01-09T00:00:00Z'))).toBeUndefined();
  });
});
