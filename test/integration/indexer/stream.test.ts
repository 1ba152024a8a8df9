/**
 * The live stream of /v0/events items (GET /api/indexer/v0/stream/events) through the real server
 * over a socket, its Server-Sent Events parsed here: catch-up from the database then live items
 * across batches and a migration, compared byte for byte with POST /api/scan/v0/events over the same
 * range; resume from Last-Event-ID; the kind filter; the subscriber limit; a slow consumer dropped;
 * the shutdown event; live items still delivered while the LISTEN connection is cut. Items are ingested
 * by the worker, as the service does.
 */
import net from 'node:net';
import type { CanonicalItem } from '../../../src/domain/items';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { ingestThroughWorker, simulatedItems } from '../../support/items/simulated-network';
import { SseClient, type SseEvent } from '../../support/stream-clients';
import { asPages, eventPages, FROM_THE_START, kindOf, metricValue, STREAM, waitFor, type Item } from '../../support/stream';

describe('GET /api/indexer/v0/stream/events', () => {
  const t = useTestDatabase();
  let items: CanonicalItem[];
  let api: TestApi;
  /** The item ids and texts of the whole history, once ingested, from the first test. */
  let all: SseEvent[] = [];

  beforeAll(async () => {
    items = simulatedItems({ seed: 'live-stream', updates: 1200, migrations: 2 });
    api = await startTestApi(t, { env: { STREAM_HEARTBEAT_SECONDS: '1' } });
  });
  afterAll(async () => {
    await api.close();
  });

  it('sends the stored items, then the ones ingested while it runs, across batches and a migration, as /v0/events serves them', async () => {
    // The first part: the first migration and some of the second.
    await ingestThroughWorker(t, items.slice(0, Math.floor(items.length * 0.6)));
    const before = await eventPages(api);
    expect(before.items.length).toBeGreaterThan(0);

    const stream = await SseClient.open(`${api.url}${STREAM}?after=${FROM_THE_START}`);
    expect(stream.status).toBe(200);
    await stream.until((s) => s.items.length >= before.items.length, 30_000, 'catch-up');
    const latencyBefore = await metricValue(api, 'scan_indexer_stream_delivery_latency_seconds_count');

    // The rest, in several batches of the worker, while the stream waits at the tail.
    await ingestThroughWorker(t, items);
    const after = await eventPages(api);
    expect(after.items.length).toBeGreaterThan(before.items.length);
    await stream.until((s) => s.items.length >= after.items.length, 30_000, 'live items');
    await new Promise((resolve) => setTimeout(resolve, 300));
    stream.close();

    const sent = stream.items;
    expect(sent.length).toBe(after.items.length);
    // Byte for byte: the pages of /v0/events are the stream's item texts, in order, no gap, no duplicate.
    expect(
      asPages(
        sent.map((e) => e.data),
        [1000, 1000, 1000],
      ).slice(0, after.texts.length),
    ).toEqual(after.texts);
    expect(new Set(sent.map((e) => e.id)).size).toBe(sent.length);
    // Both migrations came through, and live items were woken by the writer's commit notices.
    const migrations = new Set(sent.map((e) => e.id!.split('/')[0]));
    expect(migrations.size).toBe(2);
    expect(await metricValue(api, 'scan_indexer_stream_delivery_latency_seconds_count')).toBeGreaterThan(latencyBefore);
    // Heartbeats carry the newest record time.
    const heartbeat = stream.events.find((e) => e.event === 'heartbeat');
    expect(heartbeat).toBeDefined();
    expect(JSON.parse(heartbeat!.data)).toEqual({
      migration_id: expect.any(Number) as unknown,
      record_time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
    });
    all = sent;
  }, 120_000);

  it('resumes after Last-Event-ID (which wins over after=), and after= alone', async () => {
    const k = Math.floor(all.length / 3);
    const resumed = await SseClient.open(`${api.url}${STREAM}?after=${FROM_THE_START}`, { 'Last-Event-ID': all[k]!.id! });
    await resumed.until((s) => s.items.length >= all.length - k - 1, 30_000, 'resume');
    await new Promise((resolve) => setTimeout(resolve, 300));
    resumed.close();
    expect(resumed.items.map((e) => [e.id, e.data])).toEqual(all.slice(k + 1).map((e) => [e.id, e.data]));

    const byQuery = await SseClient.open(`${api.url}${STREAM}?after=${encodeURIComponent(all[all.length - 2]!.id!)}`);
    await byQuery.until((s) => s.items.length >= 1, 10_000, 'after=');
    await new Promise((resolve) => setTimeout(resolve, 300));
    byQuery.close();
    expect(byQuery.items).toEqual([all[all.length - 1]]);
  });

  it('starts after the newest item when no cursor is given', async () => {
    const tail = await SseClient.open(`${api.url}${STREAM}`);
    await tail.until((s) => s.events.some((e) => e.event === 'heartbeat'), 10_000, 'heartbeat');
    tail.close();
    expect(tail.items).toEqual([]);
  });

  it('sends only the kinds asked for, and moves the cursor past the others', async () => {
    const expected = (await eventPages(api)).items as Item[];
    const last = all[all.length - 1]!.id;
    const transactions = await SseClient.open(`${api.url}${STREAM}?after=${FROM_THE_START}&kind=transaction`);
    const others = await SseClient.open(`${api.url}${STREAM}?after=${FROM_THE_START}&kind=reassignment&kind=verdict-only`);
    for (const s of [transactions, others]) await s.until((c) => c.events.some((e) => e.id === last), 30_000, 'filtered catch-up');
    transactions.close();
    others.close();
    const byKind = (kinds: string[]) => all.filter((_, i) => kinds.includes(kindOf(expected[i]!))).map((e) => e.data);
    expect(transactions.items.map((e) => e.data)).toEqual(byKind(['transaction']));
    expect(others.items.map((e) => e.data)).toEqual(byKind(['reassignment', 'verdict-only']));
    expect(transactions.items.length).toBeGreaterThan(0);
    expect(transactions.items.length + others.items.length).toBe(all.length);
  });

  it('refuses a malformed cursor or kind with 400', async () => {
    for (const query of ['after=yesterday', 'after=0/not-a-time', 'kind=contract']) {
      const res = await request(api.url, 'GET', `${STREAM}?${query}`);
      expect(res.status).toBe(400);
    }
  });

  it('answers 503 with Retry-After beyond STREAM_MAX_SUBSCRIBERS', async () => {
    const limited = await startTestApi(t, { env: { STREAM_MAX_SUBSCRIBERS: '1' } });
    try {
      const first = await SseClient.open(`${limited.url}${STREAM}`);
      expect(first.status).toBe(200);
      const second = await request(limited.url, 'GET', STREAM);
      expect(second.status).toBe(503);
      expect(second.headers.get('retry-after')).toBe('5');
      expect(second.json).toEqual({ error: expect.stringContaining('Too many live streams') as unknown });
      first.close();
      // Its place is free again once the client has gone.
      await waitFor(async () => (await metricValue(limited, 'scan_indexer_stream_subscribers{stream="events"}')) === 0);
      const third = await SseClient.open(`${limited.url}${STREAM}`);
      expect(third.status).toBe(200);
      third.close();
    } finally {
      await limited.close();
    }
  });

  it('drops a consumer that takes nothing, with an error event saying where to resume', async () => {
    const strict = await startTestApi(t, {
      env: { STREAM_MAX_BUFFER_KB: '1', STREAM_SLOW_CONSUMER_MS: '300', STREAM_PAGE_SIZE: '20' },
    });
    try {
      // A client that reads the answer's head, then nothing until the server gives up on it.
      const socket = net.connect(Number(new URL(strict.url).port), '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(`GET ${STREAM}?after=${FROM_THE_START} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
      await new Promise((resolve) => socket.once('data', resolve));
      socket.pause();
      await waitFor(
        async () => (await metricValue(strict, 'scan_indexer_stream_drops_total{stream="events",reason="slow_consumer"}')) === 1,
        60_000,
      );
      // Now it reads: what it was given, then the final event, then the end.
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.resume();
      await new Promise((resolve) => socket.once('end', resolve));
      socket.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      const final = /event: error\nid: ([^\n]+)\ndata: ([^\n]+)\n/.exec(text);
      expect(final).not.toBeNull();
      const body = JSON.parse(final![2]!) as { reason: string; error: string; after: string };
      expect(body.reason).toBe('slow_consumer');
      expect(body.after).toBe(final![1]);
      // The cursor is that of the last item written before it.
      const ids = [...text.matchAll(/^id: (.+)$/gm)].map((m) => m[1]);
      expect(ids[ids.length - 1]).toBe(body.after);
      expect(ids[ids.length - 2]).toBe(body.after);
      expect(all.map((e) => e.id)).toContain(body.after);
    } finally {
      await strict.close();
    }
  }, 90_000);

  it('ends every stream with a reconnect event when the server shuts down', async () => {
    const stopping = await startTestApi(t);
    const stream = await SseClient.open(`${stopping.url}${STREAM}?after=${encodeURIComponent(all[all.length - 3]!.id!)}`);
    await stream.until((s) => s.items.length === 2, 10_000, 'items');
    await stopping.close();
    await stream.until((s) => s.ended, 10_000, 'the end');
    const last = stream.events[stream.events.length - 1]!;
    expect(last.event).toBe('reconnect');
    expect(JSON.parse(last.data)).toEqual({ reason: 'shutdown', message: expect.any(String) as unknown, after: all[all.length - 1]!.id });
  });
});

describe('GET /api/indexer/v0/stream/events without its LISTEN connection', () => {
  const t = useTestDatabase();

  it('goes on delivering live items when the listening connection is cut (polling, then listening again)', async () => {
    const items = simulatedItems({ seed: 'live-stream-outage', updates: 120 });
    await ingestThroughWorker(t, items.slice(0, 150));
    const api = await startTestApi(t, { env: { STREAM_POLL_MS: '200' } });
    try {
      const stream = await SseClient.open(`${api.url}${STREAM}?after=${FROM_THE_START}`);
      const before = await eventPages(api);
      await stream.until((s) => s.items.length >= before.items.length, 30_000, 'catch-up');
      await waitFor(async () => (await metricValue(api, 'scan_indexer_stream_listener_connected')) === 1);
      const cut = await t.pool.query(
        `select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'scan-indexer-listen' and datname = current_database()`,
      );
      expect(cut.rowCount).toBe(1);
      await ingestThroughWorker(t, items);
      const after = await eventPages(api);
      await stream.until((s) => s.items.length >= after.items.length, 30_000, 'live items');
      stream.close();
      expect(
        asPages(
          stream.items.map((e) => e.data),
          [1000],
        ),
      ).toEqual(after.texts);
      // The listener came back.
      await waitFor(async () => (await metricValue(api, 'scan_indexer_stream_listener_connected')) === 1);
    } finally {
      await api.close();
    }
  }, 60_000);
});
