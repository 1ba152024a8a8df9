/**
 * A page of /v0/events (and of the live stream, which reads it the same way: listEvents) is read in
 * several statements: the updates after the cursor, the verdicts without an update, then their side data.
 * A batch the writer commits between the first two must not give a page that holds the batch's
 * verdict-only event without the batch's earlier update: the next page starts after the page's last
 * event, so that update would never be served. Here a batch is committed at exactly that moment (after
 * the first statement's answer, before the next statement), and another one the same way when the page
 * is read again (as it is when a verdict-only event may be from such a batch); the page must be the start of what is served
 * once both are in.
 */
import type { CanonicalItem } from '../../../src/domain/items';
import { itemKey } from '../../../src/domain/items';
import { observeQueries } from '../../../src/store/pool';
import { listEvents, type EventRow } from '../../../src/store/update-repository';
import { useTestDatabase } from '../../support/database/database';
import { ingestThroughWorker, simulatedItems } from '../../support/items/simulated-network';

const idOf = (e: EventRow) => e.updateId;
const isVerdictOnly = (item: CanonicalItem) => item.update === null && item.verdict !== null;

describe('a page of events is read from one snapshot of the database', () => {
  const t = useTestDatabase();
  const items = simulatedItems({ seed: 'events-page-snapshot', updates: 600, migrations: 1 });

  it("a batch committed between the page's statements is in it whole or not at all", async () => {
    // Verdict-only events right after two updates (a rejection after transactions), past the first few items.
    const pairs = items.flatMap((item, i) =>
      i > 20 && isVerdictOnly(item) && items[i - 1]!.update !== null && items[i - 2]!.update !== null ? [i] : [],
    );
    expect(pairs.length).toBeGreaterThanOrEqual(2);
    const [k, k2] = [pairs[0]!, pairs[1]!];
    await ingestThroughWorker(t, items.slice(0, k - 1));

    // The cursor: just before the last update stored, which the page's first statement then reads.
    const last = itemKey(items[k - 3]!)!;
    const after = { migrationId: last.migrationId, recordTime: last.recordTime };

    // After the first statement's answer: the update and the verdict-only event at k. After the third (the
    // first of the page read again): everything up to the next verdict-only event, k2.
    let statements = 0;
    const interleaved = t.db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        statements += 1;
        if (statements === 1) await ingestThroughWorker(t, items.slice(0, k + 1));
        if (statements === 3) await ingestThroughWorker(t, items.slice(0, k2 + 1));
        return args.result;
      },
    });
    const page = await listEvents(interleaved, after, 1000, 'compact_json');
    expect(statements).toBeGreaterThanOrEqual(3);

    const served = await listEvents(t.db, after, 1000, 'compact_json');
    const ids = (from: number, to: number) => items.slice(from, to).map((i) => i.update?.update_id ?? i.verdict!.update_id);
    // The update stored before, then both batches, once they are in.
    expect(served.map(idOf)).toEqual(ids(k - 2, k2 + 1));
    // The page read across the commits is the start of that, and has at least the first batch.
    expect(page.map(idOf)).toEqual(served.slice(0, page.length).map(idOf));
    expect(page.length).toBeGreaterThanOrEqual(3);
  });

  it('reads a full page with verdict-only events inside it once (catch-up and paging pay nothing more)', async () => {
    let updateReads = 0;
    observeQueries(t.db, (operation) => {
      if (operation === 'listUpdates') updateReads += 1;
    });
    // Every item (those stored already are skipped).
    await ingestThroughWorker(t, items);
    const all = await listEvents(t.db, undefined, 1000, 'compact_json');
    const verdictAt = all.findIndex((e, i) => i > 0 && e.update === undefined && all[i + 1]?.update !== undefined);
    expect(verdictAt).toBeGreaterThan(0);
    updateReads = 0;
    // A page that ends with an update, after a verdict-only event.
    const page = await listEvents(t.db, undefined, verdictAt + 2, 'compact_json');
    expect({ ids: page.map(idOf), updateReads }).toEqual({ ids: all.slice(0, verdictAt + 2).map(idOf), updateReads: 1 });
  });
});
