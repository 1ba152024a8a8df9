/**
 * Where the queries of one API request may be read, carried with its async context (an API middleware
 * opens it; routing-pool.ts reads it at each query). A request registers the positions its answer
 * depends on before it queries (a page token's snapshot, a cursor's record time); the routing pool
 * then sends its queries to a replica that has replayed them, else to the primary. The choice is
 * made lazily, at a scope's first query, and kept for the scope, so that one answer is read from one
 * server. Outside any request (ingestion, jobs, start-up) every query goes to the primary.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Micros } from '../domain/time';

/** A position an answer depends on; a replica may serve the answer only once it has replayed it. */
export type ReadNeed =
  /** Every update of the migration with a record time up to this one. */
  | { kind: 'records'; migrationId: number; recordTime: Micros }
  /** The ACS snapshot of the migration announced at this time, or a later one (snapshots are announced in order). */
  | { kind: 'snapshot'; migrationId: number; recordTime: Micros };

/** Why a read that a replica served was read again on the primary (a bounded metric label). */
export type FallbackReason =
  'replica_unavailable' | 'replica_busy' | 'recovery_conflict' | 'read_only' | 'not_found' | 'short_page' | 'answer_refused';

/** One request: shared by all its scopes. */
export interface ReadRequest {
  /** Every later query of the request goes to the primary. */
  primaryOnly: boolean;
  /** Some query of the request ran on a replica (so an absent answer may only be replica lag). */
  usedReplica: boolean;
  /** Why parts of it were read again on the primary, for metrics. */
  fallbacks: FallbackReason[];
}

/** Target of a scope's queries once chosen: a replica's index, or the primary. */
export type ReadTarget = number | 'primary';

/** A part of a request with its own needs and its own choice of server. */
export interface ReadScope {
  readonly request: ReadRequest;
  readonly needs: ReadNeed[];
  chosen: ReadTarget | undefined;
  /** Some query of this scope ran on a replica. */
  replicaUsed: boolean;
}

const current = new AsyncLocalStorage<ReadScope>();

/** The scope of the running request, or undefined outside a request. */
export function currentReadScope(): ReadScope | undefined {
  return current.getStore();
}

/** Runs one request's work in a fresh read context (an API middleware calls it with `next`). */
export function runInReadRequest<T>(work: () => T): T {
  return current.run(
    { request: { primaryOnly: false, usedReplica: false, fallbacks: [] }, needs: [], chosen: undefined, replicaUsed: false },
    work,
  );
}

/** The read request of the running request (its fallbacks, whether a replica served it). */
export function currentReadRequest(): ReadRequest | undefined {
  return current.getStore()?.request;
}

/**
 * Registers a position the current request's answer depends on. Registered after the scope chose a
 * replica that lacks it, it sends the scope's later queries to the primary.
 */
export function needPosition(need: ReadNeed): void {
  current.getStore()?.needs.push(need);
}

function child<T>(
  chosen: ReadTarget | undefined,
  needs: readonly ReadNeed[],
  work: () => Promise<T>,
): Promise<{ value: T; scope: ReadScope }> {
  const parent = current.getStore();
  if (!parent) return work().then((value) => ({ value, scope: { request: detached(), needs: [], chosen: 'primary', replicaUsed: false } }));
  const scope: ReadScope = { request: parent.request, needs: [...parent.needs, ...needs], chosen, replicaUsed: false };
  return current.run(scope, async () => ({ value: await work(), scope }));
}

const detached = (): ReadRequest => ({ primaryOnly: true, usedReplica: false, fallbacks: [] });

/** Runs `work` with extra needs in a scope of its own, which chooses its server independently of the request's. */
export async function withNeeds<T>(needs: readonly ReadNeed[], work: () => Promise<T>): Promise<T> {
  return (await child(undefined, needs, work)).value;
}

/** Runs `work` on the primary, whatever the request chose. */
export async function onPrimary<T>(work: () => Promise<T>): Promise<T> {
  return (await child('primary', [], work)).value;
}

/** Sends every later query of a request to the primary (its answer is being made again there). */
export function readAgainOnPrimary(request: ReadRequest, reason: FallbackReason): void {
  request.primaryOnly = true;
  request.fallbacks.push(reason);
}

/**
 * Runs `read` (in a scope of its own) and, when a replica served it and its answer is not `acceptable`
 * (nothing found: maybe only not yet replayed; a short page: maybe only the replica's end), reads it
 * again on the primary, whose answer is then the answer.
 */
export async function acceptedOrFromPrimary<T>(
  read: () => Promise<T>,
  acceptable: (value: T) => boolean,
  reason: FallbackReason,
): Promise<T> {
  const { value, scope } = await child(undefined, [], read);
  if (!scope.replicaUsed || acceptable(value)) return value;
  scope.request.fallbacks.push(reason);
  return onPrimary(read);
}
