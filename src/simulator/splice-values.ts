/**
 * Small Splice data types shared by several templates and choices, with the
 * field names of the Daml sources (Splice.Types, Splice.Fees, Splice.Expiry,
 * Splice.Api.Token.MetadataV1, Splice.DsoRules).
 */

import { V, type DamlRecord, type DamlValue } from '../domain/daml-value';
import type { Decimal10 } from '../domain/decimal';
import type { Micros } from '../domain/time';

// Round numbers recur in many contracts (every coupon names its round): one shared value per round.
const rounds = new Map<number, DamlRecord>();

/** Splice.Types.Round */
export function roundValue(n: number): DamlRecord {
  let v = rounds.get(n);
  if (v === undefined) {
    if (rounds.size >= 10_000) rounds.clear();
    v = V.record({ number: V.int64(n) });
    rounds.set(n, v);
  }
  return v;
}

/** DA.Time.RelTime */
export const relTime = (micros: Micros): DamlRecord => V.record({ microseconds: V.int64(micros) });

/** A Daml tuple (a, b). */
export const tuple2 = (a: DamlValue, b: DamlValue): DamlRecord => V.record({ _1: a, _2: b });

/** DA.Set.Set Text: a record holding a map to unit. */
export const textSet = (items: readonly string[]): DamlRecord =>
  V.record({ map: V.genMap([...items].sort().map((t) => [V.text(t), V.unit()] as const)) });

/** DA.Map: entries sorted by key, as the Daml map keeps them. */
export function damlMap<K extends string>(entries: Iterable<readonly [K, DamlValue]>, key: (k: K) => DamlValue): DamlValue {
  return V.genMap([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [key(k), v] as const));
}

// Every amulet holds the same holding-fee rate: one shared Splice.Fees.RatePerRound value for the latest rate.
let lastRate: { rate: Decimal10; value: DamlRecord } | undefined;
function ratePerRoundValue(rate: Decimal10): DamlRecord {
  if (lastRate === undefined || lastRate.rate !== rate) lastRate = { rate, value: V.record({ rate: V.numeric(rate) }) };
  return lastRate.value;
}

/** Splice.Fees.ExpiringAmount */
const expiringAmount = (initialAmount: Decimal10, createdRound: number, ratePerRound: Decimal10): DamlRecord =>
  V.record({
    initialAmount: V.numeric(initialAmount),
    createdAt: roundValue(createdRound),
    ratePerRound: ratePerRoundValue(ratePerRound),
  });

/** The payload of Splice.Amulet.Amulet. */
export const amuletRecord = (
  dso: string,
  owner: string,
  initialAmount: Decimal10,
  createdRound: number,
  ratePerRound: Decimal10,
): DamlRecord => V.record({ dso: V.party(dso), owner: V.party(owner), amount: expiringAmount(initialAmount, createdRound, ratePerRound) });

/** Splice.Expiry.TimeLock */
export const timeLock = (holders: readonly string[], expiresAt: Micros, context: string | null): DamlRecord =>
  V.record({
    holders: V.list(holders.map(V.party)),
    expiresAt: V.timestamp(expiresAt),
    optContext: V.optional(context === null ? null : V.text(context)),
  });

const META_PREFIX = 'splice.lfdecentralizedtrust.org/';

/** Splice.Api.Token.MetadataV1.Metadata; a TextMap keeps its keys sorted. */
export function metadata(values: Readonly<Record<string, string>>): DamlRecord {
  const entries = Object.keys(values)
    .sort()
    .map((k) => [META_PREFIX + k, V.text(values[k] as string)] as const);
  return V.record({ values: V.textMap(entries) });
}

/** Splice.DsoRules.Reason */
export const reason = (url: string, body: string): DamlRecord => V.record({ url: V.text(url), body: V.text(body) });

/**
 * A Daml data type whose only constructor has no fields (`data R = R`)
 * compiles to an enum; one declared `data R = R with` is an empty record.
 */
export const fieldlessResult = (name: string): DamlValue => V.enum(name);
