/**
 * Reads on PostgreSQL streaming replicas (DATABASE_READ_URLS) for an API process: a pool per replica
 * for requests, a connection per replica for the monitor, the monitor, and the Db whose queries the
 * routing pool sends to a replica or to the primary. Writes never use it: they take the primary's Db.
 */
import type pg from 'pg';
import type { Logger } from '../internal/logger';
import { createDb, createPool, type Db } from './pool';
import { describeUrl, ReplicaMonitor } from './replica-monitor';
import { RoutingPool, type ReadRoutingObserver } from './routing-pool';

/** How long a request waits to connect to a replica (or for a free connection) before reading on the primary. */
const REPLICA_CONNECT_TIMEOUT_MS = 2000;

export interface ReadReplicasOptions {
  primaryPool: pg.Pool;
  primaryDb: Db;
  urls: readonly string[];
  poolSize: number;
  statementTimeoutMs: number;
  pollMs: number;
  maxLagMs: number;
  logger?: Logger;
  observe?: ReadRoutingObserver;
}

export interface ReadReplicas {
  /** The Db of API reads: each query on a replica that may serve it, else on the primary. */
  db: Db;
  monitor: ReplicaMonitor;
  /** Stops the monitor and closes the replicas' connections (not the primary's). */
  close(): Promise<void>;
}

export function openReadReplicas(options: ReadReplicasOptions): ReadReplicas {
  const requestPools = options.urls.map((url) =>
    createPool({
      connectionString: url,
      max: options.poolSize,
      statementTimeoutMs: options.statementTimeoutMs,
      applicationName: 'scan-indexer-read',
      connectionTimeoutMs: REPLICA_CONNECT_TIMEOUT_MS,
    }),
  );
  // The monitor's own connections: a check must not wait behind requests, nor hang on a silent server.
  const checkTimeoutMs = Math.max(1000, 4 * options.pollMs);
  const monitorDbs = options.urls.map((url) =>
    createDb(
      createPool({
        connectionString: url,
        max: 1,
        applicationName: 'scan-indexer-replica-monitor',
        connectionTimeoutMs: checkTimeoutMs,
        queryTimeoutMs: checkTimeoutMs,
        statementTimeoutMs: checkTimeoutMs,
      }),
    ),
  );
  const monitor = new ReplicaMonitor({
    primary: options.primaryDb,
    replicas: options.urls.map((url, i) => ({ host: describeUrl(url), db: monitorDbs[i]! })),
    pollMs: options.pollMs,
    maxLagMs: options.maxLagMs,
    logger: options.logger,
  });
  const db = createDb(new RoutingPool(options.primaryPool, requestPools, monitor, options.observe));
  monitor.start();
  return {
    db,
    monitor,
    close: async () => {
      await monitor.stop();
      await Promise.all([db.destroy(), ...monitorDbs.map((m) => m.destroy())]);
    },
  };
}
