/**
 * What the stream says about the network: the facts the API derives from it,
 * the workflows it must contain, and the size of its transactions.
 */

import {
  servedEventItem,
  updateMigrationId,
  type CanonicalItem,
  type CreatedEvent,
  type ExercisedEvent,
  type TransactionUpdate,
} from '../../../src/domain/items';
import { formatInstant, parseTimestamp } from '../../../src/domain/time';
import { generateItems } from '../../../src/simulator/index';
import { sampleStream } from './fixtures';

const IMPORT_TIME = '0001-01-01T00:00:00.000000Z';

function transactions(items: CanonicalItem[]): TransactionUpdate[] {
  return items.flatMap((it) => (it.update && 'events_by_id' in it.update && it.update.record_time !== IMPORT_TIME ? [it.update] : []));
}

function events(items: CanonicalItem[]): (CreatedEvent | ExercisedEvent)[] {
  return transactions(items).flatMap((u) => Object.values(u.events_by_id));
}

const entity = (templateId: string) => templateId.split(':')[2];

describe('the simulated network', () => {
  const items = sampleStream();

  it('averages between 6 and 10 events per update', () => {
    const updates = items.filter((it) => it.update !== null && !('record_time' in it.update && it.update.record_time === IMPORT_TIME));
    const eventCount = updates.reduce(
      (n, it) => n + (it.update && 'events_by_id' in it.update ? Object.keys(it.update.events_by_id).length : 1),
      0,
    );
    const average = eventCount / updates.length;
    expect(updates.length).toBe(2000);
    expect(average).toBeGreaterThanOrEqual(6);
    expect(average).toBeLessThanOrEqual(10);
  });

  it('contains every template and the workflows of the issue', () => {
    const all = events(items);
    const created = new Set(all.filter((e) => e.event_type === 'created_event').map((e) => entity(e.template_id)));
    for (const t of [
      'DsoRules',
      'AmuletRules',
      'AnsRules',
      'SvNodeState',
      'FeaturedAppRight',
      'OpenMiningRound',
      'SummarizingMiningRound',
      'IssuingMiningRound',
      'ClosedMiningRound',
      'Amulet',
      'LockedAmulet',
      'AnsEntry',
      'VoteRequest',
      'AmuletPriceVote',
    ]) {
      expect(created).toContain(t);
    }
    const choices = new Set(all.flatMap((e) => (e.event_type === 'exercised_event' ? [e.choice] : [])));
    for (const c of [
      'AmuletRules_Transfer',
      'LockedAmulet_Unlock',
      'LockedAmulet_OwnerExpireLock',
      'AnsEntry_Renew',
      'AnsEntry_Expire',
      'DsoRules_CastVote',
      'DsoRules_CloseVoteRequest',
      'AmuletRules_AdvanceOpenMiningRounds',
      'AmuletRules_MiningRound_StartIssuing',
      'AmuletRules_MiningRound_Close',
      'AmuletRules_MiningRound_Archive',
      'DsoRules_SetSynchronizerNodeConfig',
      'DsoRules_SetConfig',
      'DsoRules_UpdateAmuletPriceVote',
    ]) {
      expect(choices).toContain(c);
    }
  });

  it('keeps several open rounds active at once', () => {
    const open = new Set<string>();
    let most = 0;
    for (const e of events(items.filter((it) => it.update && 'migration_id' in it.update && it.update.migration_id === 0))) {
      if (entity(e.template_id) !== 'OpenMiningRound') continue;
      if (e.event_type === 'created_event') open.add(e.contract_id);
      else if (e.consuming) open.delete(e.contract_id);
      most = Math.max(most, open.size);
    }
    expect(most).toBeGreaterThanOrEqual(3);
  });

  it('lets whales hold far more than ordinary parties and archive many amulets', () => {
    const amulets = events(items).filter((e): e is CreatedEvent => e.event_type === 'created_event' && entity(e.template_id) === 'Amulet');
    const received = new Map<string, number>();
    for (const a of amulets) {
      const args = a.create_arguments as { owner: string; amount: { initialAmount: string } };
      received.set(args.owner, (received.get(args.owner) ?? 0) + Number(args.amount.initialAmount));
    }
    const sorted = [...received.values()].sort((x, y) => y - x);
    const median = sorted[Math.floor(sorted.length / 2)] as number;
    expect(sorted[0]).toBeGreaterThan(100 * median);
  });

  it('announces the scheduled upgrade in DsoRules and starts every migration with the DSO party unchanged', () => {
    const at = parseTimestamp('2025-06-01T12:00:00Z');
    const stream = [...generateItems({ seed: 7, updates: 800, migrations: 2, tickSeconds: 60, parties: 30, scheduledUpgradeAt: at })];
    const rules = events(stream).filter((e): e is CreatedEvent => e.event_type === 'created_event' && entity(e.template_id) === 'DsoRules');
    const schedules = rules.map(
      (r) => (r.create_arguments as { config: { nextScheduledSynchronizerUpgrade: unknown } }).config.nextScheduledSynchronizerUpgrade,
    );
    // Migration 0 schedules the upgrade to 1; migration 1 replaces it with the requested one to 2.
    expect(schedules).toContainEqual(expect.objectContaining({ migrationId: '1' }));
    expect(schedules[schedules.length - 1]).toEqual({ time: formatInstant(at), migrationId: '2' });
    const dsoParties = new Set(rules.map((r) => (r.create_arguments as { dso: string }).dso));
    expect(dsoParties.size).toBe(1);
    const lastUpdate = [...stream].reverse().find((it) => it.update !== null)?.update;
    expect(lastUpdate && updateMigrationId(lastUpdate)).toBe(1);
  });

  it('publishes a scan URL for every SV', () => {
    const nodeStates = events(items).filter(
      (e): e is CreatedEvent => e.event_type === 'created_event' && entity(e.template_id) === 'SvNodeState',
    );
    const urls = new Set(
      nodeStates.map((e) => {
        const nodes = (e.create_arguments as { state: { synchronizerNodes: [string, { scan: { publicUrl: string } | null }][] } }).state
          .synchronizerNodes;
        return nodes[0]?.[1].scan?.publicUrl;
      }),
    );
    expect(urls.size).toBe(4);
    for (const url of urls) expect(url).toMatch(/^https:\/\//);
  });

  it('serves an item in either encoding without the extra rendering', () => {
    const item = items.find((it) => it.update !== null && 'events_by_id' in it.update) as CanonicalItem;
    const compact = servedEventItem(item, 'compact_json');
    const protobuf = servedEventItem(item, 'protobuf_json');
    expect(Object.keys(compact)).toEqual(['update', 'verdict', 'traffic_summary', 'app_activity_records']);
    expect(compact.update).toBe(item.update);
    expect(protobuf.update).toBe(item.update_protobuf_json);
    expect(protobuf.verdict).toBe(item.verdict);
  });
});
