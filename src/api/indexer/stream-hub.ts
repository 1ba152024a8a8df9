/**
 * The fan-out of live streams in one API process: one LISTEN connection (src/store/commit-notifications.ts)
 * wakes every subscriber when the writer commits a batch, a heartbeat with the newest record time goes to
 * every subscriber every STREAM_HEARTBEAT_SECONDS, and shutdown ends every stream with an event telling
 * its client to reconnect.
 *
 * Subscribers read what is new from the database themselves, after their own cursor: a wake-up only
 * says "read again". A generation counts the wake-ups, so that a commit that lands while a subscriber
 * reads (and that its read may not see) wakes it once more when it is done. While the LISTEN
 * connection is down, a timer wakes subscribers every STREAM_POLL_MS instead, and its return wakes them
 * once (notices sent meanwhile are lost).
 */
import type pg from 'pg';
import type { StreamKey } from '../../domain/stream-key';
import { formatDateTime } from '../../domain/time';
import type { Logger } from '../../internal/logger';
import type { Metrics } from '../../internal/metrics';
import { listenForCommits, type CommitListener } from '../../store/commit-notifications';
import type { Db } from '../../store/pool';
import { parseLsn, type ReplicaMonitor } from '../../store/replica-monitor';
import { newestEventPosition, readWalInsertPosition } from '../../store/stream-repository';
import { SharedReads } from './shared-reads';

export interface StreamSettings {
  readonly maxSubscribers: number;
  readonly heartbeatMs: number;
  readonly pageSize: number;
  readonly maxBufferBytes: number;
  readonly slowConsumerMs: number;
  readonly pollMs: number;
}

/** A heartbeat's data fields: the newest item's migration and record time (null before the first). */
export type HeartbeatData = Readonly<{ migration_id: number | null; record_time: string | null }>;

/** A subscriber as the hub knows it. */
export interface HubMember {
  /** The stream's name, for metrics ("events"). */
  readonly stream: string;
  /** `data` is the heartbeat's fields, one object for every subscriber (framed once when no id is added); not to be changed. */
  heartbeat(data: HeartbeatData): void;
  /** Ends the stream with an event telling the client to reconnect (the process is stopping). */
  endForShutdown(): void;
}

export interface StreamHubDeps {
  /** The primary's pool: the LISTEN connection is made with its settings. */
  pool: pg.Pool;
  /** The primary's Db: subscribers read there, so that what a notice announces is visible. */
  db: Db;
  logger: Logger;
  metrics: Metrics;
  settings: StreamSettings;
  /** The read replicas of this process (DATABASE_READ_URLS): what is sent must be on every one in use first. */
  replicas?: ReplicaMonitor;
}

/** How often replicas' replay positions are read while a subscriber waits for them. */
const REPLAY_POLL_MS = 10;

export class StreamHub {
  /** The subscribers' reads, shared while identical (./shared-reads.ts). */
  readonly reads = new SharedReads();
  private generationCount = 0;
  /** The generation of the last wake-up by a notice, and the notice's commit time. */
  private lastNotice: { generation: number; committedAtMs: number } | undefined;
  /**
   * The subscribers waiting for a change, by the signal that cuts their wait short. Each signal gets one
   * abort listener for its life, not one per wait: adding and removing a listener for each of a thousand
   * subscribers at every commit cost more than the rest of the wake-up.
   */
  private readonly waiters = new Map<AbortSignal, Set<() => void>>();
  private readonly watched = new WeakSet<AbortSignal>();
  private readonly members = new Set<HubMember>();
  private listener: CommitListener | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private closing = false;
  private positionReading: Promise<bigint> | undefined;
  private readonly replayWaiters = new Set<{ target: bigint; done: () => void }>();
  private replayPolling = false;

  constructor(readonly deps: StreamHubDeps) {}

  /**
   * Settles once every read replica in use by this process has replayed the primary's WAL as it is now
   * (after the caller read what it is about to send from the primary), at once without replicas, or when
   * the signal aborts. A replica that leaves use (lagging past DATABASE_READ_MAX_LAG_MS, unreachable)
   * stops being waited for: this process sends it no reads either. The readings are shared: callers of
   * one turn of the event loop share one reading of the primary's position, and every waiter one reading
   * of each replica's replay position every REPLAY_POLL_MS.
   */
  async replayed(signal: AbortSignal): Promise<void> {
    const monitor = this.deps.replicas;
    if (!monitor || !this.waitsForReplicas) return;
    const target = await this.primaryPosition();
    if (signal.aborted || this.closing) return;
    await new Promise<void>((resolve) => {
      const waiter = {
        target,
        done: () => {
          this.replayWaiters.delete(waiter);
          signal.removeEventListener('abort', waiter.done);
          resolve();
        },
      };
      this.replayWaiters.add(waiter);
      signal.addEventListener('abort', waiter.done, { once: true });
      if (!this.replayPolling) void this.pollReplay(monitor);
    });
  }

  /** Whether a read replica is in use, so that what is sent must wait for its replay (replayed). */
  get waitsForReplicas(): boolean {
    return this.deps.replicas?.states.some((r) => r.condition === 'in_use') ?? false;
  }

  private primaryPosition(): Promise<bigint> {
    this.positionReading ??= new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      this.positionReading = undefined;
      return parseLsn(await readWalInsertPosition(this.deps.db));
    });
    return this.positionReading;
  }

  private async pollReplay(monitor: ReplicaMonitor): Promise<void> {
    this.replayPolling = true;
    try {
      while (this.replayWaiters.size > 0) {
        if (this.closing) {
          for (const w of [...this.replayWaiters]) w.done();
          return;
        }
        // Unanswered (null): the monitor takes the replica out of use soon; until then, wait.
        const positions = await monitor.replayPositionsInUse();
        const lowest = positions.reduce<bigint | null | undefined>(
          (a, p) => (a === null || p === null ? null : a === undefined || p < a ? p : a),
          undefined,
        );
        for (const w of [...this.replayWaiters]) if (lowest === undefined || (lowest !== null && lowest >= w.target)) w.done();
        if (this.replayWaiters.size > 0) await new Promise((resolve) => setTimeout(resolve, REPLAY_POLL_MS));
      }
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message }, "reading the replicas' replay positions for live streams failed");
      await new Promise((resolve) => setTimeout(resolve, REPLAY_POLL_MS * 10));
    } finally {
      this.replayPolling = false;
    }
    // Waiters that came while it was ending, or after a failure.
    if (this.replayWaiters.size > 0) void this.pollReplay(monitor);
  }

  get settings(): StreamSettings {
    return this.deps.settings;
  }

  get generation(): number {
    return this.generationCount;
  }

  /** Whether a subscriber would be taken now: false (and counted) when the process has as many as it takes, or is stopping. */
  admits(stream: string): boolean {
    if (this.closing || this.members.size >= this.settings.maxSubscribers) {
      this.deps.metrics.streamRefusals.inc({ stream, reason: this.closing ? 'shutdown' : 'subscriber_limit' });
      return false;
    }
    return true;
  }

  /** Adds a subscriber; false when the process has as many as it takes, or is stopping. */
  join(member: HubMember): boolean {
    if (!this.admits(member.stream)) return false;
    this.members.add(member);
    this.deps.metrics.streamSubscribers.inc({ stream: member.stream });
    this.start();
    return true;
  }

  leave(member: HubMember): void {
    if (!this.members.delete(member)) return;
    this.deps.metrics.streamSubscribers.dec({ stream: member.stream });
    if (this.members.size === 0 && this.heartbeatTimer) {
      clearInterval(this.heartbeatTimer);
      this.heartbeatTimer = undefined;
    }
  }

  /**
   * Settles once the generation is past `generation` (or at once if it is already), or the signal
   * aborts. Its value is the commit time of the notice that woke it, when a notice did.
   */
  waitForChange(generation: number, signal: AbortSignal): Promise<number | undefined> {
    if (this.generationCount > generation || signal.aborted) return Promise.resolve(this.noticeTimeAfter(generation));
    return new Promise((resolve) => {
      let waiting = this.waiters.get(signal);
      if (!waiting) this.waiters.set(signal, (waiting = new Set()));
      waiting.add(() => resolve(this.noticeTimeAfter(generation)));
      if (this.watched.has(signal)) return;
      this.watched.add(signal);
      signal.addEventListener('abort', () => this.release(this.waiters.get(signal), signal), { once: true });
    });
  }

  /** Ends the waits of one signal (aborted), or of every one (a change). */
  private release(waiting: Set<() => void> | undefined, signal: AbortSignal): void {
    if (!waiting) return;
    this.waiters.delete(signal);
    for (const wake of waiting) wake();
  }

  /** Ends every stream with the reconnect event and stops listening; later subscribers are refused. */
  async close(): Promise<void> {
    this.closing = true;
    for (const member of [...this.members]) member.endForShutdown();
    this.stopPolling();
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
    const listener = this.listener;
    this.listener = undefined;
    await listener?.close();
    for (const w of [...this.replayWaiters]) w.done();
    this.wake();
  }

  private noticeTimeAfter(generation: number): number | undefined {
    const notice = this.lastNotice;
    return notice && notice.generation > generation && notice.generation === this.generationCount ? notice.committedAtMs : undefined;
  }

  private wake(committedAtMs?: number): void {
    this.generationCount += 1;
    if (committedAtMs !== undefined) this.lastNotice = { generation: this.generationCount, committedAtMs };
    const all = [...this.waiters];
    this.waiters.clear();
    for (const [signal, waiting] of all) this.release(waiting, signal);
  }

  private start(): void {
    if (!this.heartbeatTimer) {
      this.heartbeatTimer = setInterval(() => void this.heartbeat(), this.settings.heartbeatMs);
      this.heartbeatTimer.unref();
    }
    if (this.listener) return;
    const { metrics, logger } = this.deps;
    this.startPolling();
    this.listener = listenForCommits(this.deps.pool, {
      onCommit: (notice) => this.wake(notice.committedAtMs),
      onConnected: () => {
        metrics.streamListenerConnected.set(1);
        logger.debug('listening for commits');
        this.stopPolling();
        this.wake();
      },
      onDisconnected: (err) => {
        metrics.streamListenerConnected.set(0);
        logger.warn({ err: err.message }, 'the connection listening for commits failed: live streams poll the database until it is back');
        this.startPolling();
      },
    });
  }

  private startPolling(): void {
    if (this.pollTimer || this.closing) return;
    this.pollTimer = setInterval(() => this.wake(), this.settings.pollMs);
    this.pollTimer.unref();
  }

  private stopPolling(): void {
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = undefined;
  }

  /** One reading of the newest item's position for every subscriber. */
  private async heartbeat(): Promise<void> {
    if (this.members.size === 0) return;
    let newest: StreamKey | undefined;
    try {
      newest = await newestEventPosition(this.deps.db);
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message }, 'reading the newest record time for the stream heartbeat failed');
      return;
    }
    const data: HeartbeatData = newest
      ? { migration_id: newest.migrationId, record_time: formatDateTime(newest.recordTime) }
      : { migration_id: null, record_time: null };
    for (const member of this.members) member.heartbeat(data);
  }
}
