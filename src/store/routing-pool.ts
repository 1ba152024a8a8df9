/**
 * The pool behind the API's Db when read replicas are configured: a pool-like object (what Kysely's
 * PostgresDialect uses) that picks, at each connection a query takes, the primary or a replica, from the
 * request's read context (read-context.ts) and the replica monitor (replica-monitor.ts):
 *
 * - outside a request, or once a request must read on the primary: the primary;
 * - at a scope's first query: a replica in use that has replayed every position the scope needs
 *   (in turn, when several have), else the primary; the choice is kept for the scope's later
 *   queries while that replica stays in use and has what the scope needs;
 * - a query a replica cannot answer because it is unreachable (the replica is then out of use at
 *   once), busy (no free connection in time), in conflict with its replay, or because it writes, is run
 *   again on the primary, and the rest of the scope with it: a replica never causes a 5xx.
 *
 * The primary's pool belongs to the caller (it is the writer's too); `end` closes the replicas' pools.
 */
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import { isRetryable } from '../internal/errors';
import { currentReadScope, type FallbackReason, type ReadScope, type ReadTarget } from './read-context';
import type { ReplicaMonitor } from './replica-monitor';

/** Told where each query of an API request ran (for metrics). */
export type ReadRoutingObserver = (target: ReadTarget) => void;

/** node-postgres's message when no pooled connection was free within connectionTimeoutMillis. */
const POOL_WAIT_TIMEOUT = /^timeout exceeded when trying to connect/;
/** node-postgres's message when a new connection did not open within connectionTimeoutMillis. */
const CONNECT_TIMEOUT = /connection timeout/i;

/** Why a replica's failure is a reason to read on the primary instead, or undefined for other errors (which are the answer). */
export function replicaFault(err: unknown): FallbackReason | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  const message = (err as { message?: unknown }).message;
  // read_only_sql_transaction: something wrote through the read Db.
  if (code === '25006') return 'read_only';
  // A hot standby cancels queries whose rows its replay must remove (serialization_failure, deadlock_detected, database_dropped).
  if (code === '40001' || code === '40P01' || code === '57P04') return 'recovery_conflict';
  if (typeof message === 'string' && POOL_WAIT_TIMEOUT.test(message)) return 'replica_busy';
  if (isRetryable(err)) return 'replica_unavailable';
  if (typeof code === 'string' && (code.startsWith('08') || code === '57P02')) return 'replica_unavailable';
  if (typeof message === 'string' && CONNECT_TIMEOUT.test(message)) return 'replica_unavailable';
  return undefined;
}

const BEGINS = /^\s*(begin|start\s+transaction)\b/i;
const ENDS = /^\s*(commit|rollback|end)\b/i;

export class RoutingPool implements PostgresPool {
  private turn = 0;

  constructor(
    private readonly primary: pg.Pool,
    private readonly replicas: readonly pg.Pool[],
    private readonly monitor: ReplicaMonitor,
    private readonly observe: ReadRoutingObserver = () => undefined,
  ) {}

  async connect(): Promise<PostgresPoolClient> {
    const scope = currentReadScope();
    if (!scope) return this.primary.connect();
    const target = this.choose(scope);
    if (target === 'primary') {
      this.observe('primary');
      return this.primary.connect();
    }
    let client: pg.PoolClient;
    try {
      client = await this.replicas[target]!.connect();
    } catch (err) {
      const fault = replicaFault(err);
      if (fault === undefined) throw err;
      this.fallBack(scope, target, fault, err);
      this.observe('primary');
      return this.primary.connect();
    }
    scope.replicaUsed = true;
    scope.request.usedReplica = true;
    this.observe(target);
    return new ReplicaClient(client, target, scope, this);
  }

  async end(): Promise<void> {
    await Promise.all(this.replicas.map((p) => p.end()));
  }

  /** Where the scope's next query goes; remembers the choice. */
  private choose(scope: ReadScope): ReadTarget {
    if (scope.request.primaryOnly || scope.chosen === 'primary') return 'primary';
    if (scope.chosen !== undefined) {
      if (this.monitor.serves(scope.chosen, scope.needs)) return scope.chosen;
      // Taken out of use meanwhile, or the scope has since registered a position it lacks.
      return (scope.chosen = 'primary');
    }
    const candidates: number[] = [];
    for (let i = 0; i < this.replicas.length; i++) if (this.monitor.serves(i, scope.needs)) candidates.push(i);
    if (candidates.length === 0) return (scope.chosen = 'primary');
    return (scope.chosen = candidates[this.turn++ % candidates.length]!);
  }

  /** The scope continues on the primary; an unreachable replica is out of use at once. */
  fallBack(scope: ReadScope, replica: number, fault: FallbackReason, err: unknown): void {
    if (fault === 'replica_unavailable') this.monitor.markUnavailable(replica, err);
    scope.chosen = 'primary';
    scope.request.fallbacks.push(fault);
  }

  /** Runs one statement on a primary connection (a replica's failed one, again). */
  async queryOnPrimary<R>(sql: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>> {
    this.observe('primary');
    const client = await this.primary.connect();
    try {
      return (await client.query(sql, parameters as unknown[])) as unknown as PostgresQueryResult<R>;
    } finally {
      client.release();
    }
  }
}

/** A replica's connection whose failed statements are run again on the primary (outside transactions). */
class ReplicaClient implements PostgresPoolClient {
  private inTransaction = false;
  private broken: Error | undefined;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly replica: number,
    private readonly scope: ReadScope,
    private readonly router: RoutingPool,
  ) {}

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(
    sqlOrCursor: string | PostgresCursor<R>,
    parameters?: ReadonlyArray<unknown>,
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof sqlOrCursor !== 'string') {
      return (this.client as unknown as { query(c: PostgresCursor<R>): PostgresCursor<R> }).query(sqlOrCursor);
    }
    return this.run<R>(sqlOrCursor, parameters ?? []);
  }

  private async run<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
    if (BEGINS.test(sql)) this.inTransaction = true;
    else if (ENDS.test(sql)) this.inTransaction = false;
    try {
      return (await this.client.query(sql, parameters as unknown[])) as unknown as PostgresQueryResult<R>;
    } catch (err) {
      const fault = replicaFault(err);
      // Inside a transaction the statement cannot be moved alone; the error stands (and the API answers it).
      if (fault === undefined || this.inTransaction) throw err;
      if (fault === 'replica_unavailable') this.broken = err as Error;
      this.router.fallBack(this.scope, this.replica, fault, err);
      return this.router.queryOnPrimary<R>(sql, parameters);
    }
  }

  release(): void {
    // A connection that failed is dropped rather than handed to the next request.
    this.client.release(this.broken);
  }
}
