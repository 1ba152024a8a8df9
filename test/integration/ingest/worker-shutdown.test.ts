/**
 * Shutdown does not wait on the ingestion worker past SHUTDOWN_TIMEOUT_MS: a
 * worker stuck in its source (one that ignores the stop signal) is left behind
 * with a warning, and the rest of the shutdown runs.
 */
import { Writable } from 'node:stream';
import type { Source } from '../../../src/ingest/source';
import { loadConfig } from '../../../src/internal/config';
import { createLogger } from '../../../src/internal/logger';
import { createMetrics } from '../../../src/internal/metrics';
import { Shutdown } from '../../../src/internal/shutdown';
import { startWorker } from '../../../src/runtime';
import { createDb, createPool } from '../../../src/store/pool';
import { useTestDatabase } from '../../support/database/database';

describe('shutdown with a stuck worker', () => {
  const t = useTestDatabase();

  it('goes on after SHUTDOWN_TIMEOUT_MS, saying so', async () => {
    const lines: { level: number; msg: string; timeoutMs?: number }[] = [];
    const logger = createLogger(
      'info',
      'scan-indexer',
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as (typeof lines)[number]);
          done();
        },
      }),
    );
    let reading!: () => void;
    const started = new Promise<void>((resolve) => (reading = resolve));
    let release!: () => void;
    const stuck: Source = {
      stream: 'stuck',
      // eslint-disable-next-line require-yield
      async *read() {
        reading();
        await new Promise<void>((resolve) => (release = resolve)); // deaf to the stop signal, until the test lets it go
      },
    };
    const shutdown = new Shutdown(logger);
    const later: string[] = [];
    shutdown.add('after the worker', () => void later.push('ran'));
    const config = loadConfig({ SHUTDOWN_TIMEOUT_MS: '300', LOG_LEVEL: 'info' });
    const pool = createPool({ connectionString: t.url, max: 4 });
    const worker = startWorker({ url: t.url, pool, db: createDb(pool), embedded: undefined }, stuck, {
      config,
      logger,
      metrics: createMetrics(),
      shutdown,
    });
    await started;
    await shutdown.run('test');
    expect(lines.filter((l) => l.level === 40).map((l) => ({ msg: l.msg, timeoutMs: l.timeoutMs }))).toEqual([
      { msg: 'the ingestion worker did not stop within SHUTDOWN_TIMEOUT_MS; going on', timeoutMs: 300 },
    ]);
    expect(later).toEqual(['ran']);
    // Let the worker go, so that it ends and gives its connections back.
    release();
    await worker.done.catch(() => undefined);
    await pool.end();
  });
});
