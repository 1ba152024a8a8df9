/**
 * S1 /v0/holdings/summary, S2 /v1/holdings/summary and S3 /v2/holdings/state
 * (also at /v0/holdings/state) through the real HTTP server. Expected bodies
 * come from test/support/acs-replay.ts, a replay of the item stream that
 * shares no code with the service.
 */
import crypto from 'node:crypto';
import { pageTokensWithKey } from '../../../src/api/page-token';
import type { CanonicalItem, TreeEvent } from '../../../src/domain/items';
import { ingestItems } from '../../support/ingest';
import { catchUpSnapshots } from '../../../src/jobs/acs-snapshots';
import { catchUpHoldingTotals } from '../../../src/jobs/holding-totals';
import { HOLDING_TOTALS_REFRESH_OWNERS_DEFAULT } from '../../../src/internal/config';
import {
  acsAt,
  activeContractBody,
  earliestOpenRound,
  holdingOf,
  ownedHoldings,
  snapshotTimes,
  summaries,
  v0Summary,
  v1Summary,
  type Key,
} from '../../support/replays/acs-replay';
import { useTestDatabase } from '../../support/database/database';
import { archived, DSO, transaction } from '../../support/items/hand-items';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { ingestThroughWorker, simulatedItems } from '../../support/items/simulated-network';

const post = (api: TestApi, path: string, body: unknown) => request(api.url, 'POST', `/api/scan${path}`, body);
const dateTime = (recordTime: string) => recordTime.replace(/\.000000Z$/, 'Z');

describe('holdings on a simulated network', () => {
  const t = useTestDatabase();
  const items = simulatedItems({ seed: 21, updates: 1500, migrations: 2, meanUpdateGapMs: 30_000 });
  const snapshots = snapshotTimes(items);
  let api: TestApi;

  // Owners: the busiest holders over all snapshots, plus every lock holder and locked-amulet owner of the stream.
  const counts = new Map<string, number>();
  for (const snap of snapshots) {
    for (const c of acsAt(items, snap).values()) {
      const h = holdingOf(c);
      if (h) counts.set(h.owner, (counts.get(h.owner) ?? 0) + 1);
    }
  }
  const lockHolders = new Set<string>();
  const lockedOwners = new Set<string>();
  for (const item of items) {
    const u = item.update;
    if (!u || !('events_by_id' in u)) continue;
    for (const e of Object.values(u.events_by_id)) {
      if (e.event_type !== 'created_event' || !e.template_id.endsWith(':Splice.Amulet:LockedAmulet')) continue;
      const args = e.create_arguments as { amulet: { owner: string }; lock: { holders: string[] } };
      lockedOwners.add(args.amulet.owner);
      for (const p of args.lock.holders) lockHolders.add(p);
    }
  }
  const busiest = [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 8)
    .map(([p]) => p);
  const owners = [...new Set([...busiest, ...lockHolders, ...lockedOwners])];

  beforeAll(async () => {
    await ingestThroughWorker(t, items);
    api = await startTestApi(t);
  });
  afterAll(async () => api?.close());

  it('has a dataset worth testing', () => {
    expect(snapshots.length).toBeGreaterThanOrEqual(3);
    expect(new Set(snapshots.map((s) => s.migration))).toEqual(new Set([0, 1]));
    expect(lockHolders.size).toBeGreaterThan(0);
    // Migration 1 starts from import updates: some holdings there have no creating update.
    const imported = ownedHoldings(
      acsAt(
        items,
        snapshots.find((s) => s.migration === 1)!,
      ),
      [...counts.keys()],
    ).filter((c) => c.createdInUpdateId === null);
    expect(imported.length).toBeGreaterThan(0);
  });

  it('S1 and S2 answer every snapshot exactly, with fees as of a given round', async () => {
    for (const [i, snap] of snapshots.entries()) {
      const acs = acsAt(items, snap);
      const round = BigInt(3 + i * 7);
      const request = { migration_id: snap.migration, record_time: snap.time, owner_party_ids: owners };
      const v0 = await post(api, '/v0/holdings/summary', { ...request, as_of_round: Number(round) });
      expect(v0.status).toBe(200);
      const expected = summaries(acs, owners, round);
      expect(expected.length).toBeGreaterThan(0);
      expect(v0.json).toEqual({
        record_time: dateTime(snap.time),
        migration_id: snap.migration,
        computed_as_of_round: Number(round),
        summaries: expected.map(v0Summary),
      });
      // Key order as the Scan app writes it.
      expect(v0.text.startsWith('{"record_time":')).toBe(true);
      expect(Object.keys((v0.json as { summaries: object[] }).summaries[0]!)).toEqual(Object.keys(v0Summary(expected[0]!)));

      const v1 = await post(api, '/v1/holdings/summary', { ...request, record_time_match: 'exact' });
      expect(v1.status).toBe(200);
      expect(v1.json).toEqual({ record_time: dateTime(snap.time), migration_id: snap.migration, summaries: expected.map(v1Summary) });
    }
  });

  it('S1 defaults to the earliest open mining round of the current ACS', async () => {
    const round = earliestOpenRound(items)!;
    const snap = snapshots[1]!;
    const res = await post(api, '/v0/holdings/summary', { migration_id: snap.migration, record_time: snap.time, owner_party_ids: owners });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      record_time: dateTime(snap.time),
      migration_id: snap.migration,
      computed_as_of_round: Number(round),
      summaries: summaries(acsAt(items, snap), owners, round).map(v0Summary),
    });
  });

  it('at_or_before resolves the newest snapshot at or before the time and echoes the requested time', async () => {
    const snap = snapshots[snapshots.length - 1]!;
    const later = snap.time
      .replace(/T(\d\d)/, (_m, h: string) => `T${String(Number(h) + 2).padStart(2, '0')}`)
      .replace('.000000Z', '.123456+00:00');
    const res = await post(api, '/v1/holdings/summary', {
      migration_id: snap.migration,
      record_time: later,
      record_time_match: 'at_or_before',
      owner_party_ids: owners,
    });
    expect(res.status).toBe(200);
    // record_time echoes the request (scan.yaml), while the figures are those of the resolved snapshot.
    const echoed = dateTime(later.replace('+00:00', 'Z'));
    expect(echoed).not.toBe(dateTime(snap.time));
    expect(res.json).toEqual({
      record_time: echoed,
      migration_id: snap.migration,
      summaries: summaries(acsAt(items, snap), owners, 0n).map(v1Summary),
    });
  });

  it('summarises every holder of the network in one request', async () => {
    const snap = snapshots[snapshots.length - 1]!;
    const everyone = [...counts.keys()];
    const res = await post(api, '/v1/holdings/summary', {
      migration_id: snap.migration,
      record_time: snap.time,
      owner_party_ids: everyone,
    });
    expect(res.status).toBe(200);
    expect((res.json as { summaries: unknown[] }).summaries).toEqual(summaries(acsAt(items, snap), everyone, 0n).map(v1Summary));
  });

  async function pageThrough(path: string, snap: Key, pageSize: number, who: string[]) {
    const pages: { created_events: { contract_id: string }[]; next_page_token: string | number | null }[] = [];
    let after: string | number | undefined;
    for (let i = 0; i < 1000; i++) {
      const res = await post(api, path, {
        migration_id: snap.migration,
        record_time: snap.time,
        page_size: pageSize,
        owner_party_ids: who,
        ...(after !== undefined ? { after } : {}),
      });
      expect(res.status).toBe(200);
      const body = res.json as (typeof pages)[number];
      pages.push(body);
      if (body.next_page_token === null) break;
      after = body.next_page_token;
    }
    return pages;
  }

  it('S3 pages every owned holding exactly once, in creation order, with whole bodies', async () => {
    for (const snap of [snapshots[0]!, snapshots[snapshots.length - 1]!]) {
      const expected = ownedHoldings(acsAt(items, snap), owners).map(activeContractBody);
      const pageSize = 3;
      expect(expected.length).toBeGreaterThan(2 * pageSize);
      const pages = await pageThrough('/v2/holdings/state', snap, pageSize, owners);
      // A token iff the page is full: the last page is short, or empty after a full one.
      expect(pages.length).toBe(Math.floor(expected.length / pageSize) + 1);
      pages.forEach((page, i) => {
        const slice = expected.slice(i * pageSize, (i + 1) * pageSize);
        expect(page).toEqual({
          record_time: dateTime(snap.time),
          migration_id: snap.migration,
          created_events: slice,
          next_page_token: slice.length === pageSize ? expect.any(String) : null,
        });
      });
      const ids = pages.flatMap((p) => p.created_events.map((c) => c.contract_id));
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  it('serves the older /v0/holdings/state path with the same pages', async () => {
    const snap = snapshots[0]!;
    const v2 = await pageThrough('/v2/holdings/state', snap, 50, busiest);
    const v0 = await pageThrough('/v0/holdings/state', snap, 50, busiest);
    expect(v0).toEqual(v2);
  });

  it('serves the older /v1/holdings/state with the same contracts and int64 page tokens', async () => {
    const snap = snapshots[snapshots.length - 1]!;
    const v2 = await pageThrough('/v2/holdings/state', snap, 4, owners);
    const v1 = await pageThrough('/v1/holdings/state', snap, 4, owners);
    expect(v1.length).toBe(v2.length);
    expect(v1.map((p) => p.created_events)).toEqual(v2.map((p) => p.created_events));
    const tokens = v1.map((p) => p.next_page_token);
    expect(tokens.slice(0, -1).every((t) => typeof t === 'number' && Number.isSafeInteger(t))).toBe(true);
    expect(tokens[tokens.length - 1]).toBeNull();
  });

  describe('errors', () => {
    const snap = () => snapshots[0]!;
    const state = () => ({ migration_id: snap().migration, record_time: snap().time, page_size: 5, owner_party_ids: owners });
    const expectError = async (path: string, body: unknown, status: number, error: string) => {
      const res = await post(api, path, body);
      expect({ status: res.status, body: res.json }).toEqual({ status, body: { error } });
    };

    it('400 for missing and malformed fields', async () => {
      const { migration_id: _m, ...noMigration } = state();
      await expectError('/v2/holdings/state', noMigration, 400, "Missing required body field 'migration_id'.");
      const { page_size: _p, ...noPageSize } = state();
      await expectError('/v2/holdings/state', noPageSize, 400, "Missing required body field 'page_size'.");
      const { owner_party_ids: _o, ...noOwners } = state();
      await expectError('/v1/holdings/summary', noOwners, 400, "Missing required body field 'owner_party_ids'.");
      for (const path of ['/v0/holdings/summary', '/v1/holdings/summary', '/v2/holdings/state']) {
        await expectError(
          path,
          { ...state(), record_time: 'yesterday' },
          400,
          "Invalid body field 'record_time': expected an ISO 8601 date-time such as 2025-03-10T14:22:05.123456Z.",
        );
        await expectError(
          path,
          { ...state(), record_time: '0000-12-31T23:00:00Z' },
          400,
          "Invalid body field 'record_time': expected an ISO 8601 date-time such as 2025-03-10T14:22:05.123456Z.",
        );
        await expectError(
          path,
          { ...state(), record_time: 1735700400 },
          400,
          "Invalid body field 'record_time': expected a date-time string.",
        );
        await expectError(
          path,
          { ...state(), record_time_match: 'nearest' },
          400,
          "Invalid body field 'record_time_match': expected one of exact, at_or_before.",
        );
        await expectError(
          path,
          { ...state(), owner_party_ids: [] },
          400,
          "Expected 'owner_party_ids' to contain at least one item, but contained none.",
        );
        await expectError(
          path,
          { ...state(), owner_party_ids: 'alice::1220' },
          400,
          "Invalid body field 'owner_party_ids': expected an array of strings.",
        );
        await expectError(
          path,
          { ...state(), owner_party_ids: ['alice'] },
          400,
          `Invalid party id "alice" in 'owner_party_ids': expected <name>::<fingerprint>.`,
        );
        const many = Array.from({ length: 1001 }, (_, i) => `p${i}::1220`);
        await expectError(
          path,
          { ...state(), owner_party_ids: many },
          400,
          "Expected 'owner_party_ids' to contain at most 1000 items, but contained 1001.",
        );
        await expectError(path, { ...state(), migration_id: '0' }, 400, "Invalid body field 'migration_id': expected an integer.");
        await expectError(path, [state()], 400, 'Invalid body: Invalid input: expected object, received array.');
      }
      await expectError(
        '/v0/holdings/summary',
        { ...state(), as_of_round: 1.5 },
        400,
        "Invalid body field 'as_of_round': expected an integer.",
      );
      const res = await request(api.url, 'POST', '/api/scan/v2/holdings/state', '{"migration_id": 0,', {
        'content-type': 'application/json',
      });
      expect(res.status).toBe(400);
      expect((res.json as { error: string }).error).toMatch(/^Malformed JSON body/);
    });

    it('400 for a bad page_size', async () => {
      await expectError('/v2/holdings/state', { ...state(), page_size: 0 }, 400, 'Limit must be at least 1.');
      await expectError('/v2/holdings/state', { ...state(), page_size: -3 }, 400, 'Limit must be at least 1.');
      await expectError('/v2/holdings/state', { ...state(), page_size: 1001 }, 400, 'Exceeded limit maximum (1001 > 1000).');
      await expectError('/v2/holdings/state', { ...state(), page_size: 2.5 }, 400, "Invalid body field 'page_size': expected an integer.");
      await expectError('/v2/holdings/state', { ...state(), page_size: '5' }, 400, "Invalid body field 'page_size': expected an integer.");
    });

    it('400 for an edited, foreign or misapplied page token', async () => {
      const first = await post(api, '/v2/holdings/state', { ...state(), page_size: 1 });
      const token = (first.json as { next_page_token: string }).next_page_token;
      expect(typeof token).toBe('string');
      const [payload, mac] = token.split('.') as [string, string];
      const altered =
        "Invalid page token in 'after': it was altered or was not issued by this service. Pass next_page_token back unchanged.";
      // Edited position (skip ahead), edited MAC, garbage, a token of another deployment.
      const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { p: { i: string } };
      decoded.p.i = 'ffff';
      await expectError(
        '/v2/holdings/state',
        { ...state(), after: `${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${mac}` },
        400,
        altered,
      );
      await expectError('/v2/holdings/state', { ...state(), after: `${payload}.${mac.slice(1)}A` }, 400, altered);
      await expectError('/v2/holdings/state', { ...state(), after: '12345' }, 400, altered);
      const foreign = await pageTokensWithKey(crypto.randomBytes(32)).encode(
        { operation: 'holdings-state', request: { m: snap().migration, t: '0', x: 'exact', o: owners } },
        { s: '0', c: '0', i: '' },
      );
      await expectError('/v2/holdings/state', { ...state(), after: foreign }, 400, altered);
      // A genuine token with another owner list.
      await expectError(
        '/v2/holdings/state',
        { ...state(), owner_party_ids: busiest.slice(0, 1), after: token },
        400,
        "Invalid page token in 'after': it was issued for a different request. Repeat the request that returned it, changing only 'after'.",
      );
      await expectError('/v2/holdings/state', { ...state(), after: 42 }, 400, "Invalid body field 'after': expected a string.");
      // The genuine token still works.
      expect((await post(api, '/v2/holdings/state', { ...state(), after: token })).status).toBe(200);
    });

    it('404 for a time that is not a snapshot, and for no snapshot at or before it', async () => {
      const s = snap();
      const off = s.time.replace('.000000Z', '.000001Z');
      for (const path of ['/v0/holdings/summary', '/v1/holdings/summary', '/v2/holdings/state']) {
        await expectError(
          path,
          { ...state(), record_time: off },
          404,
          `Failed to find ACS snapshot for migration id ${s.migration} at ${off}`,
        );
        await expectError(
          path,
          { ...state(), migration_id: 7 },
          404,
          `Failed to find ACS snapshot for migration id 7 at ${dateTime(s.time)}`,
        );
        await expectError(
          path,
          { ...state(), record_time: '2025-01-01T02:59:59.999999Z', record_time_match: 'at_or_before', migration_id: 0 },
          404,
          'No snapshots found before 2025-01-01T02:59:59.999999Z',
        );
        await expectError(
          path,
          { ...state(), record_time: '2024-12-31T00:00:00Z', record_time_match: 'at_or_before' },
          404,
          'No snapshots found before 2024-12-31T00:00Z',
        );
      }
    });
  });
});

// ---- hand-built network: the lock-holder rule, fees, no contract limit, the default round ----

const PKG = 'b'.repeat(64);
const ALICE = 'alice::1220a1';
const BOB = 'bob::1220b0';
const VENUE = 'venue::1220c3';
const CAROL = 'carol::1220ca';
const RATE = '0.0038051800';

function amulet(
  updateId: string,
  n: number,
  contractId: string,
  owner: string,
  amount: string,
  round: number,
  rate = RATE,
  createdAt = '2025-01-01T01:00:00Z',
): TreeEvent {
  return {
    event_type: 'created_event',
    event_id: `${updateId}:${n}`,
    contract_id: contractId,
    template_id: `${PKG}:Splice.Amulet:Amulet`,
    package_name: 'splice-amulet',
    create_arguments: { dso: DSO, owner, amount: { initialAmount: amount, createdAt: { number: String(round) }, ratePerRound: { rate } } },
    created_at: createdAt,
    signatories: [owner, DSO],
    observers: [],
  };
}

function lockedAmulet(
  updateId: string,
  n: number,
  contractId: string,
  owner: string,
  holder: string,
  amount: string,
  round: number,
  createdAt = '2025-01-01T01:00:00Z',
): TreeEvent {
  return {
    event_type: 'created_event',
    event_id: `${updateId}:${n}`,
    contract_id: contractId,
    template_id: `${PKG}:Splice.Amulet:LockedAmulet`,
    package_name: 'splice-amulet',
    create_arguments: {
      amulet: { dso: DSO, owner, amount: { initialAmount: amount, createdAt: { number: String(round) }, ratePerRound: { rate: RATE } } },
      lock: { holders: [holder], expiresAt: '2025-02-01T00:00:00Z', optContext: null },
    },
    created_at: createdAt,
    signatories: [holder, owner, DSO],
    observers: [],
  };
}

function openRound(updateId: string, n: number, contractId: string, round: number): TreeEvent {
  return {
    event_type: 'created_event',
    event_id: `${updateId}:${n}`,
    contract_id: contractId,
    template_id: `${PKG}:Splice.Round:OpenMiningRound`,
    package_name: 'splice-amulet',
    create_arguments: { dso: DSO, round: { number: String(round) } },
    created_at: '2025-01-01T01:00:00Z',
    signatories: [DSO],
    observers: [],
  };
}

const archive = (updateId: string, n: number, contractId: string, entity: string) =>
  archived(updateId, n, contractId, `${PKG}:${entity}`, 'splice-amulet');

describe('holdings on a hand-built network', () => {
  const t = useTestDatabase();
  let api: TestApi;
  let position = 1;
  const apply = async (...batch: CanonicalItem[]) => {
    await ingestItems(
      t.db,
      'hand',
      batch.map((item) => ({ item, position: String(position), origin: `hand:${position++}` })),
    );
    await catchUpSnapshots(t.db);
    await catchUpHoldingTotals(t.db, HOLDING_TOTALS_REFRESH_OWNERS_DEFAULT);
  };
  const carolAmulets = Array.from({ length: 1100 }, (_, i) =>
    amulet(
      'u0',
      i,
      `00ca${String(i).padStart(5, '0')}`,
      CAROL,
      `1.${String(i).padStart(10, '0')}`,
      10,
      '0.0000000001',
      '2025-01-01T00:30:00Z',
    ),
  );
  const SNAPSHOT = '2025-01-01T03:00:00Z';

  beforeAll(async () => {
    await apply(
      // More than 1000 holdings of one owner, which the Scan app refuses to summarise.
      transaction('u0', '2025-01-01T00:30:00.000000Z', carolAmulets),
      transaction('u1', '2025-01-01T01:00:00.000000Z', [
        openRound('u1', 0, '00r11', 11),
        openRound('u1', 1, '00r10', 10),
        amulet('u1', 2, '00a1', ALICE, '100.0000000000', 5),
        // Held so long that the fee would exceed the amount: capped at the amount.
        amulet('u1', 3, '00a2', ALICE, '0.5000000000', 0, '0.0100000000', '2025-01-01T01:00:00.5Z'),
        // Bob's amulet locked to the venue: the venue is a stakeholder but does not own it.
        lockedAmulet('u1', 4, '00l1', BOB, VENUE, '300.0000000000', 12, '2025-01-01T00:59:00Z'),
        lockedAmulet('u1', 5, '00l2', ALICE, BOB, '50.0000000000', 10),
      ]),
      transaction('u2', '2025-01-01T02:00:00.000000Z', [
        archive('u2', 0, '00a1', 'Splice.Amulet:Amulet'),
        amulet('u2', 1, '00a3', ALICE, '99.9000000000', 10, RATE, '2025-01-01T02:00:00Z'),
      ]),
      transaction('u3', '2025-01-01T03:30:00.000000Z', [amulet('u3', 0, '00b1', BOB, '7.0000000000', 11, RATE, '2025-01-01T03:30:00Z')]),
    );
    api = await startTestApi(t);
  });
  afterAll(async () => api?.close());

  const summaryOf = (round?: number) =>
    post(api, '/v0/holdings/summary', {
      migration_id: 0,
      record_time: SNAPSHOT,
      owner_party_ids: [VENUE, ALICE, BOB],
      ...(round === undefined ? {} : { as_of_round: round }),
    });

  it('S1 counts owned holdings only, with fees as of the earliest open round by default', async () => {
    const res = await summaryOf();
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      record_time: SNAPSHOT,
      migration_id: 0,
      computed_as_of_round: 10,
      summaries: [
        // Bob's first holding (00:59) precedes Alice's (01:00). The venue, only a lock holder, is absent.
        {
          party_id: BOB,
          total_unlocked_coin: '0.0000000000',
          total_locked_coin: '300.0000000000',
          total_coin_holdings: '300.0000000000',
          accumulated_holding_fees_unlocked: '0.0000000000',
          // Created in round 12, summarised as of 10: a negative fee, not clamped.
          accumulated_holding_fees_locked: '-0.0076103600',
          accumulated_holding_fees_total: '-0.0076103600',
          total_available_coin: '0.0000000000',
        },
        {
          party_id: ALICE,
          total_unlocked_coin: '100.4000000000',
          total_locked_coin: '50.0000000000',
          total_coin_holdings: '150.4000000000',
          // 00a2: 10 rounds × 0.01 = 0.1; 00a3: created in round 10, no fee; 00a1 was archived before the snapshot.
          accumulated_holding_fees_unlocked: '0.1000000000',
          accumulated_holding_fees_locked: '0.0000000000',
          accumulated_holding_fees_total: '0.1000000000',
          total_available_coin: '100.3000000000',
        },
      ],
    });
  });

  it('S1 caps each fee at the amulet amount', async () => {
    const res = await summaryOf(100);
    expect(res.status).toBe(200);
    const [bob, alice] = (res.json as { summaries: Record<string, string>[] }).summaries;
    // 00a2: 100 rounds × 0.01 = 1.0 > 0.5, capped at 0.5; 00a3: 90 × 0.00380518 = 0.3424662.
    expect(alice).toMatchObject({ accumulated_holding_fees_unlocked: '0.8424662000', total_available_coin: '99.5575338000' });
    // 00l2: 90 × 0.00380518; 00l1: 88 × 0.00380518.
    expect(alice).toMatchObject({ accumulated_holding_fees_locked: '0.3424662000', accumulated_holding_fees_total: '1.1849324000' });
    expect(bob).toMatchObject({ accumulated_holding_fees_locked: '0.3348558400' });
  });

  it('S2 has no contract limit', async () => {
    const res = await post(api, '/v1/holdings/summary', { migration_id: 0, record_time: SNAPSHOT, owner_party_ids: [CAROL, VENUE] });
    expect(res.status).toBe(200);
    // Σ (1 + i·1e-10) for i < 1100 = 1100 + 604450e-10.
    expect(res.json).toEqual({
      record_time: SNAPSHOT,
      migration_id: 0,
      summaries: [
        {
          party_id: CAROL,
          total_unlocked_coin: '1100.0000604450',
          total_locked_coin: '0.0000000000',
          total_coin_holdings: '1100.0000604450',
        },
      ],
    });
    const fees = await post(api, '/v0/holdings/summary', {
      migration_id: 0,
      record_time: SNAPSHOT,
      owner_party_ids: [CAROL],
      as_of_round: 20,
    });
    // Each: 10 rounds × 1e-10.
    expect((fees.json as { summaries: Record<string, string>[] }).summaries[0]).toMatchObject({
      accumulated_holding_fees_unlocked: '0.0000011000',
    });
  });

  it('S3 gives a lock holder nothing and pages past a thousand holdings', async () => {
    const venue = await post(api, '/v2/holdings/state', {
      migration_id: 0,
      record_time: SNAPSHOT,
      page_size: 10,
      owner_party_ids: [VENUE],
    });
    expect(venue.json).toEqual({ record_time: SNAPSHOT, migration_id: 0, created_events: [], next_page_token: null });

    const bob = await post(api, '/v2/holdings/state', {
      migration_id: 0,
      record_time: SNAPSHOT,
      page_size: 10,
      owner_party_ids: [BOB, VENUE],
    });
    expect(bob.json).toEqual({
      record_time: SNAPSHOT,
      migration_id: 0,
      created_events: [
        {
          created_in_update_id: 'u1',
          contract_id: '00l1',
          template_id: `${PKG}:Splice.Amulet:LockedAmulet`,
          package_name: 'splice-amulet',
          create_arguments: {
            amulet: {
              dso: DSO,
              owner: BOB,
              amount: { initialAmount: '300.0000000000', createdAt: { number: '12' }, ratePerRound: { rate: RATE } },
            },
            lock: { holders: [VENUE], expiresAt: '2025-02-01T00:00:00Z', optContext: null },
          },
          created_at: '2025-01-01T00:59:00Z',
          signatories: [BOB, DSO, VENUE].sort(),
          observers: [],
        },
      ],
      next_page_token: null,
    });

    const first = await post(api, '/v2/holdings/state', {
      migration_id: 0,
      record_time: SNAPSHOT,
      page_size: 1000,
      owner_party_ids: [CAROL, ALICE],
    });
    const page1 = first.json as { created_events: { contract_id: string; created_at: string }[]; next_page_token: string };
    expect(page1.created_events.map((c) => c.contract_id)).toEqual(carolAmulets.slice(0, 1000).map((e) => e.contract_id));
    const second = await post(api, '/v2/holdings/state', {
      migration_id: 0,
      record_time: SNAPSHOT,
      page_size: 1000,
      owner_party_ids: [ALICE, CAROL, CAROL],
      after: page1.next_page_token,
    });
    const page2 = second.json as { created_events: { contract_id: string; created_at: string }[]; next_page_token: string | null };
    // Carol's last 100 (00:30), then Alice's locked 00l2 (01:00), 00a2 (01:00.5) and 00a3 (02:00).
    expect(page2.created_events.map((c) => c.contract_id)).toEqual([
      ...carolAmulets.slice(1000).map((e) => e.contract_id),
      '00l2',
      '00a2',
      '00a3',
    ]);
    expect(page2.created_events.map((c) => c.created_at).slice(-3)).toEqual([
      '2025-01-01T01:00:00Z',
      '2025-01-01T01:00:00.5Z',
      '2025-01-01T02:00:00Z',
    ]);
    expect(page2.next_page_token).toBeNull();
  });

  it('pages keep their snapshot when a newer one is announced', async () => {
    const ask = (after?: string) =>
      post(api, '/v2/holdings/state', {
        migration_id: 0,
        record_time: '2025-01-01T07:00:00Z',
        record_time_match: 'at_or_before',
        page_size: 1,
        owner_party_ids: [BOB],
        ...(after ? { after } : {}),
      });
    // The response echoes the request's record_time (scan.yaml; the Scan app reports the snapshot's).
    const first = await ask();
    expect(first.json).toMatchObject({ record_time: '2025-01-01T07:00:00Z', created_events: [{ contract_id: '00l1' }] });
    // 06:00 is announced once ingestion passes it; b1 (03:30) is in it but not in the 03:00 snapshot.
    await apply(transaction('u4', '2025-01-01T06:10:00.000000Z', [archive('u4', 0, '00r10', 'Splice.Round:OpenMiningRound')]));
    const second = await ask((first.json as { next_page_token: string }).next_page_token);
    expect(second.json).toEqual({ record_time: '2025-01-01T07:00:00Z', migration_id: 0, created_events: [], next_page_token: null });
    const fresh = await ask();
    expect(fresh.json).toMatchObject({ record_time: '2025-01-01T07:00:00Z', created_events: [{ contract_id: '00l1' }] });
    const freshSecond = await ask((fresh.json as { next_page_token: string }).next_page_token);
    expect(freshSecond.json).toMatchObject({ created_events: [{ contract_id: '00b1' }] });
  });

  it('the default round follows the current ACS, and is a 400 when no round is open', async () => {
    // u4 archived round 10: the earliest open round is now 11.
    expect((await summaryOf()).json).toMatchObject({ computed_as_of_round: 11 });
    await apply(transaction('u5', '2025-01-01T06:20:00.000000Z', [archive('u5', 0, '00r11', 'Splice.Round:OpenMiningRound')]));
    const res = await summaryOf();
    expect({ status: res.status, body: res.json }).toEqual({ status: 400, body: { error: 'No open mining rounds found.' } });
    // An explicit round needs no open round, and S2 never looks one up.
    expect((await summaryOf(12)).status).toBe(200);
    expect((await post(api, '/v1/holdings/summary', { migration_id: 0, record_time: SNAPSHOT, owner_party_ids: [ALICE] })).status).toBe(
      200,
    );
  });
});
