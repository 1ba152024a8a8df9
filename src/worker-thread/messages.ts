/** What the main thread of `start` and its ingestion worker thread say to each other. */
import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import type { WorkerResult } from '../ingest/worker';
import type { Metrics, SourceHealth, UpstreamAttestation } from '../internal/metrics';

/** Given to the thread at its start. */
export interface WorkerThreadData {
  /** The database the main thread opened and migrated (DATABASE_URL, or the embedded server's). */
  databaseUrl: string;
}

/** The worker's part of /status (Metrics' plain fields), sent to the main thread as it changes. */
export interface WorkerState {
  role: Metrics['writer']['role'];
  sources: SourceHealth[];
  upstreams: [string, UpstreamAttestation][];
  stalled: Metrics['attestation']['stalled'];
}

export type ToWorkerThread =
  /** Stop as at shutdown: finish the batch in flight, close the pool, then end the thread. */
  | { type: 'stop' }
  /** Send the thread's metrics (scraped with the main thread's). */
  | { type: 'scrape'; id: number };

export type FromWorkerThread =
  | { type: 'state'; state: WorkerState }
  | { type: 'scraped'; id: number; metrics: MetricObjectWithValues<MetricValue<string>>[] }
  /** The worker stopped: its source ended or it was stopped. */
  | { type: 'ended'; result: WorkerResult }
  /** The worker failed (bad input, a fault it does not retry, a setting); the thread stays to be stopped. */
  | { type: 'failed'; error: { name: string; message: string; stack: string | undefined } };
