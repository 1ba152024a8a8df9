/**
 * The live stream of /v0/events items over WebSocket (GET /api/indexer/v0/stream/events with
 * `Upgrade: websocket`) through the real server: catch-up then live items across batches and a
 * migration, compared byte for byte with POST /api/scan/v0/events; resume with after=; the kind
 * filter; a malformed query and the subscriber limit answered before the upgrade; the reconnect frame
 * at shutdown. The SSE side of the same protocol is in stream.test.ts.
 */
import net from 'node:net';
import type { CanonicalItem } from '../../../src/domain/items';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { ingestThroughWorker, simulatedItems } from '../../support/items/simulated-network';
import WebSocket from 'ws';
import { WsClient, type Frame } from '../../support/stream-clients';
import { asPages, eventPages, FROM_THE_START, kindOf, metricValue, STREAM, waitFor, type Item } from '../../support/stream';

describe('GET /api/indexer/v0/stream/events over WebSocket', () => {
  const t = useTestDatabase();
  let items: CanonicalItem[];
  let api: TestApi;
  /** The whole history's item frames, once ingested, from the first test. */
  let all: Frame[] = [];

  beforeAll(async () => {
    items = simulatedItems({ seed: 'live-stream', updates: 1200, migrations: 2 });
    api = await startTestApi(t, { env: { STREAM_HEARTBEAT_SECONDS: '1' } });
  });
  afterAll(async () => {
    await api.close();
  });

  it('sends the stored items, then the ones ingested while it runs, one text frame each, in the bytes /v0/events serves', async () => {
    await ingestThroughWorker(t, items.slice(0, Math.floor(items.length * 0.6)));
    const before = await eventPages(api);
    expect(before.items.length).toBeGreaterThan(0);

    const stream = await WsClient.connect(`${api.url}${STREAM}?after=${FROM_THE_START}`);
    await stream.until((s) => s.items.length >= before.items.length, 30_000, 'catch-up');

    await ingestThroughWorker(t, items);
    const after = await eventPages(api);
    expect(after.items.length).toBeGreaterThan(before.items.length);
    await stream.until((s) => s.items.length >= after.items.length, 30_000, 'live items');
    await stream.until((s) => s.frames.some((f) => f.event === 'heartbeat'), 10_000, 'heartbeat');
    await new Promise((resolve) => setTimeout(resolve, 300));
    stream.close();

    const sent = stream.items;
    expect(sent.length).toBe(after.items.length);
    expect(
      asPages(
        sent.map((f) => f.item!),
        after.texts.map(() => 1000),
      ),
    ).toEqual(after.texts);
    expect(new Set(sent.map((f) => f.id)).size).toBe(sent.length);
    expect(new Set(sent.map((f) => f.id!.split('/')[0])).size).toBe(2);
    const heartbeat = stream.frames.find((f) => f.event === 'heartbeat')!;
    expect(JSON.parse(heartbeat.text)).toMatchObject({
      event: 'heartbeat',
      migration_id: expect.any(Number) as unknown,
      record_time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
    });
    all = sent;
  }, 120_000);

  it('resumes after the cursor given as after=', async () => {
    const k = Math.floor(all.length / 3);
    const resumed = await WsClient.connect(`${api.url}${STREAM}?after=${encodeURIComponent(all[k]!.id!)}`);
    await resumed.until((s) => s.items.length >= all.length - k - 1, 30_000, 'resume');
    await new Promise((resolve) => setTimeout(resolve, 300));
    resumed.close();
    expect(resumed.items.map((f) => f.text)).toEqual(all.slice(k + 1).map((f) => f.text));
  });

  it('sends only the kinds asked for', async () => {
    const expected = (await eventPages(api)).items as Item[];
    const last = all[all.length - 1]!.id;
    const transactions = await WsClient.connect(`${api.url}${STREAM}?after=${FROM_THE_START}&kind=transaction`);
    const others = await WsClient.connect(`${api.url}${STREAM}?after=${FROM_THE_START}&kind=reassignment&kind=verdict-only`);
    for (const s of [transactions, others]) await s.until((c) => c.frames.some((f) => f.id === last), 30_000, 'filtered catch-up');
    transactions.close();
    others.close();
    const byKind = (kinds: string[]) => all.filter((_, i) => kinds.includes(kindOf(expected[i]!))).map((f) => f.text);
    expect(transactions.items.map((f) => f.text)).toEqual(byKind(['transaction']));
    expect(others.items.map((f) => f.text)).toEqual(byKind(['reassignment', 'verdict-only']));
    expect(transactions.items.length).toBeGreaterThan(0);
    expect(transactions.items.length + others.items.length).toBe(all.length);
  });

  it('answers a malformed query with 400 instead of upgrading', async () => {
    const refused = await WsClient.open(`${api.url}${STREAM}?kind=contract`);
    expect(refused).toMatchObject({ status: 400 });
  });

  it('answers a request to upgrade anything else as HTTP, and closes its connection', async () => {
    const elsewhere = await WsClient.open(`${api.url}/livez`);
    expect(elsewhere).toMatchObject({ status: 200 });
    // Not a WebSocket: answered as usual.
    const socket = net.connect(Number(new URL(api.url).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.write(`GET /livez HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n`);
    await new Promise((resolve) => socket.once('close', resolve));
    const text = Buffer.concat(chunks).toString('utf8');
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(text).toMatch(/\r\nConnection: close\r\n/i);
  });

  it('answers 503 with Retry-After beyond STREAM_MAX_SUBSCRIBERS, counting SSE and WebSocket streams alike', async () => {
    const limited = await startTestApi(t, { env: { STREAM_MAX_SUBSCRIBERS: '1' } });
    try {
      const first = await WsClient.connect(`${limited.url}${STREAM}`);
      const second = await WsClient.open(`${limited.url}${STREAM}`);
      expect(second).toMatchObject({ status: 503, headers: { 'retry-after': '5' } });
      const body = (second as { body: string }).body;
      expect(JSON.parse(body)).toEqual({ error: expect.stringContaining('Too many live streams') as unknown });
      expect((await request(limited.url, 'GET', STREAM)).status).toBe(503);
      first.close();
      await waitFor(async () => (await metricValue(limited, 'scan_indexer_stream_subscribers{stream="events"}')) === 0);
      const third = await WsClient.connect(`${limited.url}${STREAM}`);
      third.close();
    } finally {
      await limited.close();
    }
  });

  it('drops a consumer that takes nothing, with an error frame saying where to resume', async () => {
    const strict = await startTestApi(t, {
      env: { STREAM_MAX_BUFFER_KB: '1', STREAM_SLOW_CONSUMER_MS: '300', STREAM_PAGE_SIZE: '20' },
    });
    try {
      const ws = new WebSocket(`${strict.url.replace(/^http/, 'ws')}${STREAM}?after=${FROM_THE_START}`);
      const texts: string[] = [];
      ws.on('message', (data: Buffer) => texts.push(data.toString('utf8')));
      const closed = new Promise<number>((resolve) => ws.once('close', resolve));
      // It reads nothing from the start until the server gives up on it.
      await new Promise((resolve) => ws.once('open', resolve));
      ws.pause();
      await waitFor(
        async () => (await metricValue(strict, 'scan_indexer_stream_drops_total{stream="events",reason="slow_consumer"}')) === 1,
        60_000,
      );
      ws.resume();
      expect(await closed).toBe(1000);
      const frames = texts.map((text) => JSON.parse(text) as { id?: string; event?: string; reason?: string; after?: string });
      const final = frames[frames.length - 1]!;
      expect(final).toMatchObject({ event: 'error', reason: 'slow_consumer' });
      expect(final.id).toBe(final.after);
      // The cursor is that of the last item written before it.
      expect(frames[frames.length - 2]!.id).toBe(final.after);
      expect(all.map((f) => f.id)).toContain(final.after);
    } finally {
      await strict.close();
    }
  }, 90_000);

  it('ends every stream with a reconnect frame and close code 1012 when the server shuts down', async () => {
    const stopping = await startTestApi(t);
    const stream = await WsClient.connect(`${stopping.url}${STREAM}?after=${encodeURIComponent(all[all.length - 3]!.id!)}`);
    await stream.until((s) => s.items.length === 2, 10_000, 'items');
    await stopping.close();
    expect(await stream.closed()).toBe(1012);
    const last = stream.frames[stream.frames.length - 1]!;
    expect(JSON.parse(last.text)).toEqual({
      event: 'reconnect',
      id: all[all.length - 1]!.id,
      reason: 'shutdown',
      message: expect.any(String) as unknown,
      after: all[all.length - 1]!.id,
    });
  });
});
