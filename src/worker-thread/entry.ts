/**
 * The ingestion worker of `start`, in a worker thread: its own event loop (planning a batch never holds
 * up an HTTP answer, nor the other way round), its own database pool and metrics registry, and on Linux
 * its own nice value (INGEST_NICE). The main thread opened and migrated the database, and serves the
 * API; it asks for this thread's metrics at each scrape and is sent the worker's part of /status as it
 * changes. See host.ts for the main thread's side.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadConfig } from '../internal/config';
import { createLogger } from '../internal/logger';
import { createMetrics } from '../internal/metrics';
import { lowerThreadPriority } from '../internal/priority';
import { Shutdown } from '../internal/shutdown';
import { connectDatabase, createConfiguredSource, startWorker } from '../runtime';
import { observeQueries } from '../store/pool';
import type { FromWorkerThread, ToWorkerThread, WorkerState, WorkerThreadData } from './messages';

/** How often the worker's part of /status is sent when it changed: /status may lag it by this much. */
const STATE_INTERVAL_MS = 200;

function run(port: NonNullable<typeof parentPort>, data: WorkerThreadData): void {
  const send = (message: FromWorkerThread) => port.postMessage(message);
  const config = loadConfig();
  const logger = createLogger(config.logLevel).child({ thread: 'ingestion worker' });
  const priority = lowerThreadPriority(config.nice.ingest);
  if (priority.outcome !== 'unchanged') logger.info({ part: 'ingestion worker', ...priority }, 'CPU priority');
  // Node's process metrics come from the main thread's registry, once.
  const metrics = createMetrics({ processMetrics: false });
  const shutdown = new Shutdown(logger);
  const database = { ...connectDatabase(data.databaseUrl, config, shutdown), embedded: undefined };
  metrics.observePool(database.pool);
  observeQueries(database.db, metrics.observeQuery);

  let sent = '';
  const sendState = () => {
    const state: WorkerState = {
      role: metrics.writer.role,
      sources: [...metrics.sourceHealth.values()],
      upstreams: [...metrics.attestation.upstreams],
      stalled: metrics.attestation.stalled,
    };
    const text = JSON.stringify(state);
    if (text === sent) return;
    sent = text;
    send({ type: 'state', state });
  };
  const stateTimer = setInterval(sendState, STATE_INTERVAL_MS);

  port.on('message', (message: ToWorkerThread) => {
    if (message.type === 'scrape') {
      void metrics.registry.getMetricsAsJSON().then((json) => send({ type: 'scraped', id: message.id, metrics: json }));
      return;
    }
    void shutdown.run('stop asked by the main thread').then(() => {
      clearInterval(stateTimer);
      sendState();
      logger.flush();
      // Nothing holds the thread now: it ends, and the main thread sees it exit.
      port.close();
    });
  });

  const worker = startWorker(database, createConfiguredSource(config, logger, metrics), { config, logger, metrics, shutdown });
  worker.done.then(
    (result) => {
      sendState();
      send({ type: 'ended', result });
    },
    (err: unknown) => {
      sendState();
      const error = err instanceof Error ? err : new Error(String(err));
      send({ type: 'failed', error: { name: error.name, message: error.message, stack: error.stack } });
    },
  );
}

if (!parentPort) throw new Error('src/worker-thread/entry.ts runs only as a worker thread (started by host.ts)');
run(parentPort, workerData as WorkerThreadData);
