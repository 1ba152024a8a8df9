/** What every router needs; built once per process by the runtime. */
import type pg from 'pg';
import { AnswerCache } from './answer-cache';
import type { Config } from '../internal/config';
import type { Logger } from '../internal/logger';
import type { Metrics } from '../internal/metrics';
import type { MigrationFile } from '../store/migrator';
import type { Db } from '../store/pool';
import type { ReplicaMonitor } from '../store/replica-monitor';
import type { StreamHub } from './indexer/stream-hub';

export interface ApiContext {
  config: Config;
  /** The Db of reads: with read replicas configured, each query goes to a replica that may serve it, else to the primary. */
  db: Db;
  /** The primary's Db, for writes (page positions, the page-token key) and the writer's own state; `db` when unset. */
  primaryDb?: Db;
  /** The primary's pool (readiness). */
  pool: pg.Pool;
  /** The read replicas' monitor, for /status and metrics, when DATABASE_READ_URLS is set. */
  replicas?: ReplicaMonitor;
  logger: Logger;
  metrics: Metrics;
  /** The migrations this build expects, for readiness. */
  migrationFiles: MigrationFile[];
  /** Answers kept until their contracts change; createApp makes one per application. */
  answers?: AnswerCache;
  /** The live streams' hub (indexer/stream-routes.ts makes it with the router); createApp ends its streams at close. */
  streams?: StreamHub;
}

/** The context's answer cache, or a new one as configured (a router mounted on its own). */
export function answerCacheOf(context: ApiContext): AnswerCache {
  context.answers ??= createAnswerCache(context);
  return context.answers;
}

export function createAnswerCache({ config, metrics }: Pick<ApiContext, 'config' | 'metrics'>): AnswerCache {
  return new AnswerCache({ enabled: config.answerCache.enabled, maxBytes: config.answerCache.maxBytes, metrics });
}

/** The Db that writes and reads what only the primary is sure to hold. */
export const primaryDbOf = (context: Pick<ApiContext, 'db' | 'primaryDb'>): Db => context.primaryDb ?? context.db;
