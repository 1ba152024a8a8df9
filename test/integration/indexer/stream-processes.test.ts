/**
 * The live stream with the worker and the API in separate processes, as `ingest` and `serve` run in a
 * deployment: the worker is the built CLI (`scan-indexer ingest`, the live simulator) in a child process,
 * the API this test's process. Live items reach the stream by the worker's NOTIFY (polling is set far
 * off, and the delivery-latency histogram counts only items read on a notice), and the stream's items are
 * the /v0/events items, byte for byte, once the worker has stopped.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawnCli } from '../../../bench/support/cli-child';
import { useTestDatabase } from '../../support/database/database';
import { startTestApi, type TestApi } from '../../support/http/http';
import { asPages, eventPages, FROM_THE_START, metricValue, STREAM } from '../../support/stream';
import { SseClient } from '../../support/stream-clients';

const exited = (child: ChildProcessWithoutNullStreams) =>
  new Promise<number | null>((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code)),
  );

describe('GET /api/indexer/v0/stream/events with the worker in another process', () => {
  const t = useTestDatabase();
  let api: TestApi;
  let worker: ChildProcessWithoutNullStreams | undefined;

  beforeAll(async () => {
    // Polling (while the LISTEN connection is down) every 10 minutes: nothing arrives by it in this test.
    api = await startTestApi(t, { env: { STREAM_POLL_MS: '600000' } });
  });
  afterAll(async () => {
    if (worker && worker.exitCode === null) worker.kill('SIGKILL');
    await api.close();
  });

  it('sends the items the other process commits as it commits them, then exactly /v0/events', async () => {
    const stream = await SseClient.open(`${api.url}${STREAM}?after=${FROM_THE_START}`);
    worker = spawnCli(['ingest'], {
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: t.url,
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'warn',
        SOURCE: 'simulator',
        SIMULATOR_SEED: '30',
        SIMULATOR_MODE: 'live',
        SIMULATOR_RATE: '20',
        INGEST_BATCH_MAX_WAIT_MS: '50',
      },
    });
    let output = '';
    worker.stderr.on('data', (d: Buffer) => (output += d.toString()));
    worker.stdout.on('data', (d: Buffer) => (output += d.toString()));
    try {
      await stream.until((s) => s.items.length >= 40, 60_000, 'live items');
    } catch (err) {
      throw new Error(`${(err as Error).message}; the worker wrote:\n${output}`, { cause: err });
    }
    // Items were read on notices from the worker's process: the listener is up, and each item sent on a
    // notice is timed from the notice's commit time.
    expect(await metricValue(api, 'scan_indexer_stream_listener_connected')).toBe(1);
    expect(await metricValue(api, 'scan_indexer_stream_delivery_latency_seconds_count{stream="events"}')).toBeGreaterThan(0);
    // More than one commit was delivered live, in more than one read.
    const sentBefore = stream.items.length;
    await stream.until((s) => s.items.length > sentBefore + 10, 30_000, 'more live items');

    worker.kill('SIGTERM');
    expect(await exited(worker)).toBe(0);
    const all = await eventPages(api);
    await stream.until((s) => s.items.length >= all.items.length, 30_000, 'the last items');
    stream.close();
    expect(
      asPages(
        stream.items.map((e) => e.data),
        all.texts.map((page) => (JSON.parse(page) as { events: unknown[] }).events.length),
      ),
    ).toEqual(all.texts);
  }, 120_000);
});
