/**
 * The timestamp renderings of domain/time.ts, for the simulator's hot path.
 * Record, effective, creation and finalization times of consecutive updates
 * fall in the same few seconds, so the date and time of day of recently
 * formatted seconds are kept and only the fraction is rendered; an instant
 * beyond 2^53 microseconds (the import record time) takes the general path.
 * The output is exactly that of domain/time.ts.
 */

import {
  formatDateTime as formatDateTimeGeneral,
  formatInstant as formatInstantGeneral,
  formatRecordTime as formatRecordTimeGeneral,
  type Micros,
} from '../domain/time';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const SLOTS = 8;
const cachedSeconds: number[] = new Array<number>(SLOTS).fill(NaN);
const cachedPrefixes: string[] = new Array<string>(SLOTS).fill('');

/** "YYYY-MM-DDTHH:MM:SS" of a whole second. */
function secondPrefix(second: number): string {
  const slot = second & (SLOTS - 1);
  if (cachedSeconds[slot] === second) return cachedPrefixes[slot] as string;
  // formatRecordTime of a whole second ends in ".000000Z".
  const prefix = formatRecordTimeGeneral(BigInt(second) * 1_000_000n).slice(0, -8);
  cachedSeconds[slot] = second;
  cachedPrefixes[slot] = prefix;
  return prefix;
}

function isSafe(t: Micros): boolean {
  return t <= MAX_SAFE && t >= -MAX_SAFE;
}

function sixDigits(fraction: number): string {
  return fraction >= 100_000 ? String(fraction) : String(fraction).padStart(6, '0');
}

/** formatRecordTime: six fractional digits. */
export function formatRecordTime(t: Micros): string {
  if (!isSafe(t)) return formatRecordTimeGeneral(t);
  const n = Number(t);
  const second = Math.floor(n / 1_000_000);
  return `${secondPrefix(second)}.${sixDigits(n - second * 1_000_000)}Z`;
}

/** formatInstant: ISO_INSTANT, the fraction in groups of three digits. */
export function formatInstant(t: Micros): string {
  if (!isSafe(t)) return formatInstantGeneral(t);
  const n = Number(t);
  const second = Math.floor(n / 1_000_000);
  const fraction = n - second * 1_000_000;
  if (fraction === 0) return `${secondPrefix(second)}Z`;
  const six = sixDigits(fraction);
  return `${secondPrefix(second)}.${fraction % 1000 === 0 ? six.slice(0, 3) : six}Z`;
}

/** formatDateTime: trailing zeros of the fraction stripped. */
export function formatDateTime(t: Micros): string {
  if (!isSafe(t)) return formatDateTimeGeneral(t);
  const n = Number(t);
  const second = Math.floor(n / 1_000_000);
  const fraction = n - second * 1_000_000;
  if (fraction === 0) return `${secondPrefix(second)}Z`;
  let six = sixDigits(fraction);
  let end = 6;
  while (six.charCodeAt(end - 1) === 48) end--;
  if (end < 6) six = six.slice(0, end);
  return `${secondPrefix(second)}.${six}Z`;
}
