/**
 * The SSE transport over a real loopback connection: a client that stops reading makes the server's
 * unsent bytes grow, and `drained` must settle true once the client reads again (the connection's
 * drain), or false when it does not within the time given.
 */
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import express from 'express';
import type { Server } from 'node:http';
import { SseTransport, type StreamItem } from '../../../src/api/indexer/stream-transport';

/** A server whose one stream is handed to the test, and a client that reads its head and then pauses. */
async function pausedStream(): Promise<{ transport: SseTransport; client: net.Socket; server: Server; received: () => number }> {
  let resolveTransport!: (t: SseTransport) => void;
  const opened = new Promise<SseTransport>((resolve) => (resolveTransport = resolve));
  const app = express();
  app.get('/stream', (_req, res) => {
    const transport = new SseTransport(res);
    transport.start();
    resolveTransport(transport);
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const client = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
  await new Promise((resolve) => client.once('connect', resolve));
  client.write('GET /stream HTTP/1.1\r\nHost: localhost\r\n\r\n');
  let bytes = 0;
  await new Promise((resolve) => client.once('data', (c: Buffer) => resolve((bytes += c.length))));
  client.pause();
  client.on('data', (c: Buffer) => (bytes += c.length));
  return { transport: await opened, client, server, received: () => bytes };
}

/** Items enough to fill the loopback connection's buffers many times over. */
function items(count: number): StreamItem[] {
  const json = JSON.stringify({ padding: 'x'.repeat(64 * 1024) });
  return Array.from({ length: count }, (_, i) => ({ id: `0/2026-01-01T00:00:00.000000Z/u${i}`, json }));
}

describe('SseTransport over a connection whose client stops reading', () => {
  it('tells of the drain once the client reads again', async () => {
    const { transport, client, server, received } = await pausedStream();
    try {
      transport.writeItems(items(1024));
      expect(transport.buffered).toBeGreaterThan(1024 * 1024);
      const drained = transport.drained(1024, 10_000);
      setTimeout(() => client.resume(), 300);
      await expect(drained).resolves.toBe(true);
      expect(transport.buffered).toBeLessThanOrEqual(1024);
      expect(received()).toBeGreaterThan(32 * 1024 * 1024);
    } finally {
      client.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('says false when the client takes nothing within the time given', async () => {
    const { transport, client, server } = await pausedStream();
    try {
      transport.writeItems(items(256));
      await expect(transport.drained(1024, 300)).resolves.toBe(false);
    } finally {
      client.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
