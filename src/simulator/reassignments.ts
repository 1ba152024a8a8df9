/**
 * Reassignments: an amulet is unassigned from the global synchronizer and
 * assigned to an app synchronizer right after, then some ticks later moved
 * back the same way. Each unassign raises the contract's reassignment
 * counter; the matching assign carries the same counter and unassign id.
 * While away the amulet cannot be spent.
 */

import type { AssignEvent, CanonicalItem, ReassignmentUpdate, UnassignEvent } from '../domain/items';
import type { Holding } from './amulet';
import { withCreatedEventBlobs } from './blobs';
import { lazyProtobufItem } from './item';
import type { NetworkContext } from './context';
import { formatRecordTime } from './time-format';
import { protobufCreatedEvent, renderCreatedEvent } from './transaction';
import { CONSISTENT_OFFSET } from '../domain/update-rendering';

declare module './context' {
  interface Subsystems {
    readonly reassignments: Reassignments;
  }
}

/** Scan renders the offset of every reassignment as this constant (ScanHttpEncodings.makeConsistentAcrossSvs; docs/interfaces.md, "Scan: update history"). */

export class Reassignments {
  private pendingAssigns = 0;

  constructor(private readonly net: NetworkContext) {}

  /** True between an unassign and its assign; a hard migration waits for the assign. */
  inFlight(): boolean {
    return this.pendingAssigns > 0;
  }

  /** Moves a random amulet to the app synchronizer and schedules its return. */
  moveAway(): CanonicalItem | undefined {
    const net = this.net;
    const holding = net.wallets.randomHolding();
    if (!holding) return undefined;
    holding.away = true;
    const item = this.move(holding, net.who.globalSynchronizer, net.who.appSynchronizer);
    net.after(net.ticks(net.rng.int(1, 3)), () => this.move(holding, net.who.appSynchronizer, net.who.globalSynchronizer));
    return item;
  }

  /** The unassign now, the assign as the next step. */
  private move(holding: Holding, source: string, target: string): CanonicalItem {
    const net = this.net;
    const contract = net.ledger.get(holding.cid);
    contract.reassignmentCounter++;
    const unassignId = net.ids.hash();
    const event: UnassignEvent = {
      submitter: holding.owner,
      source_synchronizer: source,
      migration_id: net.migrationId,
      target_synchronizer: target,
      unassign_id: unassignId,
      reassignment_counter: contract.reassignmentCounter,
      contract_id: contract.contractId,
    };
    this.pendingAssigns++;
    net.soon(() => this.assign(holding, source, target, unassignId));
    return this.item({ update_id: net.ids.updateId(), offset: CONSISTENT_OFFSET, record_time: formatRecordTime(net.now), event });
  }

  private assign(holding: Holding, source: string, target: string, unassignId: string): CanonicalItem {
    const net = this.net;
    const contract = net.ledger.get(holding.cid);
    contract.synchronizerId = target;
    this.pendingAssigns--;
    if (target === net.who.globalSynchronizer) holding.away = false;
    const updateId = net.ids.updateId();
    const created = renderCreatedEvent(contract, `${updateId}:0`);
    const compact: ReassignmentUpdate = {
      update_id: updateId,
      offset: CONSISTENT_OFFSET,
      record_time: formatRecordTime(net.now),
      event: {
        submitter: holding.owner,
        source_synchronizer: source,
        target_synchronizer: target,
        migration_id: net.migrationId,
        unassign_id: unassignId,
        created_event: created,
        reassignment_counter: contract.reassignmentCounter,
      },
    };
    return withCreatedEventBlobs(
      lazyProtobufItem(compact, null, null, null, () => ({
        ...compact,
        event: { ...(compact.event as AssignEvent), created_event: protobufCreatedEvent(created, contract) },
      })),
    );
  }

  /** Reassignments have no mediator verdict of their own in Scan's event history. */
  private item(update: ReassignmentUpdate): CanonicalItem {
    // An unassignment carries no Daml value: both renderings are the same object.
    return { update, verdict: null, traffic_summary: null, app_activity_records: null, update_protobuf_json: update };
  }
}
