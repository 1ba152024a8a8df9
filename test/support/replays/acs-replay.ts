/**
 * An independent model of what the ACS and holdings endpoints must answer,
 * computed from the item stream alone (no repository or domain code of the
 * service): the ACS at (migration, time) by replaying creates and consuming
 * exercises, the announced snapshot times, ActiveContract bodies, amulet
 * holdings and their fees with a decimal arithmetic of its own.
 */
import type { CanonicalItem, CreatedEvent } from '../../../src/domain/items';

export interface Key {
  migration: number;
  /** Record time as the stream writes it: six fractional digits and Z. */
  time: string;
}

export function keyOf(item: CanonicalItem): Key | undefined {
  const u = item.update;
  if (!u) return undefined;
  return { migration: 'events_by_id' in u ? u.migration_id : u.event.migration_id, time: u.record_time };
}

const atOrBefore = (a: Key, b: Key) => a.migration < b.migration || (a.migration === b.migration && a.time <= b.time);
export const IMPORT_TIME = '0001-01-01T00:00:00.000000Z';

export interface ReplayedContract {
  event: CreatedEvent;
  /** Null for contracts imported into the migration (or arrived by assignment). */
  createdInUpdateId: string | null;
}

/** The active contracts of `at.migration` after every update at or before `at`. */
export function acsAt(items: CanonicalItem[], at: Key): Map<string, ReplayedContract> {
  const active = new Map<string, ReplayedContract>();
  for (const item of items) {
    const key = keyOf(item);
    if (!key) continue;
    if (!atOrBefore(key, at)) break;
    if (key.migration !== at.migration) continue;
    const u = item.update!;
    if ('events_by_id' in u) {
      const events = Object.values(u.events_by_id);
      const imported = u.record_time === IMPORT_TIME;
      for (const e of events) {
        if (e.event_type === 'created_event') active.set(e.contract_id, { event: e, createdInUpdateId: imported ? null : u.update_id });
      }
      for (const e of events) if (e.event_type === 'exercised_event' && e.consuming) active.delete(e.contract_id);
    } else if ('created_event' in u.event) {
      const e = u.event.created_event;
      if (!active.has(e.contract_id)) active.set(e.contract_id, { event: e, createdInUpdateId: null });
    }
  }
  return active;
}

/** Microseconds since the epoch of an ISO time with Z (independent of the service's parser). */
export function micros(iso: string): bigint {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?Z$/.exec(iso);
  if (!m) throw new Error(`unexpected time ${iso}`);
  return BigInt(Date.parse(`${m[1]}Z`)) * 1000n + BigInt((m[2] ?? '').padEnd(6, '0'));
}

/** The stream's six-digit form of a time given in microseconds. */
export function recordTimeText(t: bigint): string {
  const ms = Number(t / 1000n);
  return `${new Date(ms).toISOString().slice(0, 19)}.${String(t % 1_000_000n).padStart(6, '0')}Z`;
}

/** OpenAPI date-time as Scan prints it: trailing zeros of the fraction stripped, no fraction when zero. */
export function dateTimeText(iso: string): string {
  const t = micros(iso);
  const whole = new Date(Number(t / 1000n)).toISOString().slice(0, 19);
  const fraction = String(t % 1_000_000n)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}Z` : `${whole}Z`;
}

const HOUR = 3_600_000_000n;

/** Snapshot times per migration: every 3 h on UTC hours divisible by 3, from the first slot after the hour of the first update. */
export function snapshotTimes(items: CanonicalItem[]): Key[] {
  const spans = new Map<number, { first: bigint; last: bigint }>();
  for (const item of items) {
    const key = keyOf(item);
    if (!key || key.time === IMPORT_TIME) continue;
    const t = micros(key.time);
    const span = spans.get(key.migration);
    if (!span) spans.set(key.migration, { first: t, last: t });
    else span.last = t > span.last ? t : span.last;
  }
  const out: Key[] = [];
  for (const [migration, { first, last }] of [...spans].sort((a, b) => a[0] - b[0])) {
    for (let t = (first / (3n * HOUR) + 1n) * 3n * HOUR; t <= last; t += 3n * HOUR) out.push({ migration, time: recordTimeText(t) });
  }
  return out;
}

/** The expected ActiveContract JSON of a replayed contract. */
export function activeContractBody(c: ReplayedContract): Record<string, unknown> {
  const e = c.event;
  return {
    created_in_update_id: c.createdInUpdateId,
    contract_id: e.contract_id,
    template_id: e.template_id,
    package_name: e.package_name,
    create_arguments: e.create_arguments,
    created_at: dateTimeText(e.created_at),
    signatories: [...e.signatories].sort(),
    observers: [...e.observers].sort(),
  };
}

export function byCreation(a: ReplayedContract, b: ReplayedContract): number {
  const ta = micros(a.event.created_at);
  const tb = micros(b.event.created_at);
  if (ta !== tb) return ta < tb ? -1 : 1;
  return a.event.contract_id < b.event.contract_id ? -1 : a.event.contract_id > b.event.contract_id ? 1 : 0;
}

// ---- amulets ---------------------------------------------------------------------------------

export interface Holding {
  contract: ReplayedContract;
  owner: string;
  locked: boolean;
  /** Amounts as integers of 1e-10. */
  initial: bigint;
  createdRound: bigint;
  rate: bigint;
}

const SCALE = 10_000_000_000n;
function units(text: string): bigint {
  const m = /^(-)?(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) throw new Error(`not a decimal: ${text}`);
  const v = BigInt(m[2]!) * SCALE + BigInt((m[3] ?? '').padEnd(10, '0').slice(0, 10));
  return m[1] ? -v : v;
}
export function decimalText(v: bigint): string {
  const sign = v < 0n ? '-' : '';
  const a = v < 0n ? -v : v;
  return `${sign}${a / SCALE}.${String(a % SCALE).padStart(10, '0')}`;
}

type Obj = Record<string, unknown>;
const isTemplate = (e: CreatedEvent, entity: string) =>
  e.package_name === 'splice-amulet' && e.template_id.endsWith(`:Splice.Amulet:${entity}`);

export function holdingOf(c: ReplayedContract): Holding | undefined {
  const e = c.event;
  const locked = isTemplate(e, 'LockedAmulet');
  if (!locked && !isTemplate(e, 'Amulet')) return undefined;
  const amulet = (locked ? (e.create_arguments as Obj).amulet : e.create_arguments) as Obj;
  const amount = amulet.amount as { initialAmount: string; createdAt: { number: string }; ratePerRound: { rate: string } };
  return {
    contract: c,
    owner: amulet.owner as string,
    locked,
    initial: units(amount.initialAmount),
    createdRound: BigInt(amount.createdAt.number),
    rate: units(amount.ratePerRound.rate),
  };
}

/** min(initial, (round − created) × rate): rates have ten digits, so the product is exact. */
function fee(h: Holding, round: bigint): bigint {
  const accrued = (round - h.createdRound) * h.rate;
  return accrued < h.initial ? accrued : h.initial;
}

export interface ExpectedSummary {
  party_id: string;
  unlocked: bigint;
  locked: bigint;
  feesUnlocked: bigint;
  feesLocked: bigint;
  first: bigint;
}

/** Per-owner totals, owners without holdings absent, in order of first holding (ties by party id). */
export function summaries(acs: Map<string, ReplayedContract>, owners: string[], round: bigint): ExpectedSummary[] {
  const byOwner = new Map<string, ExpectedSummary>();
  for (const c of acs.values()) {
    const h = holdingOf(c);
    if (!h || !owners.includes(h.owner)) continue;
    let s = byOwner.get(h.owner);
    if (!s)
      byOwner.set(
        h.owner,
        (s = { party_id: h.owner, unlocked: 0n, locked: 0n, feesUnlocked: 0n, feesLocked: 0n, first: micros(c.event.created_at) }),
      );
    const f = fee(h, round);
    if (h.locked) {
      s.locked += h.initial;
      s.feesLocked += f;
    } else {
      s.unlocked += h.initial;
      s.feesUnlocked += f;
    }
    const t = micros(c.event.created_at);
    if (t < s.first) s.first = t;
  }
  return [...byOwner.values()].sort((a, b) => (a.first !== b.first ? (a.first < b.first ? -1 : 1) : a.party_id < b.party_id ? -1 : 1));
}

export const v0Summary = (s: ExpectedSummary) => ({
  party_id: s.party_id,
  total_unlocked_coin: decimalText(s.unlocked),
  total_locked_coin: decimalText(s.locked),
  total_coin_holdings: decimalText(s.unlocked + s.locked),
  accumulated_holding_fees_unlocked: decimalText(s.feesUnlocked),
  accumulated_holding_fees_locked: decimalText(s.feesLocked),
  accumulated_holding_fees_total: decimalText(s.feesUnlocked + s.feesLocked),
  total_available_coin: decimalText(s.unlocked - s.feesUnlocked),
});

export const v1Summary = (s: ExpectedSummary) => ({
  party_id: s.party_id,
  total_unlocked_coin: decimalText(s.unlocked),
  total_locked_coin: decimalText(s.locked),
  total_coin_holdings: decimalText(s.unlocked + s.locked),
});

/** The owners' holdings at a point, in creation order. */
export function ownedHoldings(acs: Map<string, ReplayedContract>, owners: string[]): ReplayedContract[] {
  return [...acs.values()].filter((c) => owners.includes(holdingOf(c)?.owner ?? '')).sort(byCreation);
}

/** The earliest open mining round among the active contracts at the end of the last migration. */
export function earliestOpenRound(items: CanonicalItem[]): bigint | undefined {
  const keys = items.map(keyOf).filter((k): k is Key => k !== undefined);
  const last = keys[keys.length - 1]!;
  const rounds = [...acsAt(items, last).values()]
    .filter((c) => c.event.package_name === 'splice-amulet' && c.event.template_id.endsWith(':Splice.Round:OpenMiningRound'))
    .map((c) => BigInt(((c.event.create_arguments as Obj).round as { number: string }).number));
  return rounds.length ? rounds.reduce((a, b) => (a < b ? a : b)) : undefined;
}
