/**
 * The canonical item: what every source (simulator, file, scan, ledger)
 * produces and the ingestion writer consumes. It is one element of the Scan
 * `POST /v0/events` response (docs/interfaces.md, "Scan: events"), with the update
 * in the v2 update JSON (scan.yaml UpdateHistoryItemV2), plus one optional extra field:
 *
 *   {
 *     "update":               TransactionUpdate | ReassignmentUpdate | null,   compact_json values
 *     "verdict":              Verdict | null,
 *     "traffic_summary":      TrafficSummary | null,
 *     "app_activity_records": AppActivityRecords | null,
 *     "update_protobuf_json": the same update with protobuf_json values        (optional)
 *     "created_event_blobs":  { "<contract id>": "<base64 blob>", ... }         (optional)
 *   }
 *
 * The first four keys, in this order, are the item exactly as `/v0/events`
 * serves it with daml_value_encoding=compact_json. `update_protobuf_json`
 * repeats the update with `create_arguments`, `choice_argument` and
 * `exercise_result` in protobuf_json (docs/interfaces.md, "Scan: value encodings"); every other key and value is
 * identical. Sources that only have one encoding (an NDJSON dump of a real
 * Scan) omit it. The writer stores both renderings and strips the extra field
 * before serving (see `servedEventItem`). Simulator items render it on first
 * read (an enumerable accessor), so it costs nothing when nobody asks.
 * `created_event_blobs` holds the created-event blobs of contracts the update
 * creates (or assigns), where the source has them: the ledger API gives them
 * when asked, the simulator writes them for the templates wallets disclose,
 * and Scan's update streams carry none. The writer stores them apart
 * (contract_blobs); they are never part of a served update.
 *
 * Conventions that hold for every item:
 * - A transaction has `events_by_id` keyed `<update_id>:<n>` in lexicographic
 *   order, numbered in pre-order from the roots; a reassignment has `event`.
 * - `external_transaction_hash` is omitted when absent (never null).
 * - `record_time` has six fractional digits; import updates (the ACS carried
 *   over a hard migration) have record_time `0001-01-01T00:00:00.000000Z`.
 * - A rejected transaction is an item with `update: null` and a verdict.
 */

import type { Json } from './json';
import type { StreamKey } from './stream-key';
import { tryParseTimestamp } from './time';
import type { DamlValueEncoding } from './value-encoding';

export interface CreatedEvent {
  event_type: 'created_event';
  event_id: string;
  contract_id: string;
  template_id: string;
  package_name: string;
  create_arguments: Json;
  created_at: string;
  signatories: string[];
  observers: string[];
}

export interface ExercisedEvent {
  event_type: 'exercised_event';
  event_id: string;
  contract_id: string;
  template_id: string;
  package_name: string;
  choice: string;
  choice_argument: Json;
  child_event_ids: string[];
  exercise_result: Json;
  consuming: boolean;
  acting_parties: string[];
  interface_id: string | null;
}

export type TreeEvent = CreatedEvent | ExercisedEvent;

export interface TransactionUpdate {
  update_id: string;
  migration_id: number;
  workflow_id: string;
  record_time: string;
  synchronizer_id: string;
  effective_at: string;
  root_event_ids: string[];
  events_by_id: Record<string, TreeEvent>;
  external_transaction_hash?: string;
}

export interface AssignEvent {
  submitter: string;
  source_synchronizer: string;
  target_synchronizer: string;
  migration_id: number;
  unassign_id: string;
  created_event: CreatedEvent;
  reassignment_counter: number;
}

export interface UnassignEvent {
  submitter: string;
  source_synchronizer: string;
  migration_id: number;
  target_synchronizer: string;
  unassign_id: string;
  reassignment_counter: number;
  contract_id: string;
}

export interface ReassignmentUpdate {
  update_id: string;
  offset: string;
  record_time: string;
  event: AssignEvent | UnassignEvent;
}

export type Update = TransactionUpdate | ReassignmentUpdate;

type VerdictResult = 'VERDICT_RESULT_UNSPECIFIED' | 'VERDICT_RESULT_ACCEPTED' | 'VERDICT_RESULT_REJECTED';

interface Quorum {
  parties: string[];
  threshold: number;
}

export interface TransactionView {
  view_id: number;
  informees: string[];
  confirming_parties: Quorum[];
  sub_views: number[];
  view_hash: string;
}

export interface Verdict {
  update_id: string;
  migration_id: number;
  domain_id: string;
  record_time: string;
  finalization_time: string;
  submitting_parties: string[];
  submitting_participant_uid: string;
  verdict_result: VerdictResult;
  mediator_group: number;
  transaction_views: { views: TransactionView[]; root_views: number[] };
}

export interface TrafficSummary {
  total_traffic_cost: number;
  envelope_traffic_summaries: { traffic_cost: number; view_ids: number[] }[];
}

export interface AppActivityRecords {
  round_number: number;
  records: { party: string; weight: number }[];
}

/** One `/v0/events` element exactly as served in compact_json. */
export interface EventItem {
  update: Update | null;
  verdict: Verdict | null;
  traffic_summary: TrafficSummary | null;
  app_activity_records: AppActivityRecords | null;
}

export interface CanonicalItem extends EventItem {
  update_protobuf_json?: Update;
  /** Base64 created-event blobs by contract id, of contracts this item's update creates or assigns. */
  created_event_blobs?: Record<string, string>;
}

export function isTransaction(update: Update): update is TransactionUpdate {
  return 'events_by_id' in update;
}

export function isAssign(event: AssignEvent | UnassignEvent): event is AssignEvent {
  return 'created_event' in event;
}

/** The migration id of an update; a reassignment carries it inside `event`. */
export function updateMigrationId(update: Update): number {
  return isTransaction(update) ? update.migration_id : update.event.migration_id;
}

/** An item's stream key, or undefined when it has none (the planner then names what is wrong). */
export function itemKey(item: CanonicalItem): StreamKey | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const text = item.update?.record_time ?? item.verdict?.record_time;
  const recordTime = typeof text === 'string' ? tryParseTimestamp(text) : undefined;
  if (recordTime === undefined) return undefined;
  let migrationId: unknown;
  try {
    migrationId = item.update ? updateMigrationId(item.update) : item.verdict?.migration_id;
  } catch {
    return undefined;
  }
  return typeof migrationId === 'number' ? { migrationId, recordTime } : undefined;
}

/** The item as `/v0/events` serves it in the given encoding (falls back to compact when no protobuf rendering exists). */
export function servedEventItem(item: CanonicalItem, encoding: DamlValueEncoding): EventItem {
  const update = encoding === 'protobuf_json' && item.update_protobuf_json ? item.update_protobuf_json : item.update;
  return {
    update,
    verdict: item.verdict,
    traffic_summary: item.traffic_summary,
    app_activity_records: item.app_activity_records,
  };
}
