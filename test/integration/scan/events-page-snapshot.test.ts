/**
 * A page of /v0/events (and of the live stream, which reads it the same way: listEvents) is read in
 * several statements: the updates after the cursor, the verdicts without an update, then their side data.
 * A batch the writer commits between the first two must not give a page that holds the batch's
 * verdict-only event without the batch's earlier update: the next page starts after the page's last
 * event, so that update would never be served. Here a batch is committed at exactly that moment (after
 * the first statement's answer, before the next statement), and the page must be the start of what is
 * served once the batch is in.
 */
import type { CanonicalItem } from '../../../src/domain/items';
import { itemKey } from '../../../src/domain/items';
import { listEvents, type EventRow } from '../../../src/store/update-repository';
import { useTestDatabase } from '../../support/database/database';
import { ingestThroughWorker, simulatedItems } from '../../support/items/simulated-network';

const idOf = (e: EventRow) => e.updateId;
const isVerdictOnly = (item: CanonicalItem) => item.update === null && item.verdict !== null;

describe('a page of events is read from one snapshot of the database', () => {
  const t = useTestDatabase();

  it("a batch committed between the page's statements is in it whole or not at all", async () => {
    const items = simulatedItems({ seed: 'events-page-snapshot', updates: 400, migrations: 1 });
    // A verdict-only event right after an update (a rejection after a transaction), past the first few items.
    const k = items.findIndex((item, i) => i > 20 && isVerdictOnly(item) && items[i - 1]!.update !== null && items[i - 2]!.update !== null);
    expect(k).toBeGreaterThan(20);
    const before = items.slice(0, k - 1);
    await ingestThroughWorker(t, before);

    // The cursor: the last event stored before the batch.
    const last = itemKey(before[before.length - 1]!)!;
    const after = { migrationId: last.migrationId, recordTime: last.recordTime };

    // Commits the update and the verdict-only event once the page's first statement has answered.
    let committed = false;
    const interleaved = t.db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        if (!committed) {
          committed = true;
          await ingestThroughWorker(t, items.slice(0, k + 1));
        }
        return args.result;
      },
    });
    const page = await listEvents(interleaved, after, 100, 'compact_json');
    expect(committed).toBe(true);

    const served = await listEvents(t.db, after, 100, 'compact_json');
    const update = items[k - 1]!.update!.update_id;
    const verdictOnly = items[k]!.verdict!.update_id;
    // Both are served once the batch is in, the update first.
    expect(served.map(idOf).slice(0, 2)).toEqual([update, verdictOnly]);
    // The page read across the commit is the start of that: neither, or both in order.
    expect(page.map(idOf)).toEqual(served.slice(0, page.length).map(idOf));
  });
});
