/**
 * The main thread's side of `start`'s ingestion worker thread (entry.ts): starts it on the database
 * the main thread opened, mirrors the worker's part of /status into this thread's metrics, adds the
 * thread's metrics to each scrape, and stops it first at shutdown.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { WorkerResult } from '../ingest/worker';
import type { Config } from '../internal/config';
import type { Logger } from '../internal/logger';
import type { Metrics } from '../internal/metrics';
import type { Shutdown } from '../internal/shutdown';
import type { FromWorkerThread, ToWorkerThread, WorkerState, WorkerThreadData } from './messages';

/** A scrape does not wait longer than this for the thread; /metrics then shows the main thread's series. */
const SCRAPE_TIMEOUT_MS = 5000;

type ThreadMetrics = Awaited<ReturnType<Metrics['registry']['getMetricsAsJSON']>>;

function mirrorState(metrics: Metrics, state: WorkerState): void {
  metrics.writer.role = state.role;
  metrics.sourceHealth.clear();
  for (const health of state.sources) metrics.sourceHealth.set(`${health.source} ${health.upstream}`, health);
  metrics.attestation.upstreams.clear();
  for (const [upstream, counts] of state.upstreams) metrics.attestation.upstreams.set(upstream, counts);
  metrics.attestation.stalled = state.stalled;
}

/** Starts the worker thread; `done` settles as the worker does (as startWorker's), or if the thread dies. */
export function startWorkerThread(
  databaseUrl: string,
  context: { config: Config; logger: Logger; metrics: Metrics; shutdown: Shutdown },
): { done: Promise<WorkerResult> } {
  const { config, logger, metrics, shutdown } = context;
  const thread = new Worker(path.join(__dirname, 'entry.js'), { workerData: { databaseUrl } satisfies WorkerThreadData });
  const send = (message: ToWorkerThread) => thread.postMessage(message);

  let settle: { resolve: (r: WorkerResult) => void; reject: (e: Error) => void } | undefined;
  const done = new Promise<WorkerResult>((resolve, reject) => (settle = { resolve, reject }));
  // The caller may attach its handlers later; an early failure must not count as unhandled meanwhile.
  done.catch(() => undefined);

  let nextScrape = 0;
  const scrapes = new Map<number, (json: ThreadMetrics) => void>();
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    thread.once('exit', (code) => {
      exited = true;
      for (const answer of scrapes.values()) answer([]);
      scrapes.clear();
      settle?.reject(new Error(`the ingestion worker thread ended with code ${code} before its worker stopped`));
      resolve();
    }),
  );

  thread.on('message', (message: FromWorkerThread) => {
    switch (message.type) {
      case 'state':
        mirrorState(metrics, message.state);
        return;
      case 'scraped':
        scrapes.get(message.id)?.(message.metrics);
        scrapes.delete(message.id);
        return;
      case 'ended':
        settle?.resolve(message.result);
        return;
      case 'failed': {
        const error = new Error(message.error.message);
        error.name = message.error.name;
        if (message.error.stack) error.stack = message.error.stack;
        settle?.reject(error);
        return;
      }
    }
  });
  // An exception the thread did not catch ends it; the process goes on (and shuts down, as for any failure).
  thread.on('error', (err) => settle?.reject(err));

  metrics.addScrapeSource(() => {
    if (exited) return Promise.resolve([]);
    const id = nextScrape++;
    return new Promise<ThreadMetrics>((resolve) => {
      const timer = setTimeout(() => {
        scrapes.delete(id);
        resolve([]);
      }, SCRAPE_TIMEOUT_MS);
      scrapes.set(id, (json) => {
        clearTimeout(timer);
        resolve(json);
      });
      send({ type: 'scrape', id });
    });
  });

  // The thread bounds its worker's stop by SHUTDOWN_TIMEOUT_MS, then closes its pool; past that and a
  // margin it is terminated (its open transaction rolls back; the checkpoint is written with each batch).
  shutdown.add('ingestion worker thread', async () => {
    if (exited) return;
    send({ type: 'stop' });
    let timer: NodeJS.Timeout | undefined;
    const stopped = await Promise.race([
      exit.then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), config.shutdownTimeoutMs + 2000))),
    ]);
    clearTimeout(timer);
    if (!stopped) {
      logger.warn({ timeoutMs: config.shutdownTimeoutMs }, 'the ingestion worker thread did not stop in time; terminating it');
      await thread.terminate();
    }
  });
  return { done };
}
