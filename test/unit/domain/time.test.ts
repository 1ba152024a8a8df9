import fc from 'fast-check';
import {
  IMPORT_RECORD_TIME,
  IMPORT_RECORD_TIME_ISO,
  InvalidTimestampError,
  formatDateTime,
  formatInstant,
  formatRecordTime,
  formatRequestTimeForMessage,
  fromPgTimestamp,
  parseTimestamp,
} from '../../../src/domain/time';

describe('timestamps', () => {
  it('keeps microseconds exactly through parse and format', () => {
    const t = parseTimestamp('2025-03-10T14:22:05.123456Z');
    expect(t).toBe(1741616525123456n);
    expect(formatRecordTime(t)).toBe('2025-03-10T14:22:05.123456Z');
  });

  it('renders the four Scan formats', () => {
    const cases: [string, string, string, string, string][] = [
      // input, record time, instant, date-time, message
      [
        '2024-09-20T13:31:29.552807Z',
        '2024-09-20T13:31:29.552807Z',
        '2024-09-20T13:31:29.552807Z',
        '2024-09-20T13:31:29.552807Z',
        '2024-09-20T13:31:29.552807Z',
      ],
      [
        '2024-09-20T13:31:29.552Z',
        '2024-09-20T13:31:29.552000Z',
        '2024-09-20T13:31:29.552Z',
        '2024-09-20T13:31:29.552Z',
        '2024-09-20T13:31:29.552Z',
      ],
      [
        '2024-09-20T13:31:29.5528Z',
        '2024-09-20T13:31:29.552800Z',
        '2024-09-20T13:31:29.552800Z',
        '2024-09-20T13:31:29.5528Z',
        '2024-09-20T13:31:29.552800Z',
      ],
      ['2025-02-11T18:00:00Z', '2025-02-11T18:00:00.000000Z', '2025-02-11T18:00:00Z', '2025-02-11T18:00:00Z', '2025-02-11T18:00Z'],
      ['2025-02-11T18:00:07Z', '2025-02-11T18:00:07.000000Z', '2025-02-11T18:00:07Z', '2025-02-11T18:00:07Z', '2025-02-11T18:00:07Z'],
      [
        '2024-09-20T13:31:29.000001Z',
        '2024-09-20T13:31:29.000001Z',
        '2024-09-20T13:31:29.000001Z',
        '2024-09-20T13:31:29.000001Z',
        '2024-09-20T13:31:29.000001Z',
      ],
    ];
    for (const [input, record, instant, dateTime, message] of cases) {
      const t = parseTimestamp(input);
      expect([formatRecordTime(t), formatInstant(t), formatDateTime(t), formatRequestTimeForMessage(input)]).toEqual([
        record,
        instant,
        dateTime,
        message,
      ]);
    }
  });

  it('handles the import record time of year 1 and times before the epoch', () => {
    expect(parseTimestamp(IMPORT_RECORD_TIME_ISO)).toBe(IMPORT_RECORD_TIME);
    expect(formatRecordTime(IMPORT_RECORD_TIME)).toBe(IMPORT_RECORD_TIME_ISO);
    expect(formatDateTime(IMPORT_RECORD_TIME)).toBe('0001-01-01T00:00:00Z');
    expect(formatRecordTime(parseTimestamp('1969-12-31T23:59:59.999999Z'))).toBe('1969-12-31T23:59:59.999999Z');
    expect(parseTimestamp('1969-12-31T23:59:59.999999Z')).toBe(-1n);
  });

  it('applies offsets and floors digits beyond microseconds', () => {
    expect(formatRecordTime(parseTimestamp('2025-03-10T16:22:05.1234569+02:00'))).toBe('2025-03-10T14:22:05.123456Z');
    expect(formatRecordTime(parseTimestamp('2025-03-10T09:22:05-0500'))).toBe('2025-03-10T14:22:05.000000Z');
    expect(formatRecordTime(parseTimestamp('2024-02-29T00:00Z'))).toBe('2024-02-29T00:00:00.000000Z');
  });

  it('reads PostgreSQL timestamptz text output', () => {
    expect(formatRecordTime(fromPgTimestamp('2025-03-10 14:22:05.123456+00'))).toBe('2025-03-10T14:22:05.123456Z');
    expect(formatRecordTime(fromPgTimestamp('2025-03-10 14:22:05.12+00'))).toBe('2025-03-10T14:22:05.120000Z');
    expect(fromPgTimestamp('0001-01-01 00:00:00+00')).toBe(IMPORT_RECORD_TIME);
    expect(() => fromPgTimestamp('infinity')).toThrow(InvalidTimestampError);
  });

  it('rejects malformed and impossible dates', () => {
    for (const bad of [
      '',
      '2025-03-10',
      '2025-03-10T14:22:05',
      '2025-13-01T00:00:00Z',
      '2025-02-29T00:00:00Z',
      '2025-03-10T24:00:00Z',
      'yesterday',
      '2025-03-10T14:22:05.Z',
    ]) {
      expect(() => parseTimestamp(bad)).toThrow(InvalidTimestampError);
    }
  });
  it("quotes request times as Java's OffsetDateTime.toString, keeping the client's offset", () => {
    expect(
      [
        '2025-02-12T00:00:00Z',
        '2025-02-12T02:00:00+02:00',
        '2025-02-12T02:00:00.000+00:00',
        '2025-02-12T02:00:05-05:30',
        '2025-02-12T02:00:00.5Z',
        '2025-02-12T02:00:00.1234+0100',
        '2025-02-12T02:00:00.123456789Z',
        '2025-02-12T02:00Z',
      ].map(formatRequestTimeForMessage),
    ).toEqual([
      '2025-02-12T00:00Z',
      '2025-02-12T02:00+02:00',
      '2025-02-12T02:00Z',
      '2025-02-12T02:00:05-05:30',
      '2025-02-12T02:00:00.500Z',
      '2025-02-12T02:00:00.123400+01:00',
      '2025-02-12T02:00:00.123456789Z',
      '2025-02-12T02:00Z',
    ]);
  });
});

describe('timestamps in UTC forms', () => {
  // "YYYY-MM-DDTHH:MM:SS[.fraction]Z" has a reading of its own: it must agree with the general one, which
  // reads the same text with the offset written as +00:00, and refuse what that refuses.
  const outcome = (input: string): bigint | string => {
    try {
      return parseTimestamp(input);
    } catch (err) {
      if (err instanceof InvalidTimestampError) return 'refused';
      throw err;
    }
  };
  const general = (input: string) => outcome(input.replace(/Z$/, '+00:00'));
  // The same instant as formatRecordTime writes it: six fractional digits, those beyond floored.
  const sixDigits = (input: string) => {
    const [whole, fraction = ''] = input.slice(0, -1).split('.');
    return `${whole}.${fraction.padEnd(6, '0').slice(0, 6)}Z`;
  };

  it.each([
    ['2025-03-10T14:22:05.123456Z', true],
    ['2024-02-29T23:59:59.999999Z', true],
    ['2023-02-29T00:00:00.000000Z', false],
    ['2025-04-31T00:00:00.000000Z', false],
    ['2025-12-31T24:00:00.000000Z', false],
    ['2025-13-01T00:00:00.000000Z', false],
    ['2025-00-10T00:00:00.000000Z', false],
    ['2025-01-00T00:00:00.000000Z', false],
    ['2025-01-01T00:60:00.000000Z', false],
    ['2025-01-01T00:00:60.000000Z', false],
    ['0001-01-01T00:00:00.000000Z', true],
    ['9999-12-31T23:59:59.999999Z', true],
    ['2025-01-01T00:00:00.00000aZ', false],
    ['2025-01-01T00:00:00.0000-1Z', false],
    ['2025-0a-01T00:00:00.000000Z', false],
    ['0001-01-01T00:00:00Z', true],
    ['2025-01-01T01:24:03.25758Z', true],
    ['2025-01-01T01:24:03.2575819Z', true],
    ['2025-01-01T01:24:03.123456789Z', true],
    ['2025-01-01T01:24:03.1234567890Z', false],
    ['2025-01-01T01:24:03.Z', false],
    ['2025-01-01T01:24:03.1x3Z', false],
  ])('%s reads as the general form does (valid: %s)', (input, valid) => {
    expect(outcome(input)).toBe(general(input));
    if (valid) expect(formatRecordTime(parseTimestamp(input))).toBe(sixDigits(input));
    else expect(outcome(input)).toBe('refused');
  });

  it('agrees with the general form on any such text', () => {
    // Each field from just below to just above its range, so that most texts are dates and some are not.
    const field = (max: number, width: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(width, '0'));
    const fields = [field(9999, 4), field(13, 2), field(32, 2), field(24, 2), field(60, 2), field(60, 2)] as const;
    // No fraction, one to nine digits, or ten (which neither reading takes).
    const fraction = fc.stringMatching(/^[0-9]{0,10}$/).map((digits) => (digits === '' ? '' : `.${digits}`));
    fc.assert(
      fc.property(...fields, fraction, (y, mo, d, h, mi, s, f) => {
        const input = `${y}-${mo}-${d}T${h}:${mi}:${s}${f}Z`;
        const read = outcome(input);
        expect(read).toBe(general(input));
        if (read !== 'refused') expect(formatRecordTime(read as bigint)).toBe(sixDigits(input));
      }),
      { seed: 20261126, numRuns: 5000 },
    );
  });
});
