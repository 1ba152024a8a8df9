/**
 * Snapshot announcements on the live stream (`snapshots=true`), over SSE and WebSocket: each ACS snapshot
 * the worker announces, caught up and live, as GET /api/indexer/v0/acs-snapshots lists it, once the stream
 * has passed its record time; none without the parameter; resumed, only those after the cursor.
 */
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { ingestThroughWorker, simulatedItems } from '../../support/items/simulated-network';
import { FROM_THE_START, STREAM } from '../../support/stream';
import { SseClient, WsClient } from '../../support/stream-clients';

interface Snapshot {
  migration_id: number;
  record_time: string;
}

/** Every announced snapshot, oldest first, from the list operation. */
async function announced(api: TestApi): Promise<Snapshot[]> {
  const res = await request(api.url, 'GET', '/api/indexer/v0/acs-snapshots?page_size=1000');
  expect(res.status).toBe(200);
  return [...(res.json as { snapshots: Snapshot[] }).snapshots].reverse();
}

/** The position of an SSE id or snapshot, comparable as text within a test's years. */
const position = (migration: number, time: string) => `${migration}/${time.replace(/\.?\d*Z$/, '')}`;

describe('GET /api/indexer/v0/stream/events?snapshots=true', () => {
  const t = useTestDatabase();
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi(t, { env: { STREAM_HEARTBEAT_SECONDS: '1' } });
  });
  afterAll(async () => {
    await api.close();
  });

  it('sends each announced snapshot once the stream has passed its record time, caught up then live, as the list shows it', async () => {
    // About 33 hours of ledger time, two migrations: snapshots every 3 hours.
    const items = simulatedItems({ seed: 'stream-snapshots', updates: 400, migrations: 2, meanUpdateGapMs: 300_000 });
    await ingestThroughWorker(t, items.slice(0, Math.floor(items.length / 2)));
    const before = await announced(api);
    expect(before.length).toBeGreaterThan(2);
    const sse = await SseClient.open(`${api.url}${STREAM}?after=${FROM_THE_START}&snapshots=true`);
    const ws = await WsClient.connect(`${api.url}${STREAM}?after=${FROM_THE_START}&snapshots=true&kind=verdict-only`);
    const plain = await SseClient.open(`${api.url}${STREAM}?after=${FROM_THE_START}`);
    // And one from the tail: only what is announced from now on.
    const tail = await SseClient.open(`${api.url}${STREAM}?snapshots=true`);
    await sse.until((c) => c.events.filter((e) => e.event === 'snapshot').length >= before.length, 30_000, 'caught-up snapshots');

    await ingestThroughWorker(t, items);
    const after = await announced(api);
    expect(after.length).toBeGreaterThan(before.length);
    expect(new Set(after.map((s) => s.migration_id)).size).toBe(2);
    const list = await request(api.url, 'GET', '/api/indexer/v0/acs-snapshots?page_size=1000');
    const listed = [...(list.json as { snapshots: unknown[] }).snapshots].reverse();

    await sse.until((c) => c.events.filter((e) => e.event === 'snapshot').length >= after.length, 30_000, 'live snapshots');
    await ws.until((c) => c.frames.filter((f) => f.event === 'snapshot').length >= after.length, 30_000, 'live snapshots over WebSocket');
    await tail.until((c) => c.events.filter((e) => e.event === 'snapshot').length >= after.length - before.length, 30_000, 'tail');
    // The plain stream has every item by now.
    await plain.until((c) => c.items.length === sse.items.length && c.items.length > 0, 30_000, 'plain');

    const sent = sse.events.filter((e) => e.event === 'snapshot');
    expect(sent.map((e) => JSON.parse(e.data) as unknown)).toEqual(listed);
    expect(sent.every((e) => e.id === undefined)).toBe(true);
    expect(ws.frames.filter((f) => f.event === 'snapshot').map((f) => JSON.parse(f.text) as unknown)).toEqual(
      listed.map((s) => ({ event: 'snapshot', ...(s as object) })),
    );
    expect(tail.events.filter((e) => e.event === 'snapshot').map((e) => JSON.parse(e.data) as unknown)).toEqual(
      listed.slice(before.length),
    );
    expect(plain.events.some((e) => e.event === 'snapshot')).toBe(false);

    // Each comes after an item at or past its record time, and before any item of a later snapshot's time.
    let lastItem = '';
    for (const e of sse.events) {
      if (e.event === 'message') {
        const [m, time] = e.id!.split('/');
        lastItem = position(Number(m), time!);
      } else if (e.event === 'snapshot') {
        const s = JSON.parse(e.data) as Snapshot;
        expect(lastItem >= position(s.migration_id, s.record_time)).toBe(true);
      }
    }

    // Resumed from an item's cursor, only the snapshots after it.
    const middle = sse.items[Math.floor(sse.items.length / 2)]!.id!;
    const [m, time] = middle.split('/');
    const resumed = await SseClient.open(`${api.url}${STREAM}?snapshots=true`, { 'Last-Event-ID': middle });
    const later = after.filter((s) => position(s.migration_id, s.record_time) > position(Number(m), time!));
    expect(later.length).toBeGreaterThan(0);
    expect(later.length).toBeLessThan(after.length);
    await resumed.until((c) => c.events.filter((e) => e.event === 'snapshot').length >= later.length, 30_000, 'resumed');
    await resumed.until((c) => c.events.some((e) => e.event === 'heartbeat'), 10_000, 'a heartbeat');
    expect(resumed.events.filter((e) => e.event === 'snapshot').map((e) => (JSON.parse(e.data) as Snapshot).record_time)).toEqual(
      later.map((s) => s.record_time),
    );
    for (const c of [sse, plain, tail, resumed]) c.close();
    ws.close();
  }, 120_000);

  it('refuses a snapshots value other than true or false with 400', async () => {
    const res = await request(api.url, 'GET', `${STREAM}?snapshots=yes`);
    expect(res.status).toBe(400);
  });
});
