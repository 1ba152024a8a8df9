/**
 * How a live stream reaches its client: Server-Sent Events over the HTTP answer, or WebSocket text
 * frames. The subscription (stream-routes.ts) decides what to send and when; a transport only frames
 * it, tells how much the connection has not yet taken, and ends the connection.
 *
 * WebSocket framing, one JSON text frame per message:
 *   an item       {"id": <cursor>, "item": <the /v0/events item, in the bytes the list serves>}
 *   other events  {"event": "heartbeat" | "error" | "reconnect", "id"?: <cursor>, ...the SSE event's data fields}
 * The server closes with code 1000 after an `error` frame and 1012 (service restart) after `reconnect`.
 */
import type { Socket } from 'node:net';
import type { Response } from 'express';
import type { WebSocket } from 'ws';

/** How long a stream that was ended may take to flush its last message before its connection is cut. */
const FINAL_FLUSH_MS = 5000;
/** How often a WebSocket's unsent bytes are looked at while they are over the bound (it has no drain event). */
const WS_DRAIN_POLL_MS = 20;

export interface StreamItem {
  /** The item's cursor. */
  id: string;
  /** The item's text, as /v0/events serves it. */
  json: string;
  /**
   * What the item was read as (its row), shared by the subscribers that read it together: its framed
   * bytes are kept by it, so that a thousand subscribers frame and encode an item once, not a thousand times.
   */
  source?: object;
}

/**
 * Framed bytes, by the object shared by the subscribers that send them (an item's source, a heartbeat's
 * data) and the transport; kept while that object is. `tag` is what else goes into the frame (a cursor,
 * an event's name): the same object framed under another tag is framed again.
 */
class FrameCache<T> {
  private readonly frames = new WeakMap<object, { tag: string; bytes: Buffer }>();

  constructor(private readonly frame: (value: T, tag: string) => string) {}

  bytes(shared: object | undefined, tag: string, value: T): Buffer {
    const kept = shared === undefined ? undefined : this.frames.get(shared);
    if (kept !== undefined && kept.tag === tag) return kept.bytes;
    const bytes = Buffer.from(this.frame(value, tag), 'utf8');
    if (shared !== undefined) this.frames.set(shared, { tag, bytes });
    return bytes;
  }
}

export type EndEvent = 'error' | 'reconnect';

export interface StreamTransport {
  /** Writes items at once. */
  writeItems(items: readonly StreamItem[]): void;
  /** Writes a named event (heartbeat, error, reconnect) with its data fields. */
  writeEvent(event: string, id: string | undefined, data: Record<string, unknown>): void;
  /** Bytes written that the connection has not yet taken. */
  readonly buffered: number;
  /** True once at most `bound` bytes are unsent (or the connection is gone); false if not within `ms`. */
  drained(bound: number, ms: number): Promise<boolean>;
  /** Ends the stream after what was written (the last message being an `event`); cut if the client takes nothing for a while. */
  end(event: EndEvent): void;
  onClose(listener: () => void): void;
}

/** One Server-Sent Event; data lines split where the text has line breaks (a client joins them with \n). */
function sseEvent(fields: { event?: string; id?: string; data: string }): string {
  let out = '';
  if (fields.event !== undefined) out += `event: ${fields.event}\n`;
  if (fields.id !== undefined) out += `id: ${fields.id.replace(/[\r\n\0]/g, '')}\n`;
  for (const line of fields.data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}

const sseFrames = new FrameCache<StreamItem>((item) => sseEvent({ id: item.id, data: item.json }));
const sseItemBytes = (item: StreamItem) => sseFrames.bytes(item.source, item.id, item);

/**
 * A named event's bytes. Without an id they depend on the data alone, so data given to many subscribers
 * as one object (the hub's heartbeat, not to be changed after) is framed and encoded once for all of them.
 */
const sseEventFrames = new FrameCache<Record<string, unknown>>((data, event) => sseEvent({ event, data: JSON.stringify(data) }));
function sseEventBytes(event: string, id: string | undefined, data: Record<string, unknown>): Buffer | string {
  if (id !== undefined) return sseEvent({ event, id, data: JSON.stringify(data) });
  return sseEventFrames.bytes(data, event, data);
}

// The item's text is spliced in as it is, never parsed and written again.
const webSocketFrames = new FrameCache<StreamItem>((item) => `{"id":${JSON.stringify(item.id)},"item":${item.json}}`);

export class SseTransport implements StreamTransport {
  private closed = false;

  constructor(private readonly res: Response) {
    res.on('close', () => (this.closed = true));
  }

  /** Sends the answer's head: the stream begins. */
  start(): void {
    const { res } = this;
    res.status(200);
    res.set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' });
    // The stream ends only with its connection, so its body is delimited by the close (Node then says
    // `Connection: close`) rather than cut into chunks: an item goes to the socket as one buffer, where
    // chunked framing wrote four (the length, a line break, the item, a line break) for every subscriber.
    res.useChunkedEncodingByDefault = false;
    res.flushHeaders();
    // EventSource waits this long before it reconnects after the stream ends.
    res.write('retry: 1000\n\n');
  }

  writeItems(items: readonly StreamItem[]): void {
    const socket = this.socket;
    if (!socket) return;
    if (items.length === 1) {
      socket.write(sseItemBytes(items[0]!));
      return;
    }
    // One write to the socket for the page, of bytes framed once for every subscriber that sends them.
    socket.cork();
    for (const item of items) socket.write(sseItemBytes(item));
    socket.uncork();
  }

  writeEvent(event: string, id: string | undefined, data: Record<string, unknown>): void {
    this.socket?.write(sseEventBytes(event, id, data));
  }

  /**
   * The answer's connection, written to directly once the head is sent. The body is neither chunked nor
   * compressed, so the response's own write (which corks the connection, uncorks it on the next tick and
   * writes a vector) adds only time, and at a commit a thousand subscribers are written to in a row: that
   * time is the delivery latency of the last of them. Null once the connection is gone.
   */
  private get socket(): Socket | null {
    const socket = this.res.socket;
    return this.closed || !socket || socket.destroyed ? null : socket;
  }

  get buffered(): number {
    return this.res.writableLength;
  }

  drained(bound: number, ms: number): Promise<boolean> {
    const { res } = this;
    const socket = this.socket;
    if (!socket || res.writableLength <= bound) return Promise.resolve(true);
    // The connection's drain: the response tells of one only after its own writes.
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        socket.off('drain', onDrain);
        res.off('close', onClose);
        resolve(ok);
      };
      const onDrain = () => done(true);
      const onClose = () => done(true);
      const timer = setTimeout(() => done(false), ms);
      socket.on('drain', onDrain);
      res.on('close', onClose);
    });
  }

  end(): void {
    this.res.end();
    // A client that takes nothing would hold the connection: it gets a while to take the last event.
    setTimeout(() => this.res.destroy(), FINAL_FLUSH_MS).unref();
  }

  onClose(listener: () => void): void {
    this.res.on('close', listener);
  }
}

export class WebSocketTransport implements StreamTransport {
  constructor(private readonly ws: WebSocket) {
    // Without a listener an error would be thrown; the connection is gone either way.
    ws.on('error', () => ws.terminate());
    // The stream goes one way: what a client sends is ignored (maxPayload bounds it).
  }

  writeItems(items: readonly StreamItem[]): void {
    for (const item of items) this.ws.send(webSocketFrames.bytes(item.source, item.id, item), { binary: false });
  }

  writeEvent(event: string, id: string | undefined, data: Record<string, unknown>): void {
    this.ws.send(JSON.stringify({ event, ...(id === undefined ? {} : { id }), ...data }));
  }

  get buffered(): number {
    return this.ws.bufferedAmount;
  }

  drained(bound: number, ms: number): Promise<boolean> {
    const { ws } = this;
    const ok = () => ws.bufferedAmount <= bound || ws.readyState !== ws.OPEN;
    if (ok()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const deadline = Date.now() + ms;
      const timer = setInterval(() => {
        if (ok()) {
          clearInterval(timer);
          resolve(true);
        } else if (Date.now() >= deadline) {
          clearInterval(timer);
          resolve(false);
        }
      }, WS_DRAIN_POLL_MS);
    });
  }

  end(event: EndEvent): void {
    this.ws.close(event === 'reconnect' ? 1012 : 1000);
    // The closing handshake waits for the client's answer, which a client that takes nothing never sends.
    setTimeout(() => this.ws.terminate(), FINAL_FLUSH_MS).unref();
  }

  onClose(listener: () => void): void {
    this.ws.on('close', listener);
  }
}
