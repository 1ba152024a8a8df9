/**
 * Import updates: after a hard migration the new migration starts with one
 * transaction per active contract, at record time 0001-01-01T00:00:00Z,
 * creating it again with the same contract id, arguments, creation time and
 * parties. They carry no verdict.
 */

import type { CanonicalItem, CreatedEvent, TransactionUpdate } from '../domain/items';
import { formatInstant, IMPORT_RECORD_TIME, IMPORT_RECORD_TIME_ISO } from '../domain/time';
import { withCreatedEventBlobs } from './blobs';
import { lazyProtobufItem } from './item';
import type { LedgerContract } from './ledger';
import type { NetworkContext } from './context';
import { eventMap, protobufCreatedEvent, renderCreatedEvent } from './transaction';

export function importUpdate(net: NetworkContext, contract: LedgerContract, updateId: string): CanonicalItem {
  const eventId = `${updateId}:0`;
  const created = renderCreatedEvent(contract, eventId);
  const eventsById = (event: CreatedEvent): TransactionUpdate['events_by_id'] => {
    const byId = eventMap();
    byId[eventId] = event;
    return byId;
  };
  const compact: TransactionUpdate = {
    update_id: updateId,
    migration_id: net.migrationId,
    workflow_id: '',
    record_time: IMPORT_RECORD_TIME_ISO,
    synchronizer_id: contract.synchronizerId,
    effective_at: formatInstant(IMPORT_RECORD_TIME),
    root_event_ids: [eventId],
    events_by_id: eventsById(created),
  };
  return withCreatedEventBlobs(
    lazyProtobufItem(compact, null, null, null, () => ({
      ...compact,
      events_by_id: eventsById(protobufCreatedEvent(created, contract)),
    })),
  );
}
