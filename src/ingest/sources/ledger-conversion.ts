/**
 * Converts JSON Ledger API v2 updates (docs/interfaces.md,
 * "Ledger API: reading updates") into the canonical update ("Scan: update history"), the way Scan renders
 * what its participant gives it (ScanHttpEncodings, "V1" consistent mode):
 *
 * - Event ids are `<update_id>:<n>`, numbered in pre-order from the roots.
 *   The ledger's node ids are already in pre-order (an exercise's subtree is
 *   the node-id range (nodeId, lastDescendantNodeId]) but have gaps for nodes
 *   the API does not show (fetches, lookups, events invisible to the party),
 *   so the renumbering is the rank of each visible node in node-id order.
 * - record_time has six fractional digits, effective_at is Instant.toString,
 *   created_at is an OpenAPI date-time; signatories and observers are sorted,
 *   acting parties are not.
 * - Daml values are passed through: the JSON API already prints them in the
 *   Daml-LF JSON encoding, which is Scan's compact_json.
 * - A reassignment's offset is the constant Scan prints in place of the
 *   participant-local one; an assignment's created event keeps its node id.
 */
import type {
  AssignEvent,
  CreatedEvent,
  ExercisedEvent,
  ReassignmentUpdate,
  TransactionUpdate,
  TreeEvent,
  UnassignEvent,
  Update,
} from '../../domain/items';
import { formatDateTime, formatInstant, formatRecordTime } from '../../domain/time';
import {
  array,
  boolean,
  integer,
  isObject,
  json,
  object,
  objectField,
  optionalString,
  ShapeError,
  string,
  stringArray,
  timestamp,
  type JsonObject,
} from './shape';

/** What Scan prints for offsets in consistent mode: LegacyOffset of 1 (ScanHttpEncodings). */
export const CONSISTENT_REASSIGNMENT_OFFSET = '000000000000000001';

/** One element of the `POST /v2/updates` answer, converted. */
export type ConvertedUpdate =
  /** A transaction or reassignment to ingest. */
  | { kind: 'update'; offset: number; update: Update; blobs?: Record<string, string> }
  /** An offset checkpoint or topology transaction: nothing to ingest, but the stream has moved past `offset`. */
  | { kind: 'offset'; offset: number };

/** The ledger gave something the canonical item cannot be made from. */
export class LedgerConversionError extends Error {
  constructor(
    readonly updateId: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'LedgerConversionError';
  }
}

/**
 * Reads the one variant of a sealed JSON API type (`{"Variant": …}`). The API
 * wraps some variants in `{"value": …}` and not others (Canton JsSchema.scala);
 * both forms are accepted so a server that differs from Canton 3.5's schemas on one
 * type still converts.
 */
function variant(value: unknown, path: string): { name: string; body: JsonObject; path: string } {
  const o = object(value, path);
  const keys = Object.keys(o);
  const name = keys[0];
  if (keys.length !== 1 || name === undefined) throw new ShapeError(path, 'an object with one variant key', o);
  const inner = object(o[name], `${path}.${name}`);
  const wrapped = Object.keys(inner).length === 1 && isObject(inner.value);
  return wrapped
    ? { name, body: inner.value as JsonObject, path: `${path}.${name}.value` }
    : { name, body: inner, path: `${path}.${name}` };
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Created-event blobs by contract id, gathered while an update converts. */
type Blobs = Record<string, string>;

function convertCreatedEvent(e: JsonObject, path: string, eventId: string, blobs: Blobs): CreatedEvent {
  // The blob travels beside the update (the item's created_event_blobs); "" means the ledger gave none.
  const blob = optionalString(e, 'createdEventBlob', path);
  if (blob) blobs[string(e, 'contractId', path)] = blob;
  // Contract keys have no place in Scan's CreatedEvent; Splice templates have none.
  return {
    event_type: 'created_event',
    event_id: eventId,
    contract_id: string(e, 'contractId', path),
    template_id: string(e, 'templateId', path),
    package_name: string(e, 'packageName', path),
    create_arguments: json(e, 'createArgument', path),
    created_at: formatDateTime(timestamp(e, 'createdAt', path)),
    signatories: [...stringArray(e, 'signatories', path)].sort(byString),
    observers: [...stringArray(e, 'observers', path)].sort(byString),
  };
}

interface Node {
  nodeId: number;
  /** The last node id of this node's subtree (itself for a create). */
  last: number;
  kind: 'created' | 'exercised';
  body: JsonObject;
  path: string;
}

function convertTransaction(tx: unknown, migrationId: number, path: string, blobs: Blobs): TransactionUpdate {
  const t = object(tx, path);
  const updateId = string(t, 'updateId', path);
  const fail = (message: string) => new LedgerConversionError(updateId, message);

  const nodes: Node[] = array(t, 'events', path).map((raw, i) => {
    const { name, body, path: p } = variant(raw, `${path}.events[${i}]`);
    const nodeId = integer(body, 'nodeId', p);
    if (name === 'CreatedEvent') return { nodeId, last: nodeId, kind: 'created', body, path: p };
    if (name === 'ExercisedEvent') {
      return { nodeId, last: integer(body, 'lastDescendantNodeId', p), kind: 'exercised', body, path: p };
    }
    throw fail(`${p}: ${name} in a transaction; the ledger-effects shape has only CreatedEvent and ExercisedEvent`);
  });
  if (nodes.length === 0) throw fail(`${path}.events: a transaction without events`);
  // The API lists events in node-id order; sorting makes the tree walk below independent of that.
  nodes.sort((a, b) => a.nodeId - b.nodeId);

  // Rebuild the tree from the subtree ranges: a node's parent is the innermost open exercise whose range contains it.
  const roots: number[] = [];
  const children = new Map<number, number[]>();
  const open: number[] = [];
  nodes.forEach((node, index) => {
    const previous = nodes[index - 1];
    if (previous && previous.nodeId === node.nodeId) throw fail(`node id ${node.nodeId} appears twice`);
    if (node.last < node.nodeId) throw fail(`${node.path}: lastDescendantNodeId ${node.last} is before nodeId ${node.nodeId}`);
    while (open.length > 0 && (nodes[open[open.length - 1] as number] as Node).last < node.nodeId) open.pop();
    const parent = open[open.length - 1];
    if (parent === undefined) {
      roots.push(index);
    } else {
      const parentNode = nodes[parent] as Node;
      if (node.last > parentNode.last) {
        throw fail(`${node.path}: subtree of node ${node.nodeId} ends after that of its parent node ${parentNode.nodeId}`);
      }
      children.get(parent)?.push(index);
    }
    if (node.kind === 'exercised') {
      children.set(index, []);
      open.push(index);
    }
  });

  const eventId = (index: number) => `${updateId}:${index}`;
  const events: TreeEvent[] = nodes.map((node, index): TreeEvent => {
    const e = node.body;
    const p = node.path;
    if (node.kind === 'created') return convertCreatedEvent(e, p, eventId(index), blobs);
    const exercised: ExercisedEvent = {
      event_type: 'exercised_event',
      event_id: eventId(index),
      contract_id: string(e, 'contractId', p),
      template_id: string(e, 'templateId', p),
      package_name: string(e, 'packageName', p),
      choice: string(e, 'choice', p),
      choice_argument: json(e, 'choiceArgument', p),
      child_event_ids: (children.get(index) ?? []).map(eventId),
      exercise_result: e.exerciseResult === undefined ? null : json(e, 'exerciseResult', p),
      consuming: boolean(e, 'consuming', p),
      acting_parties: stringArray(e, 'actingParties', p),
      interface_id: optionalString(e, 'interfaceId', p),
    };
    return exercised;
  });

  // Scan prints events_by_id as a map sorted by the id string ("…:10" before "…:2").
  const eventsById: Record<string, TreeEvent> = {};
  for (const event of [...events].sort((a, b) => byString(a.event_id, b.event_id))) eventsById[event.event_id] = event;

  const update: TransactionUpdate = {
    update_id: updateId,
    migration_id: migrationId,
    workflow_id: optionalString(t, 'workflowId', path) ?? '',
    record_time: formatRecordTime(timestamp(t, 'recordTime', path)),
    synchronizer_id: string(t, 'synchronizerId', path),
    effective_at: formatInstant(timestamp(t, 'effectiveAt', path)),
    root_event_ids: roots.map(eventId),
    events_by_id: eventsById,
  };
  // The JSON API prints the hash as hex (ProtocolConverters reads it with ByteString.fromHex); Scan prints lowercase hex.
  const hash = optionalString(t, 'externalTransactionHash', path);
  if (hash !== null && hash !== '') update.external_transaction_hash = hash.toLowerCase();
  return update;
}

function convertReassignment(reassignment: unknown, migrationId: number, path: string, blobs: Blobs): ReassignmentUpdate {
  const r = object(reassignment, path);
  const updateId = string(r, 'updateId', path);
  const events = array(r, 'events', path);
  // Splice's ingestion rejects batched reassignments too (LedgerClient: "Reassignment batching is not currently supported").
  if (events.length !== 1) {
    throw new LedgerConversionError(updateId, `${path}.events: ${events.length} events; only single-contract reassignments are supported`);
  }
  const { name, body: e, path: p } = variant(events[0], `${path}.events[0]`);
  // 3.3 called the reassignment id `unassignId`.
  const unassignId = e.reassignmentId === undefined ? string(e, 'unassignId', p) : string(e, 'reassignmentId', p);
  let event: AssignEvent | UnassignEvent;
  if (name === 'JsAssignmentEvent') {
    const created = objectField(e, 'createdEvent', p);
    const createdPath = `${p}.createdEvent`;
    event = {
      submitter: string(e, 'submitter', p),
      source_synchronizer: string(e, 'source', p),
      target_synchronizer: string(e, 'target', p),
      migration_id: migrationId,
      unassign_id: unassignId,
      created_event: convertCreatedEvent(created, createdPath, `${updateId}:${integer(created, 'nodeId', createdPath)}`, blobs),
      reassignment_counter: integer(e, 'reassignmentCounter', p),
    };
  } else if (name === 'JsUnassignedEvent') {
    event = {
      submitter: string(e, 'submitter', p),
      source_synchronizer: string(e, 'source', p),
      migration_id: migrationId,
      target_synchronizer: string(e, 'target', p),
      unassign_id: unassignId,
      reassignment_counter: integer(e, 'reassignmentCounter', p),
      contract_id: string(e, 'contractId', p),
    };
  } else {
    throw new LedgerConversionError(updateId, `${p}: unknown reassignment event ${name}`);
  }
  return {
    update_id: updateId,
    offset: CONSISTENT_REASSIGNMENT_OFFSET,
    record_time: formatRecordTime(timestamp(r, 'recordTime', path)),
    event,
  };
}

/** Converts one `JsGetUpdatesResponse` (`{"update": {<variant>: …}}`); throws LedgerConversionError naming what is wrong. */
export function convertUpdatesResponse(response: unknown, migrationId: number): ConvertedUpdate {
  let updateId: string | undefined;
  try {
    const { name, body, path } = variant(objectField(object(response, 'response'), 'update', 'response'), 'update');
    updateId = typeof body.updateId === 'string' ? body.updateId : undefined;
    const offset = integer(body, 'offset', path);
    const blobs: Blobs = {};
    const withBlobs = (update: Update): ConvertedUpdate =>
      Object.keys(blobs).length > 0 ? { kind: 'update', offset, update, blobs } : { kind: 'update', offset, update };
    switch (name) {
      case 'Transaction':
        return withBlobs(convertTransaction(body, migrationId, path, blobs));
      case 'Reassignment':
        return withBlobs(convertReassignment(body, migrationId, path, blobs));
      case 'OffsetCheckpoint':
      case 'TopologyTransaction':
        return { kind: 'offset', offset };
      default:
        throw new LedgerConversionError(updateId, `${path}: unknown update variant ${name}`);
    }
  } catch (err) {
    if (err instanceof ShapeError) throw new LedgerConversionError(updateId, err.message);
    throw err;
  }
}
