/**
 * The live stream resumed from a cursor older than the history that retention kept (HISTORY_RETENTION):
 * over SSE and WebSocket, one `error` event (history_gone) naming the oldest cursor it can resume after,
 * then the end; resumed there, the stream sends exactly the kept history, as /v0/events serves it.
 */
import { createFileSource } from '../../../src/ingest/sources/file-source';
import { runWorker } from '../../../src/ingest/worker';
import { formatDateTime, formatRecordTime, parseTimestamp } from '../../../src/domain/time';
import { retentionCutoff } from '../../../src/jobs/history-retention';
import { createLogger } from '../../../src/internal/logger';
import { useTestDatabase } from '../../support/database/database';
import { startTestApi, type TestApi } from '../../support/http/http';
import { simulatedItems, writeItems } from '../../support/items/simulated-network';
import { asPages, eventPages, metricValue, STREAM } from '../../support/stream';
import { SseClient, WsClient } from '../../support/stream-clients';

const RETENTION_DAYS = 45;
// About 100 days of ledger time from 2025-01-01: January, February and some of March go.
const items = simulatedItems({ seed: 'stream-retention', updates: 500, meanUpdateGapMs: 18_000_000 });
const recordTimes = items.flatMap((i) => (i.update ? [parseTimestamp(i.update.record_time)] : []));
const START = retentionCutoff(
  recordTimes.reduce((a, b) => (a > b ? a : b)),
  RETENTION_DAYS,
);
const dropped = items.find((i) => i.update && parseTimestamp(i.update.record_time) < START && i.update.record_time > '2000')!.update!;
/** A cursor of an item that retention dropped. */
const STALE = `0/${dropped.record_time}/${dropped.update_id}`;
/** Computed here: the only migration, one microsecond before the start. */
const OLDEST = `0/${formatRecordTime(START - 1n)}`;

describe('GET /api/indexer/v0/stream/events after a cursor older than the retained history', () => {
  const t = useTestDatabase();
  let api: TestApi;

  beforeAll(async () => {
    await runWorker(
      {
        db: t.db,
        pool: t.pool,
        source: createFileSource(writeItems(items)),
        logger: createLogger('silent'),
        batchSize: 200,
        batchMaxWaitMs: 100,
        retentionDays: RETENTION_DAYS,
      },
      new AbortController().signal,
    );
    api = await startTestApi(t, { env: { HISTORY_RETENTION: `${RETENTION_DAYS}d` } });
  }, 300_000);
  afterAll(async () => {
    await api?.close();
  });

  const expectedError = {
    error: `The stream cannot resume after ${STALE}: this indexer keeps history from ${formatDateTime(START)} on, and what came before was dropped by its retention policy. The oldest cursor it can resume after is ${OLDEST}, which sends everything kept (the items between the two are lost).`,
    reason: 'history_gone',
    history_start: formatDateTime(START),
    after: OLDEST,
  };

  it('has history on both sides of the start', () => {
    expect(recordTimes.filter((r) => r < START).length).toBeGreaterThan(100);
    expect(recordTimes.filter((r) => r >= START).length).toBeGreaterThan(100);
  });

  it('ends an SSE stream with one error event naming the oldest resumable cursor, without an id', async () => {
    for (const [url, headers] of [
      [`${api.url}${STREAM}?after=${encodeURIComponent(STALE)}`, {}],
      [`${api.url}${STREAM}`, { 'Last-Event-ID': STALE }],
    ] as const) {
      const stream = await SseClient.open(url, headers);
      expect(stream.status).toBe(200);
      await stream.until((s) => s.ended, 10_000, 'the end');
      expect(stream.events).toEqual([{ event: 'error', id: undefined, data: JSON.stringify(expectedError) }]);
    }
  });

  it('ends a WebSocket stream with one error frame naming it, and close code 1000', async () => {
    const ws = await WsClient.connect(`${api.url}${STREAM}?after=${encodeURIComponent(STALE)}`);
    expect(await ws.closed()).toBe(1000);
    expect(ws.frames.map((f) => JSON.parse(f.text) as unknown)).toEqual([{ event: 'error', ...expectedError }]);
    expect(await metricValue(api, 'scan_indexer_stream_drops_total{stream="events",reason="history_gone"}')).toBe(3);
  });

  it('sends the whole kept history, as /v0/events serves it, when resumed after that cursor', async () => {
    const expected = await eventPages(api, 'compact_json', { after_migration_id: 0, after_record_time: formatRecordTime(START - 1n) });
    expect(expected.items.length).toBeGreaterThan(100);
    const stream = await SseClient.open(`${api.url}${STREAM}?after=${encodeURIComponent(OLDEST)}`);
    await stream.until((s) => s.items.length >= expected.items.length, 30_000, 'the kept history');
    stream.close();
    expect(
      asPages(
        stream.items.map((e) => e.data),
        [1000],
      ),
    ).toEqual(expected.texts);
    // One microsecond earlier is a cursor into what was dropped.
    const earlier = await SseClient.open(`${api.url}${STREAM}?after=${encodeURIComponent(`0/${formatRecordTime(START - 2n)}`)}`);
    await earlier.until((s) => s.ended, 10_000, 'the end');
    expect(earlier.events.map((e) => e.event)).toEqual(['error']);
  });
});
