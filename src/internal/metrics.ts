/**
 * Every metric of the service in one registry, with the project prefix, base
 * units and bounded labels (route templates, never raw paths or ids).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const METRIC_PREFIX = 'scan_indexer_';

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  return {
    registry,
    httpRequestDuration: new Histogram({
      name: `${METRIC_PREFIX}http_request_duration_seconds`,
      help: 'HTTP request duration by method, route template and status code.',
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    httpRequestsTotal: new Counter({
      name: `${METRIC_PREFIX}http_requests_total`,
      help: 'HTTP requests by method, route template and status code.',
      labelNames: ['method', 'route', 'status_code'] as const,
      registers: [registry],
    }),
    lastIngestedRecordTime: new Gauge({
      name: `${METRIC_PREFIX}store_last_ingested_record_time_ms`,
      help: 'Record time of the newest ingested update per synchronizer, in milliseconds since the epoch (as splice_store_last_ingested_record_time_ms).',
      labelNames: ['synchronizer_id', 'migration_id'] as const,
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
