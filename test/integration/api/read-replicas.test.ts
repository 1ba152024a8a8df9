/**
 * Reads on a real PostgreSQL streaming replica (DATABASE_READ_URLS), through the real HTTP server: a
 * primary and a hot standby of it are started by the test (test/support/database/streaming-replica.ts).
 * Two API servers read the same primary: one alone, one with the replica. Whatever the replica's
 * state (caught up, replay paused while ingestion goes on, stopped, restarted), every answer of the
 * second is the first's, byte for byte, and never a 5xx; and reads do arrive at the replica.
 */
import type pg from 'pg';
import { spawnCli } from '../../../bench/support/cli-child';
import { catchUpSnapshots } from '../../../src/jobs/acs-snapshots';
import type { Source } from '../../../src/ingest/source';
import { runWorker } from '../../../src/ingest/worker';
import { formatRecordTime, parseTimestamp } from '../../../src/domain/time';
import { createLogger } from '../../../src/internal/logger';
import { createMetrics, replicaLabel, type Metrics } from '../../../src/internal/metrics';
import { migrate } from '../../../src/store/migrator';
import { createDb, createPool, observeQueries, type Db } from '../../../src/store/pool';
import { openReadReplicas, type ReadReplicas } from '../../../src/store/read-replicas';
import { startReplicatedCluster, type ReplicatedCluster } from '../../support/database/streaming-replica';
import { request, startTestApi, type HttpResult, type TestApi } from '../../support/http/http';
import { simulatedItems } from '../../support/items/simulated-network';

const logger = createLogger('silent');
const items = simulatedItems({ seed: 'read-replicas', updates: 1500, migrations: 2, meanUpdateGapMs: 30_000 });
// Both servers sign page tokens with one key, as API replicas do.
const env = { PAGE_TOKEN_SECRET: 'read-replicas-test-secret-of-32-characters', LEDGER_AUTH_DISABLED: 'true' };

interface Probe {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

const describeProbe = (p: Probe) => `${p.method} ${p.path}${p.body === undefined ? '' : ` ${JSON.stringify(p.body)}`}`;
const answer = (r: HttpResult) => ({ status: r.status, body: r.text });
/** An int64 page token is a new row per page served (numbered-page-token.ts): two servers issue different numbers. */
const withoutNumberedToken = (r: HttpResult) => ({
  status: r.status,
  body: r.text.replace(/"next_page_token":\d+\}$/, '"next_page_token":"(a number)"}'),
});

describe('reads on a streaming replica', () => {
  let cluster: ReplicatedCluster;
  let pool: pg.Pool;
  let db: Db;
  let replicas: ReadReplicas;
  let bounded: ReadReplicas;
  let alone: TestApi;
  let routed: TestApi;
  let strict: TestApi;
  let metrics: Metrics;
  let strictMetrics: Metrics;
  let ingested = 0;
  /** The first announced snapshot (of migration 0). */
  let first: string | undefined;
  const firstSnapshot = () => first!;

  /** The simulated stream up to item `end`, resuming at the checkpoint. */
  const source: Source = {
    stream: 'read-replicas',
    async *read(from) {
      for (let i = from === undefined ? 0 : Number(from); i < ingested; i++)
        yield { item: items[i]!, position: String(i + 1), origin: `item ${i}` };
    },
  };
  /** Ingests on the primary up to a share of the stream, and announces the snapshots it passed. */
  async function ingestUpTo(share: number): Promise<void> {
    ingested = Math.floor(items.length * share);
    await runWorker({ db, pool, source, logger, batchSize: 100, batchMaxWaitMs: 20 }, new AbortController().signal);
    await catchUpSnapshots(db, logger);
  }

  const count = async (m: Metrics, server: string) =>
    (await m.dbReadQueries.get()).values.find((v) => v.labels.server === server)?.value ?? 0;
  const fallbacks = async (m: Metrics) =>
    Object.fromEntries((await m.dbReadFallbacks.get()).values.map((v) => [String(v.labels.reason), v.value]));
  const send = (api: TestApi, p: Probe) => request(api.url, p.method, p.path, p.body);

  /** Sends the probe to the server alone, then the same to the one with replicas: same status, same bytes. */
  async function same(p: Probe): Promise<HttpResult> {
    const expected = await send(alone, p);
    const got = await send(routed, p);
    expect({ probe: describeProbe(p), ...withoutNumberedToken(got) }).toEqual({
      probe: describeProbe(p),
      ...withoutNumberedToken(expected),
    });
    return expected;
  }

  /** Waits until the monitor of `r` reports replica 0 in the condition (checking as often as it likes). */
  async function until(r: ReadReplicas, condition: string): Promise<void> {
    for (let i = 0; i < 1200 && r.monitor.states[0]!.condition !== condition; i++) {
      await r.monitor.check();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(r.monitor.states[0]!.condition).toBe(condition);
  }

  beforeAll(async () => {
    cluster = await startReplicatedCluster({ replicas: 1 });
    await cluster.primary.query('create database scan');
    pool = createPool({ connectionString: cluster.primary.url('scan'), max: 8 });
    db = createDb(pool);
    await migrate(pool);
    // Into the first migration, past its first snapshot.
    await ingestUpTo(0.25);
    await cluster.waitForReplay();

    alone = await startTestApi({ db, pool }, { env });
    const res = await send(alone, { method: 'GET', path: '/api/indexer/v0/acs-snapshots?page_size=1000' });
    const snapshots = (res.json as { snapshots: { migration_id: number; record_time: string }[] }).snapshots;
    expect(snapshots.length).toBeGreaterThanOrEqual(1);
    first = snapshots.filter((s) => s.migration_id === 0).at(-1)!.record_time;
    const open = (m: Metrics, maxLagMs: number) => {
      const r = openReadReplicas({
        primaryPool: pool,
        primaryDb: db,
        urls: [cluster.replicas[0]!.url('scan')],
        poolSize: 4,
        statementTimeoutMs: 30_000,
        pollMs: 100,
        maxLagMs,
        logger,
        observe: (target) => m.dbReadQueries.inc({ server: target === 'primary' ? 'primary' : replicaLabel(target) }),
      });
      observeQueries(r.db, m.observeQuery);
      return r;
    };
    metrics = createMetrics();
    // A bound far above anything here: what keeps answers right while replay is paused is the positions.
    replicas = open(metrics, 600_000);
    routed = await startTestApi({ db: replicas.db, primaryDb: db, pool, replicas: replicas.monitor }, { env, metrics });
    strictMetrics = createMetrics();
    bounded = open(strictMetrics, 200);
    strict = await startTestApi({ db: bounded.db, primaryDb: db, pool, replicas: bounded.monitor }, { env, metrics: strictMetrics });
    await until(replicas, 'in_use');
    await until(bounded, 'in_use');
  });

  afterAll(async () => {
    await Promise.all([alone?.close(), routed?.close(), strict?.close()]);
    await replicas?.close();
    await bounded?.close();
    await db?.destroy();
    await cluster?.destroy();
  });

  /** Every page of a history list, following the cursor of the server alone from the start to the end. */
  async function pageHistory(path: '/v2/updates' | '/v0/events', pageSize: number): Promise<number> {
    let after: { after_migration_id: number; after_record_time: string } | undefined;
    let total = 0;
    for (let pages = 0; pages < 500; pages++) {
      const res = await same({ method: 'POST', path: `/api/scan${path}`, body: { page_size: pageSize, ...(after && { after }) } });
      expect(res.status).toBe(200);
      const list = (res.json as Record<string, { migration_id?: number; record_time?: string; update?: unknown; verdict?: unknown }[]>)[
        path === '/v2/updates' ? 'transactions' : 'events'
      ]!;
      total += list.length;
      if (list.length < pageSize) return total;
      const last = list[list.length - 1]!;
      const keyed = (path === '/v2/updates' ? last : (last.update ?? last.verdict)) as { migration_id: number; record_time: string };
      after = { after_migration_id: keyed.migration_id, after_record_time: keyed.record_time };
    }
    throw new Error('too many pages');
  }

  /** Every page of an ACS or holdings request, following the tokens of the server alone. */
  async function pageTokens(path: string, body: Record<string, unknown>, tokenField = 'next_page_token'): Promise<number> {
    let after: unknown;
    let pages = 0;
    for (; pages < 200; pages++) {
      const res = await same({ method: 'POST', path, body: { ...body, ...(after !== undefined && after !== null && { after }) } });
      expect(res.status).toBe(200);
      after = (res.json as Record<string, unknown>)[tokenField];
      if (after === null || after === undefined) return pages + 1;
    }
    throw new Error('too many pages');
  }

  /** The newest announced snapshot of the server alone, and the owners of most holdings. */
  async function newest(): Promise<{ migration: number; time: string; owners: string[] }> {
    const res = await send(alone, { method: 'GET', path: '/api/indexer/v0/acs-snapshots?page_size=1' });
    const [snap] = (res.json as { snapshots: { migration_id: number; record_time: string }[] }).snapshots;
    const { rows } = await pool.query<{ owner: string }>(
      `select amulet_owner as owner from contracts where amulet_owner is not null group by amulet_owner order by count(*) desc, amulet_owner limit 4`,
    );
    return { migration: snap!.migration_id, time: snap!.record_time, owners: rows.map((r) => r.owner) };
  }

  /** The requests that name a position (cursors, tokens, snapshots, ids), compared whole with the server alone. */
  async function compareEverythingWithAPosition(): Promise<void> {
    const updates = await pageHistory('/v2/updates', 40);
    expect(updates).toBeGreaterThan(0);
    await pageHistory('/v0/events', 60);

    const dso = ((await send(alone, { method: 'GET', path: '/api/scan/v0/dso-party-id' })).json as { dso_party_id: string }).dso_party_id;
    // The newest and an early update, by id (update and event) and through the ledger API.
    const newestPage = await send(alone, {
      method: 'POST',
      path: '/api/scan/v0/backfilling/updates-before',
      body: { migration_id: newestMigration(), synchronizer_id: synchronizer(newestMigration()), before: '9999-01-01T00:00:00Z', count: 5 },
    });
    const newestIds = (newestPage.json as { transactions: { update_id: string }[] }).transactions.map((t) => t.update_id);
    expect(newestIds.length).toBeGreaterThan(0);
    for (const id of [...newestIds.slice(0, 2), firstUpdateId()]) {
      await same({ method: 'GET', path: `/api/scan/v2/updates/${id}` });
      await same({ method: 'GET', path: `/api/scan/v0/events/${id}?daml_value_encoding=protobuf_json` });
      const ledger = await same({
        method: 'POST',
        path: '/v2/updates/transaction-by-id',
        body: { updateId: id, requestingParties: [dso] },
      });
      expect(ledger.status).toBe(200);
    }
    // Newest first from the end, and from a time inside the history, in every migration held.
    for (const m of ingestedMigrations()) {
      for (const before of ['9999-01-01T00:00:00Z', middleTime(m)]) {
        await same({
          method: 'POST',
          path: '/api/scan/v0/backfilling/updates-before',
          body: { migration_id: m, synchronizer_id: synchronizer(m), before, count: 30 },
        });
      }
      await same({
        method: 'POST',
        path: '/api/scan/v0/backfilling/import-updates',
        body: { migration_id: m, after_update_id: '', limit: 1000 },
      });
    }

    // ACS and holdings of every migration at its newest snapshot (at or before a time far ahead), and
    // at the first snapshot, with every page.
    const snap = await newest();
    const far = '9999-01-01T00:00:00Z';
    for (const m of ingestedMigrations()) {
      for (const path of ['/api/scan/v0/state/acs', '/api/scan/v1/state/acs']) {
        await pageTokens(path, { migration_id: m, record_time: far, record_time_match: 'at_or_before', page_size: 150 });
      }
      await pageTokens('/api/scan/v2/holdings/state', {
        migration_id: m,
        record_time: far,
        record_time_match: 'at_or_before',
        page_size: 20,
        owner_party_ids: snap.owners,
      });
      await same({
        method: 'POST',
        path: '/api/scan/v1/holdings/summary',
        body: { migration_id: m, record_time: far, record_time_match: 'at_or_before', owner_party_ids: snap.owners },
      });
      await same({ method: 'GET', path: `/api/scan/v0/state/acs/snapshot-timestamp?before=${far}&migration_id=${m}` });
    }
    await pageTokens('/api/scan/v2/state/acs', {
      migration_id: 0,
      record_time: firstSnapshot(),
      record_time_match: 'exact',
      page_size: 200,
    });
    await same({
      method: 'POST',
      path: '/api/scan/v0/holdings/summary',
      body: { migration_id: snap.migration, record_time: snap.time, owner_party_ids: snap.owners, as_of_round: 3 },
    });
    await same({ method: 'GET', path: `/api/scan/v0/state/acs/snapshot-timestamp-after?after=${firstSnapshot()}&migration_id=0` });
    // The announced snapshots, two at a time, with the tokens of the server alone (its first page names
    // no position: it is the newest state, which a replica within the lag bound may serve a moment old).
    const firstPage = await send(alone, { method: 'GET', path: '/api/indexer/v0/acs-snapshots?page_size=2' });
    let token = (firstPage.json as { next_page_token: string | null }).next_page_token;
    while (token !== null) {
      const res = await same({ method: 'GET', path: `/api/indexer/v0/acs-snapshots?page_size=2&page_token=${token}` });
      token = (res.json as { next_page_token: string | null }).next_page_token;
    }
  }

  type Tx = Extract<NonNullable<(typeof items)[number]['update']>, { synchronizer_id: string }>;
  const ingestedTransactions = () =>
    items
      .slice(0, ingested)
      .map((i) => i.update)
      .filter((u): u is Tx => !!u && 'synchronizer_id' in u && u.record_time > '0001-01-02');
  /** The migration of the newest ingested transaction, and every migration with a transaction ingested. */
  const newestMigration = () => ingestedTransactions().at(-1)!.migration_id;
  const ingestedMigrations = () => [...new Set(ingestedTransactions().map((u) => u.migration_id))];
  const synchronizer = (m: number) => ingestedTransactions().find((u) => u.migration_id === m)!.synchronizer_id;
  const firstUpdateId = () => items.find((i) => i.update && i.update.record_time > '0001-01-02')!.update!.update_id;
  /** A record time halfway through what is ingested of migration `m`. */
  const middleTime = (m: number) => {
    const times = ingestedTransactions()
      .filter((u) => u.migration_id === m)
      .map((u) => u.record_time);
    return formatRecordTime(parseTimestamp(times[Math.floor(times.length / 2)]!));
  };

  it('serves reads from the replica, including one the primary cannot serve at that moment', async () => {
    const before = await count(metrics, replicaLabel(0));
    await compareEverythingWithAPosition();
    expect(await count(metrics, replicaLabel(0))).toBeGreaterThan(before + 20);
    // The replica's own sessions show where the reads went.
    const sessions = await cluster.replicas[0]!.query<{ n: string }>(
      `select count(*) as n from pg_stat_activity where application_name = 'scan-indexer-read' and datname = 'scan'`,
    );
    expect(Number(sessions[0]!.n)).toBeGreaterThan(0);

    // With replay paused, a lock on the primary's updates table blocks every read of it there (and the
    // lock is not replayed): the update is still served, by the replica.
    const id = firstUpdateId();
    const expected = await send(alone, { method: 'GET', path: `/api/scan/v2/updates/${id}` });
    await cluster.replicas[0]!.query('select pg_wal_replay_pause()');
    const locker = await pool.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table updates in access exclusive mode');
      const got = await send(routed, { method: 'GET', path: `/api/scan/v2/updates/${id}` });
      expect(answer(got)).toEqual(answer(expected));
      expect(
        (
          await pool.query<{ n: string }>(
            `select count(*) as n from pg_locks where relation = 'updates'::regclass and mode = 'AccessExclusiveLock'`,
          )
        ).rows[0]!.n,
      ).toBe(1);
    } finally {
      await locker.query('rollback');
      locker.release();
      await cluster.replicas[0]!.query('select pg_wal_replay_resume()');
    }
  });

  it('never answers wrong or short while replay is paused and ingestion goes on, and shows the lag', async () => {
    await cluster.replicas[0]!.query('select pg_wal_replay_pause()');
    try {
      const replicaBefore = await count(metrics, replicaLabel(0));
      const fallbacksBefore = await fallbacks(metrics);
      // The first migration's history grows, then its next snapshot comes, then the second migration
      // starts (import updates first) and gets snapshots of its own: each only on the primary.
      for (const share of [0.38, 0.45, 0.75, 1]) {
        await ingestUpTo(share);
        // The monitor sees the paused replica as it is now (its horizon still the old one).
        await replicas.monitor.check();
        await compareEverythingWithAPosition();
      }
      // The replica served what it had, and the rest came from the primary.
      expect(await count(metrics, replicaLabel(0))).toBeGreaterThan(replicaBefore + 20);
      const after = await fallbacks(metrics);
      expect((after.short_page ?? 0) - (fallbacksBefore.short_page ?? 0)).toBeGreaterThan(0);
      expect((after.not_found ?? 0) - (fallbacksBefore.not_found ?? 0)).toBeGreaterThan(0);

      // /status and /metrics: the lag, and the replica still in use within the bound of 10 minutes.
      const status = await request(routed.url, 'GET', '/status');
      const [replica] = (status.json as { read_replicas: Record<string, unknown>[] }).read_replicas;
      expect(replica).toMatchObject({ replica: 'replica-0', condition: 'in_use', in_use: true, replay_paused: true, last_error: null });
      expect(replica!.replay_lag_bytes).toBeGreaterThan(0);
      expect(replica!.replay_lag_seconds).toBeGreaterThanOrEqual(0);
      expect(replica!.host).toBe(`127.0.0.1:${cluster.replicas[0]!.port}/scan`);
      const text = (await request(routed.url, 'GET', '/metrics')).text;
      expect(text).toMatch(/^scan_indexer_db_replica_in_use\{replica="replica-0"\} 1$/m);
      expect(Number(/^scan_indexer_db_replica_replay_lag_bytes\{replica="replica-0"\} (\d+)$/m.exec(text)?.[1])).toBeGreaterThan(0);
      expect(text).toMatch(/^scan_indexer_db_replica_replay_lag_seconds\{replica="replica-0"\} [\d.e+-]+$/m);

      // Past a bound of 200 ms the same replica serves nothing, not even requests that name no position.
      await until(bounded, 'lagging');
      const strictStatus = await request(strict.url, 'GET', '/status');
      expect((strictStatus.json as { read_replicas: Record<string, unknown>[] }).read_replicas[0]).toMatchObject({
        condition: 'lagging',
        in_use: false,
      });
      expect((await request(strict.url, 'GET', '/metrics')).text).toMatch(/^scan_indexer_db_replica_in_use\{replica="replica-0"\} 0$/m);
      const [replicaQueries, primaryQueries] = [await count(strictMetrics, replicaLabel(0)), await count(strictMetrics, 'primary')];
      expect((await request(strict.url, 'GET', '/api/scan/v0/dso')).status).toBe(200);
      expect((await request(strict.url, 'GET', '/api/scan/v0/events/latest-record-time')).status).toBe(200);
      expect(await count(strictMetrics, replicaLabel(0))).toBe(replicaQueries);
      expect(await count(strictMetrics, 'primary')).toBeGreaterThan(primaryQueries);
    } finally {
      await cluster.replicas[0]!.query('select pg_wal_replay_resume()');
    }
    await cluster.waitForReplay();
    await until(replicas, 'in_use');
    await until(bounded, 'in_use');
    // Caught up, even the answers that name no position are the primary's.
    await same({ method: 'GET', path: '/api/scan/v0/events/latest-record-time' });
    await same({ method: 'POST', path: '/api/scan/v0/backfilling/migration-info', body: { migration_id: 1 } });
    await same({ method: 'GET', path: '/api/scan/v0/dso' });
  });

  it('answers a query its replica session loses midway on the primary, and takes that replica out of use at once', async () => {
    const id = firstUpdateId();
    const dso = ((await send(alone, { method: 'GET', path: '/api/scan/v0/dso-party-id' })).json as { dso_party_id: string }).dso_party_id;
    const probe: Probe = { method: 'POST', path: '/v2/updates/transaction-by-id', body: { updateId: id, requestingParties: [dso] } };
    const expected = answer(await send(alone, probe));
    expect(expected.status).toBe(200);
    // A lock the replica has replayed and, with replay paused, holds on: its reads of `updates` wait,
    // while the primary, where the lock is gone, answers.
    const locker = await pool.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table updates in access exclusive mode');
      await cluster.waitForReplay();
      await cluster.replicas[0]!.query('select pg_wal_replay_pause()');
      const held = await cluster.replicas[0]!.query<{ n: number }>(
        `select count(*)::int as n from pg_locks where relation = 'updates'::regclass and mode = 'AccessExclusiveLock' and granted`,
        'scan',
      );
      expect(held[0]!.n).toBe(1);
    } finally {
      await locker.query('rollback');
      locker.release();
    }
    // What the request's failure did to the replica's condition, read as it happened: the monitor's next
    // periodic check (every 100 ms here) may put the replica back in use before the answer is read.
    const conditions: string[] = [];
    const markUnavailable = replicas.monitor.markUnavailable.bind(replicas.monitor);
    const marked = jest.spyOn(replicas.monitor, 'markUnavailable').mockImplementation((index, err) => {
      markUnavailable(index, err);
      conditions.push(replicas.monitor.states[index]!.condition);
    });
    try {
      const pending = send(routed, probe);
      let waiting: { pid: number }[] = [];
      for (let i = 0; i < 1200 && waiting.length === 0; i++) {
        waiting = await cluster.replicas[0]!.query<{ pid: number }>(
          `select pid from pg_stat_activity where application_name = 'scan-indexer-read' and wait_event_type = 'Lock'`,
        );
        if (waiting.length === 0) await new Promise((r) => setTimeout(r, 25));
      }
      expect(waiting.length).toBe(1);
      // The session goes away under the query, as at a replica's shutdown.
      await cluster.replicas[0]!.query(`select pg_terminate_backend(${waiting[0]!.pid})`);
      expect(answer(await pending)).toEqual(expected);
      expect(marked.mock.calls.map(([index]) => index)).toEqual([0]);
      expect(conditions).toEqual(['unavailable']);
    } finally {
      marked.mockRestore();
      await cluster.replicas[0]!.query('select pg_wal_replay_resume()');
    }
    // It answers, so the next check puts it back.
    await until(replicas, 'in_use');
  });

  it('falls back to the primary without a 5xx when the replica goes away, and uses it again once it is back', async () => {
    const snap = await newest();
    const dso = ((await send(alone, { method: 'GET', path: '/api/scan/v0/dso-party-id' })).json as { dso_party_id: string }).dso_party_id;
    const probes: Probe[] = [
      { method: 'POST', path: '/api/scan/v2/updates', body: { page_size: 50 } },
      { method: 'GET', path: `/api/scan/v2/updates/${firstUpdateId()}` },
      { method: 'POST', path: '/api/scan/v0/state/acs', body: { migration_id: snap.migration, record_time: snap.time, page_size: 100 } },
      {
        method: 'POST',
        path: '/api/scan/v1/holdings/summary',
        body: { migration_id: snap.migration, record_time: snap.time, owner_party_ids: snap.owners },
      },
      { method: 'GET', path: '/api/scan/v0/dso' },
      { method: 'GET', path: '/api/indexer/v0/acs-snapshots?page_size=3' },
      // The ledger router answers its own errors: only the routing pool stands between it and a 5xx.
      { method: 'POST', path: '/v2/updates/transaction-by-id', body: { updateId: firstUpdateId(), requestingParties: [dso] } },
    ];
    const expected: { status: number; body: string }[] = [];
    for (const p of probes) expected.push(answer(await send(alone, p)));
    expect(expected.every((e) => e.status === 200)).toBe(true);

    const seen: { probe: string; status: number; body: string }[] = [];
    const expectedSeen: { probe: string; status: number; body: string }[] = [];
    let stop = false;
    // Four clients keep asking while the replica stops under them.
    const clients = [0, 1, 2, 3].map(async (c) => {
      for (let i = c; !stop; i++) {
        const k = i % probes.length;
        const got = await send(routed, probes[k]!);
        seen.push({ probe: describeProbe(probes[k]!), ...answer(got) });
        expectedSeen.push({ probe: describeProbe(probes[k]!), ...expected[k]! });
      }
    });
    await new Promise((r) => setTimeout(r, 300));
    await cluster.replicas[0]!.stop();
    for (let i = 0; i < 30; i++)
      await send(routed, probes[i % probes.length]!).then((got) => {
        seen.push({ probe: describeProbe(probes[i % probes.length]!), ...answer(got) });
        expectedSeen.push({ probe: describeProbe(probes[i % probes.length]!), ...expected[i % probes.length]! });
      });
    stop = true;
    await Promise.all(clients);
    expect(seen).toEqual(expectedSeen);
    expect(seen.length).toBeGreaterThan(30);

    await until(replicas, 'unavailable');
    const status = await request(routed.url, 'GET', '/status');
    expect((status.json as { read_replicas: Record<string, unknown>[] }).read_replicas[0]).toMatchObject({
      condition: 'unavailable',
      in_use: false,
    });
    expect((await request(routed.url, 'GET', '/metrics')).text).toMatch(/^scan_indexer_db_replica_in_use\{replica="replica-0"\} 0$/m);
    const whileAway = await count(metrics, replicaLabel(0));
    for (const [k, p] of probes.entries()) expect(answer(await send(routed, p))).toEqual(expected[k]);
    expect(await count(metrics, replicaLabel(0))).toBe(whileAway);

    await cluster.replicas[0]!.start();
    await until(replicas, 'in_use');
    for (const [k, p] of probes.entries()) expect(answer(await send(routed, p))).toEqual(expected[k]);
    expect(await count(metrics, replicaLabel(0))).toBeGreaterThan(whileAway);
  });

  it('is what `scan-indexer serve` does with DATABASE_READ_URLS, and it shuts down cleanly', async () => {
    const child = spawnCli(['serve'], {
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: cluster.primary.url('scan'),
        DATABASE_READ_URLS: cluster.replicas[0]!.url('scan'),
        DATABASE_READ_POLL_MS: '50',
        PORT: '0',
        LOG_LEVEL: 'warn',
        ...env,
      },
    });
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /scan-indexer is serving at (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
    });
    try {
      let replica: Record<string, unknown> | undefined;
      for (let i = 0; i < 600 && replica?.in_use !== true; i++) {
        replica = ((await request(url, 'GET', '/status')).json as { read_replicas: Record<string, unknown>[] }).read_replicas[0];
        if (replica?.in_use !== true) await new Promise((r) => setTimeout(r, 50));
      }
      expect(replica).toMatchObject({ replica: 'replica-0', condition: 'in_use' });
      const probe: Probe = { method: 'GET', path: `/api/scan/v2/updates/${firstUpdateId()}` };
      expect(answer(await request(url, probe.method, probe.path))).toEqual(answer(await send(alone, probe)));
      const text = (await request(url, 'GET', '/metrics')).text;
      expect(Number(/^scan_indexer_db_read_queries_total\{server="replica-0"\} (\d+)$/m.exec(text)?.[1])).toBeGreaterThan(0);
    } finally {
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });
});
