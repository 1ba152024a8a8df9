/**
 * POST /v0/state/acs (v2 shape), GET /v0/state/acs/snapshot-timestamp and S8
 * GET /v0/state/acs/snapshot-timestamp-after through the real HTTP server,
 * against a replay of the simulated item stream (test/support/acs-replay.ts).
 */
import {
  acsAt,
  activeContractBody,
  byCreation,
  micros,
  recordTimeText,
  snapshotTimes,
  type Key,
  type ReplayedContract,
} from '../../support/replays/acs-replay';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { ingestThroughWorker, simulatedItems } from '../../support/items/simulated-network';

const dateTime = (recordTime: string) => recordTime.replace(/\.000000Z$/, 'Z');

describe('ACS snapshots over HTTP', () => {
  const t = useTestDatabase();
  const items = simulatedItems({ seed: 33, updates: 1200, migrations: 2, meanUpdateGapMs: 40_000 });
  const snapshots = snapshotTimes(items);
  let api: TestApi;

  const post = (body: unknown) => request(api.url, 'POST', '/api/scan/v0/state/acs', body);
  const get = (path: string) => request(api.url, 'GET', `/api/scan${path}`);
  const expectError = async (res: Promise<{ status: number; json: unknown }>, status: number, error: string) => {
    const r = await res;
    expect({ status: r.status, body: r.json }).toEqual({ status, body: { error } });
  };

  beforeAll(async () => {
    await ingestThroughWorker(t, items);
    api = await startTestApi(t);
  });
  afterAll(async () => api?.close());

  async function pageAll(body: Record<string, unknown>, expected: ReplayedContract[], pageSize: number, snapshot: Key) {
    const bodies = expected.map(activeContractBody);
    let after: string | undefined;
    let pages = 0;
    for (;;) {
      const res = await post({ ...body, page_size: pageSize, ...(after ? { after } : {}) });
      expect(res.status).toBe(200);
      const slice = bodies.slice(pages * pageSize, (pages + 1) * pageSize);
      expect(res.json).toEqual({
        record_time: dateTime(snapshot.time),
        migration_id: snapshot.migration,
        created_events: slice,
        next_page_token: slice.length === pageSize ? expect.any(String) : null,
      });
      pages += 1;
      after = (res.json as { next_page_token: string | null }).next_page_token ?? undefined;
      if (!after) break;
    }
    expect(pages).toBe(Math.floor(bodies.length / pageSize) + 1);
  }

  it('has a dataset worth testing', () => {
    expect(snapshots.length).toBeGreaterThanOrEqual(4);
    expect(new Set(snapshots.map((s) => s.migration))).toEqual(new Set([0, 1]));
  });

  it('pages the whole ACS of every snapshot in creation order, imported contracts without a creating update', async () => {
    let imported = 0;
    for (const snap of snapshots) {
      const expected = [...acsAt(items, snap).values()].sort(byCreation);
      imported += expected.filter((c) => c.createdInUpdateId === null).length;
      await pageAll({ migration_id: snap.migration, record_time: snap.time }, expected, 250, snap);
    }
    expect(imported).toBeGreaterThan(0);
  });

  it('filters by stakeholder and by template', async () => {
    const snap = snapshots[snapshots.length - 1]!;
    const acs = [...acsAt(items, snap).values()].sort(byCreation);
    // A party that is an observer or signatory of a fair share of contracts, and one that is not the DSO.
    const seen = new Map<string, number>();
    for (const c of acs) for (const p of [...c.event.signatories, ...c.event.observers]) seen.set(p, (seen.get(p) ?? 0) + 1);
    const parties = [...seen]
      .filter(([p]) => !p.startsWith('DSO::'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, 2)
      .map(([p]) => p);
    const byParty = acs.filter((c) => [...c.event.signatories, ...c.event.observers].some((p) => parties.includes(p)));
    expect(byParty.length).toBeGreaterThan(3);
    await pageAll({ migration_id: snap.migration, record_time: snap.time, party_ids: parties }, byParty, 3, snap);

    const templates = [
      'splice-amulet:Splice.Round:OpenMiningRound',
      'splice-amulet:Splice.Amulet:Amulet',
      'splice-amulet:Splice.Round:OpenMiningRound',
    ];
    const byTemplate = acs.filter(
      (c) => c.event.package_name === 'splice-amulet' && /:Splice\.(Round:OpenMiningRound|Amulet:Amulet)$/.test(c.event.template_id),
    );
    expect(byTemplate.length).toBeGreaterThan(3);
    await pageAll({ migration_id: snap.migration, record_time: snap.time, templates }, byTemplate, 40, snap);

    const both = byTemplate.filter((c) => byParty.includes(c));
    await pageAll({ migration_id: snap.migration, record_time: snap.time, templates, party_ids: parties }, both, 1000, snap);
  });

  it('the writer keeps contract_stakeholders in step with the contracts in some snapshot (each stakeholder once, same archive)', async () => {
    // A contract archived before the first snapshot boundary at or after its creation is in no snapshot: no rows.
    const derived = `select distinct c.migration_id, p.party, c.created_at, c.contract_id, c.package_name, c.qualified_name,
        c.created_record_time, c.archived_record_time
      from contracts c cross join lateral unnest(c.signatories || c.observers) as p(party)
      where c.archived_record_time > c.created_slot`;
    const stored = `select migration_id, party, created_at, contract_id, package_name, qualified_name, created_record_time,
        archived_record_time from contract_stakeholders`;
    const count = async (q: string) => Number((await t.pool.query<{ n: string }>(`select count(*) as n from (${q}) x`)).rows[0]!.n);
    expect(await count(stored)).toBeGreaterThan(await count('select * from contracts where archived_record_time > created_slot'));
    expect(await count('select * from contracts where archived_record_time <= created_slot')).toBeGreaterThan(0);
    expect(await count(`(${stored}) except all (${derived})`)).toBe(0);
    expect(await count(`(${derived}) except all (${stored})`)).toBe(0);
    // Archives and assignments of stored contracts happened, so archive times were carried over.
    expect(await count(`select * from contract_stakeholders where archived_record_time <> 'infinity'`)).toBeGreaterThan(0);
  });

  it('answers the same on the newest path, /v2/state/acs, whose tokens page on either path', async () => {
    const snap = snapshots[snapshots.length - 1]!;
    const body = { migration_id: snap.migration, record_time: snap.time, page_size: 7 };
    const v0 = await post(body);
    const v2 = await request(api.url, 'POST', '/api/scan/v2/state/acs', body);
    expect(v0.status).toBe(200);
    expect({ status: v2.status, text: v2.text }).toEqual({ status: 200, text: v0.text });
    const after = (v2.json as { next_page_token: string }).next_page_token;
    const next = await request(api.url, 'POST', '/api/scan/v2/state/acs', { ...body, after });
    expect(next.text).toBe((await post({ ...body, after })).text);
    const expected = [...acsAt(items, snap).values()].sort(byCreation).slice(7, 14).map(activeContractBody);
    expect((next.json as { created_events: unknown }).created_events).toEqual(expected);
  });

  it('pages the same contracts on the older /v1/state/acs, whose token is an int64 bound to its request', async () => {
    const snap = snapshots[snapshots.length - 1]!;
    const bodies = [...acsAt(items, snap).values()].sort(byCreation).map(activeContractBody);
    const body = { migration_id: snap.migration, record_time: snap.time, page_size: 40 };
    const v1 = (b: unknown) => request(api.url, 'POST', '/api/scan/v1/state/acs', b);
    const served: unknown[] = [];
    let after: number | null = null;
    const tokens: number[] = [];
    do {
      const res = await v1({ ...body, ...(after === null ? {} : { after }) });
      const page = res.json as { record_time: string; migration_id: number; created_events: unknown[]; next_page_token: number | null };
      expect({ status: res.status, record_time: page.record_time, migration_id: page.migration_id }).toEqual({
        status: 200,
        record_time: dateTime(snap.time),
        migration_id: snap.migration,
      });
      served.push(...page.created_events);
      after = page.next_page_token;
      if (after !== null) {
        expect(Number.isSafeInteger(after)).toBe(true);
        tokens.push(after);
      }
    } while (after !== null);
    expect(served).toEqual(bodies);
    expect(tokens.length).toBe(Math.floor(bodies.length / 40));
    expect(tokens.length).toBeGreaterThan(1);
    // A token is good for its own request only; unknown and string tokens are refused.
    await expectError(
      v1({ ...body, templates: ['splice-amulet:Splice.Amulet:Amulet'], after: tokens[0] }),
      400,
      "Invalid page token in 'after': it was issued for a different request. Repeat the request that returned it, changing only 'after'.",
    );
    await expectError(
      v1({ ...body, after: 9_007_199_254_740_991 }),
      400,
      "Invalid page token in 'after': it was not issued by this service or has expired (after 24 hours). Start again without 'after'.",
    );
    const asString = await v1({ ...body, after: 'abc' });
    expect(asString.status).toBe(400);
    // The v2 string token is not a v1 token, nor the other way round.
    const v2 = await request(api.url, 'POST', '/api/scan/v2/state/acs', { ...body, after: String(tokens[0]) });
    expect(v2.status).toBe(400);
  });

  it('a numeric token expires after a day', async () => {
    const snap = snapshots[snapshots.length - 1]!;
    const body = { migration_id: snap.migration, record_time: snap.time, page_size: 2 };
    const first = await request(api.url, 'POST', '/api/scan/v1/state/acs', body);
    const token = (first.json as { next_page_token: number }).next_page_token;
    const second = await request(api.url, 'POST', '/api/scan/v1/state/acs', { ...body, after: token });
    expect(second.status).toBe(200);
    await t.pool.query(`update page_positions set issued_at = now() - interval '25 hours' where id = $1`, [token]);
    await expectError(
      request(api.url, 'POST', '/api/scan/v1/state/acs', { ...body, after: token }),
      400,
      "Invalid page token in 'after': it was not issued by this service or has expired (after 24 hours). Start again without 'after'.",
    );
  });

  it('at_or_before answers the newest snapshot at or before the time', async () => {
    const [a, b] = snapshots.filter((s) => s.migration === 0) as [Key, Key];
    const justBefore = recordTimeText(micros(b.time) - 1n);
    const expected = [...acsAt(items, a).values()].sort(byCreation);
    await pageAll({ migration_id: 0, record_time: justBefore, record_time_match: 'at_or_before' }, expected, 1000, a);
  });

  it('snapshot-timestamp finds the newest snapshot of the migration at or before a time', async () => {
    for (const [i, snap] of snapshots.entries()) {
      const same = await get(`/v0/state/acs/snapshot-timestamp?before=${encodeURIComponent(snap.time)}&migration_id=${snap.migration}`);
      expect({ status: same.status, body: same.json }).toEqual({ status: 200, body: { record_time: dateTime(snap.time) } });
      const before = await get(
        `/v0/state/acs/snapshot-timestamp?before=${recordTimeText(micros(snap.time) - 1n)}&migration_id=${snap.migration}`,
      );
      const previous = snapshots[i - 1];
      if (previous && previous.migration === snap.migration) {
        expect({ status: before.status, body: before.json }).toEqual({ status: 200, body: { record_time: dateTime(previous.time) } });
      } else {
        const shown = recordTimeText(micros(snap.time) - 1n);
        expect({ status: before.status, body: before.json }).toEqual({
          status: 404,
          body: { error: `No snapshots found before ${shown}` },
        });
      }
    }
    // Another migration's snapshots never answer.
    const firstOf1 = snapshots.find((s) => s.migration === 1)!;
    const lastOf0 = snapshots.filter((s) => s.migration === 0).pop()!;
    const res = await get(`/v0/state/acs/snapshot-timestamp?before=${firstOf1.time}&migration_id=0`);
    expect(res.json).toEqual({ record_time: dateTime(lastOf0.time) });
    await expectError(
      get('/v0/state/acs/snapshot-timestamp?before=2030-01-01T00:00:00Z&migration_id=5'),
      404,
      'No snapshots found before 2030-01-01T00:00Z',
    );
    // The message quotes the time as the client wrote it, offset included (OffsetDateTime.toString).
    await expectError(
      get('/v0/state/acs/snapshot-timestamp?before=2030-01-01T02:00:00.250%2B02:00&migration_id=5'),
      404,
      'No snapshots found before 2030-01-01T02:00:00.250+02:00',
    );
  });

  it('S8 finds the first snapshot after a time in the migration, or the first of a later migration', async () => {
    for (const [i, snap] of snapshots.entries()) {
      const res = await get(`/v0/state/acs/snapshot-timestamp-after?after=${snap.time}&migration_id=${snap.migration}`);
      const next = snapshots[i + 1];
      if (next) expect({ status: res.status, body: res.json }).toEqual({ status: 200, body: { record_time: dateTime(next.time) } });
      else
        expect({ status: res.status, body: res.json }).toEqual({
          status: 404,
          body: { error: `No snapshots found after ${dateTime(snap.time).replace(':00Z', 'Z')}` },
        });
      // Strictly after: one microsecond earlier gives the snapshot itself.
      const earlier = await get(
        `/v0/state/acs/snapshot-timestamp-after?after=${recordTimeText(micros(snap.time) - 1n)}&migration_id=${snap.migration}`,
      );
      expect(earlier.json).toEqual({ record_time: dateTime(snap.time) });
    }
    // A later migration's first snapshot counts regardless of the time asked about.
    const firstOf1 = snapshots.find((s) => s.migration === 1)!;
    const far = await get('/v0/state/acs/snapshot-timestamp-after?after=2031-06-01T12:30:00%2B02:00&migration_id=0');
    expect(far.json).toEqual({ record_time: dateTime(firstOf1.time) });
    await expectError(
      get('/v0/state/acs/snapshot-timestamp-after?after=2024-01-01T00:00:00Z&migration_id=2'),
      404,
      'No snapshots found after 2024-01-01T00:00Z',
    );
    await expectError(
      get('/v0/state/acs/snapshot-timestamp-after?after=2024-01-01T00:00:00-05:30&migration_id=2'),
      404,
      'No snapshots found after 2024-01-01T00:00-05:30',
    );
  });

  it('400 for bad query parameters of the snapshot-timestamp operations', async () => {
    for (const path of ['/v0/state/acs/snapshot-timestamp', '/v0/state/acs/snapshot-timestamp-after']) {
      const time = path.endsWith('after') ? 'after' : 'before';
      await expectError(get(`${path}?migration_id=0`), 400, `Missing required query field '${time}'.`);
      await expectError(get(`${path}?${time}=2025-01-01T00:00:00Z`), 400, "Missing required query field 'migration_id'.");
      await expectError(
        get(`${path}?${time}=2025-13-01T00:00:00Z&migration_id=0`),
        400,
        `Invalid query field '${time}': expected an ISO 8601 date-time such as 2025-03-10T14:22:05.123456Z.`,
      );
      await expectError(
        get(`${path}?${time}=2025-01-01T00:00:00Z&migration_id=zero`),
        400,
        "Invalid query field 'migration_id': expected an integer.",
      );
      await expectError(
        get(`${path}?${time}=2025-01-01T00:00:00Z&migration_id=99999999999999999`),
        400,
        "Invalid query field 'migration_id': integer out of range.",
      );
      await expectError(
        get(`${path}?${time}=2025-01-01T00:00:00Z&${time}=2025-01-02T00:00:00Z&migration_id=0`),
        400,
        `Invalid query field '${time}': expected a date-time string.`,
      );
    }
  });

  describe('errors of POST /v0/state/acs', () => {
    const base = () => ({ migration_id: snapshots[0]!.migration, record_time: snapshots[0]!.time, page_size: 10 });

    it('400 for missing fields, bad times, match values, page sizes and lists', async () => {
      const { record_time: _r, ...noTime } = base();
      await expectError(post(noTime), 400, "Missing required body field 'record_time'.");
      await expectError(
        post({ ...base(), record_time: '2025-01-01' }),
        400,
        "Invalid body field 'record_time': expected an ISO 8601 date-time such as 2025-03-10T14:22:05.123456Z.",
      );
      await expectError(
        post({ ...base(), record_time_match: 'EXACT' }),
        400,
        "Invalid body field 'record_time_match': expected one of exact, at_or_before.",
      );
      await expectError(post({ ...base(), page_size: 0 }), 400, 'Limit must be at least 1.');
      await expectError(post({ ...base(), page_size: 5000 }), 400, 'Exceeded limit maximum (5000 > 1000).');
      await expectError(
        post({ ...base(), templates: ['Splice.Amulet:Amulet'] }),
        400,
        "Malformed template_id, expected 'package_name:module_name:entity_name'",
      );
      await expectError(
        post({ ...base(), templates: ['a:b:c:d'] }),
        400,
        "Malformed template_id, expected 'package_name:module_name:entity_name'",
      );
      await expectError(post({ ...base(), party_ids: [''] }), 400, `Invalid party id "" in 'party_ids': expected <name>::<fingerprint>.`);
      const many = Array.from({ length: 1001 }, (_, i) => `p${i}::1220`);
      await expectError(
        post({ ...base(), party_ids: many }),
        400,
        "Expected 'party_ids' to contain at most 1000 items, but contained 1001.",
      );
      await expectError(
        post({ ...base(), templates: many.map((p) => `pkg:M:${p.slice(0, 4)}`) }),
        400,
        "Expected 'templates' to contain at most 1000 items, but contained 1001.",
      );
      // Empty lists mean no filter, as in the Scan app.
      expect((await post({ ...base(), party_ids: [], templates: [] })).status).toBe(200);
    });

    it('400 for an edited token or one of another request or operation', async () => {
      const first = await post({ ...base(), page_size: 1 });
      const token = (first.json as { next_page_token: string }).next_page_token;
      const [payload, mac] = token.split('.') as [string, string];
      await expectError(
        post({ ...base(), after: `${payload.slice(0, -1)}${payload.endsWith('A') ? 'B' : 'A'}.${mac}` }),
        400,
        "Invalid page token in 'after': it was altered or was not issued by this service. Pass next_page_token back unchanged.",
      );
      const otherRequest =
        "Invalid page token in 'after': it was issued for a different request. Repeat the request that returned it, changing only 'after'.";
      await expectError(post({ ...base(), templates: ['splice-amulet:Splice.Amulet:Amulet'], after: token }), 400, otherRequest);
      await expectError(post({ ...base(), record_time_match: 'at_or_before', after: token }), 400, otherRequest);
      // A holdings-state token is not an ACS token.
      const holder = [...acsAt(items, snapshots[0]!).values()]
        .map((c) => (c.event.create_arguments as { owner?: unknown }).owner)
        .find((o) => typeof o === 'string') as string;
      const holdings = await request(api.url, 'POST', '/api/scan/v2/holdings/state', {
        ...base(),
        page_size: 1,
        owner_party_ids: [holder],
      });
      const holdingsToken = (holdings.json as { next_page_token: string }).next_page_token;
      expect(typeof holdingsToken).toBe('string');
      await expectError(post({ ...base(), after: holdingsToken }), 400, otherRequest);
    });

    it('404 without a snapshot at the time or before it', async () => {
      const snap = snapshots[0]!;
      const off = recordTimeText(micros(snap.time) + 1_000n);
      await expectError(
        post({ ...base(), record_time: off }),
        404,
        `Failed to find ACS snapshot for migration id ${snap.migration} at ${off.replace('000Z', 'Z')}`,
      );
      await expectError(
        post({ ...base(), record_time: '2024-12-31T23:59:59.5Z', record_time_match: 'at_or_before' }),
        404,
        'No snapshots found before 2024-12-31T23:59:59.500Z',
      );
    });
  });
});
