/**
 * The clients of the live stream that its tests use: Server-Sent Events over fetch, parsed as the
 * EventSource standard says, and WebSocket frames, an item's text taken out of its frame as written.
 */
import WebSocket from 'ws';

export interface SseEvent {
  event: string;
  id: string | undefined;
  data: string;
}

/** A Server-Sent Events client over fetch: events as they come, parsed as the EventSource standard says. */
export class SseClient {
  readonly events: SseEvent[] = [];
  status = 0;
  ended = false;
  private readonly controller = new AbortController();
  private waiters: (() => void)[] = [];

  private constructor() {}

  static async open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const client = new SseClient();
    const res = await fetch(url, { headers, signal: client.controller.signal });
    client.status = res.status;
    if (res.status !== 200 || !res.body) {
      client.ended = true;
      return client;
    }
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    // The body ends with the connection, not cut into chunks (stream-transport.ts).
    expect([res.headers.get('connection'), res.headers.get('transfer-encoding')]).toEqual(['close', null]);
    void client.read(res.body);
    return client;
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    let event: Partial<SseEvent> & { dataLines?: string[] } = {};
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line === '') {
            if (event.dataLines) this.events.push({ event: event.event ?? 'message', id: event.id, data: event.dataLines.join('\n') });
            event = {};
            this.notify();
            continue;
          }
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'data') (event.dataLines ??= []).push(value);
          else if (field === 'event') event.event = value;
          else if (field === 'id') event.id = value;
        }
      }
    } catch {
      // aborted by close()
    }
    this.ended = true;
    this.notify();
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    waiters.forEach((w) => w());
  }

  get items(): SseEvent[] {
    return this.events.filter((e) => e.event === 'message');
  }

  /** Waits until `done` holds, failing after `timeoutMs`. */
  async until(done: (client: SseClient) => boolean, timeoutMs = 30_000, what = 'the stream'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done(this)) {
      if (this.ended) throw new Error(`${what}: the stream ended first (${this.events.length} events)`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${what}: timed out with ${this.events.length} events`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.controller.abort();
  }
}

export interface Frame {
  /** The frame's text. */
  text: string;
  id?: string;
  event?: string;
  /** For an item: its text as spliced into the frame. */
  item?: string;
}

/** A WebSocket client of the stream: frames as they come; an item's text taken out of its frame as written. */
export class WsClient {
  readonly frames: Frame[] = [];
  closeCode: number | undefined;
  private waiters: (() => void)[] = [];

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      expect(isBinary).toBe(false);
      const text = data.toString('utf8');
      const parsed = JSON.parse(text) as { id?: string; event?: string; item?: unknown };
      const frame: Frame = { text, id: parsed.id, event: parsed.event };
      if (parsed.item !== undefined) {
        const head = `{"id":${JSON.stringify(parsed.id)},"item":`;
        expect(text.startsWith(head) && text.endsWith('}')).toBe(true);
        frame.item = text.slice(head.length, -1);
      }
      this.frames.push(frame);
      this.notify();
    });
    ws.on('close', (code: number) => {
      this.closeCode = code;
      this.notify();
    });
  }

  /** Connects; an answer other than the upgrade comes back as its status, headers and body. */
  static open(url: string): Promise<WsClient | { status: number; headers: Record<string, unknown>; body: string }> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url.replace(/^http/, 'ws'));
      ws.once('open', () => resolve(new WsClient(ws)));
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      ws.once('error', reject);
    });
  }

  static async connect(url: string): Promise<WsClient> {
    const client = await WsClient.open(url);
    if (!(client instanceof WsClient)) throw new Error(`no upgrade: ${client.status} ${client.body}`);
    return client;
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    waiters.forEach((w) => w());
  }

  get items(): Frame[] {
    return this.frames.filter((f) => f.item !== undefined);
  }

  async until(done: (client: WsClient) => boolean, timeoutMs = 30_000, what = 'the stream'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done(this)) {
      if (this.closeCode !== undefined) throw new Error(`${what}: the stream closed first (${this.frames.length} frames)`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${what}: timed out with ${this.frames.length} frames`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async closed(timeoutMs = 10_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (this.closeCode === undefined) {
      if (Date.now() > deadline) throw new Error('the stream did not close');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return this.closeCode;
  }

  close(): void {
    this.ws.close();
  }
}
