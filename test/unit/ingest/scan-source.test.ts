/**
 * The scan source against fake upstream Scans on real sockets: paging by
 * cursor across a migration boundary, both renderings, resuming, faults
 * (500, 429 with Retry-After, hanging answers, cut-off and truncated bodies,
 * 503 while backfilling), failover between URLs, live polling and bad input.
 */
import pino from 'pino';
import type { CanonicalItem } from '../../../src/domain/items';
import { HttpStatusError } from '../../../src/ingest/http-client';
import { SourceItemError, type Source, type SourceItem } from '../../../src/ingest/source';
import { createScanSource, type ScanSourceOptions } from '../../../src/ingest/sources/scan-source';
import { startFakeScan, type FakeScan } from './support/fake-scan';
import { refusedUrl, startFakeServer, type FakeServer } from './support/fake-server';
import { makeScanItems } from './support/scan-items';

const logger = pino({ level: 'silent' });
// 40 items in pages of 5: a page ends exactly at the last item of migration 0.
const ITEMS = makeScanItems(40);

const sleeps: number[] = [];
/** Records the waits the client asks for but keeps the tests fast. */
const sleep = (ms: number, signal: AbortSignal) => {
  sleeps.push(ms);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, Math.min(ms, 5));
    signal.addEventListener('abort', onAbort, { once: true });
  });
};

function scanSource(urls: string[], options: Partial<ScanSourceOptions> = {}): Source {
  return createScanSource({
    urls,
    pageSize: 5,
    stopAtEnd: true,
    pollIntervalMs: 10,
    logger,
    http: { baseDelayMs: 1, maxDelayMs: 20, timeoutMs: 300, maxAttempts: 3, sleep },
    ...options,
  });
}

async function collect(source: Source, from?: string): Promise<SourceItem[]> {
  const out: SourceItem[] = [];
  for await (const item of source.read(from, new AbortController().signal)) out.push(item);
  return out;
}

function positionOf(item: CanonicalItem): string {
  const update = item.update;
  if (update) {
    const migrationId = 'events_by_id' in update ? update.migration_id : update.event.migration_id;
    return JSON.stringify({ migration_id: migrationId, record_time: update.record_time });
  }
  if (!item.verdict) throw new Error('item without update or verdict');
  return JSON.stringify({ migration_id: item.verdict.migration_id, record_time: item.verdict.record_time });
}

/** Exactly these items, in this order, each once, with their keys in order too. */
function expectExactly(got: SourceItem[], expected: readonly CanonicalItem[]): void {
  expect(got.map((g) => g.item.update?.update_id ?? g.item.verdict?.update_id)).toEqual(
    expected.map((e) => e.update?.update_id ?? e.verdict?.update_id),
  );
  expect(JSON.stringify(got.map((g) => g.item))).toBe(JSON.stringify(expected));
  expect(got.map((g) => g.position)).toEqual(expected.map(positionOf));
}

describe('scan source', () => {
  const servers: FakeServer[] = [];
  const start = async (items: readonly CanonicalItem[] = ITEMS): Promise<FakeScan> => {
    const fake = await startFakeScan(items);
    servers.push(fake);
    return fake;
  };
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
    sleeps.length = 0;
  });

  it('yields exactly the upstream items in order, in both renderings, across pages and migrations', async () => {
    const scan = await start();
    const got = await collect(scanSource([scan.url]));
    expectExactly(got, ITEMS);
    // Migration 1 starts at migration 0's first record time and is still read in full after the migration-0 cursor.
    expect(got[20]?.position).toBe(JSON.stringify({ migration_id: 1, record_time: '2025-03-10T14:00:00.000001Z' }));
    const compactRequests = scan.requests.filter((r) => (r.body as { daml_value_encoding: string }).daml_value_encoding === 'compact_json');
    expect(compactRequests[0]?.body).toEqual({ page_size: 5, daml_value_encoding: 'compact_json' });
    expect(compactRequests[4]?.body).toEqual({
      page_size: 5,
      after: { after_migration_id: 0, after_record_time: '2025-03-10T14:00:00.019008Z' },
      daml_value_encoding: 'compact_json',
    });
    // Eight full pages and the empty one that ends the stream.
    expect(compactRequests).toHaveLength(9);
  });

  it('resumes after any position', async () => {
    const scan = await start();
    for (const index of [0, 4, 17, 19, 38, 39]) {
      const from = positionOf(ITEMS[index] as CanonicalItem);
      expectExactly(await collect(scanSource([scan.url]), from), ITEMS.slice(index + 1));
    }
  });

  it('rides out 500s, 429 with Retry-After, hanging answers, cut-off and truncated bodies, and 503 while backfilling', async () => {
    const scan = await start();
    const backfilling = {
      status: 503,
      body: {
        error:
          'This scan instance has not yet replicated all data. This process can take an extended period of time to complete. Wait until replication is complete, or connect to a different scan instance.',
      },
    };
    scan.faults = [
      backfilling, backfilling, backfilling, backfilling, backfilling, // more than maxAttempts: a lone URL is waited on
      null,
      { status: 500 },
      null,
      { status: 429, headers: { 'retry-after': '1' }, body: { error: 'slow down' } },
      null, null,
      'hang',
      null, null,
      'cut',
      null,
      'truncate',
      null,
      { status: 502 },
      'cut',
      'hang',
    ];
    const got = await collect(scanSource([scan.url]));
    expectExactly(got, ITEMS);
    expect(scan.faults).toEqual([]);
    expect(sleeps).toContain(1000);
  });

  it('fails over to the next URL when one is down, keeping the cursor', async () => {
    const down = await refusedUrl();
    const flaky = await start();
    const healthy = await start();
    // The flaky one serves two pages (compact and protobuf requests each), then fails for good.
    flaky.faults = [null, null, null, null, ...Array.from({ length: 50 }, () => ({ status: 500 }))];
    const got = await collect(scanSource([flaky.url, healthy.url, down]));
    expectExactly(got, ITEMS);
    expect(healthy.requests[0]?.body).toEqual({
      page_size: 5,
      after: { after_migration_id: 0, after_record_time: ITEMS[9]?.update?.record_time ?? ITEMS[9]?.verdict?.record_time },
      daml_value_encoding: 'compact_json',
    });

    expectExactly(await collect(scanSource([down, healthy.url])), ITEMS);
  });

  it('with several URLs, moves on from one that is still backfilling', async () => {
    const backfilling = await start();
    const complete = await start();
    backfilling.faults = Array.from({ length: 10 }, () => ({ status: 503, body: { error: 'This scan instance has not yet loaded its updates history. Wait a short time and retry.' } }));
    expectExactly(await collect(scanSource([backfilling.url, complete.url])), ITEMS);
    expect(backfilling.requests).toHaveLength(3);
  });

  it('polls for new items when live, and ends when aborted', async () => {
    const scan = await start();
    scan.visible = 12;
    const abort = new AbortController();
    const got: SourceItem[] = [];
    const reading = (async () => {
      for await (const item of scanSource([scan.url], { stopAtEnd: false }).read(undefined, abort.signal)) {
        got.push(item);
        if (got.length === 12) setTimeout(() => (scan.visible = 31), 30);
        if (got.length === 31) setTimeout(() => abort.abort(), 30);
      }
    })();
    await reading;
    expectExactly(got, ITEMS.slice(0, 31));
    // It kept asking after the last item it had while nothing new came.
    const last = scan.requests.at(-1)?.body as { after: { after_record_time: string } };
    expect(JSON.parse(positionOf(ITEMS[30] as CanonicalItem)).record_time).toBe(last.after.after_record_time);
  });

  it('leaves update_protobuf_json absent when the upstream refuses protobuf_json', async () => {
    const scan = await start();
    scan.protobufStatus = 400;
    const got = await collect(scanSource([scan.url]));
    expectExactly(
      got,
      ITEMS.map(({ update_protobuf_json: _, ...compact }) => compact),
    );
    // Asked once, then not again.
    expect(scan.requests.filter((r) => (r.body as { daml_value_encoding: string }).daml_value_encoding === 'protobuf_json')).toHaveLength(1);
  });

  it('fetches only compact_json when told to', async () => {
    const scan = await start();
    const got = await collect(scanSource([scan.url], { encodings: ['compact_json'] }));
    expectExactly(
      got,
      ITEMS.map(({ update_protobuf_json: _, ...compact }) => compact),
    );
  });

  it('fails at once on a client error, with the upstream message', async () => {
    const scan = await start();
    scan.faults = [{ status: 400, body: { error: 'Exceeded limit maximum (5000 > 1000).' } }];
    await expect(collect(scanSource([scan.url]))).rejects.toThrow(HttpStatusError);
    scan.faults = [{ status: 400, body: { error: 'Exceeded limit maximum (5000 > 1000).' } }];
    await expect(collect(scanSource([scan.url]))).rejects.toThrow(/POST http:\/\/127\.0\.0\.1:\d+\/api\/scan\/v0\/events: HTTP 400: .*Exceeded limit maximum/);
    expect(scan.requests).toHaveLength(2);
  });

  describe('bad input', () => {
    const page = (events: unknown[]) => startFakeServer(() => ({ body: { events } })).then((s) => (servers.push(s), s));
    const served = (i: number) => JSON.parse(JSON.stringify({ ...ITEMS[i], update_protobuf_json: undefined }));

    it('names the URL, cursor, element and field of a malformed item', async () => {
      const broken = served(3);
      broken.update.record_time = 'yesterday';
      const upstream = await page([served(1), served(2), broken]);
      const from = positionOf(ITEMS[0] as CanonicalItem);
      const error = await collect(scanSource([upstream.url]), from).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SourceItemError);
      expect((error as SourceItemError).message).toBe(
        `${upstream.url}/api/scan/v0/events after ${from}, element 2 (update ${ITEMS[3]?.update?.update_id}): item.update.record_time: expected an ISO 8601 timestamp, got "yesterday"`,
      );
    });

    it('refuses an item that is not after the one before', async () => {
      const upstream = await page([served(1), served(3), served(2)]);
      await expect(collect(scanSource([upstream.url]))).rejects.toThrow(/element 2 .*is not after/);
    });

    it('refuses an answer that is not a /v0/events page', async () => {
      const upstream = await startFakeServer(() => ({ body: { transactions: [] } }));
      servers.push(upstream);
      await expect(collect(scanSource([upstream.url]))).rejects.toThrow(SourceItemError);
    });

    it('refuses a checkpoint it did not write', async () => {
      await expect(collect(scanSource(['http://127.0.0.1:1']), '42')).rejects.toThrow(/Invalid scan checkpoint '42'/);
    });
  });
});
