/**
 * The backfill of the cumulative supply totals (`scan-indexer backfill-supply-totals`) over snapshots taken
 * before migration 20261127_010, on a simulated network of two migrations: the database is made to look
 * upgraded (the totals the snapshot job wrote are deleted, the backfill marked pending, the activities'
 * own backfill not run). Until the backfill is done, GET /api/indexer/v0/network/supply answers unknown
 * totals as null, never a sum from part of the history; the backfill refuses to start before the activity
 * projection is known complete, stops when asked and resumes at the first snapshot without totals, picks
 * up a snapshot the job took meanwhile, and ends with exactly the rows the snapshot job had written live,
 * so every answer is the same as before.
 */
import { backfillActivities } from '../../../src/ingest/activity-backfill';
import { catchUpSnapshots } from '../../../src/jobs/acs-snapshots';
import { backfillSupplyTotals } from '../../../src/jobs/supply-totals-backfill';
import { formatDateTime, formatRecordTime, parseTimestamp } from '../../../src/domain/time';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { ingestThroughWorker, simulatedItems } from '../../support/items/simulated-network';

interface Supply {
  snapshot: string | null;
  cumulative: unknown;
}

describe('the backfill of the supply totals', () => {
  const t = useTestDatabase();
  const items = simulatedItems({ seed: 'supply-backfill', updates: 900, migrations: 2, meanUpdateGapMs: 150_000, tickSeconds: 3600 });
  let api: TestApi;
  const rowsOf = async () =>
    (
      await t.pool.query<Record<string, string>>(
        `select migration_id::text, record_time::text, minted_mint::text, minted_tap::text, minted_app_reward::text,
           minted_validator_reward::text, minted_sv_reward::text, minted_validator_faucet::text, burned::text,
           burned_holding_fees::text, burned_traffic::text, burned_ans::text, allowed_mint::text, issuing_rounds::text
         from supply_totals order by migration_id, record_time`,
      )
    ).rows;
  const snapshots = async () =>
    (
      await t.pool.query<{ migration_id: string; t: string }>(
        `select migration_id::text, to_char(record_time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as t
         from acs_snapshots order by migration_id, record_time`,
      )
    ).rows.map((r) => ({ migration: Number(r.migration_id), time: parseTimestamp(r.t) }));
  const supply = async (at: bigint) => {
    const res = await request(api.url, 'GET', `/api/indexer/v0/network/supply?at=${encodeURIComponent(formatDateTime(at))}`);
    expect(res.status).toBe(200);
    return res.json as Supply;
  };

  beforeAll(async () => {
    await ingestThroughWorker(t, items);
    await catchUpSnapshots(t.db);
    api = await startTestApi(t);
  }, 300_000);
  afterAll(async () => api?.close());

  it('computes the totals the snapshot job would have, resumably, and answers unknown totals as null meanwhile', async () => {
    const taken = await snapshots();
    expect(new Set(taken.map((s) => s.migration))).toEqual(new Set([0, 1]));
    expect(taken.length).toBeGreaterThan(8);
    // What the snapshot job wrote live, and the answers at every snapshot, around it, and before the first.
    const live = await rowsOf();
    expect(live.length).toBe(taken.length);
    const first = taken[0]!.time - 3_600_000_000n;
    const instants = [first, ...taken.flatMap((s) => [s.time - 1n, s.time, s.time + 1n])];
    const answers = new Map<bigint, Supply>();
    for (const at of instants) answers.set(at, await supply(at));
    expect([...answers.values()].every((a) => a.cumulative !== null)).toBe(true);

    // As a database upgraded with history: no totals, the backfill pending, the activities' backfill not run.
    await t.pool.query('delete from supply_totals');
    await t.pool.query('insert into supply_totals_backfill (id) values (true)');
    await t.pool.query('delete from activity_backfill');
    for (const at of [first, taken[0]!.time, taken.at(-1)!.time + 1n]) expect((await supply(at)).cumulative).toBeNull();

    // The activity projection is not known complete: nothing is summed.
    expect(await backfillSupplyTotals(t.db)).toEqual({
      snapshots: 0,
      finished: false,
      blocked: 'the activity projection is not known to be complete: run `scan-indexer backfill-activities` to its end first',
    });
    expect(await rowsOf()).toEqual([]);
    expect((await backfillActivities(t.db)).finished).toBe(true);

    // Interrupted after five snapshots: those five have their totals, the others none.
    const stop = new AbortController();
    const progress: number[] = [];
    const interrupted = await backfillSupplyTotals(t.db, {
      pageSize: 4,
      signal: stop.signal,
      onProgress: (p) => {
        progress.push(p.snapshotsWithTotals);
        if (p.snapshotsWithTotals === 5) stop.abort();
      },
    });
    expect(interrupted).toEqual({ snapshots: 5, finished: false });
    expect(progress).toEqual([1, 2, 3, 4, 5]);
    expect(await rowsOf()).toEqual(live.slice(0, 5));
    expect(await supply(taken[4]!.time + 1n)).toEqual(answers.get(taken[4]!.time + 1n));
    expect((await supply(taken[5]!.time)).cumulative).toBeNull();
    // Before the first snapshot the history counts from zero only once the backfill is over.
    expect((await supply(first)).cumulative).toBeNull();

    // Meanwhile the snapshot job takes the last snapshot again: its predecessor has no totals, so it gets none.
    const last = taken.at(-1)!;
    const at = formatDateTime(last.time);
    for (const table of ['holding_totals', 'holding_totals_snapshots', 'acs_snapshots']) {
      await t.pool.query(`delete from ${table} where migration_id = $1 and record_time = $2::timestamptz`, [last.migration, at]);
    }
    expect((await catchUpSnapshots(t.db)).taken).toEqual([{ migrationId: last.migration, recordTime: formatRecordTime(last.time) }]);
    expect((await rowsOf()).length).toBe(5);

    // Resumed: it goes on from the sixth, takes the new snapshot too, and ends with the rows written live.
    const resumed = await backfillSupplyTotals(t.db, { pageSize: 4 });
    expect(resumed).toEqual({ snapshots: taken.length - 5, finished: true });
    expect(await rowsOf()).toEqual(live);
    const state = await t.pool.query<{ done: string; finished: boolean }>(
      'select snapshots_done::text as done, finished_at is not null as finished from supply_totals_backfill',
    );
    expect(state.rows).toEqual([{ done: String(taken.length), finished: true }]);
    for (const [at, answer] of answers) expect({ at, answer: await supply(at) }).toEqual({ at, answer });

    // Done: a new run has nothing to do.
    expect(await backfillSupplyTotals(t.db)).toEqual({ snapshots: 0, finished: true });
  }, 300_000);
});
