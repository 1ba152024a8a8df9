/**
 * A stored Scan-shaped transaction as the ledger interface serves it to a
 * reader: a `JsTransaction` (Canton JsSchema; docs/interfaces.md, "Ledger API: transaction by id") holding only the
 * events the event format makes visible, or undefined when none is (which the
 * API answers as UPDATE_NOT_FOUND). Pure.
 *
 * Visibility (transaction_filter.proto, event.proto), from what a Scan update records:
 * - stakeholders of a contract are the signatories and observers of its
 *   create: in this transaction, or else as stored in the ACS (`contracts`);
 * - informees of a node: a create's stakeholders; an exercise's acting
 *   parties plus the contract's stakeholders (consuming) or signatories
 *   (non-consuming). Choice observers are not recorded by Scan and so are
 *   not informees here;
 * - witnesses of a node: its informees and the witnesses of its parent (a
 *   party seeing an action sees all its consequences).
 * ACS_DELTA: creates and consuming exercises (as ArchivedEvent) of contracts
 * not both created and archived in this transaction, by stakeholder; an
 * archive of a contract with no known stakeholders (its create was never
 * ingested) is visible to no one.
 * LEDGER_EFFECTS: creates and exercises, by witness; `acsDelta` tells whether
 * the event would also be in the ACS_DELTA view of the same format.
 * An event is included when a listed party in the candidate set has a
 * matching filter, or filtersForAnyParty matches (any party: the indexer
 * holds the whole network's view). `witnessParties` are the matching listed
 * parties, or the whole candidate set for an any-party match, sorted.
 */
import type { Json } from './json';
import type { CreatedEvent, ExercisedEvent, TransactionUpdate, TreeEvent } from './items';
import { interfaceIdOf, VIEW_NOT_COMPUTED, type KnownInterface } from './ledger-interfaces';
import { matchFilters, type EventFormat, type EventTemplate, type FilterMatch, type TransactionFormat } from './ledger-filters';
import { qualifiedNameOf } from './splice-contracts';
import { formatInstant, parseTimestamp } from './time';

/** A contract as the ACS stores it, for contracts the transaction exercises or creates. */
export interface StoredContract {
  signatories: readonly string[];
  observers: readonly string[];
  createdEventBlob: string;
}

export interface StoredTransaction {
  update: TransactionUpdate;
  /** Participant-local offset (the indexer's ingestion sequence). */
  offset: number;
  commandId: string | null;
  externalTransactionHash: string | null;
  /** Submitting parties, from the mediator verdict when one was ingested. */
  submitters: readonly string[];
  /** Contracts by id: those exercised here whose create is in an earlier transaction, and blobs of those created here. */
  contracts: ReadonlyMap<string, StoredContract>;
}

interface JsInterfaceView {
  interfaceId: string;
  viewStatus: { code: number; message: string; details: never[] };
  viewValue: null;
  implementationPackageId: string;
}

export type JsCreatedEvent = {
  offset: number;
  nodeId: number;
  contractId: string;
  templateId: string;
  contractKey: null;
  contractKeyHash: string;
  createArgument: Json;
  createdEventBlob: string;
  interfaceViews: JsInterfaceView[];
  witnessParties: string[];
  signatories: string[];
  observers: string[];
  createdAt: string;
  packageName: string;
  representativePackageId: string;
  acsDelta: boolean;
};

interface JsArchivedEvent {
  offset: number;
  nodeId: number;
  contractId: string;
  templateId: string;
  witnessParties: string[];
  packageName: string;
  implementedInterfaces: string[];
}

interface JsExercisedEvent {
  offset: number;
  nodeId: number;
  contractId: string;
  templateId: string;
  interfaceId: string | null;
  choice: string;
  choiceArgument: Json;
  actingParties: string[];
  consuming: boolean;
  witnessParties: string[];
  lastDescendantNodeId: number;
  exerciseResult: Json;
  packageName: string;
  implementedInterfaces: string[];
  acsDelta: boolean;
}

export type JsEvent = { CreatedEvent: JsCreatedEvent } | { ArchivedEvent: JsArchivedEvent } | { ExercisedEvent: JsExercisedEvent };

export interface JsTransaction {
  updateId: string;
  commandId: string;
  workflowId: string;
  effectiveAt: string;
  events: JsEvent[];
  offset: number;
  synchronizerId: string;
  traceContext: null;
  recordTime: string;
  externalTransactionHash: string | null;
  paidTrafficCost: null;
}

/** Timestamps as Canton prints them (Java Instant.toString). */
export const timestamp = (iso: string) => formatInstant(parseTimestamp(iso));

const nodeIdOf = (eventId: string) => Number(eventId.slice(eventId.lastIndexOf(':') + 1));

const sorted = (parties: Iterable<string>) => [...new Set(parties)].sort();

export function templateOf(event: Pick<TreeEvent, 'template_id' | 'package_name'>): EventTemplate {
  return { templateId: event.template_id, packageName: event.package_name, qualifiedName: qualifiedNameOf(event.template_id) };
}

interface Node {
  nodeId: number;
  event: TreeEvent;
  witnesses: Set<string>;
  lastDescendant: number;
}

/** The nodes in node-id (pre-)order, with witnesses and last descendants. */
function nodesOf(
  update: TransactionUpdate,
  stakeholders: (contractId: string) => readonly string[],
  signatories: (contractId: string) => readonly string[],
): Node[] {
  const nodes: Node[] = [];
  const visit = (eventId: string, inherited: ReadonlySet<string>): number => {
    const event = update.events_by_id[eventId];
    if (!event) throw new Error(`transaction ${update.update_id} has no event ${eventId}`);
    const informees =
      event.event_type === 'created_event'
        ? [...event.signatories, ...event.observers]
        : [...event.acting_parties, ...(event.consuming ? stakeholders(event.contract_id) : signatories(event.contract_id))];
    const node: Node = {
      nodeId: nodeIdOf(eventId),
      event,
      witnesses: new Set([...inherited, ...informees]),
      lastDescendant: nodeIdOf(eventId),
    };
    nodes.push(node);
    if (event.event_type === 'exercised_event') {
      for (const child of event.child_event_ids) node.lastDescendant = Math.max(node.lastDescendant, visit(child, node.witnesses));
    }
    return node.lastDescendant;
  };
  for (const root of update.root_event_ids) visit(root, new Set());
  return nodes.sort((a, b) => a.nodeId - b.nodeId);
}

export interface Visibility {
  witnessParties: string[];
  match: FilterMatch;
}

/** Who of the format's readers sees an event whose candidate parties are `candidates`. */
export function visibility(format: EventFormat, template: EventTemplate, candidates: readonly string[]): Visibility | undefined {
  if (candidates.length === 0) return undefined;
  const matches: FilterMatch[] = [];
  const parties: string[] = [];
  for (const party of candidates) {
    const filters = format.filtersByParty.get(party);
    const match = filters && matchFilters(filters, template);
    if (match) {
      matches.push(match);
      parties.push(party);
    }
  }
  const anyMatch = format.filtersForAnyParty && matchFilters(format.filtersForAnyParty, template);
  if (anyMatch) matches.push(anyMatch);
  if (matches.length === 0) return undefined;
  const views: KnownInterface[] = [];
  for (const m of matches) for (const v of m.views) if (!views.includes(v)) views.push(v);
  return {
    witnessParties: sorted(anyMatch ? candidates : parties),
    match: { includeCreatedEventBlob: matches.some((m) => m.includeCreatedEventBlob), views },
  };
}

function interfaceView(i: KnownInterface, template: EventTemplate): JsInterfaceView {
  return {
    interfaceId: interfaceIdOf(i),
    viewStatus: { ...VIEW_NOT_COMPUTED, details: [] },
    viewValue: null,
    implementationPackageId: packageIdOf(template.templateId),
  };
}

const packageIdOf = (templateId: string) => templateId.slice(0, templateId.indexOf(':'));

/** The transaction as `format` shows it, or undefined when no event is visible. */
export function toJsTransaction(stored: StoredTransaction, format: TransactionFormat): JsTransaction | undefined {
  const { update, offset } = stored;
  const createdHere = new Map<string, CreatedEvent>();
  const consumedHere = new Set<string>();
  for (const e of Object.values(update.events_by_id)) {
    if (e.event_type === 'created_event') createdHere.set(e.contract_id, e);
    else if (e.consuming) consumedHere.add(e.contract_id);
  }
  const signatories = (cid: string) => createdHere.get(cid)?.signatories ?? stored.contracts.get(cid)?.signatories ?? [];
  const stakeholders = (cid: string): readonly string[] => {
    const c = createdHere.get(cid) ?? stored.contracts.get(cid);
    return c ? [...c.signatories, ...c.observers] : [];
  };
  const transient = (cid: string) => createdHere.has(cid) && consumedHere.has(cid);
  const { eventFormat } = format;

  /** The ACS_DELTA visibility of a create or consuming exercise, undefined when it is no ACS change for these readers. */
  const acsDeltaVisibility = (e: TreeEvent): Visibility | undefined => {
    if (transient(e.contract_id) || (e.event_type === 'exercised_event' && !e.consuming)) return undefined;
    // By stakeholder only. An archive of a contract whose create we never saw has no known
    // stakeholders, and its actors need not be any (a controller may be a mere choice
    // observer): it is shown to no one rather than to a party that may not be entitled to it.
    return visibility(eventFormat, templateOf(e), sorted(stakeholders(e.contract_id)));
  };

  const events: JsEvent[] = [];
  for (const node of nodesOf(update, stakeholders, signatories)) {
    const e = node.event;
    const template = templateOf(e);
    const acsVisibility = acsDeltaVisibility(e);
    const seen = format.shape === 'TRANSACTION_SHAPE_ACS_DELTA' ? acsVisibility : visibility(eventFormat, template, sorted(node.witnesses));
    if (!seen) continue;
    const common = { offset, nodeId: node.nodeId, contractId: e.contract_id, templateId: e.template_id };
    const implementedInterfaces = seen.match.views.map(interfaceIdOf);
    if (e.event_type === 'created_event') {
      events.push({
        CreatedEvent: createdEvent(e, common, seen, template, stored.contracts.get(e.contract_id), acsVisibility !== undefined),
      });
    } else if (format.shape === 'TRANSACTION_SHAPE_ACS_DELTA') {
      events.push({
        ArchivedEvent: { ...common, witnessParties: seen.witnessParties, packageName: e.package_name, implementedInterfaces },
      });
    } else {
      events.push({
        ExercisedEvent: exercisedEvent(
          e,
          common,
          seen,
          node.lastDescendant,
          e.consuming ? implementedInterfaces : [],
          acsVisibility !== undefined,
        ),
      });
    }
  }
  if (events.length === 0) return undefined;

  const readers = [...eventFormat.filtersByParty.keys()];
  const submitterReads = stored.submitters.some((p) => eventFormat.filtersForAnyParty !== undefined || readers.includes(p));
  return {
    updateId: update.update_id,
    commandId: submitterReads ? (stored.commandId ?? '') : '',
    workflowId: update.workflow_id,
    effectiveAt: timestamp(update.effective_at),
    events,
    offset,
    synchronizerId: update.synchronizer_id,
    traceContext: null,
    recordTime: timestamp(update.record_time),
    externalTransactionHash: stored.externalTransactionHash,
    paidTrafficCost: null,
  };
}

export type Common = Pick<JsCreatedEvent, 'offset' | 'nodeId' | 'contractId' | 'templateId'>;

export function createdEvent(
  e: CreatedEvent,
  common: Common,
  seen: Visibility,
  template: EventTemplate,
  contract: StoredContract | undefined,
  acsDelta: boolean,
): JsCreatedEvent {
  return {
    ...common,
    contractKey: null,
    contractKeyHash: '',
    createArgument: e.create_arguments,
    createdEventBlob: seen.match.includeCreatedEventBlob ? (contract?.createdEventBlob ?? '') : '',
    interfaceViews: seen.match.views.map((i) => interfaceView(i, template)),
    witnessParties: seen.witnessParties,
    signatories: [...e.signatories],
    observers: [...e.observers],
    createdAt: timestamp(e.created_at),
    packageName: e.package_name,
    representativePackageId: packageIdOf(e.template_id),
    acsDelta,
  };
}

function exercisedEvent(
  e: ExercisedEvent,
  common: Common,
  seen: Visibility,
  lastDescendantNodeId: number,
  implementedInterfaces: string[],
  acsDelta: boolean,
): JsExercisedEvent {
  return {
    ...common,
    interfaceId: e.interface_id,
    choice: e.choice,
    choiceArgument: e.choice_argument,
    actingParties: [...e.acting_parties],
    consuming: e.consuming,
    witnessParties: seen.witnessParties,
    lastDescendantNodeId,
    exerciseResult: e.exercise_result,
    packageName: e.package_name,
    implementedInterfaces,
    acsDelta,
  };
}

/** Contract ids the conversion looks up in the ACS: stakeholders of exercised contracts created earlier, blobs of created ones. */
export function contractIdsToLookUp(update: TransactionUpdate): string[] {
  return [...new Set(Object.values(update.events_by_id).map((e) => e.contract_id))];
}
