/**
 * A Server-Sent-Events reader over one raw TCP connection, for benches that hold a thousand streams in
 * one process beside the server they measure. It reads the framing only (ids and event names, never the
 * items' JSON), straight from the socket's bytes: no HTTP client, no readable stream and no decoding of
 * the data, so that the time from the server's write to this process noticing the item is as small as a
 * client can make it, and this process's share of the cores stays small.
 *
 * It speaks just enough HTTP/1.1 for scan-indexer's stream: one GET, a status line and headers, then a
 * body delimited by the connection's close (the server's SSE answer is not chunked). Any other answer
 * (a 4xx or 5xx, or a chunked body) ends the reader with its status.
 */
import net from 'node:net';

const BLANK_LINE = Buffer.from('\n\n', 'latin1');
const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');
const ID = Buffer.from('id: ', 'latin1');
const EVENT = Buffer.from('event: ', 'latin1');
const NEWLINE = 0x0a;
const READ_BUFFER = Buffer.alloc(256 * 1024);

/** Whether `buf` has `prefix` at `at`. */
function startsAt(buf: Buffer, at: number, prefix: Buffer): boolean {
  if (at + prefix.length > buf.length) return false;
  for (let i = 0; i < prefix.length; i++) if (buf[at + i] !== prefix[i]) return false;
  return true;
}

export class SseReader {
  status = 0;
  ended = false;
  /** The last named event other than heartbeat (error, reconnect), if any. */
  finalEvent: string | undefined;
  readonly ids: string[] = [];
  readonly receivedAtMs: number[] = [];
  /** Bytes of an event not yet whole (or of the head, before the body). */
  private pending: Buffer | undefined;
  private inBody = false;
  private socket: net.Socket | undefined;

  /** `onItem`: instead of keeping each id and time, hand them over (a catch-up reader hashes them). */
  constructor(private readonly onItem?: (id: string) => void) {}

  /** Connects and asks for the stream; settles once the answer's head is read, or the connection failed. */
  open(url: string, headers: Record<string, string> = {}): Promise<void> {
    const target = new URL(url);
    return new Promise((resolve) => {
      let settled = false;
      const settle = () => {
        if (!settled) resolve();
        settled = true;
      };
      this.onHead = settle;
      // Read into one buffer shared by every reader of the process (onread: no readable stream, no
      // allocation per read); what is kept of it is copied.
      const socket = net.connect({
        host: target.hostname,
        port: Number(target.port),
        onread: {
          buffer: READ_BUFFER,
          callback: (n: number, buf: Uint8Array) => {
            this.take(Buffer.from(buf.buffer, buf.byteOffset, n), Date.now());
            return true;
          },
        },
      });
      socket.setNoDelay(true);
      socket.on('connect', () => {
        const lines = [
          `GET ${target.pathname}${target.search} HTTP/1.1`,
          `Host: ${target.host}`,
          'Accept: text/event-stream',
          ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
        ];
        socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      });
      const end = () => {
        this.ended = true;
        settle();
      };
      socket.on('end', end);
      socket.on('close', end);
      socket.on('error', end);
      this.socket = socket;
    });
  }

  close(): void {
    this.socket?.destroy();
  }

  private onHead: () => void = () => undefined;

  private take(chunk: Buffer, now: number): void {
    let buf = this.pending === undefined ? chunk : Buffer.concat([this.pending, chunk]);
    this.pending = undefined;
    if (!this.inBody) {
      const headEnd = buf.indexOf(HEAD_END);
      if (headEnd < 0) {
        this.pending = Buffer.from(buf);
        return;
      }
      const head = buf.toString('latin1', 0, headEnd);
      this.status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
      this.inBody = true;
      this.onHead();
      if (this.status !== 200 || /\r\ntransfer-encoding:\s*chunked/i.test(head)) {
        // Not a stream this reader can follow: the status says what happened.
        this.ended = true;
        this.socket?.destroy();
        return;
      }
      buf = buf.subarray(headEnd + HEAD_END.length);
    }
    let start = 0;
    for (let end = buf.indexOf(BLANK_LINE, start); end >= 0; end = buf.indexOf(BLANK_LINE, start)) {
      this.event(buf, start, end, now);
      start = end + 2;
    }
    // A copy: a view would keep the whole chunk alive, item data included.
    if (start < buf.length) this.pending = Buffer.from(buf.subarray(start));
  }

  /** One event, the bytes [start, end) of `buf`: its id and event lines come before its data (stream-transport.ts). */
  private event(buf: Buffer, start: number, end: number, now: number): void {
    let id: string | undefined;
    let event: string | undefined;
    for (let at = start; at < end;) {
      let eol = buf.indexOf(NEWLINE, at);
      if (eol < 0 || eol > end) eol = end;
      if (startsAt(buf, at, ID)) id = buf.toString('latin1', at + ID.length, eol);
      else if (startsAt(buf, at, EVENT)) event = buf.toString('latin1', at + EVENT.length, eol);
      else if (buf[at] === 0x64 /* d: data, read no further */) break;
      at = eol + 1;
    }
    if (event !== undefined) {
      if (event !== 'heartbeat') this.finalEvent = event;
    } else if (id !== undefined) {
      if (this.onItem) this.onItem(id);
      else {
        this.ids.push(id);
        this.receivedAtMs.push(now);
      }
    }
  }
}
