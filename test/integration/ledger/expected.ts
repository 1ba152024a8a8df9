/**
 * Expected transaction-by-id bodies, computed from the simulator's items
 * alone: the rules of docs/interfaces.md ("Ledger API: transaction by id") written out again
 * here, independently of src/domain/ledger-*.ts.
 */
import type { CanonicalItem, CreatedEvent, TransactionUpdate, TreeEvent } from '../../../src/domain/items';

export const HOLDING_PACKAGE_ID = '718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b';
const HOLDING = `${HOLDING_PACKAGE_ID}:Splice.Api.Token.HoldingV1:Holding`;
const HOLDING_IMPLEMENTATIONS = ['splice-amulet/Splice.Amulet:Amulet', 'splice-amulet/Splice.Amulet:LockedAmulet'];

/** What one reader's filter does with a template: undefined = no match. */
export type Filter = (e: TreeEvent) => { blob: boolean; holdingView: boolean } | undefined;

export const wildcard =
  (blob = false): Filter =>
  () => ({ blob, holdingView: false });
export const templateNamed =
  (packageName: string, qualifiedName: string, blob = false): Filter =>
  (e) =>
    e.package_name === packageName && e.template_id.endsWith(`:${qualifiedName}`) && e.template_id.split(':').length === 3
      ? { blob, holdingView: false }
      : undefined;
export const templateWithId =
  (templateId: string): Filter =>
  (e) =>
    e.template_id === templateId ? { blob: false, holdingView: false } : undefined;
export const holding =
  (view: boolean, blob = false): Filter =>
  (e) =>
    HOLDING_IMPLEMENTATIONS.includes(`${e.package_name}/${e.template_id.split(':').slice(1).join(':')}`)
      ? { blob, holdingView: view }
      : undefined;
/** Several filters of one reader: matches if any does, flags OR-ed. */
export const anyOf =
  (...fs: Filter[]): Filter =>
  (e) => {
    const hits = fs.map((f) => f(e)).filter((h) => h !== undefined);
    return hits.length ? { blob: hits.some((h) => h.blob), holdingView: hits.some((h) => h.holdingView) } : undefined;
  };

export interface Reading {
  shape: 'ACS_DELTA' | 'LEDGER_EFFECTS';
  byParty: Record<string, Filter>;
  anyParty?: Filter;
}

/** Java Instant.toString of a Scan timestamp. */
function instant(iso: string): string {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?Z$/.exec(iso)!;
  const digits = (m[2] ?? '').replace(/0+$/, '');
  if (digits === '') return `${m[1]}Z`;
  return `${m[1]}.${digits.length <= 3 ? digits.padEnd(3, '0') : digits.padEnd(6, '0')}Z`;
}

/** Every create of the stream by contract id. */
export function createsOf(items: CanonicalItem[]): Map<string, CreatedEvent> {
  const creates = new Map<string, CreatedEvent>();
  for (const item of items) {
    const u = item.update;
    if (!u) continue;
    if ('events_by_id' in u) {
      for (const e of Object.values(u.events_by_id)) if (e.event_type === 'created_event') creates.set(e.contract_id, e);
    } else if ('created_event' in u.event) {
      creates.set(u.event.created_event.contract_id, u.event.created_event);
    }
  }
  return creates;
}

const nodeOf = (id: string) => Number(id.split(':').pop());

/** Witnesses of each event id: informees of the node and of all its ancestors. */
export function witnessesOf(u: TransactionUpdate, creates: Map<string, CreatedEvent>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const walk = (id: string, above: string[]) => {
    const e = u.events_by_id[id]!;
    let mine: string[];
    if (e.event_type === 'created_event') {
      mine = [...e.signatories, ...e.observers];
    } else {
      const c = creates.get(e.contract_id);
      const contractParties = c ? (e.consuming ? [...c.signatories, ...c.observers] : c.signatories) : [];
      mine = [...e.acting_parties, ...contractParties];
    }
    const all = [...new Set([...above, ...mine])].sort();
    out.set(id, all);
    if (e.event_type === 'exercised_event') e.child_event_ids.forEach((c) => walk(c, all));
  };
  u.root_event_ids.forEach((r) => walk(r, []));
  return out;
}

function lastDescendant(u: TransactionUpdate, id: string): number {
  const e = u.events_by_id[id]!;
  if (e.event_type !== 'exercised_event' || e.child_event_ids.length === 0) return nodeOf(id);
  return lastDescendant(u, e.child_event_ids[e.child_event_ids.length - 1]!);
}

interface Seen {
  parties: string[];
  blob: boolean;
  holdingView: boolean;
}

function seenBy(reading: Reading, e: TreeEvent, candidates: string[]): Seen | undefined {
  const byParty = candidates.filter((p) => reading.byParty[p]?.(e));
  const hits = byParty.map((p) => reading.byParty[p]!(e)!);
  const any = reading.anyParty?.(e);
  if (any) hits.push(any);
  if (hits.length === 0) return undefined;
  return { parties: any ? candidates : byParty, blob: hits.some((h) => h.blob), holdingView: hits.some((h) => h.holdingView) };
}

/**
 * The expected `transaction` body, or undefined when nothing is visible.
 * `blobs` are created_event_blob values the test stored for contracts.
 */
export function expectedTransaction(
  u: TransactionUpdate,
  reading: Reading,
  context: { creates: Map<string, CreatedEvent>; offset: number; blobs?: Map<string, string> },
): unknown {
  const events = Object.values(u.events_by_id);
  const createdHere = new Set(events.filter((e) => e.event_type === 'created_event').map((e) => e.contract_id));
  const archivedHere = new Set(events.filter((e) => e.event_type === 'exercised_event' && e.consuming).map((e) => e.contract_id));
  const stakeholders = (cid: string) => {
    const c = context.creates.get(cid);
    return c ? [...new Set([...c.signatories, ...c.observers])].sort() : [];
  };
  const witnesses = witnessesOf(u, context.creates);
  const inAcsDelta = (e: TreeEvent) =>
    !(createdHere.has(e.contract_id) && archivedHere.has(e.contract_id)) &&
    (e.event_type === 'created_event' || e.consuming) &&
    // An archive of a contract with no known create has no known stakeholders: no one sees it.
    stakeholders(e.contract_id).length > 0 &&
    seenBy(reading, e, stakeholders(e.contract_id)) !== undefined;

  const out: unknown[] = [];
  for (const e of [...events].sort((a, b) => nodeOf(a.event_id) - nodeOf(b.event_id))) {
    const seen =
      reading.shape === 'ACS_DELTA'
        ? inAcsDelta(e)
          ? seenBy(reading, e, stakeholders(e.contract_id))
          : undefined
        : seenBy(reading, e, witnesses.get(e.event_id)!);
    if (!seen) continue;
    const head = { offset: context.offset, nodeId: nodeOf(e.event_id), contractId: e.contract_id, templateId: e.template_id };
    const packageId = e.template_id.split(':')[0]!;
    if (e.event_type === 'created_event') {
      out.push({
        CreatedEvent: {
          ...head,
          contractKey: null,
          contractKeyHash: '',
          createArgument: e.create_arguments,
          createdEventBlob: seen.blob ? (context.blobs?.get(e.contract_id) ?? '') : '',
          interfaceViews: seen.holdingView
            ? [
                {
                  interfaceId: HOLDING,
                  viewStatus: {
                    code: 12,
                    message: 'Interface views are not computed by scan-indexer: it has no Daml engine.',
                    details: [],
                  },
                  viewValue: null,
                  implementationPackageId: packageId,
                },
              ]
            : [],
          witnessParties: seen.parties,
          signatories: e.signatories,
          observers: e.observers,
          createdAt: instant(e.created_at),
          packageName: e.package_name,
          representativePackageId: packageId,
          acsDelta: inAcsDelta(e),
        },
      });
    } else if (reading.shape === 'ACS_DELTA') {
      out.push({
        ArchivedEvent: {
          ...head,
          witnessParties: seen.parties,
          packageName: e.package_name,
          implementedInterfaces: seen.holdingView ? [HOLDING] : [],
        },
      });
    } else {
      out.push({
        ExercisedEvent: {
          ...head,
          interfaceId: e.interface_id,
          choice: e.choice,
          choiceArgument: e.choice_argument,
          actingParties: e.acting_parties,
          consuming: e.consuming,
          witnessParties: seen.parties,
          lastDescendantNodeId: lastDescendant(u, e.event_id),
          exerciseResult: e.exercise_result,
          packageName: e.package_name,
          implementedInterfaces: e.consuming && seen.holdingView ? [HOLDING] : [],
          acsDelta: inAcsDelta(e),
        },
      });
    }
  }
  if (out.length === 0) return undefined;
  return {
    updateId: u.update_id,
    commandId: '',
    workflowId: u.workflow_id,
    effectiveAt: instant(u.effective_at),
    events: out,
    offset: context.offset,
    synchronizerId: u.synchronizer_id,
    traceContext: null,
    recordTime: instant(u.record_time),
    externalTransactionHash: u.external_transaction_hash ?? null,
    paidTrafficCost: null,
  };
}
