/**
 * Builds one transaction tree and renders it as a v2 update in both value
 * encodings, protobuf_json on demand. Nodes are added in pre-order (a node
 * before its children, a subtree before its next sibling), which is the
 * order Daml executes them in; creates and consuming exercises are applied
 * to the ledger as they are added, so the tree can never archive a contract
 * that is not active.
 */

import { V, type DamlRecord, type DamlValue } from '../domain/daml-value';
import type { CreatedEvent, ExercisedEvent, TransactionUpdate, TreeEvent } from '../domain/items';
import type { Json } from '../domain/json';
import type { Micros } from '../domain/time';
import { toCompactJson, toProtobufJson } from '../domain/value-encoding';
import type { IdFactory } from './ids';
import type { Ledger, LedgerContract } from './ledger';
import type { TemplateRef } from './templates';
import { formatDateTime, formatInstant, formatRecordTime } from './time-format';

interface CreateNode {
  readonly kind: 'create';
  readonly contract: LedgerContract;
  /** The create arguments in compact_json. */
  readonly compactArguments: Json;
}

export interface ExerciseNode {
  readonly kind: 'exercise';
  readonly contract: LedgerContract;
  readonly choice: string;
  readonly argument: DamlValue;
  result: DamlValue;
  readonly consuming: boolean;
  readonly actingParties: readonly string[];
  readonly children: TxNode[];
}

export type TxNode = CreateNode | ExerciseNode;

/** Distinct parties in ascending order, as Scan lists signatories and observers. */
export function sortedParties(parties: Iterable<string>): string[] {
  const out: string[] = [];
  let ordered = true;
  for (const p of parties) {
    if (out.includes(p)) continue;
    if (out.length > 0 && (out[out.length - 1] as string) > p) ordered = false;
    out.push(p);
  }
  return ordered ? out : out.sort();
}

export class TxBuilder {
  readonly roots: TxNode[] = [];

  constructor(
    private readonly ids: IdFactory,
    private readonly ledger: Ledger,
    readonly effectiveAt: Micros,
    private readonly synchronizerId: string,
  ) {}

  /** Creates a contract and returns its id. */
  create(
    parent: ExerciseNode | null,
    template: TemplateRef,
    args: DamlRecord,
    signatories: Iterable<string>,
    observers: Iterable<string> = [],
  ): string {
    const sigs = sortedParties(signatories);
    const contract: LedgerContract = {
      contractId: this.ids.contractId(),
      template,
      arguments: args,
      createdAt: this.effectiveAt,
      signatories: sigs,
      // A party that signs is not listed again as an observer.
      observers: sortedParties([...observers].filter((p) => !sigs.includes(p))),
      synchronizerId: this.synchronizerId,
      reassignmentCounter: 0,
    };
    this.ledger.add(contract);
    this.attach(parent, { kind: 'create', contract, compactArguments: toCompactJson(args) });
    return contract.contractId;
  }

  /** Exercises a choice; set `result` on the returned node once the children are known. */
  exercise(
    parent: ExerciseNode | null,
    contractId: string,
    choice: string,
    argument: DamlValue,
    actingParties: Iterable<string>,
    consuming = false,
  ): ExerciseNode {
    const contract = consuming ? this.ledger.archive(contractId) : this.ledger.get(contractId);
    const node: ExerciseNode = {
      kind: 'exercise',
      contract,
      choice,
      argument,
      result: V.unit(),
      consuming,
      actingParties: sortedParties(actingParties),
      children: [],
    };
    this.attach(parent, node);
    return node;
  }

  /** The implicit `Archive` choice, as `archive` and `fetchAndArchive` produce it. */
  archive(parent: ExerciseNode | null, contractId: string, actingParties: Iterable<string>): ExerciseNode {
    return this.exercise(parent, contractId, 'Archive', V.emptyRecord(), actingParties, true);
  }

  private attach(parent: ExerciseNode | null, node: TxNode): void {
    (parent ? parent.children : this.roots).push(node);
  }
}

export interface TransactionMeta {
  readonly updateId: string;
  readonly migrationId: number;
  readonly recordTime: Micros;
  readonly synchronizerId: string;
  readonly effectiveAt: Micros;
  readonly externalTransactionHash?: string;
}

export interface RenderedTransaction {
  readonly compact: TransactionUpdate;
  /** Renders the same update with protobuf_json values (a new object on every call). */
  readonly protobuf: () => TransactionUpdate;
}

// All creates of a transaction share one creation time: format it once.
let lastCreatedAt: { micros: Micros; text: string } = { micros: -1n, text: '' };
function createdAtText(micros: Micros): string {
  if (lastCreatedAt.micros !== micros) lastCreatedAt = { micros, text: formatDateTime(micros) };
  return lastCreatedAt.text;
}

/** The created event of a contract in compact_json (the arguments rendered again unless given). */
export function renderCreatedEvent(
  contract: LedgerContract,
  eventId: string,
  compactArguments: Json = toCompactJson(contract.arguments),
): CreatedEvent {
  return {
    event_type: 'created_event',
    event_id: eventId,
    contract_id: contract.contractId,
    template_id: contract.template.templateId,
    package_name: contract.template.packageName,
    create_arguments: compactArguments,
    created_at: createdAtText(contract.createdAt),
    // The ledger's party lists are never mutated, so events can share them.
    signatories: contract.signatories as string[],
    observers: contract.observers as string[],
  };
}

/** The protobuf_json twin of a compact created event of `contract`: the same keys and values but the arguments. */
export function protobufCreatedEvent(compact: CreatedEvent, contract: LedgerContract): CreatedEvent {
  return { ...compact, create_arguments: toProtobufJson(contract.arguments) };
}

function renderExercisedEvent(node: ExerciseNode, eventId: string, childIds: string[]): ExercisedEvent {
  return {
    event_type: 'exercised_event',
    event_id: eventId,
    contract_id: node.contract.contractId,
    template_id: node.contract.template.templateId,
    package_name: node.contract.template.packageName,
    choice: node.choice,
    choice_argument: toCompactJson(node.argument),
    child_event_ids: childIds,
    exercise_result: toCompactJson(node.result),
    consuming: node.consuming,
    acting_parties: node.actingParties as string[],
    interface_id: null,
  };
}

function protobufEvent(compact: TreeEvent, node: TxNode): TreeEvent {
  if (node.kind === 'create') return protobufCreatedEvent(compact as CreatedEvent, node.contract);
  return { ...(compact as ExercisedEvent), choice_argument: toProtobufJson(node.argument), exercise_result: toProtobufJson(node.result) };
}

// events_by_id is keyed in lexicographic order of the id strings ("…:10" before "…:2");
// ids share the update-id prefix, so that is the string order of the node indices.
const lexicographicOrders: number[][] = [];
function lexicographicOrder(n: number): number[] {
  let order = lexicographicOrders[n];
  if (!order) {
    order = Array.from({ length: n }, (_, i) => i).sort((a, b) => (String(a) < String(b) ? -1 : 1));
    lexicographicOrders[n] = order;
  }
  return order;
}

/**
 * An object for events_by_id. Its keys are unique per update, and adding
 * fresh keys to ordinary objects makes V8 build a new hidden class for each;
 * an object without prototype is kept as a plain hash table instead.
 */
export function eventMap(): Record<string, TreeEvent> {
  return Object.create(null) as Record<string, TreeEvent>;
}

/**
 * The update in compact_json, and how to render it in protobuf_json later:
 * the tree's typed values are kept for that, and must not change afterwards
 * (ExerciseNode.result is final once the transaction is submitted).
 */
export function renderTransaction(meta: TransactionMeta, roots: readonly TxNode[]): RenderedTransaction {
  const ids: string[] = [];
  const nodes: TxNode[] = [];
  const events: TreeEvent[] = [];

  // Returns the event id of the subtree root after numbering the subtree in pre-order.
  const visit = (node: TxNode): string => {
    const index = ids.length;
    const id = `${meta.updateId}:${index}`;
    ids.push(id);
    nodes.push(node);
    if (node.kind === 'create') {
      events[index] = renderCreatedEvent(node.contract, id, node.compactArguments);
    } else {
      // Children take the indices after this node; its own event is filled in once their ids are known.
      const childIds = node.children.map(visit);
      events[index] = renderExercisedEvent(node, id, childIds);
    }
    return id;
  };
  const rootIds = roots.map(visit);

  const order = lexicographicOrder(ids.length);
  const compactById = eventMap();
  for (const i of order) compactById[ids[i] as string] = events[i] as TreeEvent;

  const compact: TransactionUpdate = {
    update_id: meta.updateId,
    migration_id: meta.migrationId,
    workflow_id: '',
    record_time: formatRecordTime(meta.recordTime),
    synchronizer_id: meta.synchronizerId,
    effective_at: formatInstant(meta.effectiveAt),
    root_event_ids: rootIds,
    events_by_id: compactById,
  };
  if (meta.externalTransactionHash !== undefined) compact.external_transaction_hash = meta.externalTransactionHash;

  const protobuf = (): TransactionUpdate => {
    const protobufById = eventMap();
    for (const i of order) protobufById[ids[i] as string] = protobufEvent(events[i] as TreeEvent, nodes[i] as TxNode);
    return { ...compact, events_by_id: protobufById };
  };
  return { compact, protobuf };
}
