/**
 * Commit notices of the writer over PostgreSQL LISTEN/NOTIFY, for the API's live streams
 * (src/api/indexer/stream-hub.ts): the writer sends one inside each batch's transaction, so that
 * PostgreSQL delivers it only if, and after, the batch commits; an API process, in this process or
 * another, keeps one dedicated connection listening.
 *
 * A notice only says that the committed history moved and where to: subscribers read what is new
 * from the tables themselves. Delivery is asynchronous and a notice sent while a listener was
 * disconnected is lost, so a listener says when it (re)connects, and its user reads again then.
 */
import pg from 'pg';
import type { Micros } from '../domain/time';
import type { WriteConnection } from './ingest-repository';

const COMMIT_CHANNEL = 'scan_indexer_commits';

/** What one committed batch says of itself. */
export interface CommitNotice {
  stream: string;
  /** The key of the batch's last item (null: a batch of none with a key). */
  migrationId: number | null;
  recordTime: Micros | null;
  /** The stream's position after the batch (left out when too long for a notice). */
  position: string | null;
  /** Milliseconds since the epoch when the writer sent it, just before its commit. */
  committedAtMs: number;
}

/** PostgreSQL refuses payloads of 8000 bytes or more. */
const MAX_POSITION_LENGTH = 4000;

/**
 * Sends the notice on the writer's connection, inside its transaction. Runs on the raw connection of
 * `inWriteTransaction`, like the writer's other statements (the batch is timed whole).
 */
export async function publishCommit(connection: WriteConnection, notice: Omit<CommitNotice, 'committedAtMs'>): Promise<void> {
  const payload = JSON.stringify({
    s: notice.stream,
    m: notice.migrationId,
    t: notice.recordTime === null ? null : notice.recordTime.toString(),
    p: notice.position !== null && notice.position.length <= MAX_POSITION_LENGTH ? notice.position : null,
    at: Date.now(),
  });
  await connection.query('select pg_notify($1, $2)', [COMMIT_CHANNEL, payload]);
}

/** The `stream` of the notice sent when an ACS snapshot is announced (it wakes streams with snapshot events). */
const SNAPSHOT_NOTICE_STREAM = 'acs-snapshots';

/**
 * The channel and payload of the notice of an announced snapshot, which the snapshot's transaction sends
 * (snapshot-repository.ts), so that it is delivered after its commit.
 */
export function snapshotNotice(migrationId: number, recordTime: Micros): { channel: string; payload: string } {
  return {
    channel: COMMIT_CHANNEL,
    payload: JSON.stringify({ s: SNAPSHOT_NOTICE_STREAM, m: migrationId, t: recordTime.toString(), p: null, at: Date.now() }),
  };
}

/** A notice's payload, or undefined when it is not one (another sender on the channel). */
function parseCommitNotice(payload: string | undefined): CommitNotice | undefined {
  try {
    const p = JSON.parse(payload ?? '') as { s?: unknown; m?: unknown; t?: unknown; p?: unknown; at?: unknown };
    if (typeof p.s !== 'string' || typeof p.at !== 'number') return undefined;
    return {
      stream: p.s,
      migrationId: typeof p.m === 'number' ? p.m : null,
      recordTime: typeof p.t === 'string' && /^-?\d{1,20}$/.test(p.t) ? BigInt(p.t) : null,
      position: typeof p.p === 'string' ? p.p : null,
      committedAtMs: p.at,
    };
  } catch {
    return undefined;
  }
}

export interface CommitListenerHandlers {
  onCommit(notice: CommitNotice): void;
  /** LISTEN is in place (again): notices sent while it was not were lost. */
  onConnected(): void;
  onDisconnected(err: Error): void;
}

export interface CommitListener {
  readonly connected: boolean;
  close(): Promise<void>;
}

/**
 * One dedicated connection (outside the pool, with the pool's settings) listening on the channel,
 * connected again after a failure with a pause that doubles from `minBackoffMs` up to `maxBackoffMs`.
 */
export function listenForCommits(
  pool: pg.Pool,
  handlers: CommitListenerHandlers,
  options: { minBackoffMs?: number; maxBackoffMs?: number } = {},
): CommitListener {
  const minBackoff = options.minBackoffMs ?? 250;
  const maxBackoff = options.maxBackoffMs ?? 30_000;
  let client: pg.Client | undefined;
  let connected = false;
  let closed = false;
  let backoff = minBackoff;
  let timer: NodeJS.Timeout | undefined;

  const lost = (c: pg.Client, err: Error) => {
    if (client !== c) return;
    client = undefined;
    c.removeAllListeners('notification');
    c.on('error', () => undefined);
    void c.end().catch(() => undefined);
    if (connected) {
      connected = false;
      handlers.onDisconnected(err);
    }
    if (closed) return;
    timer = setTimeout(connect, backoff);
    timer.unref();
    backoff = Math.min(maxBackoff, backoff * 2);
  };

  const connect = () => {
    timer = undefined;
    if (closed) return;
    const c = new pg.Client({ ...(pool.options as pg.ClientConfig), application_name: 'scan-indexer-listen' });
    client = c;
    c.on('error', (err) => lost(c, err));
    c.on('end', () => lost(c, new Error('the listening connection ended')));
    c.on('notification', (message) => {
      if (message.channel !== COMMIT_CHANNEL) return;
      const notice = parseCommitNotice(message.payload);
      if (notice) handlers.onCommit(notice);
    });
    c.connect()
      .then(() => c.query(`listen ${COMMIT_CHANNEL}`))
      .then(() => {
        if (client !== c) return;
        if (closed) {
          void c.end().catch(() => undefined);
          return;
        }
        connected = true;
        backoff = minBackoff;
        handlers.onConnected();
      })
      .catch((err: unknown) => lost(c, err instanceof Error ? err : new Error(String(err))));
  };
  connect();

  return {
    get connected() {
      return connected;
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = undefined;
      connected = false;
      if (c) {
        c.removeAllListeners('notification');
        c.on('error', () => undefined);
        await c.end().catch(() => undefined);
      }
    },
  };
}
