/**
 * The ledger source against a fake participant on a real socket: paging by
 * offset up to the ledger end, the request it sends (ledger-effects shape,
 * wildcard filter for the party, bearer token), resuming, faults (500, 409,
 * 503, hanging answers, cut-off and truncated bodies, an expired token),
 * live polling, the synchronizer filter and bad input.
 */
import pino from 'pino';
import { isTransaction, type TransactionUpdate } from '../../../src/domain/items';
import { HttpStatusError } from '../../../src/ingest/http-client';
import { SourceItemError, type Source, type SourceItem } from '../../../src/ingest/source';
import { convertUpdatesResponse } from '../../../src/ingest/sources/ledger-conversion';
import { createLedgerSource, type LedgerSourceOptions } from '../../../src/ingest/sources/ledger-source';
import {
  createdEventBlobOf,
  makeLedgerUpdates,
  offsetOf,
  PARTY,
  startFakeLedger,
  SYNC,
  type FakeLedger,
} from '../../support/fakes/fake-ledger';
import type { FakeServer } from '../../support/fakes/fake-server';

const logger = pino({ level: 'silent' });
const ELEMENTS = makeLedgerUpdates(30);

function ledgerSource(url: string, options: Partial<LedgerSourceOptions> = {}): Source {
  return createLedgerSource({
    url,
    token: 'secret',
    party: PARTY,
    migrationId: 3,
    pageSize: 4,
    pollIntervalMs: 10,
    stopAtEnd: true,
    logger,
    http: { baseDelayMs: 1, maxDelayMs: 5, timeoutMs: 300, maxAttempts: 3 },
    ...options,
  });
}

async function collect(source: Source, from?: string): Promise<SourceItem[]> {
  const out: SourceItem[] = [];
  for await (const item of source.read(from, new AbortController().signal)) out.push(item);
  return out;
}

/** What the source must yield for these stream elements: their updates, in offset order, each at its offset. */
function expected(elements: readonly unknown[]) {
  return elements.flatMap((element) => {
    const converted = convertUpdatesResponse(element, 3);
    if (converted.kind !== 'update') return [];
    return [
      {
        item: {
          update: converted.update,
          verdict: null,
          traffic_summary: null,
          app_activity_records: null,
          ...(converted.blobs ? { created_event_blobs: converted.blobs } : {}),
        },
        position: String(converted.offset),
      },
    ];
  });
}

function expectExactly(got: SourceItem[], elements: readonly unknown[]): void {
  expect(JSON.stringify(got.map(({ item, position }) => ({ item, position })))).toBe(JSON.stringify(expected(elements)));
}

describe('ledger source', () => {
  const servers: FakeServer[] = [];
  const start = async (elements: readonly unknown[] = ELEMENTS, end?: number): Promise<FakeLedger> => {
    const fake = await startFakeLedger(elements, end);
    servers.push(fake);
    return fake;
  };
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('pages from the ledger begin to the ledger end and yields every transaction and reassignment', async () => {
    const ledger = await start();
    const got = await collect(ledgerSource(ledger.url));
    expectExactly(got, ELEMENTS);
    expect(got).toHaveLength(25);
    // The participant's created-event blobs travel with the items that create the contracts.
    const tx = got.find((g) => g.item.update && isTransaction(g.item.update))!.item;
    const created = Object.values((tx.update as TransactionUpdate).events_by_id).filter((e) => e.event_type === 'created_event');
    expect(tx.created_event_blobs).toEqual(Object.fromEntries(created.map((e) => [e.contract_id, createdEventBlobOf(e.contract_id)])));
    expect(got[0]?.origin).toBe(`${ledger.url}/v2/updates offset 100`);

    const [first, second] = ledger.requests;
    expect(first).toMatchObject({ method: 'GET', path: '/v2/state/ledger-end', headers: { authorization: 'Bearer secret' } });
    expect(second?.path).toBe('/v2/updates');
    expect(second?.query.get('limit')).toBe('4');
    const wildcard = {
      filtersByParty: {
        [PARTY]: { cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: true } } } }] },
      },
      verbose: false,
    };
    expect(second?.body).toEqual({
      beginExclusive: 0,
      endInclusive: 189,
      updateFormat: {
        includeTransactions: { eventFormat: wildcard, transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' },
        includeReassignments: wildcard,
      },
    });
    // Each page starts after the last element of the one before, checkpoints and topology included.
    const begins = ledger.requests
      .filter((r) => r.path === '/v2/updates')
      .map((r) => (r.body as { beginExclusive: number }).beginExclusive);
    expect(begins).toEqual([0, 109, 121, 133, 145, 157, 169, 181]);
  });

  it('resumes after any position', async () => {
    const ledger = await start();
    const all = await collect(ledgerSource(ledger.url));
    for (const index of [0, 3, 11, 23]) {
      const from = all[index]?.position as string;
      const rest = await collect(ledgerSource(ledger.url), from);
      expectExactly(
        rest,
        ELEMENTS.filter((e) => offsetOf(e) > Number(from)),
      );
    }
    expect(await collect(ledgerSource(ledger.url), all.at(-1)?.position)).toEqual([]);
  });

  it('rides out 500s, 409s, 503s, hanging answers, cut-off and truncated bodies', async () => {
    const ledger = await start();
    ledger.faults = [
      { status: 503, body: { code: 'SERVICE_NOT_RUNNING' } },
      null,
      { status: 500 },
      'hang',
      null,
      'cut',
      'truncate',
      null,
      { status: 409, body: { code: 'ABORTED_DUE_TO_SHUTDOWN' } },
      'cut',
      'hang',
      { status: 500 },
      null,
      'cut',
    ];
    expectExactly(await collect(ledgerSource(ledger.url)), ELEMENTS);
    expect(ledger.faults).toEqual([]);
  });

  it('asks a token provider before every request and retries when the token has just expired', async () => {
    const ledger = await start();
    let issued = 0;
    const token = async () => `token-${++issued}`;
    ledger.acceptToken = (t) => t !== undefined && t !== 'token-1';
    expectExactly(await collect(ledgerSource(ledger.url, { token })), ELEMENTS);
    expect(issued).toBe(ledger.requests.length);
  });

  it('fails at once when a fixed token is refused', async () => {
    const ledger = await start();
    ledger.acceptToken = () => false;
    await expect(collect(ledgerSource(ledger.url))).rejects.toThrow(HttpStatusError);
    expect(ledger.requests).toHaveLength(1);
  });

  it('polls the ledger end when live, and ends when aborted', async () => {
    const ledger = await start(ELEMENTS, 130);
    const abort = new AbortController();
    const got: SourceItem[] = [];
    const wanted = expected(ELEMENTS);
    for await (const item of ledgerSource(ledger.url, { stopAtEnd: false }).read(undefined, abort.signal)) {
      got.push(item);
      if (item.position === '127') setTimeout(() => (ledger.end = 160), 30);
      if (item.position === '157') setTimeout(() => abort.abort(), 30);
    }
    expect(JSON.stringify(got.map(({ item, position }) => ({ item, position })))).toBe(
      JSON.stringify(wanted.filter((w) => Number(w.position) <= 157)),
    );
    expect(ledger.requests.filter((r) => r.path === '/v2/state/ledger-end').length).toBeGreaterThan(2);
  });

  it('keeps only updates on the configured synchronizer', async () => {
    const ledger = await start();
    const got = await collect(ledgerSource(ledger.url, { synchronizer: SYNC }));
    const onSync = ELEMENTS.filter((e) => {
      const c = convertUpdatesResponse(e, 3);
      return c.kind === 'update' && (!isTransaction(c.update) || c.update.synchronizer_id === SYNC);
    });
    expectExactly(got, onSync);
    expect(got.length).toBe(20);
  });

  it('stops with an error naming the offset and update of a malformed element', async () => {
    const broken = JSON.parse(JSON.stringify(ELEMENTS.slice(0, 8)));
    broken[6].update.Transaction.value.events[2].CreatedEvent.createdAt = 'soon';
    const ledger = await start(broken);
    const error = await collect(ledgerSource(ledger.url)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceItemError);
    expect((error as SourceItemError).message).toBe(
      `${ledger.url}/v2/updates after offset 115 (update ${broken[6].update.Transaction.value.updateId}): update.Transaction.value.events[2].CreatedEvent.createdAt: expected an ISO 8601 timestamp, got "soon"`,
    );
  });

  it('refuses a checkpoint past the ledger end', async () => {
    const ledger = await start();
    await expect(collect(ledgerSource(ledger.url), '5000')).rejects.toThrow(/Checkpoint offset 5000 is after the ledger end 189/);
    await expect(collect(ledgerSource(ledger.url), 'abc')).rejects.toThrow(/Invalid ledger checkpoint 'abc'/);
  });
});
