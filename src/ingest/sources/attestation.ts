/**
 * Attestation of mirrored history: which elements N upstream Scans agree on.
 *
 * Every upstream is asked for the page after the same position. Elements are
 * matched by their key (the /v0/events key (migration_id, record_time), or
 * an import update's id), not by their index, so an element one upstream
 * leaves out or invents shifts nothing else. Keys are decided in order, and
 * deciding stops at the first key that cannot be decided yet:
 *
 * - committed: `threshold` upstreams returned an identical element (same
 *   content hash), and no other version has that many votes or could still
 *   reach it with the upstreams not heard from at that key (without a
 *   dissent, a lagging upstream delays nothing; with one, the decision waits
 *   for enough answers to tell a lie from a conflict);
 * - absent: `threshold` upstreams show that no such element exists (their
 *   page goes past the key without it); the element some upstream has there
 *   is an invention;
 * - conflict: two versions both have `threshold` votes (more than f upstreams
 *   are faulty): ingestion must stop here, never guess;
 * - no quorum: no version can reach the threshold any more, even with the
 *   upstreams that have not shown their hand: stop here too, and wait;
 * - otherwise undecided: too few upstreams have reached the key yet
 *   (lagging or down); wait for them.
 *
 * An element whose update an upstream holds without the verdict that another
 * upstream holds for it is "pending" there: it is neither a vote nor a
 * disagreement (the verdict is on its way), so a quorum forms on the
 * element with its verdict once enough upstreams have it. (A Scan serves an
 * update only with its verdict, so among Scans this happens only with a
 * faulty one; when it is all that stands in the way it is reported.)
 */
import { createHash, type Hash } from 'node:crypto';
import type { CanonicalItem } from '../../domain/items';
import type { Member } from './canonical-json';

/** Fields honest Scans may legitimately render differently, left out of the content hash. */
const NOT_ATTESTED = {
  verdict: ['finalization_time'],
  /** A reassignment's (and a v1 update's) participant offset. */
  update: ['offset'],
} as const;

/**
 * A part of an element as received: a range of an answer's text in JSON.stringify's form (with its
 * members, where it is an object read member by member), or a parsed value.
 */
export type Part = { text: string; start: number; end: number; members?: readonly Member[] } | { value: unknown };

/** The parts of an element that its content hash covers. */
export interface ElementParts {
  update: Part;
  updateProtobuf: Part;
  verdict: Part;
  trafficSummary: Part;
  appActivityRecords: Part;
}

const without = (o: unknown, fields: readonly string[]): unknown => {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return o;
  const copy = { ...(o as Record<string, unknown>) };
  for (const f of fields) delete copy[f];
  return copy;
};

/**
 * Writes the JSON of a part without `fields` into the hash: for a parsed value, JSON.stringify's;
 * for text, the text with those members cut out, which is the same for text in JSON.stringify's form
 * (up to keys that JSON.parse would reorder or merge; see canonical-json.ts).
 */
function writePart(hash: Hash, part: Part, fields: readonly string[]): void {
  if ('value' in part) {
    hash.update(JSON.stringify(without(part.value, fields)) ?? 'null');
    return;
  }
  const { text, start, end, members } = part;
  if (fields.length > 0 && text.charCodeAt(start) === 123 /* { */ && members === undefined) {
    throw new Error('an object part whose fields are left out needs its members');
  }
  if (!members?.some((m) => fields.includes(m.key))) {
    hash.update(text.slice(start, end));
    return;
  }
  hash.update('{');
  let first = true;
  for (const m of members) {
    if (fields.includes(m.key)) continue;
    if (!first) hash.update(',');
    hash.update(text.slice(m.at, m.end));
    first = false;
  }
  hash.update('}');
}

/**
 * The content hashes of an element: the whole (what is voted on), and its update alone (to tell a
 * pending verdict). Parts are compared as served, key order included: honest Scans render with the
 * same encoders, and a difference in order only costs a vote, never stores anything unattested.
 * A part's hash is the same whether it arrived as text in JSON.stringify's form or was parsed.
 */
export function partHashes(parts: ElementParts): { hash: string; updateHash: string } {
  const update = createHash('sha256');
  update.update('[');
  writePart(update, parts.update, NOT_ATTESTED.update);
  update.update(',');
  writePart(update, parts.updateProtobuf, NOT_ATTESTED.update);
  update.update(']');
  const updateHash = update.digest('hex');
  const whole = createHash('sha256').update(updateHash).update('[');
  writePart(whole, parts.verdict, NOT_ATTESTED.verdict);
  whole.update(',');
  writePart(whole, parts.trafficSummary, []);
  whole.update(',');
  writePart(whole, parts.appActivityRecords, []);
  whole.update(']');
  return { hash: whole.digest('hex'), updateHash };
}

/** The content hashes of a parsed item (see `partHashes`). */
export function itemHashes(item: CanonicalItem): { hash: string; updateHash: string } {
  return partHashes({
    update: { value: item.update },
    updateProtobuf: { value: item.update_protobuf_json ?? null },
    verdict: { value: item.verdict },
    trafficSummary: { value: item.traffic_summary },
    appActivityRecords: { value: item.app_activity_records },
  });
}

export interface Element<K, T> {
  key: K;
  hash: string;
  /** Set for an element that has an update: with `hasVerdict`, tells a pending verdict. */
  updateHash?: string;
  hasVerdict?: boolean;
  value: T;
}

/** One upstream's answer to the page request: its elements in key order, or its failure. */
export type Answer<K, T> = { ok: true; elements: Element<K, T>[] } | { ok: false; reason: string };

type Outcome =
  { kind: 'agreed' } | { kind: 'disagreed'; hash: string | null; expected: string | null } | { kind: 'pending' } | { kind: 'silent' };

export interface Decision<K, T> {
  /** Elements decided and present, in key order. */
  committed: { key: K; value: T }[];
  /** Per key decided (committed or absent), each upstream's part, by upstream index. */
  outcomes: { key: K; byUpstream: Outcome[] }[];
  /** Set when deciding stopped at a key that no quorum can decide. */
  stalled?: { key: K; reason: 'conflict' | 'no quorum' | 'verdict pending'; hashes: Record<string, number> };
}

/**
 * Decides the keys after the position in order, as far as the answers allow. `compare` orders keys;
 * every answer's elements must be strictly increasing by it (the caller rejects pages that are not).
 */
export function decide<K, T>(answers: Answer<K, T>[], threshold: number, compare: (a: K, b: K) => number): Decision<K, T> {
  const decision: Decision<K, T> = { committed: [], outcomes: [] };
  const pages = answers.map((a) => (a.ok ? a.elements : undefined));
  const next = pages.map(() => 0);
  for (;;) {
    // The smallest key any upstream holds next.
    let key: K | undefined;
    pages.forEach((page, i) => {
      const e = page?.[next[i]!];
      if (e && (key === undefined || compare(e.key, key) < 0)) key = e.key;
    });
    if (key === undefined) return decision;
    const k = key;

    const at: (Element<K, T> | undefined)[] = pages.map((page, i) => {
      const e = page?.[next[i]!];
      return e && compare(e.key, k) === 0 ? e : undefined;
    });
    // Upstreams whose page goes past the key without it: they have no such element.
    // (Pages are in key order and `k` is the smallest next key, so a next element that is not at `k` is past it.)
    const lacks = pages.map((page, i) => !at[i] && page?.[next[i]!] !== undefined);
    const withVerdict = new Set(at.filter((e) => e?.hasVerdict).map((e) => e!.updateHash));
    const pending = at.map((e) => e !== undefined && e.hasVerdict === false && withVerdict.has(e.updateHash));

    const votes = new Map<string, number[]>();
    at.forEach((e, i) => {
      if (e && !pending[i]) votes.set(e.hash, [...(votes.get(e.hash) ?? []), i]);
    });
    const quorate = [...votes].filter(([, who]) => who.length >= threshold);
    const absentVotes = lacks.filter(Boolean).length;
    const tally = () => Object.fromEntries([...votes].map(([h, who]) => [h, who.length]));

    if (quorate.length > 1 || (quorate.length === 1 && absentVotes >= threshold)) {
      decision.stalled = { key: k, reason: 'conflict', hashes: tally() };
      return decision;
    }
    // Upstreams that may still show a version here: not answered, not yet at the key, or awaiting a verdict.
    const unheard = answers.filter((a, i) => !a.ok || (!at[i] && !lacks[i]) || pending[i]).length;
    const winner: string | null | undefined = quorate.length === 1 ? quorate[0]![0] : absentVotes >= threshold ? null : undefined;
    // A dissenting version that the unheard upstreams could still lift to the threshold would make it a conflict: wait for them.
    const dissentCouldWin =
      winner !== undefined &&
      ([...votes].some(([h, who]) => h !== winner && who.length + unheard >= threshold) ||
        (winner !== null && absentVotes > 0 && absentVotes + unheard >= threshold));
    if (winner !== undefined && !dissentCouldWin) {
      const agreed = winner;
      const byUpstream: Outcome[] = answers.map((a, i) => {
        if (!a.ok) return { kind: 'silent' };
        if (pending[i]) return { kind: 'pending' };
        const e = at[i];
        if (e) return e.hash === agreed ? { kind: 'agreed' } : { kind: 'disagreed', hash: e.hash, expected: agreed };
        if (lacks[i]) return agreed === null ? { kind: 'agreed' } : { kind: 'disagreed', hash: null, expected: agreed };
        return { kind: 'silent' };
      });
      decision.outcomes.push({ key: k, byUpstream });
      if (agreed !== null) {
        const first = at.find((e) => e?.hash === agreed)!;
        decision.committed.push({ key: k, value: first.value });
      }
      at.forEach((e, i) => {
        if (e) next[i]! += 1;
      });
      continue;
    }
    if (winner !== undefined) return decision; // a quorum, with a dissent that may yet match it: wait
    // Undecided. Stalled when every upstream has shown its hand and none can still lift a version to the threshold.
    const unknown = answers.filter((a, i) => !a.ok || (!at[i] && !lacks[i])).length;
    const pendingCount = pending.filter(Boolean).length;
    const best = Math.max(0, ...[...votes.values()].map((who) => who.length));
    if (unknown === 0 && pendingCount > 0) {
      decision.stalled = { key: k, reason: 'verdict pending', hashes: tally() };
    } else if (best + unknown + pendingCount < threshold && absentVotes + unknown < threshold) {
      decision.stalled = { key: k, reason: 'no quorum', hashes: tally() };
    }
    return decision;
  }
}
