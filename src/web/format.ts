/** How figures are shown: exactly as the API gives them, made easier to read, never rounded. */

/** A decimal string with its integer part grouped by thousands: "1543031.7007967155" → "1,543,031.7007967155". */
export function amount(decimal: string): string {
  const match = /^(-?)(\d+)(\.\d+)?$/.exec(decimal);
  if (!match) return decimal;
  const [, sign = '', whole = '', fraction = ''] = match;
  return `${sign}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction}`;
}

/** A whole number with thousands grouped. */
export function count(n: number): string {
  return amount(String(n));
}

/** The part of a Daml template id after the package id: "Splice.Amulet:Amulet". */
export function templateName(templateId: string): string {
  const colon = templateId.indexOf(':');
  return colon < 0 ? templateId : templateId.slice(colon + 1);
}

/** An id shortened for lists: its start and end, the whole id in a tooltip. */
export function shortId(id: string, keep = 10): string {
  return id.length <= keep * 2 + 1 ? id : `${id.slice(0, keep)}…${id.slice(-6)}`;
}

/** A party id's hint (the part before "::"). */
export function partyHint(party: string): string {
  const sep = party.indexOf('::');
  return sep < 0 ? party : party.slice(0, sep);
}

/** A duration in seconds as a person reads it. */
export function duration(seconds: number): string {
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 120) return `${seconds.toFixed(1)} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172800) return `${(seconds / 3600).toFixed(1)} h`;
  return `${Math.round(seconds / 86400)} days`;
}

/** An instant one microsecond after the given RFC 3339 time, for exclusive bounds. */
export function microAfter(time: string): string {
  const match = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?Z$/.exec(time);
  if (!match) return time;
  const [, seconds = '', fraction = ''] = match;
  const us = Number(fraction.padEnd(6, '0')) + 1;
  if (us < 1_000_000) return `${seconds}.${String(us).padStart(6, '0')}Z`;
  return new Date(Date.parse(`${seconds}Z`) + 1000).toISOString().replace(/\.\d+Z$/, '.000000Z');
}

const SCALE = 10;
/**
 * The exact sum of decimal strings (the API's amounts have at most 10 decimals), with 10 decimals,
 * as the API writes amounts: adding them as floats would show figures the API never gave.
 */
export function sumDecimals(values: readonly string[]): string {
  let total = 0n;
  for (const v of values) {
    const match = /^(-?)(\d+)(?:\.(\d{1,10}))?$/.exec(v);
    if (!match) throw new Error(`Not a decimal: ${v}`);
    const [, sign, whole = '0', fraction = ''] = match;
    const units = BigInt(whole) * 10n ** BigInt(SCALE) + BigInt(fraction.padEnd(SCALE, '0'));
    total += sign === '-' ? -units : units;
  }
  const negative = total < 0n;
  const abs = negative ? -total : total;
  const unit = 10n ** BigInt(SCALE);
  return `${negative ? '-' : ''}${abs / unit}.${(abs % unit).toString().padStart(SCALE, '0')}`;
}

/** The UTC day (YYYY-MM-DD) `n` days after (or before) `day`. */
export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}
