/** What every router needs; built once per process by the runtime. */
import type pg from 'pg';
import { AnswerCache } from './answer-cache';
import type { Config } from '../internal/config';
import type { Logger } from '../internal/logger';
import type { Metrics } from '../internal/metrics';
import type { MigrationFile } from '../store/migrator';
import type { Db } from '../store/pool';

export interface ApiContext {
  config: Config;
  db: Db;
  pool: pg.Pool;
  logger: Logger;
  metrics: Metrics;
  /** The migrations this build expects, for readiness. */
  migrationFiles: MigrationFile[];
  /** Answers kept until their contracts change; createApp makes one per application. */
  answers?: AnswerCache;
}

/** The context's answer cache, or a new one as configured (a router mounted on its own). */
export function answerCacheOf(context: ApiContext): AnswerCache {
  context.answers ??= createAnswerCache(context);
  return context.answers;
}

export function createAnswerCache({ config, metrics }: Pick<ApiContext, 'config' | 'metrics'>): AnswerCache {
  return new AnswerCache({ enabled: config.answerCache.enabled, maxBytes: config.answerCache.maxBytes, metrics });
}
