/**
 * Network facts the Scan app reads from the DSO's own contracts (compact_json
 * payloads): the SVs and the scheduled synchronizer upgrade from DsoRules, the
 * scan URLs from the SV node states, and the ANS entries the DSO provides
 * without a contract (reference splice-scan.md §7.4–7.6).
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

function member(template: string, value: Json | undefined, path: string[]): Json | undefined {
  let v = value;
  for (const key of path) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new PayloadShapeError(template, path.join('.'), 'a record');
    v = v[key];
  }
  return v;
}

function text(template: string, value: Json | undefined, path: string[]): string {
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

export interface SvSummary {
  party: string;
  name: string;
}

export interface UpgradeSchedule {
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
 * S13 (reference §7.5, ScanStore.listDsoScans): one entry per SvNodeState and
 * per synchronizer in its `synchronizerNodes` that has a scan, grouped by
 * synchronizer id, groups sorted by id, entries in node-state order.
 */
export function groupDsoScans(nodeStates: SvNodeStateFacts[]): { synchronizerId: string; scans: ScanInfo[] }[] {
  const groups = new Map<string, ScanInfo[]>();
  for (const state of nodeStates) {
    for (const scan of state.scans) {
      let group = groups.get(scan.synchronizerId);
      if (!group) groups.set(scan.synchronizerId, (group = []));
      group.push({ publicUrl: scan.publicUrl, svName: state.svName });
    }
  }
  return [...groups.keys()]
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((synchronizerId) => ({ synchronizerId, scans: groups.get(synchronizerId) ?? [] }));
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
