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
import type { Logger } from '../../internal/logger';
import type { Metrics } from '../../internal/metrics';
import { listenForCommits, type CommitListener } from '../../store/commit-notifications';
import type { Db } from '../../store/pool';
import { newestEventPosition } from '../../store/stream-repository';

export interface StreamSettings {
  readonly maxSubscribers: number;
  readonly heartbeatMs: number;
  readonly pageSize: number;
  readonly maxBufferBytes: number;
  readonly slowConsumerMs: number;
  readonly pollMs: number;
}

/** A subscriber as the hub knows it. */
export interface HubMember {
  /** The stream's name, for metrics ("events"). */
  readonly stream: string;
  heartbeat(newest: StreamKey | undefined): void;
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
}

export class StreamHub {
  private generationCount = 0;
  /** The generation of the last wake-up by a notice, and the notice's commit time. */
  private lastNotice: { generation: number; committedAtMs: number } | undefined;
  private readonly waiters = new Set<() => void>();
  private readonly members = new Set<HubMember>();
  private listener: CommitListener | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private closing = false;

  constructor(readonly deps: StreamHubDeps) {}

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
      const wake = () => {
        this.waiters.delete(wake);
        signal.removeEventListener('abort', wake);
        resolve(this.noticeTimeAfter(generation));
      };
      this.waiters.add(wake);
      signal.addEventListener('abort', wake, { once: true });
    });
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
    this.wake();
  }

  private noticeTimeAfter(generation: number): number | undefined {
    const notice = this.lastNotice;
    return notice && notice.generation > generation && notice.generation === this.generationCount ? notice.committedAtMs : undefined;
  }

  private wake(committedAtMs?: number): void {
    this.generationCount += 1;
    if (committedAtMs !== undefined) this.lastNotice = { generation: this.generationCount, committedAtMs };
    for (const waiter of [...this.waiters]) waiter();
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
    for (const member of this.members) member.heartbeat(newest);
  }
}
