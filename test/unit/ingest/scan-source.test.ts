/**
 * The scan source against fake upstream Scans on real sockets: paging by
 * cursor across a migration boundary, both renderings, resuming, faults
 * (500, 429 with Retry-After, hanging answers, cut-off and truncated bodies,
 * 503 while backfilling), failover between URLs, live polling, bad input,
 * and the import updates that open a migration after a hard migration
 * (read from /v0/backfilling/import-updates, resumable, waited for while the
 * upstream is still backfilling them).
 */
import pino from 'pino';
import type { CanonicalItem, TransactionUpdate } from '../../../src/domain/items';
import type { Json } from '../../../src/domain/json';
import { IMPORT_RECORD_TIME_ISO } from '../../../src/domain/time';
import { HttpStatusError } from '../../../src/ingest/http-client';
import { SourceItemError, type Source, type SourceItem } from '../../../src/ingest/source';
import { createScanSource, type ScanSourceOptions } from '../../../src/ingest/sources/scan-source';
import { startFakeScan, type FakeScan } from '../../support/fakes/fake-scan';
import { refusedUrl, startFakeServer, type FakeServer } from '../../support/fakes/fake-server';
import { makeScanItems } from '../../support/fakes/scan-items';

const logger = pino({ level: 'silent' });
// 40 items in pages of 5: a page ends exactly at the last item of migration 0.
const ITEMS = makeScanItems(40);

/** An import update: the ACS carried into a migration, one create at record time 0001-01-01, in both renderings. */
function importItem(migrationId: number, n: number): CanonicalItem {
  const id = `1220ff${migrationId}${String(n).padStart(3, '0')}${'e'.repeat(58)}`;
  const render = (args: Json): TransactionUpdate => ({
    update_id: id,
    migration_id: migrationId,
    workflow_id: '',
    record_time: IMPORT_RECORD_TIME_ISO,
    synchronizer_id: 'global-domain::1220b1431ef217342db44d516bb9befde802be7d8899637d290895fa58880f19accc',
    effective_at: '0001-01-01T00:00:00Z',
    root_event_ids: [`${id}:0`],
    events_by_id: {
      [`${id}:0`]: {
        event_type: 'created_event',
        event_id: `${id}:0`,
        contract_id: `00${String(migrationId)}${String(n).padStart(63, '0')}`,
        template_id: '3ca1343ab26b453d38c8adb70dca5f1ead8440c42b59b68f070786955cbf9ec1:Splice.Amulet:Amulet',
        package_name: 'splice-amulet',
        create_arguments: args,
        created_at: '2025-03-10T13:00:00.5Z',
        signatories: ['DSO::1220d2'],
        observers: [],
      },
    },
  });
  return {
    update: render({ owner: `party-${n}`, amount: `${n}.0000000000` }),
    verdict: null,
    traffic_summary: null,
    app_activity_records: null,
    update_protobuf_json: render({ record: { fields: [{ value: { party: `party-${n}` } }, { value: { numeric: `${n}.0000000000` } }] } }),
  };
}

const byUpdateId = (a: CanonicalItem, b: CanonicalItem) => (a.update!.update_id < b.update!.update_id ? -1 : 1);
// Three import updates open migration 0, twelve migration 1 (listed out of id order: Scan serves them by id).
const IMPORTS_0 = [2, 0, 1].map((n) => importItem(0, n));
const IMPORTS_1 = [7, 3, 11, 0, 5, 9, 1, 10, 2, 8, 4, 6].map((n) => importItem(1, n));
const WITH_IMPORTS = [...IMPORTS_0, ...ITEMS.slice(0, 20), ...IMPORTS_1, ...ITEMS.slice(20)];
/** The order the source yields them in: each migration's imports by id, before its first event. */
const WITH_IMPORTS_ORDERED = [
  ...[...IMPORTS_0].sort(byUpdateId),
  ...ITEMS.slice(0, 20),
  ...[...IMPORTS_1].sort(byUpdateId),
  ...ITEMS.slice(20),
];

const sleeps: number[] = [];
/** Records the waits the client asks for but keeps the tests fast. */
const sleep = (ms: number, signal: AbortSignal) => {
  sleeps.push(ms);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.min(ms, 5),
    );
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

const eventsRequests = (scan: FakeScan) => scan.requests.filter((r) => r.path === '/api/scan/v0/events');

function positionOf(item: CanonicalItem): string {
  const update = item.update;
  if (update?.record_time === IMPORT_RECORD_TIME_ISO) {
    return JSON.stringify({
      migration_id: (update as TransactionUpdate).migration_id,
      record_time: update.record_time,
      after_import_update_id: update.update_id,
    });
  }
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
    const compactRequests = eventsRequests(scan).filter(
      (r) => (r.body as { daml_value_encoding: string }).daml_value_encoding === 'compact_json',
    );
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
      backfilling,
      backfilling,
      backfilling,
      backfilling,
      backfilling, // more than maxAttempts: a lone URL is waited on
      null,
      { status: 500 },
      null,
      { status: 429, headers: { 'retry-after': '1' }, body: { error: 'slow down' } },
      null,
      null,
      'hang',
      null,
      null,
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
    // The flaky one serves two pages (compact and protobuf requests each, and on entering migration 0
    // its migration-info and the two import-updates requests), then fails for good.
    flaky.faults = [null, null, null, null, null, null, null, ...Array.from({ length: 50 }, () => ({ status: 500 }))];
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
    backfilling.faults = Array.from({ length: 10 }, () => ({
      status: 503,
      body: { error: 'This scan instance has not yet loaded its updates history. Wait a short time and retry.' },
    }));
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
    expect(
      eventsRequests(scan).filter((r) => (r.body as { daml_value_encoding: string }).daml_value_encoding === 'protobuf_json'),
    ).toHaveLength(1);
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
    await expect(collect(scanSource([scan.url]))).rejects.toThrow(
      /POST http:\/\/127\.0\.0\.1:\d+\/api\/scan\/v0\/events: HTTP 400: .*Exceeded limit maximum/,
    );
    expect(scan.requests).toHaveLength(2);
  });

  describe('import updates after a hard migration', () => {
    it("reads each migration's import updates, by update id, before its first event", async () => {
      const scan = await start(WITH_IMPORTS);
      const got = await collect(scanSource([scan.url]));
      expectExactly(got, WITH_IMPORTS_ORDERED);
      // Converted from Scan's v1 item: no offset.
      expect(JSON.stringify(got[0]?.item.update)).not.toContain('"offset"');
      const imports = scan.requests.filter((r) => r.path === '/api/scan/v0/backfilling/import-updates');
      expect(imports.map((r) => r.body)).toEqual([
        { migration_id: 0, after_update_id: '', limit: 5, daml_value_encoding: 'compact_json' },
        { migration_id: 0, after_update_id: '', limit: 5, daml_value_encoding: 'protobuf_json' },
        ...[
          ['', 0],
          [IMPORTS_1.map((i) => i.update!.update_id).sort()[4]!, 0],
          [IMPORTS_1.map((i) => i.update!.update_id).sort()[9]!, 0],
        ].flatMap(([after]) => [
          { migration_id: 1, after_update_id: after, limit: 5, daml_value_encoding: 'compact_json' },
          { migration_id: 1, after_update_id: after, limit: 5, daml_value_encoding: 'protobuf_json' },
        ]),
      ]);
    });

    it('waits until the upstream holds all import updates of a migration', async () => {
      const scan = await start(WITH_IMPORTS);
      const infoRequests = () => scan.requests.filter((r) => r.path === '/api/scan/v0/backfilling/migration-info');
      // Complete from the fifth question on, however long each takes on a busy machine.
      Object.defineProperty(scan, 'importsComplete', { get: () => infoRequests().length > 4 });
      expectExactly(await collect(scanSource([scan.url])), WITH_IMPORTS_ORDERED);
      expect(infoRequests().length).toBeGreaterThan(3);
      expect(infoRequests().map((r) => r.body)).toContainEqual({ migration_id: 1 });
    });

    it('resumes inside the import updates, after the last one, and after any event', async () => {
      const scan = await start(WITH_IMPORTS);
      for (const index of [0, 2, 3, 22, 23, 27, 34, 35, 50]) {
        const from = positionOf(WITH_IMPORTS_ORDERED[index] as CanonicalItem);
        expectExactly(await collect(scanSource([scan.url]), from), WITH_IMPORTS_ORDERED.slice(index + 1));
      }
    });

    it('fetches the compact_json rendering by id from an upstream that answers import updates in protobuf_json only', async () => {
      const scan = await start(WITH_IMPORTS);
      scan.importsProtobufOnly = true;
      expectExactly(await collect(scanSource([scan.url])), WITH_IMPORTS_ORDERED);
      expect(scan.requests.filter((r) => r.method === 'GET').map((r) => r.path)).toEqual(
        [...IMPORTS_0, ...IMPORTS_1]
          .map((i) => i.update!.update_id)
          .sort()
          .map((id) => `/api/scan/v2/updates/${id}`),
      );
    });

    it('keeps only compact_json when told to', async () => {
      const scan = await start(WITH_IMPORTS);
      expectExactly(
        await collect(scanSource([scan.url], { encodings: ['compact_json'] })),
        WITH_IMPORTS_ORDERED.map(({ update_protobuf_json: _, ...compact }) => compact),
      );
    });

    it('refuses an import-updates answer that holds no import update of the migration', async () => {
      const upstream = await startFakeServer((request) =>
        request.path === '/api/scan/v0/events'
          ? { body: { events: [JSON.parse(JSON.stringify({ ...ITEMS[0], update_protobuf_json: undefined }))] } }
          : {
              body: {
                transactions: [
                  (request.body as { daml_value_encoding: string }).daml_value_encoding === 'compact_json'
                    ? ITEMS[0]!.update
                    : ITEMS[0]!.update_protobuf_json,
                ],
              },
            },
      );
      servers.push(upstream);
      await expect(collect(scanSource([upstream.url]))).rejects.toThrow(/not an import update of migration 0/);
    });
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
