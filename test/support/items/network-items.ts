/**
 * Hand-built items that continue a simulated network where the simulator has
 * no such case (an expired entry still live, an in-flight round, a node state
 * on several synchronizers, a DsoRules without a schedule), and a loader that
 * applies items with the real writer.
 */
import type { CanonicalItem, CreatedEvent, ExercisedEvent, TreeEvent } from '../../../src/domain/items';
import type { Json } from '../../../src/domain/json';
import { ingestItems } from '../ingest';
import type { Db } from '../../../src/store/pool';
import type { LiveContract } from '../replays/live-acs';
import { transaction } from './hand-items';

export function createEvent(
  updateId: string,
  n: number,
  like: LiveContract | { templateId: string; packageName: string },
  contractId: string,
  args: Json,
  createdAt: string,
  signatories: string[],
): CreatedEvent {
  const templateId = 'event' in like ? like.event.template_id : like.templateId;
  const packageName = 'event' in like ? like.event.package_name : like.packageName;
  return {
    event_type: 'created_event',
    event_id: `${updateId}:${n}`,
    contract_id: contractId,
    template_id: templateId,
    package_name: packageName,
    create_arguments: args,
    created_at: createdAt,
    signatories,
    observers: [],
  };
}

export function archiveEvent(updateId: string, n: number, c: LiveContract, actor: string): ExercisedEvent {
  return {
    event_type: 'exercised_event',
    event_id: `${updateId}:${n}`,
    contract_id: c.event.contract_id,
    template_id: c.event.template_id,
    package_name: c.event.package_name,
    choice: 'Archive',
    choice_argument: {},
    child_event_ids: [],
    exercise_result: {},
    consuming: true,
    acting_parties: [actor],
    interface_id: null,
  };
}

/** A transaction of `events` (same shape as hand-items' `transaction`, with the migration and synchronizer first). */
export function tx(updateId: string, recordTime: string, migrationId: number, synchronizerId: string, events: TreeEvent[]): CanonicalItem {
  return transaction(updateId, recordTime, events, migrationId, synchronizerId);
}

export function unassign(
  updateId: string,
  recordTime: string,
  migrationId: number,
  c: LiveContract,
  submitter: string,
  target: string,
): CanonicalItem {
  return {
    update: {
      update_id: updateId,
      offset: '000000000000009999',
      record_time: recordTime,
      event: {
        submitter,
        source_synchronizer: c.synchronizerId ?? '',
        migration_id: migrationId,
        target_synchronizer: target,
        unassign_id: `unassign-${c.event.contract_id}`,
        reassignment_counter: 1,
        contract_id: c.event.contract_id,
      },
    },
    verdict: null,
    traffic_summary: null,
    app_activity_records: null,
  };
}

/** Record time `seconds` after `iso` (six fractional digits). */
export function after(iso: string, seconds: number): string {
  const ms = Date.parse(iso) + seconds * 1000;
  return `${new Date(ms).toISOString().slice(0, 19)}.${iso.slice(20, 26)}Z`;
}

/** Applies the items through the pipeline and the real writer, in batches. */
export async function load(db: Db, items: CanonicalItem[], stream = 'test', batch = 500): Promise<void> {
  const source = items.map((item, i) => ({ item, position: String(i + 1), origin: `item ${i + 1}` }));
  await ingestItems(db, stream, source, { batchSize: batch });
}
