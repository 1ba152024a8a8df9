/** What every router needs; built once per process by the runtime. */
import type pg from 'pg';
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
}
