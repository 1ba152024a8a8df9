/**
 * The live stream's `activity` filter, over SSE and WebSocket: catch-up from the database, then live
 * items ingested across a migration while the streams run, each compared with the /v0/events items
 * whose update has an activities row of the kinds asked for (read here with SQL, not through the code
 * under test); combined with `party` by AND; an unknown kind answered 400.
 */
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { ingestThroughWorker, simulatedItems } from '../../support/items/simulated-network';
import { eventPages, FROM_THE_START, splitItems, STREAM } from '../../support/stream';
import { SseClient, WsClient } from '../../support/stream-clients';
import type { CanonicalItem } from '../../../src/domain/items';

type Served = { update: { update_id: string; migration_id: number } | null };
type Named = {
  update: {
    events_by_id?: Record<string, { signatories?: string[]; observers?: string[]; acting_parties?: string[] }>;
    event?: { submitter: string; created_event?: { signatories: string[]; observers: string[] } };
  } | null;
};

/** The parties an item's events name (stakeholders, acting parties, a reassignment's submitter), from its JSON. */
function partiesOf(item: Named): Set<string> {
  const out = new Set<string>();
  const add = (list: string[] | undefined) => list?.forEach((p) => out.add(p));
  for (const e of Object.values(item.update?.events_by_id ?? {})) {
    add(e.signatories);
    add(e.observers);
    add(e.acting_parties);
  }
  if (item.update?.event) {
    out.add(item.update.event.submitter);
    add(item.update.event.created_event?.signatories);
    add(item.update.event.created_event?.observers);
  }
  return out;
}

describe('GET /api/indexer/v0/stream/events with the activity filter', () => {
  const t = useTestDatabase();
  let items: CanonicalItem[];
  let api: TestApi;

  beforeAll(async () => {
    items = simulatedItems({ seed: 'live-stream-activity', updates: 600, migrations: 2 });
    api = await startTestApi(t, { env: { STREAM_HEARTBEAT_SECONDS: '1', STREAM_PAGE_SIZE: '50' } });
  });
  afterAll(async () => {
    await api.close();
  });

  /** The update ids with an activities row of one of `kinds`. */
  const updatesWith = async (kinds: string[]) =>
    new Set(
      (
        await t.pool.query<{ update_id: string }>('select distinct update_id from activities where kind = any($1::text[])', [kinds])
      ).rows.map((r) => r.update_id),
    );

  it('sends, caught up then live, exactly the items of /v0/events with activities of the kinds asked for', async () => {
    await ingestThroughWorker(t, items.slice(0, Math.floor(items.length * 0.5)));
    const counts = (
      await t.pool.query<{ kind: string; n: number }>(
        'select kind, count(distinct update_id)::int as n from activities group by kind order by n desc, kind',
      )
    ).rows;
    const first = await eventPages(api);
    const total = first.items.length;
    const common = counts.find((c) => c.n < total / 3)!.kind;
    const rare = counts.filter((c) => c.kind !== common && c.n >= 2).pop()!.kind;
    // A party with activities of the common kind, in some but not all of them.
    const { rows: partyRows } = await t.pool.query<{ party: string }>(
      `select party from activities where kind = $1 group by party order by count(distinct update_id) desc, party limit 1 offset 1`,
      [common],
    );
    const party = partyRows[0]!.party;
    const filters: { activity: string[]; party?: string }[] = [
      { activity: [common] },
      { activity: [rare, common] },
      { activity: [common], party },
    ];
    const qs = (f: { activity: string[]; party?: string }) =>
      [...f.activity.map((k) => `activity=${k}`), ...(f.party ? [`party=${encodeURIComponent(f.party)}`] : [])].join('&');
    const sse = await Promise.all(filters.map((f) => SseClient.open(`${api.url}${STREAM}?after=${FROM_THE_START}&${qs(f)}`)));
    const ws = await WsClient.connect(`${api.url}${STREAM}?after=${FROM_THE_START}&${qs(filters[1]!)}`);

    const expectedNow = async (all: { texts: string[]; items: unknown[] }) => {
      const texts = all.texts.flatMap((page) => splitItems(page));
      const out: string[][] = [];
      for (const f of filters.slice(0, 2)) {
        const ids = await updatesWith(f.activity);
        out.push(texts.filter((_, i) => ids.has((all.items[i] as Served).update?.update_id ?? '')));
      }
      return out;
    };
    const caughtUp = await expectedNow(first);
    for (const [i, s] of sse.slice(0, 2).entries()) await s.until((c) => c.items.length >= caughtUp[i]!.length, 30_000, `catch-up ${i}`);

    // Live: the rest, across the migration.
    await ingestThroughWorker(t, items);
    const all = await eventPages(api);
    const expected = await expectedNow(all);
    for (const [i, s] of sse.slice(0, 2).entries()) await s.until((c) => c.items.length >= expected[i]!.length, 30_000, `live ${i}`);
    await ws.until((c) => c.items.length >= expected[1]!.length, 30_000, 'live over WebSocket');
    for (const [i, s] of sse.slice(0, 2).entries()) {
      expect(s.items.map((e) => e.data)).toEqual(expected[i]);
      expect(expected[i]!.length).toBeGreaterThan(caughtUp[i]!.length);
      expect(expected[i]!.length).toBeLessThan(all.items.length);
    }
    expect(expected[1]!.length).toBeGreaterThan(expected[0]!.length);
    expect(ws.items.map((f) => f.item)).toEqual(expected[1]);
    expect(new Set(expected[0]!.map((e) => (JSON.parse(e) as Served).update!.migration_id)).size).toBe(2);

    // With party as well: the activity-kind matches whose events name the party (read from their JSON).
    const ofKind = new Set(expected[0]);
    const withParty = all.texts
      .flatMap((page) => splitItems(page))
      .filter((text, i) => ofKind.has(text) && partiesOf(all.items[i] as Named).has(party));
    await sse[2]!.until((c) => c.items.length >= withParty.length, 30_000, 'party and activity');
    expect(sse[2]!.items.map((e) => e.data)).toEqual(withParty);
    expect(withParty.length).toBeGreaterThan(0);
    expect(withParty.length).toBeLessThan(expected[0]!.length);
    for (const s of sse) s.close();
    ws.close();
  }, 120_000);

  it('refuses an unknown activity kind with 400 and the error body', async () => {
    for (const q of ['activity=teleport', 'activity=transfer&activity=teleport', 'activity=']) {
      const res = await request(api.url, 'GET', `${STREAM}?${q}`);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: "Invalid query field 'activity': Invalid input." });
    }
  });
});
