/**
 * Requests on kept-alive connections after the server's event loop was held up (a starved process,
 * a long synchronous task): the server answers every request a client sent within the advertised
 * keep-alive time. Node runs an expired keep-alive timer before it reads what arrived meanwhile;
 * src/api/server.ts closes an idle connection only once that is read, so the request is answered
 * instead of being cut by a reset.
 *
 * The server runs in this process, so the test holds its event loop up itself, in the phase of the
 * loop where the service's own long tasks run (after I/O), between sending and the server's turn.
 */
import net from 'node:net';
import { createTestDatabase, destroyTestDatabase, type TestDatabase } from '../../support/database/database';
import { startTestApi, type TestApi } from '../../support/http/http';

const CONNECTIONS = 8;
const PATH = '/api/scan/v0/dso-party-id';
/** Node's advertised keep-alive (`Keep-Alive: timeout=5`): a client may reuse a connection until then. */
const ADVERTISED_MS = 5_000;
/** Idle time before reuse: well within the advertised keep-alive, so reuse is the client's right. */
const IDLE_MS = 2_000;
/** How long the event loop is held up: idle plus this is past the time Node closes idle connections (6 s). */
const STALL_MS = 5_000;

interface Answer {
  status: number;
  keepAlive: string | undefined;
  body: string;
}

/** One HTTP/1.1 connection driven by hand, so that the test decides when a kept-alive connection is reused. */
class Connection {
  private buffered = Buffer.alloc(0);
  private waiting: { resolve: (a: Answer) => void; reject: (e: Error) => void } | undefined;
  private failure: Error | undefined;

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.deliver();
    });
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(Object.assign(new Error('closed without an answer'), { code: 'CLOSED' })));
  }

  static open(url: string): Promise<Connection> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), hostname, () => resolve(new Connection(socket)));
      socket.once('error', reject);
    });
  }

  /** Writes a request now (a synchronous write to the kernel); its answer is the next `answer()`. */
  send(path: string): void {
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\n\r\n`);
  }

  answer(): Promise<Answer> {
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      this.waiting = { resolve, reject };
      this.deliver();
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private fail(err: Error): void {
    this.failure ??= err;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(this.failure);
  }

  private deliver(): void {
    if (!this.waiting) return;
    const end = this.buffered.indexOf('\r\n\r\n');
    if (end === -1) return;
    const head = this.buffered.subarray(0, end).toString('latin1').split('\r\n');
    const headers = new Map(
      head.slice(1).map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    const length = Number(headers.get('content-length') ?? 0);
    if (this.buffered.length < end + 4 + length) return;
    const body = this.buffered.subarray(end + 4, end + 4 + length).toString('utf8');
    this.buffered = this.buffered.subarray(end + 4 + length);
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting.resolve({ status: Number(head[0]!.split(' ')[1]), keepAlive: headers.get('keep-alive'), body });
  }
}

/** Blocks this process (the server's event loop with it), as a long synchronous task does. */
function holdUpEventLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy
  }
}

const describeError = (err: unknown) => `${(err as Error).name} ${(err as { code?: string }).code ?? ''}: ${(err as Error).message}`;

describe('kept-alive connections after the event loop was held up', () => {
  let t: TestDatabase;
  let api: TestApi;
  beforeAll(async () => {
    t = await createTestDatabase();
    api = await startTestApi(t);
  });
  afterAll(async () => {
    await api?.close();
    if (t) await destroyTestDatabase(t);
  });

  /**
   * Opens the connections, asks once on each, reuses them after IDLE_MS and holds the event loop up;
   * the answers, or undefined when this machine let more than the advertised time pass before the
   * reuse (a client may then find the connection closed, which proves nothing).
   */
  async function reuseAfterStall(): Promise<{ first: Answer[]; second: (Answer | string)[] } | undefined> {
    const connections = await Promise.all(Array.from({ length: CONNECTIONS }, () => Connection.open(api.url)));
    try {
      const first = await Promise.all(
        connections.map((c) => {
          c.send(PATH);
          return c.answer();
        }),
      );
      const answeredAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      // In the check phase, as after I/O: the timers that expire meanwhile run before the loop reads again.
      const reusedAfterMs = await new Promise<number>((resolve) =>
        setImmediate(() => {
          const idle = Date.now() - answeredAt;
          for (const c of connections) c.send(PATH);
          holdUpEventLoop(STALL_MS);
          resolve(idle);
        }),
      );
      const second = await Promise.all(connections.map((c) => c.answer().catch((err: unknown) => describeError(err))));
      return reusedAfterMs < ADVERTISED_MS ? { first, second } : undefined;
    } finally {
      for (const c of connections) c.close();
    }
  }

  it('answers every request a client sent within the advertised keep-alive time', async () => {
    let run: Awaited<ReturnType<typeof reuseAfterStall>>;
    for (let attempt = 0; attempt < 3 && run === undefined; attempt++) run = await reuseAfterStall();
    if (run === undefined) throw new Error('three times, this machine took longer than the advertised keep-alive to reuse a connection');
    const { first, second } = run;
    // The service's answer on an empty database, on every connection, before and after.
    expect(first[0]!.keepAlive).toBe(`timeout=${ADVERTISED_MS / 1000}`);
    expect(first.map((a) => [a.status, a.body])).toEqual(first.map(() => [first[0]!.status, first[0]!.body]));
    expect(second).toEqual(first);
  });
});
