/**
 * The pg Pool and Kysely instance. Every connection runs in UTC, and
 * timestamps, int8 and numeric come back as text: record times must never pass
 * through a JS Date (milliseconds) and amounts never through a float.
 */
import { Kysely, PostgresDialect, sql, type PostgresPool } from 'kysely';
import pg from 'pg';
import { RetryableError } from '../internal/errors';
import { currentOperation } from './query-operation';
import { parseTextArray } from './text-array';
import type { Database } from './schema';

const TEXT_TYPES: number[] = [
  pg.types.builtins.TIMESTAMPTZ,
  pg.types.builtins.TIMESTAMP,
  pg.types.builtins.DATE,
  pg.types.builtins.NUMERIC,
];
const INT8: number = pg.types.builtins.INT8;

function parseInt8(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`int8 value ${value} exceeds the safe integer range`);
  return n;
}
const TIMESTAMPTZ_ARRAY = 1185;
const INT8_ARRAY = 1016;
const NUMERIC_ARRAY = 1231;

const TEXT_ARRAY = 1009;
const textArray = (value: string) => parseTextArray(value) as string[];

const typeParsers: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (TEXT_TYPES.includes(oid)) return (value: string) => value;
    if (oid === INT8) return parseInt8;
    if (oid === TEXT_ARRAY) return parseTextArray;
    if (oid === INT8_ARRAY) return (value: string) => textArray(value).map(parseInt8);
    if (oid === TIMESTAMPTZ_ARRAY || oid === NUMERIC_ARRAY) return textArray;
    return pg.types.getTypeParser(oid, format) as unknown;
  }) as pg.CustomTypesConfig['getTypeParser'],
};

export interface PoolOptions {
  connectionString: string;
  max?: number;
  statementTimeoutMs?: number;
  applicationName?: string;
  /** How long to wait for a connection (new or pooled) before failing; unset waits as long as it takes. */
  connectionTimeoutMs?: number;
  /** A client-side bound on each query, for servers that may stop answering without closing the connection. */
  queryTimeoutMs?: number;
}

export function createPool(options: PoolOptions): pg.Pool {
  // Every read is an index range by design. A sequential scan is only ever the planner's choice for a
  // table it believes empty, such as next month's partition, made ahead of its rows; one such scan
  // turns an ordered page over partitions into a sort of everything after its cursor.
  // With sequential scans off, a plan that still has one (a table of a few rows, such as
  // answer_versions) costs PostgreSQL's disable cost of 1e10, far past jit_above_cost: the server
  // would JIT-compile a sub-millisecond statement for about a second, each time. Short index ranges
  // never gain from JIT. The same cost makes such a plan parallel: a Gather whose workers took about
  // 90 ms to start on a stock PostgreSQL 15, for a statement of well under a millisecond (the answer
  // cache's reading of its versions served 0.05x a bare server's rate). Index ranges gain nothing from
  // workers on two shared cores either.
  const settings = ['-c TimeZone=UTC', '-c DateStyle=ISO', '-c enable_seqscan=off', '-c jit=off', '-c max_parallel_workers_per_gather=0'];
  if (options.statementTimeoutMs) settings.push(`-c statement_timeout=${options.statementTimeoutMs}`);
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'scan-indexer',
    options: settings.join(' '),
    types: typeParsers,
    ...(options.connectionTimeoutMs !== undefined && { connectionTimeoutMillis: options.connectionTimeoutMs }),
    ...(options.queryTimeoutMs !== undefined && { query_timeout: options.queryTimeoutMs }),
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // Nor may a checked-out one: a server restart ends every session, and a client that is between two
  // queries (Kysely holds it from acquire to release) then emits 'error' with no query to fail. The
  // pool drops such a client when it is released (it is no longer queryable), and its holder's next
  // query fails with the cause.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

const pools = new WeakMap<Kysely<Database>, pg.Pool>();

/** Told of every query made through a Db: the repository operation it ran for, its duration, and whether it failed. */
export type QueryObserver = (operation: string, seconds: number, outcome: 'ok' | 'error') => void;
const observers = new WeakMap<Kysely<Database>, QueryObserver>();

/** Every connection of the pool stayed in use for as long as the caller would wait for one. */
export class DatabaseBusyError extends RetryableError {
  constructor(readonly waitedMs: number) {
    super(`no database connection became free within ${waitedMs} ms`);
    this.name = 'DatabaseBusyError';
  }
}

/**
 * The pool as Kysely takes connections from it, waiting at most `waitMs` for one while all are in use,
 * then failing with DatabaseBusyError: an overloaded API answers "busy" at once rather than queueing
 * every request behind the pool for as long as the load lasts. A connection handed over after its
 * caller gave up goes straight back.
 */
function withWaitLimit(pool: pg.Pool, waitMs: number): PostgresPool {
  return {
    connect: () => {
      // A free connection needs no timer.
      if (pool.idleCount > 0 && pool.waitingCount === 0) return pool.connect();
      return new Promise<pg.PoolClient>((resolve, reject) => {
        let waiting = true;
        const timer = setTimeout(() => {
          waiting = false;
          reject(new DatabaseBusyError(waitMs));
        }, waitMs);
        pool.connect().then(
          (client) => {
            clearTimeout(timer);
            if (waiting) resolve(client);
            else client.release();
          },
          (err: Error) => {
            clearTimeout(timer);
            if (waiting) reject(err);
          },
        );
      });
    },
    end: () => pool.end(),
  };
}

export interface DbOptions {
  /** How long a query waits for a connection while all are in use (default: as long as it takes). */
  waitMs?: number;
}

/** A Db over a pg Pool, or over another pool-like object (the routing pool of read replicas, routing-pool.ts). */
export function createDb(pool: pg.Pool | PostgresPool, options: DbOptions = {}): Kysely<Database> {
  const db: Kysely<Database> = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: options.waitMs && pool instanceof pg.Pool ? withWaitLimit(pool, options.waitMs) : pool }),
    log: (event) => {
      const operation = currentOperation();
      // The error log of a failed request then names the storage function whose query failed.
      if (event.level === 'error' && typeof event.error === 'object' && event.error !== null && !('operation' in event.error)) {
        Object.assign(event.error, { operation });
      }
      observers.get(db)?.(operation, event.queryDurationMillis / 1000, event.level === 'query' ? 'ok' : 'error');
    },
  });
  if (pool instanceof pg.Pool) pools.set(db, pool);
  return db;
}

/** Reports the durations of the queries made through `db` (and its transactions) to `observer`. */
export function observeQueries(db: Kysely<Database>, observer: QueryObserver): void {
  observers.set(db, observer);
}

/** The pool behind a Db made by createDb, for what Kysely cannot express (COPY). */
export function poolOf(db: Kysely<Database>): pg.Pool {
  const pool = pools.get(db);
  if (!pool) throw new Error('this Kysely instance was not made by createDb');
  return pool;
}

/**
 * A statement Kysely cannot make (a named, prepared one) on the pool behind `db`, timed for its
 * query observer as Kysely's queries are.
 */
export async function poolQuery<R extends unknown[]>(db: Kysely<Database>, query: pg.QueryArrayConfig): Promise<R[]> {
  const started = performance.now();
  const observe = (outcome: 'ok' | 'error') => observers.get(db)?.(currentOperation(), (performance.now() - started) / 1000, outcome);
  try {
    const pool = pools.get(db) as Partial<pg.Pool> | undefined;
    // A routing pool (read replicas) chooses a server per request and runs plain statements only.
    if (typeof pool?.query !== 'function') {
      const { rows } = await sql.raw<Record<string, unknown>>(query.text).execute(db);
      observe('ok');
      return rows.map((r) => Object.values(r) as R);
    }
    const { rows } = await (pool as pg.Pool).query<R>(query);
    observe('ok');
    return rows;
  } catch (err) {
    observe('error');
    throw err;
  }
}

export type Db = Kysely<Database>;
