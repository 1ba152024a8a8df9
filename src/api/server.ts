/** Listening and draining: close stops accepting, waits for in-flight requests, then cuts the rest. */
import { ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';

/**
 * Requests Node's HTTP parser refuses before any route sees them (a URL and headers over its 16 KB
 * limit, malformed HTTP): answered in the error shape of the Scan interface, `{"error": …}`, instead
 * of Node's bare status line, then the connection is closed.
 */
function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable || (socket as Duplex & { _httpMessage?: unknown })._httpMessage) {
    socket.destroy();
    return;
  }
  const [status, reason, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'The request URL and headers are too large: at most 16 KB.']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'The request was not received in time.']
        : [400, 'Bad Request', 'The request is not valid HTTP.'];
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * An idle keep-alive connection is closed when its timer fires (Node advertises `Keep-Alive: timeout=5`
 * and closes 1 s later; clients reuse a connection for up to the advertised time, undici's fetch until
 * 1 s before it). A process starved of CPU, or whose event loop was busy for longer than that margin,
 * runs the expired timer in the same turn of the loop as the read of a request a client sent in time:
 * timers come first, and Node closed the connection with the request unread, so the client got a
 * reset and no answer. Closing one turn later lets a request that is already there be read (which
 * stops the timer); a connection that received nothing is closed as before.
 */
function closeIdleAfterPendingReads(socket: Socket): void {
  const read = socket.bytesRead;
  setImmediate(() => {
    if (socket.bytesRead === read) socket.destroy();
  });
}

/** A request that asked to upgrade its connection (WebSocket): the connection, and what the client sent after the head. */
export interface Upgrade {
  socket: Duplex;
  head: Buffer;
}

const upgrades = new WeakMap<IncomingMessage, Upgrade>();

/** The upgrade a request asked for, when it came with `Upgrade` (a route may take the connection over); undefined otherwise. */
export function upgradeOf(req: IncomingMessage): Upgrade | undefined {
  return upgrades.get(req);
}

/**
 * A request that asks to upgrade its connection goes through the application like any other, with an
 * answer written on its connection: a route that takes it over (the live stream over WebSocket) finds
 * it with upgradeOf, after the same checks and limits as every request; any other answer is sent and
 * the connection closed.
 */
function serveUpgrade(app: Express, upgraded: Set<Duplex>, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  upgrades.set(req, { socket, head });
  upgraded.add(socket);
  socket.on('close', () => upgraded.delete(socket));
  socket.on('error', () => socket.destroy());
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket as Socket);
  res.on('finish', () => socket.end());
  app(req, res);
}

const closeHooks = new WeakMap<Express, (() => Promise<void>)[]>();

/**
 * Runs `hook` when a server of `app` begins to close, before it waits for requests in flight: answers
 * that never end by themselves (live streams) end there, with a last word to their clients.
 */
export function onServerClose(app: Express, hook: () => Promise<void>): void {
  closeHooks.set(app, [...(closeHooks.get(app) ?? []), hook]);
}

export interface RunningServer {
  server: Server;
  /** Base URL as a client on this machine would use it. */
  url: string;
  close(timeoutMs: number): Promise<void>;
}

export function listen(app: Express, host: string, port: number): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    server.on('clientError', answerClientError);
    // Upgraded connections are no longer the HTTP server's: they are cut here when it closes.
    const upgraded = new Set<Duplex>();
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => serveUpgrade(app, upgraded, req, socket, head));
    // With a listener here, Node leaves closing a timed-out connection to it (server.timeout is 0, so only idle keep-alive connections time out).
    server.on('timeout', closeIdleAfterPendingReads);
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      const address = server.address();
      const boundPort = typeof address === 'object' && address ? address.port : port;
      const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
      resolve({
        server,
        url: `http://${shownHost}:${boundPort}`,
        close: async (timeoutMs) => {
          await Promise.all((closeHooks.get(app) ?? []).map((hook) => hook().catch(() => undefined)));
          await new Promise<void>((done) => {
            const timer = setTimeout(() => {
              server.closeAllConnections();
              for (const socket of upgraded) socket.destroy();
            }, timeoutMs);
            timer.unref();
            server.close(() => {
              clearTimeout(timer);
              done();
            });
            server.closeIdleConnections();
          });
        },
      });
    });
  });
}
