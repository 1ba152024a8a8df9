/**
 * The live stream of an API process that reads from a streaming replica (DATABASE_READ_URLS): a primary
 * and a hot standby started by the test (test/support/database/streaming-replica.ts). While the replica's
 * replay is paused and ingestion goes on, the stream sends nothing the replica does not have; once replay
 * resumes, it sends the rest, byte for byte as /v0/events. A replica out of use (lagging past
 * DATABASE_READ_MAX_LAG_MS) is not waited for, as this process reads nothing from it either.
 */
import type pg from 'pg';
import type { Source } from '../../../src/ingest/source';
import { runWorker } from '../../../src/ingest/worker';
import { createLogger } from '../../../src/internal/logger';
import { migrate } from '../../../src/store/migrator';
import { createDb, createPool, type Db } from '../../../src/store/pool';
import { openReadReplicas, type ReadReplicas } from '../../../src/store/read-replicas';
import { startReplicatedCluster, type ReplicatedCluster } from '../../support/database/streaming-replica';
import { startTestApi, type TestApi } from '../../support/http/http';
import { simulatedItems } from '../../support/items/simulated-network';
import { asPages, eventPages, FROM_THE_START, STREAM } from '../../support/stream';
import { SseClient } from '../../support/stream-clients';

const logger = createLogger('silent');
const items = simulatedItems({ seed: 'stream-replicas', updates: 600, migrations: 1 });

describe('GET /api/indexer/v0/stream/events on an API reading from a streaming replica', () => {
  let cluster: ReplicatedCluster;
  let pool: pg.Pool;
  let db: Db;
  let waiting: ReadReplicas;
  let bounded: ReadReplicas;
  let alone: TestApi;
  let routed: TestApi;
  let strict: TestApi;
  let ingested = 0;

  const source: Source = {
    stream: 'stream-replicas',
    async *read(from) {
      for (let i = from === undefined ? 0 : Number(from); i < ingested; i++)
        yield { item: items[i]!, position: String(i + 1), origin: `item ${i}` };
    },
  };
  async function ingestUpTo(share: number): Promise<void> {
    ingested = Math.floor(items.length * share);
    await runWorker({ db, pool, source, logger, batchSize: 50, batchMaxWaitMs: 20 }, new AbortController().signal);
  }
  const open = (maxLagMs: number) =>
    openReadReplicas({
      primaryPool: pool,
      primaryDb: db,
      urls: [cluster.replicas[0]!.url('scan')],
      poolSize: 4,
      statementTimeoutMs: 30_000,
      pollMs: 100,
      maxLagMs,
      logger,
    });
  async function until(r: ReadReplicas, condition: string): Promise<void> {
    for (let i = 0; i < 1200 && r.monitor.states[0]!.condition !== condition; i++) {
      await r.monitor.check();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(r.monitor.states[0]!.condition).toBe(condition);
  }
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  beforeAll(async () => {
    cluster = await startReplicatedCluster({ replicas: 1 });
    await cluster.primary.query('create database scan');
    pool = createPool({ connectionString: cluster.primary.url('scan'), max: 8 });
    db = createDb(pool);
    await migrate(pool);
    await ingestUpTo(0.3);
    await cluster.waitForReplay();
    alone = await startTestApi({ db, pool });
    // A bound far above the pause: the replica stays in use while paused.
    waiting = open(600_000);
    routed = await startTestApi({ db: waiting.db, primaryDb: db, pool, replicas: waiting.monitor });
    bounded = open(300);
    strict = await startTestApi({ db: bounded.db, primaryDb: db, pool, replicas: bounded.monitor });
    await until(waiting, 'in_use');
    await until(bounded, 'in_use');
  }, 300_000);
  afterAll(async () => {
    await Promise.all([alone?.close(), routed?.close(), strict?.close()]);
    await waiting?.close();
    await bounded?.close();
    await db?.destroy();
    await cluster?.destroy();
  });

  it('sends nothing the replica has not replayed, then everything once it has', async () => {
    const before = await eventPages(alone);
    const stream = await SseClient.open(`${routed.url}${STREAM}?after=${FROM_THE_START}`);
    const fromStrict = await SseClient.open(`${strict.url}${STREAM}?after=${FROM_THE_START}`);
    await stream.until((s) => s.items.length === before.items.length, 30_000, 'catch-up');
    await fromStrict.until((s) => s.items.length === before.items.length, 30_000, 'catch-up (bounded)');

    await cluster.replicas[0]!.query('select pg_wal_replay_pause()');
    try {
      await ingestUpTo(0.6);
      const during = await eventPages(alone);
      expect(during.items.length).toBeGreaterThan(before.items.length);
      // The bounded process takes the paused replica out of use, and sends what the primary has.
      await fromStrict.until((s) => s.items.length === during.items.length, 30_000, 'live items (bounded)');
      expect(bounded.monitor.states[0]!.condition).toBe('lagging');
      // The other still uses it: it waits.
      await sleep(1500);
      expect(waiting.monitor.states[0]!.condition).toBe('in_use');
      expect(stream.items.length).toBe(before.items.length);
    } finally {
      await cluster.replicas[0]!.query('select pg_wal_replay_resume()');
    }
    const after = await eventPages(alone);
    await stream.until((s) => s.items.length === after.items.length, 30_000, 'live items after replay');
    stream.close();
    fromStrict.close();
    const sizes = after.texts.map((page) => (JSON.parse(page) as { events: unknown[] }).events.length);
    expect(
      asPages(
        stream.items.map((e) => e.data),
        sizes,
      ),
    ).toEqual(after.texts);
    expect(
      asPages(
        fromStrict.items.map((e) => e.data),
        sizes,
      ),
    ).toEqual(after.texts);
  }, 120_000);
});
