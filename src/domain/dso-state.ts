/**
 * Network facts the Scan app reads from the DSO's own contracts (compact_json
 * payloads): the SVs and the scheduled synchronizer upgrade from DsoRules, the
 * scan URLs from the SV node states, and the ANS entries the DSO provides
 * without a contract (docs/interfaces.md, "Scan: contract-backed state").
 */
import type { AnsEntryView } from './contract-json';
import type { Json } from './json';
import { parseTimestamp, type Micros } from './time';

/** A stored payload that does not have the shape of its template: a system fault, not a client one. */
export class PayloadShapeError extends Error {
  constructor(template: string, path: string, expected: string) {
    super(`${template} payload: expected ${expected} at ${path}`);
    this.name = 'PayloadShapeError';
  }
}

/** The value at `path` of a payload; a PayloadShapeError naming the template and path where a record is missing. */
export function member(template: string, value: Json | undefined, path: string[]): Json | undefined {
  let v = value;
  for (const key of path) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new PayloadShapeError(template, path.join('.'), 'a record');
    v = v[key];
  }
  return v;
}

/** The text at `path` of a payload, or a PayloadShapeError. */
export function text(template: string, value: Json | undefined, path: string[]): string {
  const v = member(template, value, path);
  if (typeof v !== 'string') throw new PayloadShapeError(template, path.join('.'), 'a string');
  return v;
}

/** DA.Map / GenMap in compact_json: an array of [key, value] pairs, in ledger order. */
function pairs(template: string, value: Json | undefined, path: string[]): [Json, Json][] {
  const v = member(template, value, path);
  if (!Array.isArray(v) || v.some((p) => !Array.isArray(p) || p.length !== 2)) {
    throw new PayloadShapeError(template, path.join('.'), 'a map (array of [key, value] pairs)');
  }
  return v as [Json, Json][];
}

interface SvSummary {
  party: string;
  name: string;
}

interface UpgradeSchedule {
  time: Micros;
  migrationId: number;
}

export interface DsoRulesFacts {
  dso: string;
  /** DsoRules.svs in payload (ledger) order. */
  svs: SvSummary[];
  /** config.nextScheduledSynchronizerUpgrade */
  nextScheduledUpgrade: UpgradeSchedule | null;
}

export function readDsoRules(payload: Json): DsoRulesFacts {
  const t = 'DsoRules';
  const svs = pairs(t, payload, ['svs']).map(([party, info]) => {
    if (typeof party !== 'string') throw new PayloadShapeError(t, 'svs', 'party keys');
    return { party, name: text(t, info, ['name']) };
  });
  const schedule = member(t, payload, ['config', 'nextScheduledSynchronizerUpgrade']);
  let nextScheduledUpgrade: UpgradeSchedule | null = null;
  if (schedule !== null && schedule !== undefined) {
    const migrationId = Number(text(t, schedule, ['migrationId']));
    if (!Number.isSafeInteger(migrationId))
      throw new PayloadShapeError(t, 'config.nextScheduledSynchronizerUpgrade.migrationId', 'an Int64');
    nextScheduledUpgrade = { time: parseTimestamp(text(t, schedule, ['time'])), migrationId };
  }
  return { dso: text(t, payload, ['dso']), svs, nextScheduledUpgrade };
}

export interface ScanInfo {
  publicUrl: string;
  svName: string;
}

export interface SvNodeStateFacts {
  sv: string;
  svName: string;
  /** Per synchronizer with a scan configured, in payload order. */
  scans: { synchronizerId: string; publicUrl: string }[];
}

export function readSvNodeState(payload: Json): SvNodeStateFacts {
  const t = 'SvNodeState';
  const scans: SvNodeStateFacts['scans'] = [];
  for (const [synchronizerId, config] of pairs(t, payload, ['state', 'synchronizerNodes'])) {
    if (typeof synchronizerId !== 'string') throw new PayloadShapeError(t, 'state.synchronizerNodes', 'synchronizer id keys');
    const scan = member(t, config, ['scan']);
    if (scan !== null && scan !== undefined) scans.push({ synchronizerId, publicUrl: text(t, scan, ['publicUrl']) });
  }
  return { sv: text(t, payload, ['sv']), svName: text(t, payload, ['svName']), scans };
}

/**
 * The Scan app's listFromSvNodeStates: items taken from every SvNodeState,
 * grouped by synchronizer id, groups sorted by id, items in node-state order.
 */
function groupBySynchronizer<T>(items: { synchronizerId: string; item: T }[]): { synchronizerId: string; items: T[] }[] {
  const groups = new Map<string, T[]>();
  for (const { synchronizerId, item } of items) {
    let group = groups.get(synchronizerId);
    if (!group) groups.set(synchronizerId, (group = []));
    group.push(item);
  }
  return [...groups.keys()]
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((synchronizerId) => ({ synchronizerId, items: groups.get(synchronizerId) ?? [] }));
}

/** S13 (ScanStore.listDsoScans): one entry per SvNodeState and synchronizer with a scan. */
export function groupDsoScans(nodeStates: SvNodeStateFacts[]): { synchronizerId: string; scans: ScanInfo[] }[] {
  return groupBySynchronizer(
    nodeStates.flatMap((state) =>
      state.scans.map((s) => ({ synchronizerId: s.synchronizerId, item: { publicUrl: s.publicUrl, svName: state.svName } })),
    ),
  ).map((g) => ({ synchronizerId: g.synchronizerId, scans: g.items }));
}

export interface SequencerInfo {
  migrationId: number;
  id: string;
  url: string;
  svName: string;
  /** null: a legacy sequencer, available since always (the Scan app's OffsetDateTime.MIN). */
  availableAfter: Micros | null;
}

function int64(template: string, value: Json | undefined, path: string[]): number {
  const n = Number(text(template, value, path));
  if (!Number.isSafeInteger(n)) throw new PayloadShapeError(template, path.join('.'), 'an Int64');
  return n;
}

/** An Optional field: absent and null are both None in compact_json. */
function optional(template: string, value: Json | undefined, path: string[]): Json | undefined {
  const v = member(template, value, path);
  return v === null ? undefined : v;
}

/** The Scan app serves only sequencers whose url is a valid http(s) URL (UrlValidator). */
function validUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * GET /v0/dso-sequencers (HttpScanHandler.listDsoSequencers): per SvNodeState
 * and synchronizer, its legacy sequencer if any, then its current sequencer
 * if it has an `availableAfter`; duplicates dropped, invalid URLs skipped;
 * grouped as S13.
 */
export function groupDsoSequencers(payloads: Json[]): { synchronizerId: string; sequencers: SequencerInfo[] }[] {
  const t = 'SvNodeState';
  const items: { synchronizerId: string; item: SequencerInfo }[] = [];
  for (const payload of payloads) {
    const svName = text(t, payload, ['svName']);
    for (const [synchronizerId, config] of pairs(t, payload, ['state', 'synchronizerNodes'])) {
      if (typeof synchronizerId !== 'string') throw new PayloadShapeError(t, 'state.synchronizerNodes', 'synchronizer id keys');
      const found: SequencerInfo[] = [];
      const legacy = optional(t, config, ['legacySequencerConfig']);
      if (legacy !== undefined) {
        found.push({
          migrationId: int64(t, legacy, ['migrationId']),
          id: text(t, legacy, ['sequencerId']),
          url: text(t, legacy, ['url']),
          svName,
          availableAfter: null,
        });
      }
      const current = optional(t, config, ['sequencer']);
      const availableAfter = current === undefined ? undefined : optional(t, current, ['availableAfter']);
      if (current !== undefined && availableAfter !== undefined) {
        if (typeof availableAfter !== 'string') throw new PayloadShapeError(t, 'sequencer.availableAfter', 'a timestamp');
        found.push({
          migrationId: int64(t, current, ['migrationId']),
          id: text(t, current, ['sequencerId']),
          url: text(t, current, ['url']),
          svName,
          availableAfter: parseTimestamp(availableAfter),
        });
      }
      const distinct = found.filter(
        (s, i) =>
          found.findIndex(
            (o) => o.migrationId === s.migrationId && o.id === s.id && o.url === s.url && o.availableAfter === s.availableAfter,
          ) === i,
      );
      for (const s of distinct) if (validUrl(s.url)) items.push({ synchronizerId, item: s });
    }
  }
  return groupBySynchronizer(items).map((g) => ({ synchronizerId: g.synchronizerId, sequencers: g.items }));
}

/**
 * The ANS entries the DSO provides without contracts (DsoAnsResolver):
 * `dso.<acronym>` for the DSO party, then `<sv name lowercased>.sv.<acronym>`
 * per SV in DsoRules order; filtered by name prefix. They have no contract id,
 * empty url and description, and never expire.
 */
export function dsoAnsEntries(rules: DsoRulesFacts, acronym: string, namePrefix: string): AnsEntryView[] {
  const acr = acronym.toLowerCase();
  const entry = (user: string, name: string): AnsEntryView => ({ contractId: null, user, name, url: '', description: '', expiresAt: null });
  return [entry(rules.dso, `dso.${acr}`), ...rules.svs.map((sv) => entry(sv.party, `${sv.name.toLowerCase()}.sv.${acr}`))].filter((e) =>
    e.name.startsWith(namePrefix),
  );
}
