/**
 * Every emitted item against the shapes of Splice's scan.yaml and docs/interfaces.md
 * ("Scan: JSON rendering and timestamps", "Scan: templates", "Scan: update history", "Scan: events"): fields, key order, id and timestamp
 * formats, sorted parties, decimals, and the Daml field names of payloads.
 */

import { z } from 'zod';
import type { CanonicalItem, CreatedEvent, TransactionUpdate, TreeEvent } from '../../../src/domain/items';
import { sampleStream } from './fixtures';

const hex64 = /^[0-9a-f]{64}$/;
const party = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*::1220[0-9a-f]{64}$/);
const partyList = z.array(party);
const contractId = z.string().regex(/^00[0-9a-f]{64}ca101220[0-9a-f]{64}$/);
const updateId = z.string().regex(/^1220[0-9a-f]{64}$/);
const synchronizerId = z.string().regex(/^[a-z-]+::1220[0-9a-f]{64}$/);
const recordTime = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
// Instant.toString: the fraction in groups of three digits, omitted when zero.
const instant = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.(\d{3}(?<!000)|\d{6}(?<!000)))?Z$/);
// OpenAPI date-time: trailing zeros of the fraction stripped.
const dateTime = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{0,5}[1-9])?Z$/);
const templateId = z.string().regex(/^[0-9a-f]{64}:[A-Z][A-Za-z]*(\.[A-Z][A-Za-z]*)*:[A-Z][A-Za-z]*$/);

const PACKAGE_OF_MODULE: Record<string, string> = {
  'Splice.Amulet': 'splice-amulet',
  'Splice.AmuletRules': 'splice-amulet',
  'Splice.Round': 'splice-amulet',
  'Splice.ExternalPartyAmuletRules': 'splice-amulet',
  'Splice.ValidatorLicense': 'splice-amulet',
  'Splice.AmuletTransferInstruction': 'splice-amulet',
  'Splice.AmuletAllocation': 'splice-amulet',
  'Splice.Ans': 'splice-amulet-name-service',
  'Splice.DsoRules': 'splice-dso-governance',
  'Splice.DSO.SvState': 'splice-dso-governance',
  'Splice.DSO.AmuletPrice': 'splice-dso-governance',
};

const createdEvent = z.strictObject({
  event_type: z.literal('created_event'),
  event_id: z.string(),
  contract_id: contractId,
  template_id: templateId,
  package_name: z.string(),
  create_arguments: z.record(z.string(), z.unknown()),
  created_at: dateTime,
  signatories: partyList.min(1),
  observers: partyList,
});

const exercisedEvent = z.strictObject({
  event_type: z.literal('exercised_event'),
  event_id: z.string(),
  contract_id: contractId,
  template_id: templateId,
  package_name: z.string(),
  choice: z.string().regex(/^[A-Z][A-Za-z_]*$/),
  choice_argument: z.unknown(),
  child_event_ids: z.array(z.string()),
  exercise_result: z.unknown(),
  consuming: z.boolean(),
  acting_parties: partyList.min(1),
  interface_id: z.null(),
});

const transaction = z.strictObject({
  update_id: updateId,
  migration_id: z.number().int().min(0),
  workflow_id: z.literal(''),
  record_time: recordTime,
  synchronizer_id: synchronizerId,
  effective_at: instant,
  root_event_ids: z.array(z.string()).min(1),
  events_by_id: z.record(z.string(), z.union([createdEvent, exercisedEvent])),
  external_transaction_hash: z.string().regex(hex64).optional(),
});

const reassignment = z.strictObject({
  update_id: updateId,
  offset: z.literal('000000000000000001'),
  record_time: recordTime,
  event: z.union([
    z.strictObject({
      submitter: party,
      source_synchronizer: synchronizerId,
      target_synchronizer: synchronizerId,
      migration_id: z.number().int().min(0),
      unassign_id: z.string().regex(hex64),
      created_event: createdEvent,
      reassignment_counter: z.number().int().min(1),
    }),
    z.strictObject({
      submitter: party,
      source_synchronizer: synchronizerId,
      migration_id: z.number().int().min(0),
      target_synchronizer: synchronizerId,
      unassign_id: z.string().regex(hex64),
      reassignment_counter: z.number().int().min(1),
      contract_id: contractId,
    }),
  ]),
});

const int = z.number().int();
const verdict = z.strictObject({
  update_id: updateId,
  migration_id: int.min(0),
  domain_id: synchronizerId,
  record_time: recordTime,
  finalization_time: recordTime,
  submitting_parties: partyList.min(1),
  submitting_participant_uid: z.string().regex(/^PAR::[a-z0-9-]+::1220[0-9a-f]{64}$/),
  verdict_result: z.enum(['VERDICT_RESULT_UNSPECIFIED', 'VERDICT_RESULT_ACCEPTED', 'VERDICT_RESULT_REJECTED']),
  mediator_group: int.min(0),
  transaction_views: z.strictObject({
    views: z.array(
      z.strictObject({
        view_id: int.min(0),
        informees: partyList.min(1),
        confirming_parties: z.array(z.strictObject({ parties: partyList.min(1), threshold: int.min(1) })),
        sub_views: z.array(int),
        view_hash: z.string(),
      }),
    ),
    root_views: z.array(int).min(1),
  }),
});

const trafficSummary = z.strictObject({
  total_traffic_cost: int.min(1),
  envelope_traffic_summaries: z.array(z.strictObject({ traffic_cost: int.min(1), view_ids: z.array(int).min(1) })).min(1),
});

const appActivityRecords = z.strictObject({
  round_number: int.min(0),
  records: z.array(z.strictObject({ party, weight: z.number().positive() })).min(1),
});

const item = z.strictObject({
  update: z.union([transaction, reassignment]).nullable(),
  verdict: verdict.nullable(),
  traffic_summary: trafficSummary.nullable(),
  app_activity_records: appActivityRecords.nullable(),
  update_protobuf_json: z.union([transaction, reassignment]).optional(),
  // Base64 created-event blobs of contracts the update creates, for the templates wallets disclose.
  created_event_blobs: z.record(z.string(), z.base64().min(8)).optional(),
});

const KEY_ORDER = {
  item: ['update', 'verdict', 'traffic_summary', 'app_activity_records', 'update_protobuf_json', 'created_event_blobs'],
  transaction: [
    'update_id',
    'migration_id',
    'workflow_id',
    'record_time',
    'synchronizer_id',
    'effective_at',
    'root_event_ids',
    'events_by_id',
    'external_transaction_hash',
  ],
  created: [
    'event_type',
    'event_id',
    'contract_id',
    'template_id',
    'package_name',
    'create_arguments',
    'created_at',
    'signatories',
    'observers',
  ],
  exercised: [
    'event_type',
    'event_id',
    'contract_id',
    'template_id',
    'package_name',
    'choice',
    'choice_argument',
    'child_event_ids',
    'exercise_result',
    'consuming',
    'acting_parties',
    'interface_id',
  ],
  reassignment: ['update_id', 'offset', 'record_time', 'event'],
  assign: [
    'submitter',
    'source_synchronizer',
    'target_synchronizer',
    'migration_id',
    'unassign_id',
    'created_event',
    'reassignment_counter',
  ],
  unassign: [
    'submitter',
    'source_synchronizer',
    'migration_id',
    'target_synchronizer',
    'unassign_id',
    'reassignment_counter',
    'contract_id',
  ],
  verdict: [
    'update_id',
    'migration_id',
    'domain_id',
    'record_time',
    'finalization_time',
    'submitting_parties',
    'submitting_participant_uid',
    'verdict_result',
    'mediator_group',
    'transaction_views',
  ],
  view: ['view_id', 'informees', 'confirming_parties', 'sub_views', 'view_hash'],
};

/** The keys of `obj` appear in the order of `expected` (optional trailing keys may be absent). */
function expectKeyOrder(obj: object, expected: readonly string[], where: string, errors: string[]): void {
  const keys = Object.keys(obj);
  const order = expected.filter((k) => keys.includes(k));
  if (keys.join() !== order.join()) errors.push(`${where}: keys ${keys.join()} instead of ${order.join()}`);
}

function isSortedUnique(list: readonly string[]): boolean {
  return list.every((p, i) => i === 0 || (list[i - 1] as string) < p);
}

/** Daml field names of the payloads the API reads (the Splice Daml models). */
const PAYLOAD_FIELDS: Record<string, string[]> = {
  Amulet: ['dso', 'owner', 'amount'],
  LockedAmulet: ['amulet', 'lock'],
  OpenMiningRound: [
    'dso',
    'round',
    'amuletPrice',
    'opensAt',
    'targetClosesAt',
    'issuingFor',
    'transferConfigUsd',
    'issuanceConfig',
    'tickDuration',
    'rewardAccountingVersion',
  ],
  SummarizingMiningRound: ['dso', 'round', 'amuletPrice', 'issuanceConfig', 'tickDuration'],
  IssuingMiningRound: [
    'dso',
    'round',
    'issuancePerValidatorRewardCoupon',
    'issuancePerFeaturedAppRewardCoupon',
    'issuancePerUnfeaturedAppRewardCoupon',
    'issuancePerSvRewardCoupon',
    'opensAt',
    'targetClosesAt',
    'optIssuancePerValidatorFaucetCoupon',
  ],
  ClosedMiningRound: [
    'dso',
    'round',
    'issuancePerValidatorRewardCoupon',
    'issuancePerFeaturedAppRewardCoupon',
    'issuancePerUnfeaturedAppRewardCoupon',
    'issuancePerSvRewardCoupon',
    'optIssuancePerValidatorFaucetCoupon',
  ],
  AnsEntry: ['user', 'dso', 'name', 'url', 'description', 'expiresAt'],
  VoteRequest: ['dso', 'requester', 'action', 'reason', 'voteBefore', 'votes', 'trackingCid', 'targetEffectiveAt'],
  DsoRules: ['dso', 'epoch', 'svs', 'offboardedSvs', 'dsoDelegate', 'config', 'initialTrafficState', 'isDevNet'],
  AmuletRules: ['dso', 'configSchedule', 'isDevNet'],
  SvNodeState: ['dso', 'sv', 'svName', 'state'],
  AmuletPriceVote: ['dso', 'sv', 'amuletPrice', 'lastUpdatedAt'],
  FeaturedAppRight: ['dso', 'provider'],
  ValidatorRewardCoupon: ['dso', 'user', 'amount', 'round'],
  AppRewardCoupon: ['dso', 'provider', 'featured', 'amount', 'round', 'beneficiary'],
};

function checkEvent(ev: TreeEvent, u: TransactionUpdate, id: string, compact: boolean, where: string, errors: string[]): void {
  if (ev.event_type === 'created_event') {
    expectKeyOrder(ev, KEY_ORDER.created, where, errors);
    checkCreated(ev, compact, where, errors);
  } else {
    expectKeyOrder(ev, KEY_ORDER.exercised, where, errors);
    checkTemplate(ev.template_id, ev.package_name, where, errors);
  }
  if (ev.event_id !== id || !id.startsWith(`${u.update_id}:`)) errors.push(`${where}: event id ${ev.event_id}`);
}

function checkTemplate(templateId: string, packageName: string, where: string, errors: string[]): void {
  const module = templateId.split(':')[1] as string;
  if (PACKAGE_OF_MODULE[module] !== packageName) errors.push(`${where}: ${templateId} has package_name ${packageName}`);
}

function checkCreated(ev: CreatedEvent, compact: boolean, where: string, errors: string[]): void {
  checkTemplate(ev.template_id, ev.package_name, where, errors);
  if (!isSortedUnique(ev.signatories) || !isSortedUnique(ev.observers)) errors.push(`${where}: parties not sorted`);
  if (!compact) return;
  const entity = ev.template_id.split(':')[2] as string;
  const fields = PAYLOAD_FIELDS[entity];
  if (fields) expectKeyOrder(ev.create_arguments as object, fields, `${where} ${entity} payload`, errors);
  if (fields && Object.keys(ev.create_arguments as object).length !== fields.length) errors.push(`${where}: ${entity} payload fields`);
}

/** Blobs name exactly the contracts of disclosed templates that the update creates or assigns. */
const DISCLOSED =
  /:(Splice\.AmuletRules:(AmuletRules|TransferPreapproval)|Splice\.ExternalPartyAmuletRules:(ExternalPartyAmuletRules|TransferCommandCounter)|Splice\.Ans:AnsRules|Splice\.Round:(OpenMiningRound|IssuingMiningRound)|Splice\.Amulet:(FeaturedAppRight|LockedAmulet))$/;
function checkBlobs(it: CanonicalItem, where: string, errors: string[]): void {
  const u = it.update;
  const created = !u ? [] : 'events_by_id' in u ? Object.values(u.events_by_id) : 'created_event' in u.event ? [u.event.created_event] : [];
  const disclosed = created
    .filter((e) => e.event_type === 'created_event' && DISCLOSED.test(e.template_id))
    .map((e) => e.contract_id)
    .sort();
  const named = Object.keys(it.created_event_blobs ?? {}).sort();
  if (JSON.stringify(named) !== JSON.stringify(disclosed))
    errors.push(`${where}: blobs for ${named.join(',')}, expected ${disclosed.join(',')}`);
}

function checkItem(it: CanonicalItem, where: string, errors: string[]): void {
  const parsed = item.safeParse(it);
  if (!parsed.success) {
    errors.push(`${where}: ${JSON.stringify(parsed.error.issues.slice(0, 2))}`);
    return;
  }
  expectKeyOrder(it, KEY_ORDER.item, where, errors);
  checkBlobs(it, where, errors);
  for (const [u, compact] of [
    [it.update, true],
    [it.update_protobuf_json, false],
  ] as const) {
    if (!u) continue;
    if ('events_by_id' in u) {
      expectKeyOrder(u, KEY_ORDER.transaction, where, errors);
      for (const [id, ev] of Object.entries(u.events_by_id)) checkEvent(ev, u, id, compact, `${where} ${id}`, errors);
    } else {
      expectKeyOrder(u, KEY_ORDER.reassignment, where, errors);
      if ('created_event' in u.event) {
        expectKeyOrder(u.event, KEY_ORDER.assign, where, errors);
        checkCreated(u.event.created_event, compact, where, errors);
      } else expectKeyOrder(u.event, KEY_ORDER.unassign, where, errors);
    }
  }
  const v = it.verdict;
  if (v) {
    expectKeyOrder(v, KEY_ORDER.verdict, where, errors);
    const views = v.transaction_views.views;
    views.forEach((view, i) => {
      expectKeyOrder(view, KEY_ORDER.view, where, errors);
      if (view.view_id !== i) errors.push(`${where}: views not numbered by position`);
      if (!isSortedUnique(view.informees)) errors.push(`${where}: informees not sorted`);
      if (view.sub_views.some((s) => s <= i || s >= views.length)) errors.push(`${where}: sub view out of range`);
    });
    if (v.finalization_time <= v.record_time) errors.push(`${where}: finalization before record time`);
    if ((it.update === null) !== (v.verdict_result === 'VERDICT_RESULT_REJECTED'))
      errors.push(`${where}: only rejected verdicts lack an update`);
  }
  const t = it.traffic_summary;
  if (t && t.total_traffic_cost !== t.envelope_traffic_summaries.reduce((s, e) => s + e.traffic_cost, 0)) {
    errors.push(`${where}: traffic total is not the sum of its envelopes`);
  }
  if ((it.verdict === null) !== (t === null)) errors.push(`${where}: traffic summary without verdict or the reverse`);
}

/** Walks a protobuf_json value: numerics have ten decimals, int64 and timestamps are integer strings. */
function checkProtobufScalars(v: unknown, where: string, errors: string[]): void {
  if (Array.isArray(v)) return v.forEach((x) => checkProtobufScalars(x, where, errors));
  if (v === null || typeof v !== 'object') return;
  for (const [k, x] of Object.entries(v)) {
    if (k === 'numeric' && !/^-?\d+\.\d{10}$/.test(x as string)) errors.push(`${where}: numeric ${String(x)}`);
    else if ((k === 'int64' || k === 'timestamp') && !/^-?\d+$/.test(x as string)) errors.push(`${where}: ${k} ${String(x)}`);
    else checkProtobufScalars(x, where, errors);
  }
}

describe('shapes of simulated items', () => {
  const items = sampleStream();

  it('every item matches the interface shapes, key orders and formats', () => {
    const errors: string[] = [];
    items.forEach((it, i) => checkItem(it, `item ${i}`, errors));
    expect(errors.slice(0, 20)).toEqual([]);
  });

  it('decimals have ten places and Int64 values are strings', () => {
    const errors: string[] = [];
    for (const [i, it] of items.entries()) {
      const u = it.update_protobuf_json;
      if (u && 'events_by_id' in u) checkProtobufScalars(u.events_by_id, `item ${i}`, errors);
    }
    expect(errors.slice(0, 20)).toEqual([]);
  });

  it('covers the item kinds the interface describes', () => {
    const has = (p: (it: CanonicalItem) => boolean) => items.some(p);
    expect(has((it) => it.update !== null && 'events_by_id' in it.update && it.update.external_transaction_hash !== undefined)).toBe(true);
    expect(has((it) => it.update !== null && 'event' in it.update && 'created_event' in it.update.event)).toBe(true);
    expect(has((it) => it.update === null && it.verdict?.verdict_result === 'VERDICT_RESULT_REJECTED')).toBe(true);
    expect(has((it) => it.app_activity_records !== null)).toBe(true);
    expect(has((it) => it.verdict?.transaction_views.views.some((v) => v.sub_views.length > 0) ?? false)).toBe(true);
  });

  it('the checks reject a malformed item', () => {
    const tx = items.find((it) => it.update !== null && 'events_by_id' in it.update) as CanonicalItem;
    const broken = JSON.parse(JSON.stringify(tx)) as CanonicalItem;
    const u = broken.update as TransactionUpdate;
    u.record_time = u.record_time.replace(/\.\d{6}Z$/, '.123Z');
    const ev = Object.values(u.events_by_id).find((e) => e.event_type === 'created_event') as CreatedEvent;
    ev.signatories.reverse().push(ev.signatories[0] as string);
    const errors: string[] = [];
    checkItem(broken, 'broken', errors);
    expect(errors.length).toBeGreaterThan(0);
    const reordered = { ...JSON.parse(JSON.stringify(tx)), update: { ...(tx.update as object) } } as CanonicalItem;
    const { update_id, ...rest } = reordered.update as TransactionUpdate;
    reordered.update = { ...rest, update_id };
    const orderErrors: string[] = [];
    checkItem(reordered, 'reordered', orderErrors);
    expect(orderErrors.join()).toMatch(/keys/);
  });
});
