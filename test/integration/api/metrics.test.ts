/**
 * The series an SV operator alerts on, scraped from /metrics after the real
 * worker has ingested a simulated network and the API has answered requests:
 * counts equal to what the items hold, the lag from the newest record time,
 * the writer role as a standby and as the writer, snapshot times as the
 * Scan schedule gives them, the pool, query durations by repository
 * operation, and refused requests by reason.
 */
import { sql } from 'kysely';
import type { CanonicalItem } from '../../../src/domain/items';
import { parseTimestamp } from '../../../src/domain/time';
import { createFileSource } from '../../../src/ingest/sources/file-source';
import { runWorker } from '../../../src/ingest/worker';
import { createLogger } from '../../../src/internal/logger';
import { createMetrics } from '../../../src/internal/metrics';
import { observeQueries } from '../../../src/store/pool';
import { acquireWriterLock } from '../../../src/store/writer-lock';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { simulatedItems, writeItems } from '../../support/items/simulated-network';
import { IMPORT_TIME, snapshotTimes } from '../../support/replays/acs-replay';

/** `name{labels}` → value, from the Prometheus text format. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

/** What the items hold, counted without the service's code. */
function expectedCounts(items: CanonicalItem[]) {
  const c = { transaction: 0, reassignment: 0, import: 0, events: 0, verdicts: 0 };
  const newest = new Map<string, { synchronizer: string; migration: number; time: string }>();
  for (const item of items) {
    if (item.verdict) c.verdicts += 1;
    const u = item.update;
    if (!u) continue;
    if ('events_by_id' in u) {
      c.events += Object.keys(u.events_by_id).length;
      if (u.record_time === IMPORT_TIME || u.record_time.startsWith('0001-01-01')) c.import += 1;
      else {
        c.transaction += 1;
        const key = `${u.migration_id}/${u.synchronizer_id}`;
        const seen = newest.get(key);
        if (!seen || parseTimestamp(seen.time) < parseTimestamp(u.record_time)) {
          newest.set(key, { synchronizer: u.synchronizer_id, migration: u.migration_id, time: u.record_time });
        }
      }
    } else {
      c.events += 1;
      c.reassignment += 1;
    }
  }
  return { ...c, newest: [...newest.values()] };
}

describe('/metrics after ingestion and requests', () => {
  const t = useTestDatabase();
  const metrics = createMetrics();
  const items = simulatedItems({ seed: 17, updates: 800, meanUpdateGapMs: 30_000, migrations: 2 });
  const expected = expectedCounts(items);
  let api: TestApi;
  const batches: number[] = [];
  const rolesDuringRun: string[] = [];
  let asStandby: { gauge: number | undefined; status: unknown } | undefined;

  const scrape = async () => samples((await request(api.url, 'GET', '/metrics')).text);
  const gauge = async () => (await metrics.writerActive.get()).values[0]?.value;
  const statusRole = async () => ((await request(api.url, 'GET', '/status')).json as { writer: string }).writer;

  beforeAll(async () => {
    metrics.observePool(t.pool);
    observeQueries(t.db, metrics.observeQuery);
    api = await startTestApi(t, { metrics, env: { LEDGER_AUTH_HS256_SECRET: 'a-test-secret-of-at-least-32-bytes!!' } });
    // Another process holds the writer lock: the worker waits as a standby until it is released.
    const holder = (await acquireWriterLock(t.pool, new AbortController().signal, { pollMs: 20 }))!;
    const run = runWorker(
      {
        db: t.db,
        pool: t.pool,
        source: createFileSource(writeItems(items)),
        logger: createLogger('silent'),
        metrics,
        batchSize: 100,
        batchMaxWaitMs: 50,
        lockPollMs: 20,
        onBatch: (batch) => {
          batches.push(batch.updates);
          void gauge().then((g) => rolesDuringRun.push(`${metrics.writer.role} ${g}`));
        },
      },
      new AbortController().signal,
    );
    for (let i = 0; i < 500 && metrics.writer.role !== 'standby'; i++) await new Promise((r) => setTimeout(r, 10));
    asStandby = { gauge: await gauge(), status: await statusRole() };
    await holder.release();
    await run;
  });
  afterAll(async () => {
    await api?.close();
  });

  it('has a network worth counting', () => {
    expect(expected.transaction).toBeGreaterThan(500);
    expect(expected.import).toBeGreaterThan(0);
    expect(expected.verdicts).toBeGreaterThan(0);
    expect(batches.length).toBeGreaterThan(5);
  });

  it('counts what was ingested, by kind, and each batch', async () => {
    const s = await scrape();
    expect({
      transaction: s.get('scan_indexer_ingested_updates_total{kind="transaction"}'),
      reassignment: s.get('scan_indexer_ingested_updates_total{kind="reassignment"}') ?? 0,
      import: s.get('scan_indexer_ingested_updates_total{kind="import"}'),
      events: s.get('scan_indexer_ingested_events_total'),
      verdicts: s.get('scan_indexer_ingested_verdicts_total'),
    }).toEqual({
      transaction: expected.transaction,
      reassignment: expected.reassignment,
      import: expected.import,
      events: expected.events,
      verdicts: expected.verdicts,
    });
    expect(s.get('scan_indexer_ingest_batch_items_count')).toBe(batches.length);
    expect(s.get('scan_indexer_ingest_batch_items_sum')).toBe(items.length);
    expect(s.get('scan_indexer_ingest_batch_duration_seconds_count')).toBe(batches.length);
    expect(s.get('scan_indexer_ingest_rejected_items_total')).toBe(0);
  });

  it('reports the lag from the newest record time of each synchronizer', async () => {
    const before = Date.now();
    const s = await scrape();
    const after = Date.now();
    expect(expected.newest.length).toBeGreaterThanOrEqual(2);
    for (const n of expected.newest) {
      const ms = Number(parseTimestamp(n.time) / 1000n);
      const lag = s.get(`scan_indexer_ingest_lag_seconds{synchronizer_id="${n.synchronizer}",migration_id="${n.migration}"}`);
      expect(lag).toBeGreaterThanOrEqual((before - ms) / 1000 - 0.001);
      expect(lag).toBeLessThanOrEqual((after - ms) / 1000 + 0.001);
      expect(
        s.get(`scan_indexer_store_last_ingested_record_time_ms{synchronizer_id="${n.synchronizer}",migration_id="${n.migration}"}`),
      ).toBe(ms);
    }
  });

  it('shows the writer role: standby while another holds the lock, active while writing, none once stopped', async () => {
    expect(asStandby).toEqual({ gauge: 0, status: 'standby' });
    expect(new Set(rolesDuringRun)).toEqual(new Set(['active 1']));
    const s = await scrape();
    expect(s.get('scan_indexer_writer_active')).toBe(0);
    expect(s.get('scan_indexer_writer_lock_acquisitions_total')).toBe(1);
    expect(s.get('scan_indexer_writer_lock_losses_total')).toBe(0);
    expect(await statusRole()).toBe('none');
  });

  it("counts source requests by upstream and outcome, and shows each upstream's last outcome in /status", async () => {
    metrics.sourceRequest('scan', 'https://scan.sv-1.example', 'ok');
    metrics.sourceRequest('scan', 'https://scan.sv-1.example', 'retried');
    metrics.sourceRequest('scan', 'https://scan.sv-2.example', 'failed');
    const s = await scrape();
    expect(s.get('scan_indexer_source_requests_total{source="scan",upstream="https://scan.sv-1.example",outcome="ok"}')).toBe(1);
    expect(s.get('scan_indexer_source_requests_total{source="scan",upstream="https://scan.sv-1.example",outcome="retried"}')).toBe(1);
    const status = (await request(api.url, 'GET', '/status')).json as { sources: Record<string, unknown>[] };
    expect(status.sources).toEqual([
      {
        source: 'scan',
        upstream: 'https://scan.sv-1.example',
        last_outcome: 'retried',
        last_at: expect.stringMatching(/^\d{4}-/),
        last_ok_at: expect.stringMatching(/^\d{4}-/),
      },
      {
        source: 'scan',
        upstream: 'https://scan.sv-2.example',
        last_outcome: 'failed',
        last_at: expect.stringMatching(/^\d{4}-/),
        last_ok_at: null,
      },
    ]);
  });

  it('reports the newest snapshot per migration and how many were announced', async () => {
    const snapshots = snapshotTimes(items);
    const s = await scrape();
    expect(s.get('scan_indexer_acs_snapshots_announced_total')).toBe(snapshots.length);
    for (const migration of new Set(snapshots.map((x) => x.migration))) {
      const newest = snapshots.filter((x) => x.migration === migration).at(-1)!;
      expect(s.get(`scan_indexer_acs_snapshot_last_record_time_seconds{migration_id="${migration}"}`)).toBe(
        Number(parseTimestamp(newest.time) / 1_000_000n),
      );
    }
    expect(s.get('scan_indexer_acs_snapshot_job_duration_seconds_count')).toBeGreaterThan(0);
  });

  it('reports the pool, and requests refused for page tokens and by authentication, by reason', async () => {
    const snapshot = snapshotTimes(items).at(-1)!;
    const page = await request(api.url, 'POST', '/api/scan/v0/state/acs', {
      migration_id: snapshot.migration,
      record_time: snapshot.time,
      page_size: 1,
    });
    const token = (page.json as { next_page_token: string }).next_page_token;
    const altered = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
    const refused = await request(api.url, 'POST', '/api/scan/v0/state/acs', {
      migration_id: snapshot.migration,
      record_time: snapshot.time,
      page_size: 1,
      after: altered,
    });
    expect(refused.status).toBe(400);
    const proxy = (headers: Record<string, string>) =>
      request(api.url, 'GET', '/api/validator/v0/scan-proxy/dso-party-id', undefined, headers);
    expect((await proxy({})).status).toBe(401);
    expect((await proxy({ authorization: 'Basic eDp5' })).status).toBe(401);
    expect((await proxy({ authorization: 'Bearer not.a.jwt' })).status).toBe(401);
    expect((await proxy({})).status).toBe(401);
    const s = await scrape();
    expect(s.get('scan_indexer_api_page_token_rejections_total')).toBe(1);
    expect({
      no_token: s.get('scan_indexer_api_auth_refusals_total{reason="no_token"}'),
      malformed_header: s.get('scan_indexer_api_auth_refusals_total{reason="malformed_header"}'),
      invalid_token: s.get('scan_indexer_api_auth_refusals_total{reason="invalid_token"}'),
    }).toEqual({ no_token: 2, malformed_header: 1, invalid_token: 1 });
    expect(s.get('scan_indexer_db_pool_connections{state="total"}')).toBeGreaterThanOrEqual(1);
    expect(s.get('scan_indexer_db_pool_connections{state="waiting"}')).toBe(0);
  });

  it('times the queries of each repository operation under its name', async () => {
    const findEvents = async () =>
      (await scrape()).get('scan_indexer_db_query_duration_seconds_count{operation="findEvent",outcome="ok"}') ?? 0;
    const transaction = items.find((i) => i.update && 'events_by_id' in i.update && i.update.record_time !== IMPORT_TIME)!;
    const before = await findEvents();
    const found = await request(api.url, 'GET', `/api/scan/v0/events/${encodeURIComponent(transaction.update!.update_id)}`);
    expect(found.status).toBe(200);
    const missing = await request(api.url, 'GET', '/api/scan/v0/events/no-such-update');
    expect(missing.status).toBe(404);
    // One query per lookup, found or not; a query outside any named operation counts as other.
    expect((await findEvents()) - before).toBe(2);
    await sql`select 1`.execute(t.db);
    expect((await scrape()).get('scan_indexer_db_query_duration_seconds_count{operation="other",outcome="ok"}')).toBeGreaterThanOrEqual(1);
  });
});
