/**
 * What the mediator and sequencer report about a transaction: the verdict
 * with its transaction views, the traffic it cost, and the app activity it
 * earned. Views follow the tree: one per root event, and a sub-view for each
 * nested exercise that has consequences of its own. Some submissions are
 * rejected: those are items with a verdict and no update.
 */

import type { AppActivityRecords, CanonicalItem, TrafficSummary, TransactionUpdate, TransactionView, Verdict } from '../domain/items';
import type { User } from './identities';
import type { NetworkContext, Submitter } from './context';
import { formatRecordTime } from './time-format';
import { sortedParties, type TxNode } from './transaction';

interface DraftView {
  readonly id: number;
  readonly informees: Set<string>;
  readonly confirming: readonly string[];
  readonly subViews: number[];
  events: number;
}

interface Views {
  readonly views: DraftView[];
  readonly rootViews: number[];
}

function buildViews(roots: readonly TxNode[]): Views {
  const views: DraftView[] = [];
  const open = (node: TxNode): DraftView => {
    const confirming =
      node.kind === 'create' ? node.contract.signatories : sortedParties([...node.actingParties, ...node.contract.signatories]);
    const view: DraftView = { id: views.length, informees: new Set(), confirming, subViews: [], events: 0 };
    views.push(view);
    add(view, node);
    return view;
  };
  const add = (view: DraftView, node: TxNode): void => {
    view.events++;
    for (const p of node.contract.signatories) view.informees.add(p);
    for (const p of node.contract.observers) view.informees.add(p);
    if (node.kind === 'create') return;
    for (const p of node.actingParties) view.informees.add(p);
    for (const child of node.children) {
      if (child.kind === 'exercise' && child.children.length > 0) view.subViews.push(open(child).id);
      else add(view, child);
    }
  };
  const rootViews = roots.map((r) => open(r).id);
  return { views, rootViews };
}

function toTransactionView(v: DraftView): TransactionView {
  return {
    view_id: v.id,
    informees: sortedParties(v.informees),
    confirming_parties: [{ parties: [...v.confirming], threshold: v.confirming.length }],
    sub_views: v.subViews,
    view_hash: '',
  };
}

/** One envelope per root view, costed by the events it carries. */
function trafficSummary(net: NetworkContext, views: Views): TrafficSummary {
  const envelopes = views.rootViews.map((rootId) => {
    const ids: number[] = [];
    let events = 0;
    const collect = (id: number) => {
      const v = views.views[id] as DraftView;
      ids.push(id);
      events += v.events;
      v.subViews.forEach(collect);
    };
    collect(rootId);
    return { traffic_cost: 1200 + 650 * events + net.rng.int(0, 399), view_ids: ids };
  });
  return { total_traffic_cost: envelopes.reduce((sum, e) => sum + e.traffic_cost, 0), envelope_traffic_summaries: envelopes };
}

export function acceptedVerdict(
  net: NetworkContext,
  update: TransactionUpdate,
  roots: readonly TxNode[],
  submitter: Submitter,
  featuredProvider: string | undefined,
): { verdict: Verdict; trafficSummary: TrafficSummary; appActivityRecords: AppActivityRecords | null } {
  const views = buildViews(roots);
  const traffic = trafficSummary(net, views);
  return {
    verdict: {
      update_id: update.update_id,
      migration_id: update.migration_id,
      domain_id: update.synchronizer_id,
      record_time: update.record_time,
      finalization_time: formatRecordTime(net.now + BigInt(net.rng.int(30_000, 450_000))),
      submitting_parties: sortedParties(submitter.parties),
      submitting_participant_uid: submitter.participant.uid,
      verdict_result: 'VERDICT_RESULT_ACCEPTED',
      mediator_group: 0,
      transaction_views: { views: views.views.map(toTransactionView), root_views: views.rootViews },
    },
    trafficSummary: traffic,
    appActivityRecords: featuredProvider
      ? { round_number: net.rounds.current().number, records: [{ party: featuredProvider, weight: traffic.total_traffic_cost }] }
      : null,
  };
}

/** A transaction the mediator rejected (say, a double spend): a verdict, traffic, and no update. */
export function rejectedItem(net: NetworkContext, user: User): CanonicalItem {
  const informees = sortedParties([net.who.dso, user.party]);
  const cost = 1200 + 650 * net.rng.int(2, 8) + net.rng.int(0, 399);
  return {
    update: null,
    verdict: {
      update_id: net.ids.updateId(),
      migration_id: net.migrationId,
      domain_id: net.who.globalSynchronizer,
      record_time: formatRecordTime(net.now),
      finalization_time: formatRecordTime(net.now + BigInt(net.rng.int(30_000, 450_000))),
      submitting_parties: [user.party],
      submitting_participant_uid: user.participant.uid,
      verdict_result: 'VERDICT_RESULT_REJECTED',
      mediator_group: 0,
      transaction_views: {
        views: [
          {
            view_id: 0,
            informees,
            confirming_parties: [{ parties: informees, threshold: informees.length }],
            sub_views: [],
            view_hash: '',
          },
        ],
        root_views: [0],
      },
    },
    traffic_summary: { total_traffic_cost: cost, envelope_traffic_summaries: [{ traffic_cost: cost, view_ids: [0] }] },
    app_activity_records: null,
  };
}
