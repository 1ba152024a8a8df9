/**
 * Microsecond instants and the four timestamp renderings of the Scan API
 * (docs/interfaces.md, "Scan: JSON rendering and timestamps"). Instants are bigint microseconds since the
 * Unix epoch so they never pass through a JS Date, which holds milliseconds.
 */

export type Micros = bigint;

/** Record time of import updates after a hard migration: 0001-01-01T00:00:00Z. */
export const IMPORT_RECORD_TIME: Micros = -62135596800000000n;
export const IMPORT_RECORD_TIME_ISO = '0001-01-01T00:00:00.000000Z';

const MICROS_PER_SECOND = 1_000_000n;
export const MICROS_PER_HOUR = 3_600n * MICROS_PER_SECOND;

/** The start of the UTC hour that holds `t` (t after 1970: record times of updates, not import updates). */
export function startOfHour(t: Micros): Micros {
  return t - (t % MICROS_PER_HOUR);
}

const floorDiv = (a: bigint, b: bigint): bigint => (a % b < 0n ? a / b - 1n : a / b);

/** The start of the UTC calendar month of `t`, `months` months later (0: its own). */
export function startOfMonth(t: Micros, months = 0): Micros {
  const day = new Date(Number(floorDiv(t, 1000n)));
  // setUTCFullYear, unlike Date.UTC, takes years below 100 as they are (import updates are in year 1).
  const start = new Date(0);
  start.setUTCFullYear(day.getUTCFullYear(), day.getUTCMonth() + months, 1);
  return BigInt(start.getTime()) * 1000n;
}

export class InvalidTimestampError extends Error {
  constructor(
    readonly input: string,
    reason: string,
  ) {
    super(`Invalid timestamp '${input}': ${reason}`);
    this.name = 'InvalidTimestampError';
  }
}

// YYYY-MM-DD[T ]HH:MM[:SS[.fraction]] followed by Z, +HH[:MM] or -HH[:MM].
const ISO_PATTERN = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/;

function daysFromCivil(year: number, month: number, day: number): number {
  // Howard Hinnant's algorithm: proleptic Gregorian date to days since 1970-01-01.
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return [year, month, day];
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * Parses an ISO 8601 date-time with an offset. Digits beyond microseconds are
 * floored, as Scan does for `after_record_time`.
 */
export function parseTimestamp(input: string): Micros {
  return parseUtcForm(input) ?? parseIsoTimestamp(input);
}

const DIGIT_0 = 48;

/** The two digits at `i`, or NaN. */
function twoDigits(s: string, i: number): number {
  const a = s.charCodeAt(i) - DIGIT_0;
  const b = s.charCodeAt(i + 1) - DIGIT_0;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : NaN;
}

/**
 * The UTC forms of the stream's timestamps, "YYYY-MM-DDTHH:MM:SS[.fraction]Z" with up to nine
 * fractional digits (record times have six, effective times as Java's Instant writes them), read
 * without a regular expression: the writer reads several per update. Undefined for any other form or
 * an out-of-range field, which parseIsoTimestamp then reads or refuses.
 */
function parseUtcForm(s: string): Micros | undefined {
  const length = s.length;
  if (length < 20 || length === 21 || length > 30 || s.charCodeAt(length - 1) !== 90) return undefined;
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(10) !== 84 || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) {
    return undefined;
  }
  const year = twoDigits(s, 0) * 100 + twoDigits(s, 2);
  const month = twoDigits(s, 5);
  const day = twoDigits(s, 8);
  const hour = twoDigits(s, 11);
  const minute = twoDigits(s, 14);
  const second = twoDigits(s, 17);
  let micros = 0;
  if (length > 20) {
    if (s.charCodeAt(19) !== 46) return undefined;
    // Digits beyond microseconds are floored, as parseIsoTimestamp does.
    for (let i = 20, scale = 100_000; i < length - 1; i++, scale /= 10) {
      const digit = s.charCodeAt(i) - DIGIT_0;
      if (!(digit >= 0 && digit <= 9)) return undefined;
      if (scale >= 1) micros += digit * scale;
    }
  }
  // NaN fails every comparison: a non-digit anywhere falls through too.
  if (!(year >= 0 && month >= 1 && month <= 12 && day >= 1 && hour <= 23 && minute <= 59 && second <= 59)) return undefined;
  if (day > 28 && day > daysInMonth(year, month)) return undefined;
  const seconds = daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
  return BigInt(seconds) * MICROS_PER_SECOND + BigInt(micros);
}

function parseIsoTimestamp(input: string): Micros {
  const m = ISO_PATTERN.exec(input);
  if (!m) throw new InvalidTimestampError(input, 'expected an ISO 8601 date-time such as 2025-03-10T14:22:05.123456Z');
  const [, ys, mos, ds, hs, mis, ss, frac, z, sign, ohs, oms] = m;
  const year = Number(ys);
  const month = Number(mos);
  const day = Number(ds);
  const hour = Number(hs);
  const minute = Number(mis);
  const second = ss === undefined ? 0 : Number(ss);
  if (month < 1 || month > 12) throw new InvalidTimestampError(input, 'month out of range');
  if (day < 1 || day > daysInMonth(year, month)) throw new InvalidTimestampError(input, 'day out of range');
  if (hour > 23 || minute > 59 || second > 59) throw new InvalidTimestampError(input, 'time of day out of range');
  let offsetMinutes = 0;
  if (!z && sign) {
    const oh = Number(ohs);
    const om = oms === undefined ? 0 : Number(oms);
    if (oh > 18 || om > 59) throw new InvalidTimestampError(input, 'offset out of range');
    offsetMinutes = (sign === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const seconds =
    BigInt(daysFromCivil(year, month, day)) * 86400n + BigInt(hour * 3600 + minute * 60 + second) - BigInt(offsetMinutes * 60);
  const micros = frac === undefined ? 0n : BigInt(frac.padEnd(6, '0').slice(0, 6));
  return seconds * MICROS_PER_SECOND + micros;
}

/** Like parseTimestamp but returns undefined instead of throwing. */
/** The latest instant the store (and Java's Instant range Scan validates against) is used with. */
const LATEST_TIMESTAMP: Micros = 253402300799999999n; // 9999-12-31T23:59:59.999999Z

/** Like parseTimestamp, but also refuses instants outside 0001-01-01 … 9999-12-31 (UTC), which PostgreSQL cannot store. */
export function parseStorableTimestamp(input: string): Micros {
  const t = parseTimestamp(input);
  if (t < IMPORT_RECORD_TIME || t > LATEST_TIMESTAMP)
    throw new InvalidTimestampError(input, 'outside 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z');
  return t;
}

export function tryParseTimestamp(input: string): Micros | undefined {
  try {
    return parseTimestamp(input);
  } catch {
    return undefined;
  }
}

function splitMicros(t: Micros): { date: string; time: string; fraction: number } {
  let seconds = t / MICROS_PER_SECOND;
  let fraction = t % MICROS_PER_SECOND;
  if (fraction < 0n) {
    fraction += MICROS_PER_SECOND;
    seconds -= 1n;
  }
  let days = seconds / 86400n;
  let secOfDay = seconds % 86400n;
  if (secOfDay < 0n) {
    secOfDay += 86400n;
    days -= 1n;
  }
  const [y, mo, d] = civilFromDays(Number(days));
  const s = Number(secOfDay);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return {
    date: `${pad(y, 4)}-${pad(mo)}-${pad(d)}`,
    time: `${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`,
    fraction: Number(fraction),
  };
}

/** Format 1: record times, always six fractional digits ("2024-09-20T13:31:28.405180Z"). */
export function formatRecordTime(t: Micros): string {
  const { date, time, fraction } = splitMicros(t);
  return `${date}T${time}.${String(fraction).padStart(6, '0')}Z`;
}

/**
 * Formats 2 and 4: Java Instant.toString / ISO_INSTANT, the fraction in groups
 * of three digits and omitted when zero ("…:29.552Z", "…:29Z").
 */
export function formatInstant(t: Micros): string {
  const { date, time, fraction } = splitMicros(t);
  if (fraction === 0) return `${date}T${time}Z`;
  const six = String(fraction).padStart(6, '0');
  return `${date}T${time}.${fraction % 1000 === 0 ? six.slice(0, 3) : six}Z`;
}

/**
 * Format 3: OpenAPI date-time fields (circe OffsetDateTime in UTC): seconds
 * always printed, trailing zeros of the fraction stripped ("…:29.5528Z").
 */
export function formatDateTime(t: Micros): string {
  const { date, time, fraction } = splitMicros(t);
  if (fraction === 0) return `${date}T${time}Z`;
  return `${date}T${time}.${String(fraction).padStart(6, '0').replace(/0+$/, '')}Z`;
}

/**
 * A request's date-time as Scan quotes it in error messages: Java's
 * OffsetDateTime.toString of the value as parsed, so the client's own offset
 * is kept ("2025-02-12T02:00+02:00"), seconds are dropped when they and the
 * fraction are zero, and the fraction is printed in groups of three digits.
 */
export function formatRequestTimeForMessage(input: string): string {
  const m = ISO_PATTERN.exec(input);
  if (!m) return input; // callers pass inputs the request schemas already accepted
  const [, ys, mos, ds, hs, mis, ss, frac, z, sign, ohs, oms] = m;
  const nanos = frac === undefined ? 0 : Number(frac.padEnd(9, '0'));
  let time = `${hs}:${mis}`;
  if (nanos > 0 || (ss !== undefined && ss !== '00')) time += `:${ss ?? '00'}`;
  if (nanos > 0) {
    const nine = String(nanos).padStart(9, '0');
    time += `.${nanos % 1_000_000 === 0 ? nine.slice(0, 3) : nanos % 1000 === 0 ? nine.slice(0, 6) : nine}`;
  }
  const offsetMinutes = z || !sign ? 0 : Number(ohs) * 60 + (oms === undefined ? 0 : Number(oms));
  const offset = offsetMinutes === 0 ? 'Z' : `${sign}${ohs}:${oms ?? '00'}`;
  return `${ys}-${mos}-${ds}T${time}${offset}`;
}

/**
 * Parses PostgreSQL's ISO text output of a timestamptz ("2025-03-10 14:22:05.123456+00",
 * "0001-01-01 00:00:00+00"); connections are set to UTC and raw text parsing.
 */
export function fromPgTimestamp(text: string): Micros {
  if (text === 'infinity' || text === '-infinity') {
    throw new InvalidTimestampError(text, 'infinite timestamps have no instant');
  }
  return parseTimestamp(text);
}

/** Wall clock now in microseconds (millisecond resolution). */
export function nowMicros(): Micros {
  return BigInt(Date.now()) * 1000n;
}
