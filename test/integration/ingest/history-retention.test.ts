/**
 * History retention (HISTORY_RETENTION): the worker drops the months before the window, requests
 * for the dropped range are answered 410 with where the history starts (never a short or empty
 * page), lookups of dropped ids say so in their 404, /status shows the start, and everything after
 * it answers exactly as on a database that kept all of its history.
 */
import { createFileSource } from '../../../src/ingest/sources/file-source';
import { runWorker } from '../../../src/ingest/worker';
import type { CanonicalItem } from '../../../src/domain/items';
import { formatDateTime, formatRecordTime, parseTimestamp, startOfMonth } from '../../../src/domain/time';
import { retentionCutoff } from '../../../src/jobs/history-retention';
import { createLogger } from '../../../src/internal/logger';
import { useTestDatabase, type TestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { simulatedItems, writeItems } from '../../support/items/simulated-network';

const RETENTION_DAYS = 45;
// About 104 days of ledger time from 2025-01-01: January, February and some of March go.
const items: CanonicalItem[] = simulatedItems({ seed: 'retention', updates: 1500, meanUpdateGapMs: 6_000_000 });
const recordTimes = items.flatMap((i) => (i.update ? [parseTimestamp(i.update.record_time)] : []));
const newest = recordTimes.reduce((a, b) => (a > b ? a : b));
const START = retentionCutoff(newest, RETENTION_DAYS);
const dropped = items.find((i) => i.update && parseTimestamp(i.update.record_time) < START && i.update.record_time > '2000')!;
const kept = items.find((i) => i.update && parseTimestamp(i.update.record_time) >= START)!;
const SYNC = (kept.update as { synchronizer_id: string }).synchronizer_id;

async function ingest(t: TestDatabase, retentionDays?: number): Promise<void> {
  const source = createFileSource(writeItems(items));
  const logger = createLogger('silent');
  await runWorker(
    { db: t.db, pool: t.pool, source, logger, batchSize: 200, batchMaxWaitMs: 100, retentionDays },
    new AbortController().signal,
  );
}

describe('history retention', () => {
  const retained = useTestDatabase();
  const control = useTestDatabase();
  let api: TestApi;
  let full: TestApi;
  const both = async (method: string, path: string, body?: unknown) => {
    const [a, b] = await Promise.all([request(api.url, method, path, body), request(full.url, method, path, body)]);
    return { retained: { status: a.status, json: a.json }, control: { status: b.status, json: b.json } };
  };

  beforeAll(async () => {
    await Promise.all([ingest(retained, RETENTION_DAYS), ingest(control)]);
    // One page-token key, so that the two answer with the same tokens.
    const PAGE_TOKEN_SECRET = 'retention-test-page-token-key-0123456789';
    api = await startTestApi(retained, { env: { HISTORY_RETENTION: `${RETENTION_DAYS}d`, PAGE_TOKEN_SECRET } });
    full = await startTestApi(control, { env: { PAGE_TOKEN_SECRET } });
  }, 600_000);
  afterAll(async () => {
    await api?.close();
    await full?.close();
  });

  it('has a dataset worth testing: history on both sides of the start, which is a month start', () => {
    expect(START).toBe(startOfMonth(START));
    expect(recordTimes.filter((t) => t < START).length).toBeGreaterThan(300);
    expect(recordTimes.filter((t) => t >= START).length).toBeGreaterThan(300);
  });

  it('dropped the partitions of the months before the start, and only those', async () => {
    const names = async (t: TestDatabase) =>
      (
        await t.pool.query<{ relname: string }>(
          `select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid
           where i.inhparent = 'updates'::regclass order by c.relname`,
        )
      ).rows.map((r) => r.relname);
    const before = await names(control);
    const after = await names(retained);
    const months = (list: string[]) => list.map((n) => n.replace(/^updates_m0_p/, ''));
    const start = formatRecordTime(START).slice(0, 7).replace('-', '');
    expect(months(after)).toEqual(months(before).filter((m) => m >= start));
    const count = async (t: TestDatabase, sqlText: string) =>
      Number((await t.pool.query<{ n: string }>(sqlText, [formatRecordTime(START)])).rows[0]!.n);
    for (const table of ['updates', 'verdicts']) {
      const q = `select count(*) as n from ${table} where record_time >= $1::timestamptz`;
      expect(await count(retained, q)).toBe(await count(control, q));
      expect(await count(retained, `select count(*) as n from ${table} where record_time < $1::timestamptz`)).toBe(0);
    }
  });

  it('/status shows where the history starts', async () => {
    const [a, b] = await Promise.all([request(api.url, 'GET', '/status'), request(full.url, 'GET', '/status')]);
    expect((a.json as { history: unknown }).history).toEqual({ start: formatRecordTime(START), retention_days: RETENTION_DAYS });
    expect((b.json as { history: unknown }).history).toEqual({ start: null, retention_days: null });
  });

  const gone = {
    status: 410,
    json: {
      error: `The requested history is no longer available: this indexer keeps history from ${formatDateTime(START)} on: what came before was dropped by its retention policy.`,
    },
  };

  it('refuses pages of the dropped range with 410, from the beginning or from a cursor before the start', async () => {
    for (const path of ['/api/scan/v2/updates', '/api/scan/v0/events']) {
      const fromStart = await both('POST', path, { page_size: 10 });
      expect(fromStart.retained).toEqual(gone);
      expect(fromStart.control.status).toBe(200);
      const early = { page_size: 10, after: { after_migration_id: 0, after_record_time: dropped.update!.record_time } };
      expect((await both('POST', path, early)).retained).toEqual(gone);
    }
    const before = await both('POST', '/api/scan/v0/backfilling/updates-before', {
      migration_id: 0,
      synchronizer_id: SYNC,
      before: formatDateTime(START),
      count: 10,
    });
    expect(before.retained).toEqual(gone);
  });

  it('serves everything from the start on exactly as a database that kept all of its history', async () => {
    const justBefore = formatDateTime(START - 1n);
    for (const [path, key] of [
      ['/api/scan/v2/updates', 'transactions'],
      ['/api/scan/v0/events', 'events'],
    ] as const) {
      let after = { after_migration_id: 0, after_record_time: justBefore };
      let pages = 0;
      for (;;) {
        const page = await both('POST', path, { page_size: 200, after });
        expect(page.retained).toEqual(page.control);
        const list = (page.retained.json as Record<string, { record_time?: string; update?: { record_time: string } }[]>)[key]!;
        if (list.length === 0) break;
        pages += 1;
        const last = list[list.length - 1]!;
        after = { after_migration_id: 0, after_record_time: last.record_time ?? last.update!.record_time };
      }
      expect(pages).toBeGreaterThan(1);
    }
    const newestFirst = await both('POST', '/api/scan/v0/backfilling/updates-before', {
      migration_id: 0,
      synchronizer_id: SYNC,
      before: formatDateTime(newest + 1n),
      count: 50,
    });
    expect(newestFirst.retained).toEqual(newestFirst.control);
    expect((await both('GET', `/api/scan/v0/events/${kept.update!.update_id}`)).retained).toEqual(
      (await both('GET', `/api/scan/v0/events/${kept.update!.update_id}`)).control,
    );
  });

  it('a lookup of a dropped update is a 404 that says where the history starts', async () => {
    const id = dropped.update!.update_id;
    const res = await both('GET', `/api/scan/v2/updates/${id}`);
    expect(res.control.status).toBe(200);
    expect(res.retained).toEqual({
      status: 404,
      json: {
        error: `Transaction with id ${id} not found (this indexer keeps history from ${formatDateTime(START)} on: what came before was dropped by its retention policy)`,
      },
    });
  });

  it('ACS snapshots before the start are refused with 410; those after answer as before', async () => {
    const early = await both('GET', `/api/scan/v0/state/acs/snapshot-timestamp?before=${formatDateTime(START - 1n)}&migration_id=0`);
    expect(early.control.status).toBe(200);
    expect(early.retained).toEqual(gone);
    const late = await both('GET', `/api/scan/v0/state/acs/snapshot-timestamp?before=${formatDateTime(newest)}&migration_id=0`);
    expect(late.retained).toEqual(late.control);
    const at = (late.retained.json as { record_time: string }).record_time;
    const acs = await both('POST', '/api/scan/v0/state/acs', { migration_id: 0, record_time: at, page_size: 100 });
    expect(acs.retained.status).toBe(200);
    expect(acs.retained).toEqual(acs.control);
    const old = await both('POST', '/api/scan/v0/state/acs', {
      migration_id: 0,
      record_time: formatDateTime(START - 3n * 3_600_000_000n),
      page_size: 100,
    });
    expect(old.control.status).toBe(200);
    expect(old.retained).toEqual(gone);
  });
});
