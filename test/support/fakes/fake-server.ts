/**
 * A real HTTP server on 127.0.0.1 for testing sources against, with faults
 * injected per request from a script: error statuses, answers that never
 * come, and bodies cut off halfway (the socket destroyed, or the response
 * ended early).
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

type Fault =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  /** Never answer (the client's timeout must fire). */
  | 'hang'
  /** Send the headers and half the body, then destroy the socket. */
  | 'cut'
  /** Send half the body and end the response cleanly, as a proxy that gave up would: it parses as no JSON. */
  | 'truncate';

export interface Handled {
  status?: number;
  body: unknown;
}

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export interface FakeServer {
  url: string;
  /** Faults for the next requests, consumed one per request; null (or an empty script) serves normally. */
  faults: (Fault | null)[];
  /** Every request received, faulted or not. */
  requests: FakeRequest[];
  close(): Promise<void>;
}

export async function startFakeServer(handle: (request: FakeRequest) => Handled): Promise<FakeServer> {
  const sockets = new Set<Socket>();
  const state: Omit<FakeServer, 'url' | 'close'> = { faults: [], requests: [] };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const text = Buffer.concat(chunks).toString('utf8');
      const request: FakeRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: text === '' ? undefined : JSON.parse(text),
      };
      state.requests.push(request);
      const fault = state.faults.shift() ?? null;
      if (fault === 'hang') return;
      if (fault !== null && fault !== 'cut' && fault !== 'truncate') {
        res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
        res.end(JSON.stringify(fault.body ?? { error: `injected ${fault.status}` }));
        return;
      }
      const handled = handle(request);
      const body = JSON.stringify(handled.body);
      if (fault === 'truncate') {
        res.writeHead(handled.status ?? 200, { 'content-type': 'application/json' });
        res.end(body.slice(0, Math.floor(body.length / 2)));
        return;
      }
      res.writeHead(handled.status ?? 200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      if (fault === 'cut') {
        res.write(body.slice(0, Math.floor(body.length / 2)), () => res.socket?.destroy());
        return;
      }
      res.end(body);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  });
}

/** A URL nothing listens on: connections are refused. */
export async function refusedUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
