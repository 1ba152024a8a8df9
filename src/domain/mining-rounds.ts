/**
 * Facts the Scan app reads from the mining-round contracts (compact_json
 * payloads, Splice.Round): how long a client may cache the rounds, and the
 * round a validator should use, as HttpScanHandler and MiningRoundsStore
 * compute them.
 */
import type { Json } from './json';
import { PayloadShapeError } from './dso-state';
import { parseTimestamp, type Micros } from './time';

function field(template: string, value: Json | undefined, path: string[]): Json | undefined {
  let v = value;
  for (const key of path) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new PayloadShapeError(template, path.join('.'), 'a record');
    v = v[key];
  }
  return v;
}

function int64(template: string, value: Json | undefined, path: string[]): bigint {
  const v = field(template, value, path);
  if (typeof v !== 'string' || !/^-?\d+$/.test(v)) throw new PayloadShapeError(template, path.join('.'), 'an Int64');
  return BigInt(v);
}

function time(template: string, value: Json | undefined, path: string[]): Micros {
  const v = field(template, value, path);
  if (typeof v !== 'string') throw new PayloadShapeError(template, path.join('.'), 'a time');
  return parseTimestamp(v);
}

/** The round number of a round contract (`round.number`). */
export const roundNumber = (template: string, payload: Json): bigint => int64(template, payload, ['round', 'number']);

/**
 * time_to_live_in_microseconds (HttpScanHandler.tryComputeTimeToLive): the
 * least of every open and summarizing round's tick duration and half of every
 * issuing round's time from opening to its target close. Undefined when there
 * is no round at all (the Scan app then fails with a 500).
 */
export function roundsTimeToLive(open: Json[], summarizing: Json[], issuing: Json[]): bigint | undefined {
  const ttls = [
    ...open.map((p) => int64('OpenMiningRound', p, ['tickDuration', 'microseconds'])),
    ...summarizing.map((p) => int64('SummarizingMiningRound', p, ['tickDuration', 'microseconds'])),
    ...issuing.map((p) => (time('IssuingMiningRound', p, ['targetClosesAt']) - time('IssuingMiningRound', p, ['opensAt'])) / 2n),
  ];
  return ttls.length === 0 ? undefined : ttls.reduce((a, b) => (b < a ? b : a));
}

/**
 * MiningRoundsStore.getLatestActiveOpenMiningRound: the open rounds assigned
 * to the synchronizer of the highest one must be exactly three consecutive
 * rounds; the answer is the newest of them (its opensAt may lie ahead).
 * Undefined when they are not.
 */
export function latestOfOpenRoundTriple<T extends { payload: Json; synchronizerId: string | null }>(rounds: T[]): T | undefined {
  const assigned = rounds.filter((r) => r.synchronizerId !== null).map((r) => ({ r, n: roundNumber('OpenMiningRound', r.payload) }));
  if (assigned.length === 0) return undefined;
  const top = assigned.reduce((a, b) => (b.n > a.n ? b : a));
  const onTop = assigned.filter((x) => x.r.synchronizerId === top.r.synchronizerId).sort((a, b) => (a.n < b.n ? -1 : a.n > b.n ? 1 : 0));
  if (onTop.length !== 3 || onTop[1]!.n !== onTop[0]!.n + 1n || onTop[2]!.n !== onTop[1]!.n + 1n) return undefined;
  return onTop[2]!.r;
}

/** Thresholds.requiredNumVotes: with n SVs and f = ⌊(n − 1) / 3⌋, ⌈(n + f + 1) / 2⌉. */
export function requiredVotes(svCount: number): number {
  const f = Math.floor((svCount - 1) / 3);
  return Math.ceil((svCount + f + 1) / 2);
}

/**
 * The open round a token-standard factory uses (ScanStore.lookupLatestUsableOpenMiningRound): the
 * highest-numbered open round that has opened by `now`. Undefined when none has.
 */
export function latestUsableOpenRound<T extends { payload: Json }>(rounds: T[], now: Micros): T | undefined {
  let best: { r: T; n: bigint } | undefined;
  for (const r of rounds) {
    if (time('OpenMiningRound', r.payload, ['opensAt']) > now) continue;
    const n = roundNumber('OpenMiningRound', r.payload);
    if (!best || n > best.n) best = { r, n };
  }
  return best?.r;
}

/** The first opensAt after `now` among the open rounds, when latestUsableOpenRound may change. */
export function nextRoundOpening(rounds: { payload: Json }[], now: Micros): Micros | undefined {
  let next: Micros | undefined;
  for (const r of rounds) {
    const opensAt = time('OpenMiningRound', r.payload, ['opensAt']);
    if (opensAt > now && (next === undefined || opensAt < next)) next = opensAt;
  }
  return next;
}
