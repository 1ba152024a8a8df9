/**
 * This indexer's own read-only operations (/api/indexer) through the real HTTP
 * server. Expected bodies are computed from the items alone: snapshot times and
 * figures by the replay of test/support/replays/acs-replay.ts (cross-checked
 * with the Scan API's snapshot-timestamp and holdings summaries), hourly counts
 * by counting the items' record times per UTC hour here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import { migrationsDir } from '../../../src/internal/paths';
import type { CanonicalItem } from '../../../src/domain/items';
import { hourlyUpdateCounts } from '../../../src/store/indexer-repository';
import type { Database } from '../../../src/store/schema';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { created, reassignment, transaction } from '../../support/items/hand-items';
import { load } from '../../support/items/network-items';
import {
  acsAt,
  dateTimeText,
  decimalText,
  holdingOf,
  IMPORT_TIME,
  keyOf,
  micros,
  snapshotTimes,
  type Key,
} from '../../support/replays/acs-replay';
import { ingestThroughWorker, simulatedItems } from '../../support/items/simulated-network';

const HOUR_MS = 3_600_000;
const HOUR = BigInt(HOUR_MS) * 1000n;

const get = (api: TestApi, path: string) => request(api.url, 'GET', `/api/indexer${path}`);

interface SnapshotBody {
  migration_id: number;
  record_time: string;
  contract_count: number;
  unlocked_amulet: string;
  locked_amulet: string;
}
interface SnapshotsPage {
  snapshots: SnapshotBody[];
  next_page_token: string | null;
}

/** "2025-01-01T03:00:00Z" for an hour number since the epoch. */
const hourText = (hour: bigint) => new Date(Number(hour) * HOUR_MS).toISOString().replace('.000Z', 'Z');

/**
 * The expected updates-per-hour body, counted from the items: the newest migration with a
 * non-import update, the `hours` UTC hours ending with the hour of its newest one.
 */
function expectedPerHour(items: CanonicalItem[], hours: number) {
  const keys = items.map(keyOf).filter((k): k is Key => k !== undefined && k.time !== IMPORT_TIME);
  if (keys.length === 0) return { migration_id: null, buckets: [] };
  const migration = Math.max(...keys.map((k) => k.migration));
  const hoursOf = keys.filter((k) => k.migration === migration).map((k) => micros(k.time) / HOUR);
  const last = hoursOf.reduce((a, b) => (a > b ? a : b));
  const buckets = [];
  for (let h = last - BigInt(hours - 1); h <= last; h++)
    buckets.push({ hour: hourText(h), updates: hoursOf.filter((x) => x === h).length });
  return { migration_id: migration, buckets };
}

/** The expected snapshot list, newest first: times from the Scan schedule, figures from the replayed ACS. */
function expectedSnapshots(items: CanonicalItem[]): SnapshotBody[] {
  return snapshotTimes(items)
    .sort((a, b) => b.migration - a.migration || (a.time < b.time ? 1 : -1))
    .map((key) => {
      const acs = acsAt(items, key);
      let unlocked = 0n;
      let locked = 0n;
      for (const c of acs.values()) {
        const h = holdingOf(c);
        if (h?.locked) locked += h.initial;
        else if (h) unlocked += h.initial;
      }
      return {
        migration_id: key.migration,
        record_time: dateTimeText(key.time),
        contract_count: acs.size,
        unlocked_amulet: decimalText(unlocked),
        locked_amulet: decimalText(locked),
      };
    });
}

/** Every page of /v0/acs-snapshots at `pageSize`, following next_page_token. */
async function allPages(api: TestApi, pageSize: number): Promise<SnapshotsPage[]> {
  const pages: SnapshotsPage[] = [];
  let token: string | null = null;
  do {
    const res = await get(api, `/v0/acs-snapshots?page_size=${pageSize}${token ? `&page_token=${encodeURIComponent(token)}` : ''}`);
    expect(res.status).toBe(200);
    const page = res.json as SnapshotsPage;
    pages.push(page);
    token = page.next_page_token;
    expect(pages.length).toBeLessThan(100);
  } while (token !== null);
  return pages;
}

describe('/api/indexer on a simulated network', () => {
  const t = useTestDatabase();
  // About six simulated hours per migration: snapshots at 03:00 and 06:00 of each.
  const items = simulatedItems({ seed: 'indexer', updates: 1500, migrations: 2, meanUpdateGapMs: 30_000 });
  const snapshots = expectedSnapshots(items);
  let api: TestApi;

  beforeAll(async () => {
    await ingestThroughWorker(t, items);
    api = await startTestApi(t);
  });
  afterAll(async () => api?.close());

  it('has a dataset worth testing', () => {
    expect(snapshots.length).toBeGreaterThanOrEqual(4);
    expect(new Set(snapshots.map((s) => s.migration_id))).toEqual(new Set([0, 1]));
    expect(snapshots.some((s) => s.locked_amulet !== '0.0000000000')).toBe(true);
    // Migration 1 opens with import updates, which the counts leave out.
    expect(items.some((i) => keyOf(i)?.time === IMPORT_TIME)).toBe(true);
  });

  it('GET /v0/acs-snapshots lists every announced snapshot, newest first, with its figures', async () => {
    const res = await get(api, '/v0/acs-snapshots');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.json).toEqual({ snapshots, next_page_token: null });
  });

  it('reports snapshot times as the Scan API does, and the amulet sums its holdings summaries give', async () => {
    for (const s of snapshots) {
      const stamp = await request(
        api.url,
        'GET',
        `/api/scan/v0/state/acs/snapshot-timestamp?before=${encodeURIComponent(s.record_time)}&migration_id=${s.migration_id}`,
      );
      expect(stamp.json).toEqual({ record_time: s.record_time });
      const key = snapshotTimes(items).find((k) => k.migration === s.migration_id && dateTimeText(k.time) === s.record_time)!;
      const owners = [...new Set([...acsAt(items, key).values()].map((c) => holdingOf(c)?.owner).filter((o) => o !== undefined))];
      const summary = await request(api.url, 'POST', '/api/scan/v1/holdings/summary', {
        migration_id: s.migration_id,
        record_time: s.record_time,
        owner_party_ids: owners,
      });
      expect(summary.status).toBe(200);
      const totals = (summary.json as { summaries: { total_unlocked_coin: string; total_locked_coin: string }[] }).summaries;
      const sum = (f: (x: (typeof totals)[number]) => string) => decimalText(totals.reduce((a, x) => a + toUnits(f(x)), 0n));
      expect({ unlocked: sum((x) => x.total_unlocked_coin), locked: sum((x) => x.total_locked_coin) }).toEqual({
        unlocked: s.unlocked_amulet,
        locked: s.locked_amulet,
      });
    }
    // And the stored rows hold the same counts.
    const rows = await t.pool.query<{ n: string }>(
      'select contract_count::text as n from acs_snapshots order by migration_id desc, record_time desc',
    );
    expect(rows.rows.map((r) => Number(r.n))).toEqual(snapshots.map((s) => s.contract_count));
  });

  it('pages with a small page_size through the whole list in order, without repeats', async () => {
    for (const size of [1, 2, 3]) {
      const pages = await allPages(api, size);
      const expected: SnapshotsPage[] = [];
      for (let i = 0; i < snapshots.length; i += size) expected.push({ snapshots: snapshots.slice(i, i + size), next_page_token: null });
      // A full last page still carries a token; the page after it is empty.
      if (snapshots.length % size === 0) expected.push({ snapshots: [], next_page_token: null });
      expect(pages.map((p) => p.snapshots)).toEqual(expected.map((p) => p.snapshots));
      expect(pages.map((p) => p.next_page_token !== null)).toEqual(expected.map((_, i) => i < expected.length - 1));
      expect(pages.flatMap((p) => p.snapshots)).toEqual(snapshots);
    }
  });

  it('refuses a token replayed with another page_size, an edited or foreign token, and page sizes out of range', async () => {
    const first = (await get(api, '/v0/acs-snapshots?page_size=2')).json as SnapshotsPage;
    const token = first.next_page_token!;
    expect(token).toEqual(expect.any(String));
    const otherRequest = {
      error:
        "Invalid page token in 'page_token': it was issued for a different request. Repeat the request that returned it, changing only 'page_token'.",
    };
    const altered = {
      error: "Invalid page token in 'page_token': it was altered or was not issued by this service. Pass next_page_token back unchanged.",
    };
    const replayed = await get(api, `/v0/acs-snapshots?page_size=3&page_token=${encodeURIComponent(token)}`);
    expect({ status: replayed.status, body: replayed.json }).toEqual({ status: 400, body: otherRequest });
    // Without page_size the default (100) is another request too.
    const defaulted = await get(api, `/v0/acs-snapshots?page_token=${encodeURIComponent(token)}`);
    expect({ status: defaulted.status, body: defaulted.json }).toEqual({ status: 400, body: otherRequest });
    const edited = `${token.slice(0, 5)}${token[5] === 'A' ? 'B' : 'A'}${token.slice(6)}`;
    const editedRes = await get(api, `/v0/acs-snapshots?page_size=2&page_token=${encodeURIComponent(edited)}`);
    expect({ status: editedRes.status, body: editedRes.json }).toEqual({ status: 400, body: altered });
    // A token of the Scan API's ACS pages, signed with the same key, belongs to another operation.
    const acs = await request(api.url, 'POST', '/api/scan/v0/state/acs', {
      migration_id: snapshots[0]!.migration_id,
      record_time: snapshots[0]!.record_time,
      page_size: 1,
    });
    const foreign = (acs.json as { next_page_token: string }).next_page_token;
    const foreignRes = await get(api, `/v0/acs-snapshots?page_size=1&page_token=${encodeURIComponent(foreign)}`);
    expect({ status: foreignRes.status, body: foreignRes.json }).toEqual({ status: 400, body: otherRequest });

    const pageSizeError = { error: "Invalid query field 'page_size': expected an integer from 1 to 1000." };
    for (const q of [
      'page_size=0',
      'page_size=1001',
      'page_size=-1',
      'page_size=abc',
      'page_size=',
      'page_size=1.5',
      'page_size=1&page_size=2',
    ]) {
      const res = await get(api, `/v0/acs-snapshots?${q}`);
      expect({ q, status: res.status, body: res.json }).toEqual({ q, status: 400, body: pageSizeError });
    }
    const limits = await get(api, '/v0/acs-snapshots?page_size=1000');
    expect(limits.status).toBe(200);
  });

  it('GET /v0/updates-per-hour counts the updates of the newest migration per hour of record time', async () => {
    const res = await get(api, '/v0/updates-per-hour');
    expect(res.status).toBe(200);
    const expected = expectedPerHour(items, 24);
    expect(res.json).toEqual(expected);
    // The dataset: migration 1, a few busy hours, and zero hours before its first update.
    expect(expected.migration_id).toBe(1);
    expect(expected.buckets.filter((b) => b.updates > 0).length).toBeGreaterThanOrEqual(4);
    expect(expected.buckets[0]!.updates).toBe(0);
    for (const hours of [1, 3, 168]) {
      const r = await get(api, `/v0/updates-per-hour?hours=${hours}`);
      expect({ hours, status: r.status, body: r.json }).toEqual({ hours, status: 200, body: expectedPerHour(items, hours) });
    }
    const hoursError = { error: "Invalid query field 'hours': expected an integer from 1 to 168." };
    for (const q of ['hours=0', 'hours=169', 'hours=-3', 'hours=x', 'hours=99999999999999999999', 'hours=1&hours=2']) {
      const r = await get(api, `/v0/updates-per-hour?${q}`);
      expect({ q, status: r.status, body: r.json }).toEqual({ q, status: 400, body: hoursError });
    }
  });

  it('its migration counts history ingested before it exactly as the writer does', async () => {
    const dump = async () =>
      (
        await t.pool.query<{ migration_id: number; hour: string; update_count: number }>(
          'select migration_id, hour::text, update_count from update_counts_by_hour order by migration_id, hour',
        )
      ).rows;
    const byWriter = await dump();
    expect(byWriter.length).toBeGreaterThan(10);
    // As a database that ingested its history with an earlier version meets the migration.
    await t.pool.query('drop table update_counts_by_hour');
    await t.pool.query(fs.readFileSync(path.join(migrationsDir, '20261125_001_update_counts_by_hour.sql'), 'utf8'));
    expect(await dump()).toEqual(byWriter);
  });

  it('reads the counts the writer keeps: a primary-key range of the window only', async () => {
    // A year of hours of an older migration, so that the table is the size of a real one and the planner
    // has a choice (on a few rows it would rightly read them all).
    const padding = `migration_id = 0 and hour < '2001-01-01'`;
    await t.pool.query(
      `insert into update_counts_by_hour select 0, h, 1 from generate_series('2000-01-01'::timestamptz, '2000-12-31', '1 hour') h`,
    );
    await t.pool.query('vacuum analyze update_counts_by_hour');
    const captured: CompiledQuery[] = [];
    // A second Kysely on the test's pool, logging its queries (not destroyed: the pool is the test database's).
    const db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: t.pool }),
      log: (e) => void (e.level === 'query' && captured.push(e.query)),
    });
    const hours = 2;
    const expected = expectedPerHour(items, hours).buckets.filter((b) => b.updates > 0).length;
    await hourlyUpdateCounts(db, hours);
    const q = captured[captured.length - 1]!;
    const res = await t.pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      `explain (analyze, format json) ${q.sql}`,
      q.parameters as unknown[],
    );
    const nodes: PlanNode[] = [];
    const walk = (n: PlanNode) => {
      nodes.push(n);
      for (const c of n.Plans ?? []) walk(c);
    };
    walk(res.rows[0]!['QUERY PLAN'][0].Plan);
    expect(nodes.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
    const scans = nodes.filter((n) => n['Index Name'] === 'update_counts_by_hour_pkey');
    // The newest migration, its newest hour (one entry each), then the window's hours that have updates.
    expect(scans.map((n) => n['Actual Rows'])).toEqual([1, 1, expected]);
    expect(scans[2]!['Index Cond']).toMatch(/migration_id = .*hour > .*hour <= /);
    await t.pool.query(`delete from update_counts_by_hour where ${padding}`);
  });
});

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Scan Direction'?: string;
  'Actual Rows': number;
  Plans?: PlanNode[];
}

const toUnits = (text: string) => {
  const [whole, fraction = ''] = text.split('.');
  return BigInt(whole!) * 10_000_000_000n + BigInt(fraction.padEnd(10, '0'));
};

describe('/api/indexer on a hand-built history', () => {
  const t = useTestDatabase();
  let api: TestApi;
  // Migration 0: two updates in hour 10, one at exactly 11:00, none in hour 12, a reassignment in hour 13.
  const migration0 = [
    transaction('u1', '2025-03-10T10:15:00.000000Z', [created('u1', 0, 'c1')]),
    transaction('u2', '2025-03-10T10:59:59.999999Z', [created('u2', 0, 'c2')]),
    transaction('u3', '2025-03-10T11:00:00.000000Z', [created('u3', 0, 'c3')]),
    reassignment('r1', '2025-03-10T13:05:00.000000Z', 'assign', 'c4', 1),
  ];
  // Migration 1 opens with an import update: it has no update of its own yet.
  const imported = transaction('i1', IMPORT_TIME, [created('i1', 0, 'c1')], 1);
  const migration1 = transaction('u5', '2025-03-10T14:30:00.000000Z', [created('u5', 0, 'c5')], 1);

  beforeAll(async () => {
    api = await startTestApi(t);
  });
  afterAll(async () => api?.close());

  it('answers an empty database with no snapshots and no migration', async () => {
    const snaps = await get(api, '/v0/acs-snapshots');
    expect({ status: snaps.status, body: snaps.json }).toEqual({ status: 200, body: { snapshots: [], next_page_token: null } });
    const hours = await get(api, '/v0/updates-per-hour');
    expect({ status: hours.status, body: hours.json }).toEqual({ status: 200, body: { migration_id: null, buckets: [] } });
    const bad = await get(api, '/v0/updates-per-hour?hours=0');
    expect(bad.status).toBe(400);
  });

  it('counts zero hours, the reassignment and the update at the hour boundary, and skips a migration of import updates only', async () => {
    await load(t.db, [...migration0, imported]);
    const res = await get(api, '/v0/updates-per-hour?hours=5');
    expect({ status: res.status, body: res.json }).toEqual({
      status: 200,
      body: {
        migration_id: 0,
        buckets: [
          { hour: '2025-03-10T09:00:00Z', updates: 0 },
          { hour: '2025-03-10T10:00:00Z', updates: 2 },
          { hour: '2025-03-10T11:00:00Z', updates: 1 },
          { hour: '2025-03-10T12:00:00Z', updates: 0 },
          { hour: '2025-03-10T13:00:00Z', updates: 1 },
        ],
      },
    });
    expect(res.json).toEqual(expectedPerHour([...migration0, imported], 5));
  });

  it('moves to the newer migration once it has an update, without its import update', async () => {
    await load(t.db, [migration1], 'test-2');
    const res = await get(api, '/v0/updates-per-hour?hours=2');
    expect({ status: res.status, body: res.json }).toEqual({
      status: 200,
      body: {
        migration_id: 1,
        buckets: [
          { hour: '2025-03-10T13:00:00Z', updates: 0 },
          { hour: '2025-03-10T14:00:00Z', updates: 1 },
        ],
      },
    });
  });
});
