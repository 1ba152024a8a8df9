import type { CanonicalItem, TransactionUpdate, UnassignEvent } from '../../../src/domain/items';
import { sampleStream } from './fixtures';
import { checkStream } from './stream-checker';

const IMPORT_TIME = '0001-01-01T00:00:00.000000Z';

const isTx = (item: CanonicalItem): item is CanonicalItem & { update: TransactionUpdate } =>
  item.update !== null && 'events_by_id' in item.update;

/** A deep copy of the stream with one item changed, so the shared sample stays intact. */
function mutated(index: number, change: (item: CanonicalItem) => void): CanonicalItem[] {
  const items = [...sampleStream()];
  const copy = JSON.parse(JSON.stringify(items[index])) as CanonicalItem;
  change(copy);
  items[index] = copy;
  return items;
}

describe('simulated stream consistency (independent replay)', () => {
  it('has no violations', () => {
    const result = checkStream(sampleStream());
    expect(result.errors).toEqual([]);
    expect(result.migrations).toEqual([0, 1, 2]);
    expect(result.transactions).toBeGreaterThan(1700);
    expect(result.reassignments).toBeGreaterThan(20);
    expect(result.importUpdates).toBeGreaterThan(100);
    expect(result.rejected).toBeGreaterThan(5);
  });

  describe('the checker catches broken streams', () => {
    const items = sampleStream();

    it('a missing import update', () => {
      const i = items.findIndex((it) => isTx(it) && it.update.record_time === IMPORT_TIME);
      const broken = items.filter((_, j) => j !== i);
      expect(checkStream(broken).errors.join('\n')).toMatch(/not imported|not active/);
    });

    it('an import update that differs from the contract it carries over', () => {
      const i = items.findIndex((it) => isTx(it) && it.update.record_time === IMPORT_TIME);
      const broken = mutated(i, (it) => {
        const ev = Object.values((it.update as TransactionUpdate).events_by_id)[0];
        if (ev?.event_type === 'created_event') ev.created_at = '2020-01-01T00:00:00Z';
      });
      expect(checkStream(broken).errors.join('\n')).toMatch(/differs from the one that was active/);
    });

    it('a contract archived twice', () => {
      const i = items.findIndex(
        (it) => isTx(it) && Object.values(it.update.events_by_id).some((e) => e.event_type === 'exercised_event' && e.consuming),
      );
      const broken = [...items.slice(0, i + 1), items[i] as CanonicalItem, ...items.slice(i + 1)];
      expect(checkStream(broken).errors.join('\n')).toMatch(/not active|created twice|record time/);
    });

    it('events out of pre-order', () => {
      const i = items.findIndex(
        (it) => isTx(it) && it.update.root_event_ids.length === 1 && Object.keys(it.update.events_by_id).length > 3,
      );
      const broken = mutated(i, (it) => {
        const u = it.update as TransactionUpdate;
        const root = u.events_by_id[u.root_event_ids[0] as string];
        if (root?.event_type === 'exercised_event') root.child_event_ids.reverse();
      });
      expect(checkStream(broken).errors.join('\n')).toMatch(/pre-order position/);
    });

    it('a reassignment counter that does not increase', () => {
      const i = items.findIndex((it) => it.update !== null && 'event' in it.update && !('created_event' in it.update.event));
      const broken = mutated(i, (it) => {
        if (it.update && 'event' in it.update) (it.update.event as UnassignEvent).reassignment_counter = 0;
      });
      expect(checkStream(broken).errors.join('\n')).toMatch(/reassignment counter/);
    });

    it('record times that go back', () => {
      const i = items.findIndex((it, j) => j > 10 && isTx(it) && it.update.record_time !== IMPORT_TIME);
      const broken = mutated(i, (it) => {
        (it.update as TransactionUpdate).record_time = '2000-01-01T00:00:00.000000Z';
      });
      expect(checkStream(broken).errors.join('\n')).toMatch(/record time/);
    });
  });
});
