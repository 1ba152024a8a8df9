/**
 * The live stream's `party` and `template` filters, over SSE and WebSocket: catch-up from the database,
 * then live items ingested while the streams run, each compared with the /v0/events items filtered here,
 * from the items' own JSON (the parties and templates of their events, found by this test); the cursor
 * moving past the updates left out (a heartbeat's id); the filters' limits answered 400; the stakeholders
 * of a contract an update only consumes (an amulet the DSO expires) matched, whether the contract was
 * created in an earlier batch or the same one; and the backfill of the index over history stored before
 * it, resumed after an interruption.
 */
import type { CanonicalItem, TreeEvent } from '../../../src/domain/items';
import { backfillUpdateSubjects } from '../../../src/ingest/subject-backfill';
import { useTestDatabase } from '../../support/database/database';
import { DSO, transaction } from '../../support/items/hand-items';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { ingestThroughWorker, simulatedItems } from '../../support/items/simulated-network';
import { eventPages, FROM_THE_START, splitItems, STREAM } from '../../support/stream';
import { SseClient, WsClient } from '../../support/stream-clients';

interface ServedEvent {
  update: {
    update_id: string;
    migration_id: number;
    record_time: string;
    events_by_id?: Record<
      string,
      {
        contract_id: string;
        template_id: string;
        signatories?: string[];
        observers?: string[];
        acting_parties?: string[];
        consuming?: boolean;
      }
    >;
    event?: { submitter: string; created_event?: { template_id: string; signatories: string[]; observers: string[] } };
  } | null;
}

/** The signatories and observers of every contract the items create, by contract id (import updates too). */
function stakeholdersByContract(items: CanonicalItem[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const { update } of items) {
    const events = update && 'events_by_id' in update ? Object.values(update.events_by_id) : [];
    for (const e of events) if (e.event_type === 'created_event') out.set(e.contract_id, [...e.signatories, ...e.observers]);
    if (update && !('events_by_id' in update) && 'created_event' in update.event) {
      const c = update.event.created_event;
      out.set(c.contract_id, [...c.signatories, ...c.observers]);
    }
  }
  return out;
}

/**
 * The parties and templates of an item, read from its JSON as served, with the stakeholders of the
 * contracts its consuming exercises archive (their created events', from `stakeholders`).
 */
function namesOf(item: ServedEvent, stakeholders = new Map<string, string[]>()): { parties: Set<string>; templates: Set<string> } {
  const parties = new Set<string>();
  const templates = new Set<string>();
  const u = item.update;
  if (!u) return { parties, templates };
  const add = (list: string[] | undefined) => list?.forEach((p) => parties.add(p));
  for (const e of Object.values(u.events_by_id ?? {})) {
    templates.add(e.template_id);
    add(e.signatories);
    add(e.observers);
    add(e.acting_parties);
    if (e.consuming) add(stakeholders.get(e.contract_id));
  }
  if (u.event) {
    parties.add(u.event.submitter);
    if (u.event.created_event) {
      templates.add(u.event.created_event.template_id);
      add(u.event.created_event.signatories);
      add(u.event.created_event.observers);
    }
  }
  return { parties, templates };
}

const query = (filter: { party?: string[]; template?: string[] }) =>
  [
    ...(filter.party ?? []).map((p) => `party=${encodeURIComponent(p)}`),
    ...(filter.template ?? []).map((t) => `template=${encodeURIComponent(t)}`),
  ].join('&');

describe('GET /api/indexer/v0/stream/events with party and template filters', () => {
  const t = useTestDatabase();
  let items: CanonicalItem[];
  let stakeholders: Map<string, string[]>;
  let api: TestApi;

  beforeAll(async () => {
    items = simulatedItems({ seed: 'live-stream-filters', updates: 600, migrations: 2 });
    stakeholders = stakeholdersByContract(items);
    api = await startTestApi(t, { env: { STREAM_HEARTBEAT_SECONDS: '1', STREAM_PAGE_SIZE: '50' } });
  });
  afterAll(async () => {
    await api.close();
  });

  it('sends, caught up then live, exactly the items of /v0/events whose events name the parties and templates asked for', async () => {
    await ingestThroughWorker(t, items.slice(0, Math.floor(items.length * 0.5)));
    // The filters, chosen from the served items: a common party, a rare one, a template, and the two together.
    const first = await eventPages(api);
    const count = (pick: (n: ReturnType<typeof namesOf>) => Set<string>) => {
      const m = new Map<string, number>();
      for (const item of first.items as ServedEvent[]) for (const k of pick(namesOf(item, stakeholders))) m.set(k, (m.get(k) ?? 0) + 1);
      return [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    };
    const total = first.items.length;
    const parties = count((n) => n.parties);
    const templates = count((n) => n.templates);
    const common = parties.find(([, n]) => n < total / 3)![0];
    const rare = parties.find(([, n]) => n <= 5 && n >= 2)![0];
    const template = templates.find(([, n]) => n < total / 3 && n > 10)![0];
    const filters = [
      { party: [common] },
      { party: [rare, common] },
      { template: [template] },
      { party: [common], template: [template] },
      { party: [rare] },
    ];
    const sse = await Promise.all(filters.map((f) => SseClient.open(`${api.url}${STREAM}?after=${FROM_THE_START}&${query(f)}`)));
    const ws = await WsClient.connect(`${api.url}${STREAM}?after=${FROM_THE_START}&${query(filters[3]!)}`);

    const matches = (f: { party?: string[]; template?: string[] }, item: ServedEvent) => {
      const n = namesOf(item, stakeholders);
      return (!f.party || f.party.some((p) => n.parties.has(p))) && (!f.template || f.template.some((x) => n.templates.has(x)));
    };
    const expectedNow = (all: { texts: string[]; items: unknown[] }) => {
      const texts = all.texts.flatMap((page) => splitItems(page));
      return filters.map((f) => texts.filter((_, i) => matches(f, all.items[i] as ServedEvent)));
    };
    const caughtUp = expectedNow(first);
    for (const [i, s] of sse.entries()) await s.until((c) => c.items.length >= caughtUp[i]!.length, 30_000, `catch-up ${i}`);

    // Live: the rest, across the migration.
    await ingestThroughWorker(t, items);
    const all = await eventPages(api);
    const expected = expectedNow(all);
    for (const [i, s] of sse.entries()) await s.until((c) => c.items.length >= expected[i]!.length, 30_000, `live ${i}`);
    await ws.until((c) => c.items.length >= expected[3]!.length, 30_000, 'live over WebSocket');
    for (const [i, s] of sse.entries()) {
      expect(s.items.map((e) => e.data)).toEqual(expected[i]);
      // Something was left out, and something is sent, before and after the live part.
      expect(expected[i]!.length).toBeGreaterThan(caughtUp[i]!.length);
      expect(expected[i]!.length).toBeLessThan(all.items.length);
    }
    expect(ws.items.map((f) => f.item)).toEqual(expected[3]);
    expect(new Set(expected[0]!.map((e) => (JSON.parse(e) as ServedEvent).update!.migration_id)).size).toBe(2);

    // The rare party's stream moves its cursor past what it left out: a heartbeat names the newest update.
    const newest = (all.items as ServedEvent[]).filter((e) => e.update).pop()!.update!;
    const newestCursor = `${newest.migration_id}/${newest.record_time}/${newest.update_id}`;
    const rareStream = sse[4]!;
    if (rareStream.items[rareStream.items.length - 1]?.id !== newestCursor) {
      await rareStream.until((c) => c.events.some((e) => e.event === 'heartbeat' && e.id === newestCursor), 10_000, 'the heartbeat');
    }
    // Resumed there, it has nothing to send until something new names the party.
    const resumed = await SseClient.open(`${api.url}${STREAM}?${query(filters[4]!)}`, { 'Last-Event-ID': newestCursor });
    await resumed.until((c) => c.events.some((e) => e.event === 'heartbeat'), 10_000, 'a heartbeat');
    expect(resumed.items).toEqual([]);
    resumed.close();
    for (const s of sse) s.close();
    ws.close();
  }, 120_000);

  it('refuses an empty party or template, or too many, with 400', async () => {
    for (const q of ['party=', 'template=', Array.from({ length: 101 }, (_, i) => `party=p${i}`).join('&')]) {
      const res = await request(api.url, 'GET', `${STREAM}?${q}`);
      expect(res.status).toBe(400);
    }
  });
});

describe('the party filter on an update that only consumes a contract', () => {
  const t = useTestDatabase();
  const PKG = 'b'.repeat(64);
  const amulet = (updateId: string, owner: string, contractId: string): TreeEvent => ({
    event_type: 'created_event',
    event_id: `${updateId}:0`,
    contract_id: contractId,
    template_id: `${PKG}:Splice.Amulet:Amulet`,
    package_name: 'splice-amulet',
    create_arguments: { dso: DSO, owner, amount: { initialAmount: '1.0', createdAt: { number: '1' }, ratePerRound: { rate: '0.5' } } },
    created_at: '2025-01-01T00:00:00Z',
    signatories: [DSO, owner],
    observers: [],
  });
  // As the DSO's expiry of a dust amulet reads: the owner is nowhere in the event.
  const expire = (updateId: string, contractId: string): TreeEvent => ({
    event_type: 'exercised_event',
    event_id: `${updateId}:0`,
    contract_id: contractId,
    template_id: `${PKG}:Splice.Amulet:Amulet`,
    package_name: 'splice-amulet',
    choice: 'Amulet_Expire',
    choice_argument: {},
    child_event_ids: [],
    exercise_result: {},
    consuming: true,
    acting_parties: [DSO],
    interface_id: null,
  });
  const ALICE = 'alice::1220';
  const BOB = 'bob::1220';

  it("sends an amulet the DSO expires on its owner's stream, created in an earlier batch or in the same one, and the backfill indexes it alike", async () => {
    const api = await startTestApi(t, { env: { STREAM_HEARTBEAT_SECONDS: '1' } });
    try {
      const items = [
        transaction('u1', '2025-01-01T00:00:01.000000Z', [amulet('u1', ALICE, 'c-alice')]),
        transaction('u2', '2025-01-01T00:00:02.000000Z', [expire('u2', 'c-alice')]),
        transaction('u3', '2025-01-01T00:00:03.000000Z', [amulet('u3', BOB, 'c-bob')]),
        transaction('u4', '2025-01-01T00:00:04.000000Z', [expire('u4', 'c-bob')]),
      ];
      // Alice's amulet is stored before the batch that expires it; Bob's is created in that batch.
      await ingestThroughWorker(t, items.slice(0, 1));
      const alice = await SseClient.open(`${api.url}${STREAM}?after=${FROM_THE_START}&party=${encodeURIComponent(ALICE)}`);
      const bob = await SseClient.open(`${api.url}${STREAM}?after=${FROM_THE_START}&party=${encodeURIComponent(BOB)}`);
      await ingestThroughWorker(t, items);
      const texts = (await eventPages(api)).texts.flatMap((page) => splitItems(page));
      expect(texts.map((x) => (JSON.parse(x) as ServedEvent).update!.update_id)).toEqual(['u1', 'u2', 'u3', 'u4']);
      const newest = `0/2025-01-01T00:00:04.000000Z/u4`;
      const caughtUp = (c: SseClient) => c.items.length >= 2 || c.events.some((e) => e.event === 'heartbeat' && e.id === newest);
      await alice.until(caughtUp, 20_000, "alice's stream");
      await bob.until(caughtUp, 20_000, "bob's stream");
      expect(alice.items.map((e) => e.data)).toEqual([texts[0], texts[1]]);
      expect(bob.items.map((e) => e.data)).toEqual([texts[2], texts[3]]);
      alice.close();
      bob.close();

      const rows = async () =>
        (
          await t.pool.query<{ update_id: string; parties: string[] }>(
            'select update_id, parties from update_subjects order by record_time',
          )
        ).rows;
      const expected = [
        { update_id: 'u1', parties: [DSO, ALICE] },
        { update_id: 'u2', parties: [DSO, ALICE] },
        { update_id: 'u3', parties: [DSO, BOB] },
        { update_id: 'u4', parties: [DSO, BOB] },
      ];
      expect(await rows()).toEqual(expected);
      // The backfill, over the same history stored before the index, finds the same parties.
      await t.pool.query('delete from update_subjects');
      await t.pool.query(`insert into update_subjects_backfill (migration_id, record_time, synchronizer_id, update_id,
          end_migration_id, end_record_time, end_synchronizer_id, end_update_id)
        select -1, '0001-01-01 00:00:00+00', '', '', migration_id, record_time, synchronizer_id, update_id
        from updates order by record_time desc limit 1`);
      expect(await backfillUpdateSubjects(t.db, { pageSize: 2 })).toEqual({ updates: 4, rows: 4, finished: true });
      expect(await rows()).toEqual(expected);
    } finally {
      await api.close();
    }
  }, 60_000);
});

describe('scan-indexer backfill-stream-index', () => {
  const t = useTestDatabase();

  it('writes the rows the writer would have written for history stored before the index, resuming after an interruption', async () => {
    await ingestThroughWorker(t, simulatedItems({ seed: 'stream-index-backfill', updates: 300, migrations: 2 }));
    const rows = async () =>
      (
        await t.pool.query<{ k: string }>(
          `select migration_id || ' ' || record_time || ' ' || synchronizer_id || ' ' || update_id || ' ' || parties::text || ' ' || templates::text as k
           from update_subjects order by migration_id, record_time, synchronizer_id, update_id`,
        )
      ).rows.map((r) => r.k);
    const written = await rows();
    expect(written.length).toBeGreaterThan(250);
    // As before the index: no rows, and the backfill's end recorded as the migration records it.
    await t.pool.query('delete from update_subjects');
    await t.pool.query(`insert into update_subjects_backfill (migration_id, record_time, synchronizer_id, update_id,
        end_migration_id, end_record_time, end_synchronizer_id, end_update_id)
      select -1, '0001-01-01 00:00:00+00', '', '', migration_id, record_time, synchronizer_id, update_id
      from updates where record_time > '0001-01-01 00:00:00+00'
      order by migration_id desc, record_time desc, synchronizer_id desc, update_id desc limit 1`);
    const stop = new AbortController();
    const first = await backfillUpdateSubjects(t.db, { pageSize: 100, onProgress: () => stop.abort(), signal: stop.signal });
    expect(first).toEqual({ updates: 100, rows: expect.any(Number) as unknown, finished: false });
    const partial = await rows();
    expect(partial.length).toBeGreaterThan(0);
    expect(written.slice(0, partial.length)).toEqual(partial);
    const second = await backfillUpdateSubjects(t.db, { pageSize: 100 });
    expect(second.finished).toBe(true);
    expect(await rows()).toEqual(written);
    expect(await backfillUpdateSubjects(t.db)).toEqual({ updates: 0, rows: 0, finished: true });
  });
});
