/**
 * Subscribers at the live edge share their reads (src/api/indexer/shared-reads.ts): after a commit,
 * a dozen subscribers at the same cursor make about the database queries one subscriber makes, not a
 * dozen times as many, and each still gets every item once, byte for byte as /v0/events serves it.
 * The queries are counted as the query metrics count them (by repository operation: listUpdates, which
 * every read of events makes), less those of the test's own /v0/events pages.
 */
import type { CanonicalItem } from '../../../src/domain/items';
import { observeQueries } from '../../../src/store/pool';
import { useTestDatabase } from '../../support/database/database';
import { startTestApi, type TestApi } from '../../support/http/http';
import { ingestThroughWorker, simulatedItems } from '../../support/items/simulated-network';
import { SseClient } from '../../support/stream-clients';
import { eventPages, FROM_THE_START, STREAM } from '../../support/stream';

/** listEvents reads its updates through listUpdates, the innermost named operation: the queries counted. */
const UPDATE_READS = 'listUpdates';
const SUBSCRIBERS = 12;

describe('live-stream subscribers at one cursor share their reads', () => {
  const t = useTestDatabase();
  let items: CanonicalItem[];
  let api: TestApi;
  let updateReads = 0;

  beforeAll(async () => {
    // The test server reads through the test's Db: its queries are observed as the service's metrics observe them.
    observeQueries(t.db, (operation) => {
      if (operation === UPDATE_READS) updateReads++;
    });
    items = simulatedItems({ seed: 'shared-reads', updates: 900, migrations: 1 });
    api = await startTestApi(t, { env: { STREAM_HEARTBEAT_SECONDS: '60' } });
  });
  afterAll(async () => api.close());

  /** Ingests up to `end` (a share of the items) while `clients` wait at the live edge; the listEvents queries it took. */
  async function liveQueries(clients: SseClient[], end: number): Promise<number> {
    const before = updateReads;
    await ingestThroughWorker(t, items.slice(0, Math.floor(items.length * end)));
    const beforePages = updateReads;
    const expected = (await eventPages(api)).items.length;
    const pages = updateReads - beforePages;
    for (const c of clients) await c.until((s) => s.items.length >= expected, 30_000, 'live items');
    return updateReads - before - pages;
  }

  it('a dozen subscribers cost about the queries of one, and each gets every item once', async () => {
    await ingestThroughWorker(t, items.slice(0, Math.floor(items.length * 0.4)));
    const stored = (await eventPages(api)).items.length;
    const open = async () => {
      const c = await SseClient.open(`${api.url}${STREAM}?after=${FROM_THE_START}`);
      expect(c.status).toBe(200);
      await c.until((s) => s.items.length >= stored, 30_000, 'catch-up');
      return c;
    };

    const one = [await open()];
    const alone = await liveQueries(one, 0.7);
    const many = [...one, ...(await Promise.all(Array.from({ length: SUBSCRIBERS - 1 }, open)))];
    const shared = await liveQueries(many, 1);
    for (const c of many) c.close();

    // The two phases ingest about as many batches. Reading on its own, each subscriber would make at
    // least the queries of one per wake-up: SUBSCRIBERS times as many.
    expect(alone).toBeGreaterThan(0);
    expect({ alone, shared, below: shared < alone * 4 }).toEqual({ alone, shared, below: true });

    const all = await eventPages(api, 'compact_json');
    const texts = all.items.map((item) => JSON.stringify(item));
    for (const c of many) {
      expect(new Set(c.items.map((e) => e.id)).size).toBe(c.items.length);
      // The same items in the same order; the stream sends each as /v0/events renders it.
      expect(c.items.map((e) => JSON.stringify(JSON.parse(e.data)))).toEqual(texts);
    }
  });
});
