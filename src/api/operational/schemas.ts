/**
 * The JSON answers of the operational routes (../health.ts): liveness, readiness and ingestion
 * progress. The web UI takes its /status type from here (type-only), so the page and the server
 * read one description of that answer.
 */
import { z } from 'zod';
import { bool, int64, str } from '../schema-kit';

export const Live = z.object({ status: str() });

export const NotReady = z.object({ status: str(), reason: str() });

const nullableNumber = (description: string) => z.number().describe(description).nullable();

export const IngestStatus = z.object({
  writer: z.enum(['active', 'standby', 'none']).describe('none: this process runs no worker.'),
  sources: z.array(
    z.object({
      source: str(),
      upstream: str('Origin of the upstream URL.'),
      last_outcome: z.enum(['ok', 'retried', 'failed']),
      last_at: str(),
      last_ok_at: str().nullable(),
    }),
  ),
  streams: z.array(
    z.object({
      stream: str(),
      position: str(),
      migration_id: int64().nullable(),
      record_time: str().nullable(),
      lag_seconds: nullableNumber('Seconds between now and record_time.'),
      items_applied: int64(),
      updated_at: str(),
    }),
  ),
  history: z
    .object({
      start: str().nullable(),
      retention_days: int64().nullable(),
    })
    .describe('Where the stored history starts: start is null while retention (HISTORY_RETENTION) has dropped nothing.'),
  migrations: z.array(
    z.object({
      migration_id: int64(),
      updates: int64(),
      last_record_time: str().nullable(),
      snapshots: int64(),
      last_snapshot: str().nullable(),
    }),
  ),
  attestation: z
    .object({
      stalled: z
        .object({
          position: str('The position no quorum attests the next element after.'),
          reason: z.enum(['conflict', 'no quorum', 'verdict pending']),
          since: str(),
        })
        .nullable(),
      upstreams: z.array(
        z.object({
          upstream: str(),
          state: z.enum(['agreeing', 'divergent', 'unavailable', 'unknown']),
          agreed: int64(),
          disagreed: int64(),
          unavailable: int64(),
          last_disagreement: z.object({ position: str(), hash: str().nullable(), expected: str().nullable(), at: str() }).nullable(),
        }),
      ),
    })
    .describe('Only with the attested scan source (SCAN_SOURCE_THRESHOLD above 1).')
    .optional(),
  read_replicas: z
    .array(
      z.object({
        replica: str('replica-<position in DATABASE_READ_URLS>, as the metrics label it.'),
        host: str('host:port/database, without credentials.'),
        condition: z
          .enum(['starting', 'unavailable', 'not_a_standby', 'other_cluster', 'lagging', 'in_use'])
          .describe('Only in_use serves requests; lagging: further behind than DATABASE_READ_MAX_LAG_MS.'),
        in_use: bool(),
        replay_lag_bytes: int64().nullable(),
        replay_lag_seconds: nullableNumber('Since the primary first held WAL the replica has not replayed.'),
        replay_paused: bool(),
        last_checked_at: str().nullable(),
        last_error: str().nullable(),
        migrations: z.array(z.object({ migration_id: int64(), last_record_time: str().nullable(), last_snapshot: str().nullable() })),
      }),
    )
    .describe('Only with DATABASE_READ_URLS: the streaming replicas this API reads from, and what each holds.')
    .optional(),
});
