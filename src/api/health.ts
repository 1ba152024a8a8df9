/**
 * Liveness, readiness, ingestion progress and metrics. Readiness means the database answers and
 * its schema is current; it does not wait for ingestion to catch up, so API
 * replicas that can serve history stay in rotation during a backfill.
 */
import { Router } from 'express';
import type { z } from 'zod';
import { formatRecordTime, nowMicros, type Micros } from '../domain/time';
import type { Config } from '../internal/config';
import type { Metrics } from '../internal/metrics';
import { migrationStatus } from '../store/migrator';
import { readHistoryStart } from '../store/partitions';
import type { Db } from '../store/pool';
import type { ReplicaMonitor } from '../store/replica-monitor';
import { readIngestStatus } from '../store/status-repository';
import { replicaLabel } from '../internal/metrics';
import { primaryDbOf, type ApiContext } from './context';
import { sendJson } from './json-response';
import { mountOperations, operation, type OperationOf } from './operation';
import { IngestStatus, Live, NotReady } from './operational/schemas';

interface HealthServices {
  /** The primary's: ingestion progress is the writer's. */
  db: Db;
  metrics: Metrics;
  replicas: ReplicaMonitor | undefined;
  config: Config;
  /** Undefined when ready, else why not. */
  notReadyBecause: () => Promise<string | undefined>;
}

/** The attested source stalls for one of these reasons (src/ingest/sources/attestation.ts); the metrics keep it as a string. */
type StallReason = NonNullable<NonNullable<z.input<typeof IngestStatus>['attestation']>['stalled']>['reason'];

const livez = operation({
  method: 'get',
  path: '/livez',
  summary: 'Liveness: 200 while the process runs.',
  responses: { '200': { description: 'OK', body: Live } },
  handle: (_services: HealthServices, _input, _req, res) => {
    sendJson(res, { status: 'ok' } satisfies z.input<typeof Live>);
  },
});

const readyz = operation({
  method: 'get',
  path: '/readyz',
  summary: 'Readiness: the database answers and its schema is current. Does not wait for ingestion.',
  responses: { '200': { description: 'OK', body: Live }, '503': { description: 'Not ready.', body: NotReady } },
  handle: async ({ notReadyBecause }: HealthServices, _input, _req, res) => {
    const reason = await notReadyBecause();
    if (reason === undefined) sendJson(res, { status: 'ready' } satisfies z.input<typeof Live>);
    else sendJson(res, { status: 'not ready', reason } satisfies z.input<typeof NotReady>, 503);
  },
});

/** The app prefixes under which Splice serves liveness and readiness too. */
const APP_HEALTH = ['/api/scan', '/api/validator'];

// As every Splice app serves them under its own prefix (Scan, the validator): the status code alone.
const appHealth = APP_HEALTH.flatMap((prefix) => [
  operation({
    method: 'get',
    path: `${prefix}/livez`,
    summary: 'Liveness as Splice apps serve it: 200, no body.',
    responses: { '200': { description: 'Live.' } },
    handle: (_services: HealthServices, _input, _req, res) => {
      res.status(200).end();
    },
  }),
  operation({
    method: 'get',
    path: `${prefix}/readyz`,
    summary: 'Readiness as Splice apps serve it: 200 or 503, no body (the same check as /readyz).',
    responses: { '200': { description: 'Ready.' }, '503': { description: 'Not ready.' } },
    handle: async ({ notReadyBecause }: HealthServices, _input, _req, res) => {
      res.status((await notReadyBecause()) === undefined ? 200 : 503).end();
    },
  }),
]);

const status = operation({
  method: 'get',
  path: '/status',
  summary: "Ingestion progress per stream and per migration, with this process's writer role.",
  responses: { '200': { description: 'OK', body: IngestStatus } },
  handle: async ({ db, metrics, replicas, config }: HealthServices, _input, _req, res) => {
    const [status, historyStart] = await Promise.all([readIngestStatus(db), readHistoryStart(db)]);
    const time = (t: Micros | null) => (t === null ? null : formatRecordTime(t));
    const now = nowMicros();
    sendJson(res, {
      // This process's worker, if one runs: active (holds the writer lock) or standby.
      writer: metrics.writer.role,
      // The upstreams this process's source reads (none for the simulator or without a worker).
      sources: [...metrics.sourceHealth.values()].map((h) => ({
        source: h.source,
        upstream: h.upstream,
        last_outcome: h.lastOutcome,
        last_at: new Date(h.lastAt).toISOString(),
        last_ok_at: h.lastOkAt === null ? null : new Date(h.lastOkAt).toISOString(),
      })),
      // The attested scan source (SCAN_SOURCE_THRESHOLD > 1): each upstream's record, and where a missing quorum holds ingestion.
      ...(metrics.attestation.upstreams.size > 0 && {
        attestation: {
          stalled: metrics.attestation.stalled && {
            position: metrics.attestation.stalled.position,
            reason: metrics.attestation.stalled.reason as StallReason,
            since: new Date(metrics.attestation.stalled.since).toISOString(),
          },
          upstreams: [...metrics.attestation.upstreams].map(([upstream, u]) => ({
            upstream,
            state:
              u.lastOutcome === null
                ? 'unknown'
                : u.lastOutcome === 'agreed'
                  ? 'agreeing'
                  : u.lastOutcome === 'disagreed'
                    ? 'divergent'
                    : 'unavailable',
            agreed: u.agreed,
            disagreed: u.disagreed,
            unavailable: u.unavailable,
            last_disagreement: u.lastDisagreement && {
              position: u.lastDisagreement.position,
              hash: u.lastDisagreement.hash,
              expected: u.lastDisagreement.expected,
              at: new Date(u.lastDisagreement.at).toISOString(),
            },
          })),
        },
      }),
      // The streaming replicas the API reads from (DATABASE_READ_URLS), by position: only in_use ones serve.
      ...(replicas && {
        read_replicas: replicas.states.map((r) => ({
          replica: replicaLabel(r.index),
          host: r.host,
          condition: r.condition,
          in_use: r.condition === 'in_use',
          replay_lag_bytes: r.lagBytes,
          replay_lag_seconds: r.lagSeconds,
          replay_paused: r.replayPaused,
          last_checked_at: r.checkedAt === null ? null : new Date(r.checkedAt).toISOString(),
          last_error: r.lastError,
          migrations: [...r.horizon.values()].map((h) => ({
            migration_id: h.migrationId,
            last_record_time: time(h.newestRecordTime),
            last_snapshot: time(h.newestSnapshot),
          })),
        })),
      }),
      streams: status.streams.map((s) => ({
        stream: s.stream,
        position: s.position,
        migration_id: s.migrationId,
        record_time: time(s.recordTime),
        lag_seconds: s.recordTime === null ? null : Math.max(0, Number(now - s.recordTime) / 1e6),
        items_applied: s.itemsApplied,
        updated_at: formatRecordTime(s.updatedAt),
      })),
      // Where the stored history starts: null while retention (HISTORY_RETENTION) has dropped nothing.
      history: { start: time(historyStart ?? null), retention_days: config.ingest.retentionDays ?? null },
      migrations: status.migrations.map((m) => ({
        migration_id: m.migrationId,
        updates: m.updates,
        last_record_time: time(m.lastRecordTime),
        snapshots: m.snapshots,
        last_snapshot: time(m.lastSnapshot),
      })),
    } satisfies z.input<typeof IngestStatus>);
  },
});

const metricsOperation = operation({
  method: 'get',
  path: '/metrics',
  summary: 'Prometheus metrics.',
  responses: { '200': { description: 'Prometheus text format.', content: { 'text/plain': { schema: { type: 'string' } } } } },
  handle: async ({ metrics }: HealthServices, _input, _req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.scrape());
  },
});

export const healthOperations: readonly OperationOf<HealthServices>[] = [livez, readyz, ...appHealth, status, metricsOperation];

export function healthRoutes(context: ApiContext): Router {
  const { pool, metrics, migrationFiles, logger, replicas, config } = context;

  const notReadyBecause = async (): Promise<string | undefined> => {
    try {
      const status = await migrationStatus(pool, migrationFiles);
      return status.pending.length > 0 ? `pending migrations: ${status.pending.join(', ')}` : undefined;
    } catch (err) {
      logger.warn({ err }, 'readiness check failed');
      return 'database unavailable or schema not current';
    }
  };

  // Ingestion progress is the writer's: read on the primary.
  return mountOperations(Router(), healthOperations, { db: primaryDbOf(context), metrics, replicas, config, notReadyBecause });
}
