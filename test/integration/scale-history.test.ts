/**
 * The scale runs' generated history (bench/scale) is a database the service
 * can serve and the writer can continue: built the way the scale bench builds
 * it (indexes dropped and built again after the rows), its ACS snapshot figures
 * equal sums over the contracts table, the API pages its ACS, holdings and
 * updates without errors and with what the contracts and updates tables hold,
 * and the simulated stream the bench measures is ingested on top of it by the
 * real worker. Expectations come from SQL over the tables, not from the
 * generator's own bookkeeping.
 */
import { historySpec } from '../../bench/scale-bench';
import { buildLargeState, HISTORY_TABLES, type BuildReport } from '../../bench/scale/load';
import { indexesOf } from '../../src/store/bulk-load';
import { useTestDatabase } from '../support/database/database';
import { request, startTestApi, type TestApi } from '../support/http/http';
import { ingestThroughWorker, simulatedItems } from '../support/items/simulated-network';

interface Snapshot {
  record_time: string;
  contract_count: string;
  unlocked: string;
  locked: string;
}

describe('generated history for scale runs', () => {
  const t = useTestDatabase();
  const spec = { ...historySpec({ updates: 600, contractsPerUpdate: 4, activeShare: 0.1, days: 2, holders: 40 }), chunkUpdates: 128 };
  let indexesBefore: string[];
  let build: BuildReport;
  let api: TestApi;

  const post = (path: string, body: unknown) => request(api.url, 'POST', `/api/scan${path}`, body);
  // As the migrations declare them: the indexes of the month partitions the build makes follow from those.
  const indexDefinitions = async () =>
    (
      await t.pool.query<{ d: string }>(
        `select i.indexdef as d from pg_indexes i join pg_class c on c.relname = i.tablename and c.relnamespace = 'public'::regnamespace
         where i.schemaname = 'public' and not c.relispartition order by i.indexname`,
      )
    ).rows.map((r) => r.d);

  /** Every announced snapshot with its figures, and the same figures summed over the contracts active at it. */
  async function snapshotFigures(): Promise<{ announced: Snapshot; summed: Snapshot }[]> {
    const { rows } = await t.pool.query<Snapshot & { c_count: string; c_unlocked: string; c_locked: string }>(
      `select to_char(s.record_time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as record_time,
         s.contract_count::text as contract_count, s.unlocked_amulet::numeric(38, 10)::text as unlocked,
         s.locked_amulet::numeric(38, 10)::text as locked,
         count(c.*)::text as c_count,
         coalesce(sum(c.amulet_initial_amount) filter (where c.amulet_locked = false), 0)::numeric(38, 10)::text as c_unlocked,
         coalesce(sum(c.amulet_initial_amount) filter (where c.amulet_locked), 0)::numeric(38, 10)::text as c_locked
       from acs_snapshots s
       left join contracts c on c.migration_id = s.migration_id and c.created_record_time <= s.record_time
         and c.archived_record_time > s.record_time
       group by s.migration_id, s.record_time order by s.record_time`,
    );
    return rows.map((r) => ({
      announced: { record_time: r.record_time, contract_count: r.contract_count, unlocked: r.unlocked, locked: r.locked },
      summed: { record_time: r.record_time, contract_count: r.c_count, unlocked: r.c_unlocked, locked: r.c_locked },
    }));
  }

  /** Contract ids active at a snapshot, from the contracts table; optionally only those a party is a stakeholder of. */
  async function activeAt(recordTime: string, party?: string): Promise<string[]> {
    const { rows } = await t.pool.query<{ contract_id: string }>(
      `select contract_id from contracts
       where migration_id = 0 and created_record_time <= $1 and archived_record_time > $1
         and ($2::text is null or $2 = any(signatories || observers))
       order by created_at, contract_id`,
      [recordTime, party ?? null],
    );
    return rows.map((r) => r.contract_id);
  }

  async function pageAcs(recordTime: string, extra: Record<string, unknown> = {}): Promise<{ contract_id: string }[]> {
    const events: { contract_id: string }[] = [];
    let after: string | undefined;
    for (let pages = 0; pages < 100; pages++) {
      const res = await post('/v0/state/acs', {
        migration_id: 0,
        record_time: recordTime,
        page_size: 100,
        ...extra,
        ...(after ? { after } : {}),
      });
      expect(res.status).toBe(200);
      const body = res.json as { created_events: { contract_id: string }[]; next_page_token: string | null };
      events.push(...body.created_events);
      if (!body.next_page_token) return events;
      after = body.next_page_token;
    }
    throw new Error('too many pages');
  }

  beforeAll(async () => {
    indexesBefore = await indexDefinitions();
    build = await buildLargeState({
      url: t.url,
      spec,
      indexBuild: 'after',
      fills: new Map([['contracts_pkey', 70]]),
      log: () => {},
      progressLines: 0,
    });
    api = await startTestApi(t);
  });
  afterAll(async () => api?.close());

  it('builds the history it was asked for, before the stream, and every index again as the migrations define it', async () => {
    expect(build.counts.updates).toBe(600);
    expect(build.counts.contracts).toBeGreaterThan(600 * 3);
    expect(build.counts.activeContracts).toBeGreaterThan(0);
    expect(build.counts.activeContracts).toBeLessThan(build.counts.contracts / 2);
    expect(build.firstRecordTime).toBeGreaterThanOrEqual(spec.start);
    expect(build.lastRecordTime).toBeLessThan(spec.end);
    expect(build.indexes.map((i) => i.index).sort()).toEqual((await indexesOf(t.pool, HISTORY_TABLES)).map((i) => i.index).sort());
    // The history tables are partitioned: their indexes are built at their definitions' fill (see createIndex).
    expect(build.indexes.filter((i) => i.fillfactor !== undefined)).toEqual([]);
    expect(await indexDefinitions()).toEqual(indexesBefore);
    const counts = await t.pool.query<{ contracts: string; updates: string; verdicts: string; stakeholders: string }>(
      `select (select count(*) from contracts)::text as contracts, (select count(*) from updates)::text as updates,
         (select count(*) from verdicts)::text as verdicts, (select count(*) from contract_stakeholders)::text as stakeholders`,
    );
    expect(counts.rows[0]).toEqual({
      contracts: String(build.counts.contracts),
      updates: '600',
      verdicts: '600',
      stakeholders: String(build.counts.stakeholderRows),
    });
  });

  it("creates and archives every contract in a stored update at that update's record time", async () => {
    const { rows } = await t.pool.query<{ archived: string; created_wrong: string; archived_wrong: string }>(
      `select count(*) filter (where c.archived_in_update_id is not null)::text as archived,
         count(*) filter (where cu.record_time is distinct from c.created_record_time)::text as created_wrong,
         count(*) filter (where c.archived_in_update_id is not null
           and (au.record_time is distinct from c.archived_record_time or au.record_time <= c.created_record_time))::text as archived_wrong
       from contracts c
       left join updates cu on cu.update_id = c.created_in_update_id
       left join updates au on au.update_id = c.archived_in_update_id`,
    );
    expect(Number(rows[0]!.archived)).toBe(build.counts.contracts - build.counts.activeContracts);
    expect(rows[0]).toMatchObject({ created_wrong: '0', archived_wrong: '0' });
  });

  it('announces snapshots whose figures equal sums over the contracts active at them', async () => {
    const figures = await snapshotFigures();
    expect(figures.length).toBe(build.snapshots);
    expect(figures.length).toBeGreaterThanOrEqual(10);
    for (const f of figures) expect(f.announced).toEqual(f.summed);
    expect(figures.some((f) => f.announced.unlocked !== '0.0000000000' && f.announced.locked !== '0.0000000000')).toBe(true);
  });

  it('pages the ACS of a snapshot, whole and by stakeholder, as the contracts table has it', async () => {
    const figures = await snapshotFigures();
    for (const at of [figures[Math.floor(figures.length / 2)]!.announced, figures[figures.length - 1]!.announced]) {
      const expected = await activeAt(at.record_time);
      expect(expected.length).toBe(Number(at.contract_count));
      expect((await pageAcs(at.record_time)).map((e) => e.contract_id)).toEqual(expected);
    }
    const last = figures[figures.length - 1]!.announced.record_time;
    const { rows } = await t.pool.query<{ owner: string }>(
      `select amulet_owner as owner from contracts where amulet_owner is not null group by 1 order by count(*) desc limit 1`,
    );
    const holder = rows[0]!.owner;
    const byHolder = await activeAt(last, holder);
    expect(byHolder.length).toBeGreaterThan(0);
    expect((await pageAcs(last, { party_ids: [holder] })).map((e) => e.contract_id)).toEqual(byHolder);
    // One contract's whole body, against its row.
    const one = (await pageAcs(last))[0] as unknown as Record<string, unknown>;
    const row = await t.pool.query<{ create_arguments: string; template_id: string; created_in_update_id: string; signatories: string[] }>(
      'select create_arguments, template_id, created_in_update_id, signatories from contracts where contract_id = $1',
      [one.contract_id],
    );
    expect(one).toMatchObject({
      template_id: row.rows[0]!.template_id,
      created_in_update_id: row.rows[0]!.created_in_update_id,
      create_arguments: JSON.parse(row.rows[0]!.create_arguments),
      signatories: row.rows[0]!.signatories,
    });
  });

  it("sums each owner's amulets in holdings summaries", async () => {
    const figures = await snapshotFigures();
    const at = figures[figures.length - 1]!.announced.record_time;
    const { rows } = await t.pool.query<{ owner: string; unlocked: string; locked: string }>(
      `select amulet_owner as owner,
         coalesce(sum(amulet_initial_amount) filter (where not amulet_locked), 0)::numeric(38, 10)::text as unlocked,
         coalesce(sum(amulet_initial_amount) filter (where amulet_locked), 0)::numeric(38, 10)::text as locked
       from contracts
       where migration_id = 0 and amulet_owner is not null and created_record_time <= $1 and archived_record_time > $1
       group by 1 order by count(*) desc, 1 limit 5`,
      [at],
    );
    expect(rows.length).toBe(5);
    const res = await post('/v0/holdings/summary', {
      migration_id: 0,
      record_time: at,
      owner_party_ids: rows.map((r) => r.owner),
      as_of_round: 0,
    });
    expect(res.status).toBe(200);
    const summaries = (res.json as { summaries: { party_id: string; total_unlocked_coin: string; total_locked_coin: string }[] }).summaries;
    expect(
      summaries
        .map((s) => ({ owner: s.party_id, unlocked: s.total_unlocked_coin, locked: s.total_locked_coin }))
        .sort((a, b) => (a.owner < b.owner ? -1 : 1)),
    ).toEqual([...rows].sort((a, b) => (a.owner < b.owner ? -1 : 1)));
  });

  it('pages the updates in order, each a transaction creating a stored contract, in both encodings, with its verdict', async () => {
    const { rows } = await t.pool.query<{ update_id: string }>('select update_id from updates order by record_time limit 50');
    for (const encoding of ['compact_json', 'protobuf_json']) {
      const res = await post('/v2/updates', { page_size: 50, daml_value_encoding: encoding });
      expect(res.status).toBe(200);
      const transactions = (res.json as { transactions: { update_id: string; events_by_id: Record<string, { contract_id: string }> }[] })
        .transactions;
      expect(transactions.map((u) => u.update_id)).toEqual(rows.map((r) => r.update_id));
      for (const u of transactions) {
        const [eventId, event] = Object.entries(u.events_by_id)[0]!;
        const stored = await t.pool.query(
          'select 1 from contracts where contract_id = $1 and created_in_update_id = $2 and created_event_id = $3',
          [event.contract_id, u.update_id, eventId],
        );
        expect(stored.rowCount).toBe(1);
      }
    }
    const events = await post('/v0/events', { page_size: 10 });
    expect(events.status).toBe(200);
    const items = (events.json as { events: { update: { update_id: string }; verdict: { update_id: string }; traffic_summary: unknown }[] })
      .events;
    expect(items.map((e) => e.update.update_id)).toEqual(rows.slice(0, 10).map((r) => r.update_id));
    for (const e of items) {
      expect(e.verdict.update_id).toBe(e.update.update_id);
      expect(e.traffic_summary).not.toBeNull();
    }
  });

  it("takes the simulated network's stream on top, as the past of the same network", async () => {
    await ingestThroughWorker(t, simulatedItems({ seed: spec.network.seed, updates: 300, migrations: 1 }));
    const figures = await snapshotFigures();
    expect(figures.length).toBeGreaterThan(build.snapshots);
    for (const f of figures) expect(f.announced).toEqual(f.summed);
    // The stream's DsoRules name the DSO party every generated contract names.
    const dso = await request(api.url, 'GET', '/api/scan/v0/dso-party-id');
    expect(dso.status).toBe(200);
    const { rows } = await t.pool.query<{ dso: string }>(
      `select distinct dso_party as dso from contracts where dso_party is not null and created_record_time < $1`,
      ['2025-01-01T00:00:00Z'],
    );
    expect(rows).toEqual([{ dso: (dso.json as { dso_party_id: string }).dso_party_id }]);
  });
});
