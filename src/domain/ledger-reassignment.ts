/**
 * A stored Scan reassignment as the ledger interface serves it to a reader: Canton 3.4's
 * `JsReassignment` (JsSchema; update_service.proto, reassignment.proto) with its one event, an
 * `{"JsAssignmentEvent": {...}}` (flat) or an `{"JsUnassignedEvent": {"value": {...}}}`, or undefined
 * when the event format shows it to no one (which the API answers as UPDATE_NOT_FOUND). Pure.
 *
 * Reassignment events are ACS changes, seen by the contract's stakeholders: the created event's for
 * an assignment, the stored contract's for an unassignment (which names only the contract id; an
 * unassignment of a contract whose create was never ingested is visible to no one). The record time
 * and synchronizer are the target's for an assignment and the source's for an unassignment, as
 * Scan records them. What Scan does not record is left as Canton leaves it unset: commandId and
 * workflowId "", assignmentExclusivity, traceContext and paidTrafficCost null.
 */
import { isAssign, type ReassignmentUpdate } from './items';
import type { EventFormat } from './ledger-filters';
import { createdEvent, templateOf, timestamp, visibility, type JsCreatedEvent, type StoredContract } from './ledger-transaction';

/** The contract a reassignment moves, as the ACS stores it. */
interface ReassignedContract extends StoredContract {
  templateId: string;
  packageName: string;
}

export interface StoredReassignment {
  update: ReassignmentUpdate;
  /** Participant-local offset (the indexer's ingestion sequence). */
  offset: number;
  /** Undefined when the contract was never ingested. */
  contract: ReassignedContract | undefined;
}

interface JsAssignmentEvent {
  source: string;
  target: string;
  reassignmentId: string;
  submitter: string;
  reassignmentCounter: number;
  createdEvent: JsCreatedEvent;
}

interface JsUnassignedEvent {
  reassignmentId: string;
  contractId: string;
  templateId: string;
  source: string;
  target: string;
  submitter: string;
  reassignmentCounter: number;
  assignmentExclusivity: null;
  witnessParties: string[];
  packageName: string;
  offset: number;
  nodeId: number;
}

type JsReassignmentEvent = { JsAssignmentEvent: JsAssignmentEvent } | { JsUnassignedEvent: { value: JsUnassignedEvent } };

export interface JsReassignment {
  updateId: string;
  commandId: string;
  workflowId: string;
  offset: number;
  events: JsReassignmentEvent[];
  traceContext: null;
  recordTime: string;
  synchronizerId: string;
  paidTrafficCost: null;
}

const sorted = (parties: Iterable<string>) => [...new Set(parties)].sort();

/** The reassignment as `format` shows it, or undefined when its event is visible to none of the readers. */
export function toJsReassignment(stored: StoredReassignment, format: EventFormat): JsReassignment | undefined {
  const { update, offset } = stored;
  const e = update.event;
  // One event per Scan reassignment: node 0 of its batch.
  const nodeId = 0;
  let event: JsReassignmentEvent;
  let synchronizerId: string;
  if (isAssign(e)) {
    const created = e.created_event;
    const template = templateOf(created);
    const seen = visibility(format, template, sorted([...created.signatories, ...created.observers]));
    if (!seen) return undefined;
    const common = { offset, nodeId, contractId: created.contract_id, templateId: created.template_id };
    event = {
      JsAssignmentEvent: {
        source: e.source_synchronizer,
        target: e.target_synchronizer,
        reassignmentId: e.unassign_id,
        submitter: e.submitter,
        reassignmentCounter: e.reassignment_counter,
        createdEvent: createdEvent(created, common, seen, template, stored.contract, true),
      },
    };
    synchronizerId = e.target_synchronizer;
  } else {
    const contract = stored.contract;
    if (!contract) return undefined;
    const seen = visibility(
      format,
      templateOf({ template_id: contract.templateId, package_name: contract.packageName }),
      sorted([...contract.signatories, ...contract.observers]),
    );
    if (!seen) return undefined;
    event = {
      JsUnassignedEvent: {
        value: {
          reassignmentId: e.unassign_id,
          contractId: e.contract_id,
          templateId: contract.templateId,
          source: e.source_synchronizer,
          target: e.target_synchronizer,
          submitter: e.submitter,
          reassignmentCounter: e.reassignment_counter,
          assignmentExclusivity: null,
          witnessParties: seen.witnessParties,
          packageName: contract.packageName,
          offset,
          nodeId,
        },
      },
    };
    synchronizerId = e.source_synchronizer;
  }
  return {
    updateId: update.update_id,
    commandId: '',
    workflowId: '',
    offset,
    events: [event],
    traceContext: null,
    recordTime: timestamp(update.record_time),
    synchronizerId,
    paidTrafficCost: null,
  };
}
