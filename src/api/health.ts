/**
 * Liveness, readiness, ingestion progress and metrics. Readiness means the database answers and
 * its schema is current; it does not wait for ingestion to catch up, so API
 * replicas that can serve history stay in rotation during a backfill.
 */
import { Router } from 'express';
import { formatRecordTime, nowMicros, type Micros } from '../domain/time';
import { migrationStatus } from '../store/migrator';
import { readIngestStatus } from '../store/status-repository';
import type { ApiContext } from './context';
import { sendJson } from './json-response';

/** The app prefixes under which Splice serves liveness and readiness too. */
const APP_HEALTH = ['/api/scan', '/api/validator'];

export function healthRoutes({ db, pool, metrics, migrationFiles, logger }: ApiContext): Router {
  const router = Router();

  router.get('/livez', (_req, res) => {
    sendJson(res, { status: 'ok' });
  });

  /** Undefined when ready, else why not. */
  const notReadyBecause = async (): Promise<string | undefined> => {
    try {
      const status = await migrationStatus(pool, migrationFiles);
      return status.pending.length > 0 ? `pending migrations: ${status.pending.join(', ')}` : undefined;
    } catch (err) {
      logger.warn({ err }, 'readiness check failed');
      return 'database unavailable or schema not current';
    }
  };

  router.get('/readyz', async (_req, res) => {
    const reason = await notReadyBecause();
    if (reason === undefined) sendJson(res, { status: 'ready' });
    else sendJson(res, { status: 'not ready', reason }, 503);
  });

  // As every Splice app serves them under its own prefix (Scan, the validator): the status code alone.
  for (const prefix of APP_HEALTH) {
    router.get(`${prefix}/livez`, (_req, res) => {
      res.status(200).end();
    });
    router.get(`${prefix}/readyz`, async (_req, res) => {
      res.status((await notReadyBecause()) === undefined ? 200 : 503).end();
    });
  }

  router.get('/status', async (_req, res) => {
    const status = await readIngestStatus(db);
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
            reason: metrics.attestation.stalled.reason,
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
      streams: status.streams.map((s) => ({
        stream: s.stream,
        position: s.position,
        migration_id: s.migrationId,
        record_time: time(s.recordTime),
        lag_seconds: s.recordTime === null ? null : Math.max(0, Number(now - s.recordTime) / 1e6),
        items_applied: s.itemsApplied,
        updated_at: time(s.updatedAt),
      })),
      migrations: status.migrations.map((m) => ({
        migration_id: m.migrationId,
        updates: m.updates,
        last_record_time: time(m.lastRecordTime),
        snapshots: m.snapshots,
        last_snapshot: time(m.lastSnapshot),
      })),
    });
  });

  router.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.scrape());
  });

  return router;
}
