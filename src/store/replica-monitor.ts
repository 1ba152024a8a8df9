/**
 * Watches the streaming replicas an API process reads from (DATABASE_READ_URLS), every few hundred
 * milliseconds: whether each answers and is a standby of this cluster, how far its replay is behind
 * the primary (in WAL bytes, and in seconds: since when the primary has held WAL the replica has not
 * replayed), and what data it holds (its horizon, read on the replica itself, so a safe lower bound:
 * replay only moves forward). The routing pool asks it which replica may serve a request.
 *
 * A replica is in use while it answers, is in recovery, belongs to the primary's cluster, and is at
 * most DATABASE_READ_MAX_LAG_MS behind. A request that finds it unavailable takes it out of use at
 * once; only a check that started after that failure puts it back.
 */
import type { Logger } from '../internal/logger';
import type { Db } from './pool';
import type { ReadNeed } from './read-context';
import {
  readDataHorizon,
  readPrimaryWalPosition,
  readStandbyStatus,
  readSystemIdentifier,
  type MigrationHorizon,
} from './replica-repository';

/** What a replica is, as /status reports it; only `in_use` serves requests. */
type ReplicaCondition = 'starting' | 'unavailable' | 'not_a_standby' | 'other_cluster' | 'lagging' | 'in_use';

export interface ReplicaState {
  /** Position in DATABASE_READ_URLS, from 0: the metric label. */
  readonly index: number;
  /** host:port/database, without credentials. */
  readonly host: string;
  condition: ReplicaCondition;
  /** WAL bytes the primary has written that the replica has not replayed; null while unknown. */
  lagBytes: number | null;
  /** Seconds since the primary first held WAL that the replica has not replayed (0 when caught up); null while unknown. */
  lagSeconds: number | null;
  replayPaused: boolean;
  /** Per migration id, what the replica held at its last check. */
  horizon: ReadonlyMap<number, MigrationHorizon>;
  /** When it was last checked (ms since the epoch), and what went wrong if the check failed. */
  checkedAt: number | null;
  lastError: string | null;
}

interface ReplicaEndpoint {
  host: string;
  /** A connection of the monitor's own (one client, short timeouts), not the pool requests use. */
  db: Db;
}

export interface ReplicaMonitorOptions {
  /** The primary's Db, for its WAL position. */
  primary: Db;
  replicas: readonly ReplicaEndpoint[];
  pollMs: number;
  maxLagMs: number;
  logger?: Logger;
  now?: () => number;
}

/** A pg_lsn ("16/B374D848") as a number of bytes. */
export function parseLsn(lsn: string): bigint {
  const m = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(lsn);
  if (!m) throw new Error(`not a WAL position: ${lsn}`);
  return (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`);
}

/**
 * The primary's WAL positions over time, each kept with the time it was first seen: how long ago the
 * primary first held WAL beyond a replica's replay position is that replica's lag in time. Only new
 * positions are kept, so an idle primary adds none and a caught-up replica has no lag however old its
 * last transaction.
 */
export class WalTimeline {
  private readonly samples: { at: number; lsn: bigint }[] = [];

  constructor(private readonly keepMs: number) {}

  get latest(): bigint | undefined {
    return this.samples[this.samples.length - 1]?.lsn;
  }

  record(at: number, lsn: bigint): void {
    const last = this.samples[this.samples.length - 1];
    if (!last || lsn > last.lsn) this.samples.push({ at, lsn });
    // The newest sample always stays; older ones only as long as a lag worth telling apart from "too far behind".
    while (this.samples.length > 1 && this.samples[0]!.at < at - this.keepMs) this.samples.shift();
  }

  /** Seconds the replica at `replayed` is behind at `now`, or null before the first sample. */
  lagSeconds(replayed: bigint, now: number): number | null {
    if (this.samples.length === 0) return null;
    const firstMissing = this.samples.find((s) => s.lsn > replayed);
    return firstMissing === undefined ? 0 : Math.max(0, (now - firstMissing.at) / 1000);
  }
}

interface Watched {
  state: ReplicaState;
  endpoint: ReplicaEndpoint;
  /** Set by a request that found the replica unavailable: the last check begun before that. */
  failedAfterCheck: number | null;
  /** Its system identifier, read once per stretch of successful checks (a server that went away may come back as another). */
  system: { id: string | undefined } | undefined;
}

export class ReplicaMonitor {
  readonly states: readonly ReplicaState[];
  private readonly watched: Watched[];
  private readonly timeline: WalTimeline;
  private readonly now: () => number;
  private primarySystem: string | undefined;
  private checks = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: ReplicaMonitorOptions) {
    this.now = options.now ?? Date.now;
    // Enough history to tell a lag from the bound, and a minute at least.
    this.timeline = new WalTimeline(Math.max(10 * options.maxLagMs, 60_000));
    this.watched = options.replicas.map((endpoint, index) => ({
      endpoint,
      failedAfterCheck: null,
      system: undefined,
      state: {
        index,
        host: endpoint.host,
        condition: 'starting',
        lagBytes: null,
        lagSeconds: null,
        replayPaused: false,
        horizon: new Map(),
        checkedAt: null,
        lastError: null,
      },
    }));
    this.states = this.watched.map((w) => w.state);
  }

  /** Checks now, then every pollMs until stopped. */
  start(): void {
    const loop = () => {
      if (this.stopped) return;
      this.running = this.check().finally(() => {
        if (!this.stopped) this.timer = setTimeout(loop, this.options.pollMs);
      });
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Whether replica `index` may serve a request with these needs now. */
  serves(index: number, needs: readonly ReadNeed[]): boolean {
    const state = this.states[index];
    if (!state || state.condition !== 'in_use') return false;
    return needs.every((need) => {
      const h = state.horizon.get(need.migrationId);
      const held = need.kind === 'records' ? h?.newestRecordTime : h?.newestSnapshot;
      return held !== undefined && held !== null && held >= need.recordTime;
    });
  }

  /** A request could not reach the replica: out of use at once, until a later check finds it healthy. */
  markUnavailable(index: number, err: unknown): void {
    const w = this.watched[index];
    if (!w) return;
    w.failedAfterCheck = this.checks;
    w.system = undefined;
    w.state.lastError = messageOf(err);
    if (w.state.condition !== 'unavailable') {
      this.options.logger?.warn(
        { replica: index, host: w.state.host, err: w.state.lastError },
        'read replica unavailable: reads go to the primary',
      );
      w.state.condition = 'unavailable';
    }
  }

  /** One round: the primary's WAL position, then every replica. */
  /**
   * The replay position of each replica in use now, read on it with the monitor's own connection (the
   * live streams wait on it: src/api/indexer/stream-hub.ts); null for one that fails to answer.
   */
  async replayPositionsInUse(): Promise<(bigint | null)[]> {
    const inUse = this.watched.filter((w) => w.state.condition === 'in_use');
    return Promise.all(
      inUse.map(async (w) => {
        try {
          const status = await readStandbyStatus(w.endpoint.db);
          return status.replayLsn === null ? null : parseLsn(status.replayLsn);
        } catch {
          return null;
        }
      }),
    );
  }

  async check(): Promise<void> {
    const check = ++this.checks;
    try {
      const lsn = parseLsn(await readPrimaryWalPosition(this.options.primary));
      this.timeline.record(this.now(), lsn);
      this.primarySystem ??= await readSystemIdentifier(this.options.primary);
    } catch (err) {
      // Without the primary, lags are measured against its last known position.
      this.options.logger?.debug({ err: messageOf(err) }, 'replica monitor could not read the primary WAL position');
    }
    await Promise.all(this.watched.map((w) => this.checkReplica(w, check)));
  }

  private async checkReplica(w: Watched, check: number): Promise<void> {
    const { state } = w;
    let found: { condition: ReplicaCondition; error: string | null };
    try {
      w.system ??= { id: await readSystemIdentifier(w.endpoint.db) };
      const system = w.system.id;
      const status = await readStandbyStatus(w.endpoint.db);
      if (system !== undefined && this.primarySystem !== undefined && system !== this.primarySystem) {
        found = { condition: 'other_cluster', error: 'the server is not a replica of DATABASE_URL (another system identifier)' };
      } else if (!status.inRecovery || status.replayLsn === null) {
        found = { condition: 'not_a_standby', error: 'the server is not in recovery (not a streaming replica)' };
      } else {
        state.horizon = new Map((await readDataHorizon(w.endpoint.db)).map((h) => [h.migrationId, h]));
        const replayed = parseLsn(status.replayLsn);
        const latest = this.timeline.latest;
        state.lagBytes = latest === undefined ? null : Number(latest > replayed ? latest - replayed : 0n);
        state.lagSeconds = this.timeline.lagSeconds(replayed, this.now());
        state.replayPaused = status.replayPaused;
        const lagging = state.lagSeconds === null || state.lagSeconds * 1000 > this.options.maxLagMs;
        found = { condition: lagging ? 'lagging' : 'in_use', error: null };
      }
    } catch (err) {
      found = { condition: 'unavailable', error: messageOf(err) };
      w.system = undefined;
    }
    if (found.condition !== 'in_use' && found.condition !== 'lagging') {
      state.lagBytes = null;
      state.lagSeconds = null;
    }
    state.checkedAt = this.now();
    // A request's failure after this check began outranks what the check saw.
    if (w.failedAfterCheck !== null && w.failedAfterCheck >= check) return;
    w.failedAfterCheck = null;
    state.lastError = found.error;
    if (found.condition !== state.condition) {
      const level = found.condition === 'in_use' ? 'info' : 'warn';
      this.options.logger?.[level](
        { replica: state.index, host: state.host, condition: found.condition, err: found.error ?? undefined },
        'read replica condition changed',
      );
      state.condition = found.condition;
    }
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** host:port/database of a connection URL, for logs and /status (never its credentials). */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return 'unparsable URL';
  }
}
