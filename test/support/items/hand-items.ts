/** Small hand-written canonical items for tests that need exact control. */
import type { CanonicalItem, TreeEvent } from '../../../src/domain/items';

export const SYNC = 'global-domain::1220aaaa';
export const DSO = 'DSO::1220dddd';
const PKG = 'a'.repeat(64);

export function created(updateId: string, n: number, contractId: string, amount?: string): TreeEvent {
  return {
    event_type: 'created_event',
    event_id: `${updateId}:${n}`,
    contract_id: contractId,
    template_id: amount ? `${PKG}:Splice.Amulet:Amulet` : `${PKG}:Splice.Example:Note`,
    package_name: amount ? 'splice-amulet' : 'example',
    create_arguments: amount
      ? {
          dso: DSO,
          owner: 'alice::1220',
          amount: { initialAmount: amount, createdAt: { number: '1' }, ratePerRound: { rate: '0.0000190259' } },
        }
      : { dso: DSO, text: contractId },
    created_at: '2025-01-01T00:00:00Z',
    signatories: [DSO],
    observers: [],
  };
}

/** A consuming Archive of `contractId`, by default of the example Note template. */
export function archived(
  updateId: string,
  n: number,
  contractId: string,
  templateId = `${PKG}:Splice.Example:Note`,
  packageName = 'example',
): TreeEvent {
  return {
    event_type: 'exercised_event',
    event_id: `${updateId}:${n}`,
    contract_id: contractId,
    template_id: templateId,
    package_name: packageName,
    choice: 'Archive',
    choice_argument: {},
    child_event_ids: [],
    exercise_result: {},
    consuming: true,
    acting_parties: [DSO],
    interface_id: null,
  };
}

/** A transaction whose events are all roots. */
export function transaction(
  updateId: string,
  recordTime: string,
  events: TreeEvent[],
  migrationId = 0,
  synchronizerId = SYNC,
): CanonicalItem {
  return {
    update: {
      update_id: updateId,
      migration_id: migrationId,
      workflow_id: '',
      record_time: recordTime,
      synchronizer_id: synchronizerId,
      effective_at: recordTime,
      root_event_ids: events.map((e) => e.event_id),
      events_by_id: Object.fromEntries(events.map((e) => [e.event_id, e])),
    },
    verdict: null,
    traffic_summary: null,
    app_activity_records: null,
  };
}

/** A reassignment of contract `contractId` (created by `created(…)`) to or from SYNC. */
export function reassignment(
  updateId: string,
  recordTime: string,
  kind: 'assign' | 'unassign',
  contractId: string,
  counter: number,
): CanonicalItem {
  const common = {
    submitter: DSO,
    source_synchronizer: 'other::1220',
    target_synchronizer: SYNC,
    migration_id: 0,
    unassign_id: `un-${contractId}-${counter}`,
    reassignment_counter: counter,
  };
  const event =
    kind === 'assign'
      ? { ...common, created_event: created(updateId, 0, contractId) as Extract<TreeEvent, { event_type: 'created_event' }> }
      : { ...common, source_synchronizer: SYNC, target_synchronizer: 'other::1220', contract_id: contractId };
  return {
    update: { update_id: updateId, offset: '000000000000000001', record_time: recordTime, event },
    verdict: null,
    traffic_summary: null,
    app_activity_records: null,
  };
}
