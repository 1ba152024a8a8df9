/**
 * The removed Scan round aggregates through the real HTTP server, on a simulated network: aggregated
 * rounds, round of latest data, round totals, round-party totals, rewards collected and the three
 * leaderboards. The closed rounds and their effective times are read here from the simulator's
 * ClosedMiningRound creates. The simulator claims no rewards and buys no traffic, so claims and purchases
 * are added as rows of the projection (app and validator rewards and traffic purchases, which count; SV
 * rewards, faucets and transfers, which do not), in closed rounds and in rounds not closed yet, before
 * the worker's job aggregates them. Every expected figure is summed here from those rows, in exact units.
 */
import { sql } from 'kysely';
import type { CreatedEvent, TransactionUpdate } from '../../../src/domain/items';
import { parseTimestamp, formatDateTime } from '../../../src/domain/time';
import { catchUpRoundAggregates, reportRoundAggregationGap } from '../../../src/jobs/round-aggregates';
import { createMetrics } from '../../../src/internal/metrics';
import { beginActivityBackfill } from '../../../src/store/activity-repository';
import { aggregateClosedRounds, findRoundAggregationGap } from '../../../src/store/round-aggregates-repository';
import { createLogger } from '../../../src/internal/logger';
import { useTestDatabase } from '../../support/database/database';
import { collectLogLines } from '../../support/logs/log-lines';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { ingestThroughWorker, simulatedItems } from '../../support/items/simulated-network';

const text = (x: bigint) => `${x / 10_000_000_000n}.${(x % 10_000_000_000n).toString().padStart(10, '0')}`;
const bytewise = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe('Scan round aggregates', () => {
  const t = useTestDatabase();
  const items = simulatedItems({ seed: 'round-aggregates', updates: 600, migrations: 1, meanUpdateGapMs: 60_000, tickSeconds: 600 });

  // The closed rounds, with the effective time of their ClosedMiningRound create.
  const closedAt = new Map<bigint, string>();
  for (const item of items) {
    const tx = item.update as TransactionUpdate | null;
    for (const ev of Object.values(tx?.events_by_id ?? {})) {
      const c = ev as CreatedEvent;
      if (c.event_type === 'created_event' && c.template_id.endsWith(':Splice.Round:ClosedMiningRound')) {
        const n = BigInt((c.create_arguments as { round: { number: string } }).round.number);
        closedAt.set(n, formatDateTime(parseTimestamp(tx!.effective_at)));
      }
    }
  }
  const rounds = [...closedAt.keys()].sort((a, b) => (a < b ? -1 : 1));
  const first = rounds[0]!;
  const last = rounds.at(-1)!;

  // Rows of the projection in rounds first..last+2; amounts in units of 1e-10, differing per row.
  const parties = ['carol::1220', 'alice::1220', 'bob::1220', 'Dave::1220'];
  const kinds = ['app_reward', 'validator_reward', 'traffic_purchase', 'sv_reward', 'validator_faucet', 'transfer'] as const;
  const rows = Array.from({ length: 90 }, (_, i) => ({
    kind: kinds[i % kinds.length]!,
    party: parties[(i * 7) % parties.length]!,
    round: first + BigInt((i * 5) % Number(last - first + 3n)),
    units: 1_234_567_891n * BigInt(i + 1) + 7n,
    traffic: BigInt(1000 + i),
  }));
  // A tie in app rewards at the newest round: two parties claim exactly the same, only once each.
  rows.push(
    { kind: 'app_reward', party: 'tie-a::1220', round: last, units: 99_000_000_000_000n, traffic: 0n },
    { kind: 'app_reward', party: 'tie-b::1220', round: last, units: 99_000_000_000_000n, traffic: 0n },
  );

  type Row = (typeof rows)[number];
  const upTo = (round: bigint) => rows.filter((r) => r.round <= round);
  const sum = (rs: Row[], kind: string) => rs.filter((r) => r.kind === kind).reduce((a, r) => a + r.units, 0n);
  const trafficOf = (rs: Row[]) => rs.filter((r) => r.kind === 'traffic_purchase');

  function expectedRoundTotals(round: bigint) {
    const at = rows.filter((r) => r.round === round);
    const before = upTo(round);
    return {
      closed_round: Number(round),
      closed_round_effective_at: closedAt.get(round),
      app_rewards: text(sum(at, 'app_reward')),
      validator_rewards: text(sum(at, 'validator_reward')),
      change_to_initial_amount_as_of_round_zero: '0.0000000000',
      change_to_holding_fees_rate: '0.0000000000',
      cumulative_app_rewards: text(sum(before, 'app_reward')),
      cumulative_validator_rewards: text(sum(before, 'validator_reward')),
      cumulative_change_to_initial_amount_as_of_round_zero: '0.0000000000',
      cumulative_change_to_holding_fees_rate: '0.0000000000',
      total_amulet_balance: '0.0000000000',
    };
  }

  function expectedPartyTotals(round: bigint) {
    const counted = (r: Row) => r.kind === 'app_reward' || r.kind === 'validator_reward' || r.kind === 'traffic_purchase';
    const active = [...new Set(rows.filter((r) => r.round === round && counted(r)).map((r) => r.party))].sort(bytewise);
    return active.map((party) => {
      const at = rows.filter((r) => r.round === round && r.party === party);
      const before = upTo(round).filter((r) => r.party === party);
      return {
        closed_round: Number(round),
        party,
        app_rewards: text(sum(at, 'app_reward')),
        validator_rewards: text(sum(at, 'validator_reward')),
        traffic_purchased: Number(trafficOf(at).reduce((a, r) => a + r.traffic, 0n)),
        traffic_purchased_cc_spent: text(sum(at, 'traffic_purchase')),
        traffic_num_purchases: trafficOf(at).length,
        cumulative_app_rewards: text(sum(before, 'app_reward')),
        cumulative_validator_rewards: text(sum(before, 'validator_reward')),
        cumulative_change_to_initial_amount_as_of_round_zero: '0.0000000000',
        cumulative_change_to_holding_fees_rate: '0.0000000000',
        cumulative_traffic_purchased: Number(trafficOf(before).reduce((a, r) => a + r.traffic, 0n)),
        cumulative_traffic_purchased_cc_spent: text(sum(before, 'traffic_purchase')),
        cumulative_traffic_num_purchases: trafficOf(before).length,
      };
    });
  }

  /** Parties by a running total as of the newest round: most first, ties by party descending. */
  function ranked(total: (rs: Row[]) => bigint): { party: string; total: bigint }[] {
    const all = [...new Set(rows.map((r) => r.party))].map((party) => ({
      party,
      total: total(upTo(last).filter((r) => r.party === party)),
    }));
    return all
      .filter((p) => p.total > 0n)
      .sort((a, b) => (a.total !== b.total ? (a.total > b.total ? -1 : 1) : -bytewise(a.party, b.party)));
  }

  let api: TestApi;
  const get = (path: string) => request(api.url, 'GET', `/api/scan${path}`);
  const post = (path: string, body: unknown) => request(api.url, 'POST', `/api/scan${path}`, body);

  beforeAll(async () => {
    await ingestThroughWorker(t, items);
    // The worker aggregated the closed rounds at the end of its source, before any claim existed.
    const aggregated = await t.pool.query<{ n: string }>('select count(*)::text as n from round_totals');
    expect(Number(aggregated.rows[0]!.n)).toBe(rounds.length);
    await t.pool.query('truncate round_totals, round_party_totals, round_party_latest');
    for (const [i, r] of rows.entries()) {
      await t.pool.query(
        `insert into activities (migration_id, record_time, update_id, node, kind, leg, party, round, amount, fees, counterparties, traffic)
         values (0, timestamptz '2025-01-01T00:00:00Z' + $1 * interval '1 minute', $2, 0, $3, 0, $4, $5, $6::numeric, 0, '{}', $7)`,
        [i, `row-${i}`, r.kind, r.party, r.round.toString(), text(r.units), r.kind === 'traffic_purchase' ? r.traffic.toString() : null],
      );
    }
    api = await startTestApi(t);
  });
  afterAll(async () => api?.close());

  it('has consecutive closed rounds, and counted rows in some of them and after them', () => {
    expect(rounds.length).toBeGreaterThan(3);
    expect(rounds).toEqual(rounds.map((_, i) => first + BigInt(i)));
    expect(rows.some((r) => r.round > last && r.kind === 'app_reward')).toBe(true);
  });

  it('answers 404 with Splice messages before any round is aggregated', async () => {
    const answers = await Promise.all([
      get('/v0/aggregated-rounds'),
      get('/v0/round-of-latest-data'),
      post('/v0/round-totals', { start_round: 0, end_round: 1 }),
      post('/v0/round-party-totals', { start_round: 0, end_round: 1 }),
      get('/v0/rewards-collected?round=0'),
      get('/v0/top-providers-by-app-rewards?round=0&limit=3'),
    ]);
    expect(answers.map((a) => [a.status, a.json])).toEqual([
      [404, { error: 'No aggregated rounds found' }],
      [404, { error: 'No data has been made available yet' }],
      [404, { error: 'No aggregated rounds found' }],
      [404, { error: 'No aggregated rounds found' }],
      [404, { error: 'No data has been made available yet' }],
      [404, { error: 'Data for round 0 not yet computed' }],
    ]);
    const ever = await get('/v0/rewards-collected');
    expect([ever.status, ever.json]).toEqual([200, { amount: '0.0000000000' }]);
  });

  it('the job aggregates every closed round, once', async () => {
    expect(await catchUpRoundAggregates(t.db, createLogger('silent'))).toBe(rounds.length);
    expect(await catchUpRoundAggregates(t.db, createLogger('silent'))).toBe(0);
  });

  it('aggregated-rounds and round-of-latest-data: the first and newest closed rounds', async () => {
    const range = await get('/v0/aggregated-rounds');
    expect([range.status, range.json]).toEqual([200, { start: Number(first), end: Number(last) }]);
    const latest = await get('/v0/round-of-latest-data');
    expect([latest.status, latest.json]).toEqual([200, { round: Number(last), effectiveAt: closedAt.get(last) }]);
  });

  it('round-totals: every closed round with its rewards and running totals', async () => {
    const res = await post('/v0/round-totals', { start_round: Number(first), end_round: Number(last) });
    expect([res.status, res.json]).toEqual([200, { entries: rounds.map(expectedRoundTotals) }]);
    expect(rounds.some((r) => expectedRoundTotals(r).app_rewards !== '0.0000000000')).toBe(true);
  });

  it('round-party-totals: per round, the parties with counted rows, bytewise', async () => {
    const res = await post('/v0/round-party-totals', { start_round: Number(first), end_round: Number(last) });
    const expected = rounds.flatMap(expectedPartyTotals);
    expect([res.status, res.json]).toEqual([200, { entries: expected }]);
    expect(expected.some((e) => e.traffic_num_purchases > 0)).toBe(true);
  });

  it('rewards-collected: one round, and every aggregated round', async () => {
    const ever = await get('/v0/rewards-collected');
    const all = upTo(last);
    expect([ever.status, ever.json]).toEqual([200, { amount: text(sum(all, 'app_reward') + sum(all, 'validator_reward')) }]);
    for (const round of [first, first + 1n, last]) {
      const at = rows.filter((r) => r.round === round);
      const res = await get(`/v0/rewards-collected?round=${round}`);
      expect([res.status, res.json]).toEqual([200, { amount: text(sum(at, 'app_reward') + sum(at, 'validator_reward')) }]);
    }
    const before = await get(`/v0/rewards-collected?round=${first - 5n}`);
    expect([before.status, before.json]).toEqual([200, { amount: '0.0000000000' }]);
    const later = await get(`/v0/rewards-collected?round=${last + 1n}`);
    expect([later.status, later.json]).toEqual([404, { error: 'No data has been made available yet' }]);
  });

  it('the leaderboards as of the newest round, most first, ties by party descending, at most limit', async () => {
    const app = ranked((rs) => sum(rs, 'app_reward'));
    expect(app.slice(0, 2).map((p) => p.party)).toEqual(['tie-b::1220', 'tie-a::1220']);
    const providers = await get(`/v0/top-providers-by-app-rewards?round=${last}&limit=3`);
    expect([providers.status, providers.json]).toEqual([
      200,
      { providersAndRewards: app.slice(0, 3).map((p) => ({ provider: p.party, rewards: text(p.total) })) },
    ]);
    const validator = ranked((rs) => sum(rs, 'validator_reward'));
    const validators = await get(`/v0/top-validators-by-validator-rewards?round=${last}&limit=100`);
    expect([validators.status, validators.json]).toEqual([
      200,
      { validatorsAndRewards: validator.map((p) => ({ provider: p.party, rewards: text(p.total) })) },
    ]);
    const traffic = ranked((rs) => trafficOf(rs).reduce((a, r) => a + r.traffic, 0n));
    const buyers = await get(`/v0/top-validators-by-purchased-traffic?round=${last}&limit=2`);
    expect([buyers.status, buyers.json]).toEqual([
      200,
      {
        validatorsByPurchasedTraffic: traffic.slice(0, 2).map((p) => {
          const bought = trafficOf(upTo(last)).filter((r) => r.party === p.party);
          return {
            validator: p.party,
            numPurchases: bought.length,
            totalTrafficPurchased: Number(p.total),
            totalCcSpent: text(bought.reduce((a, r) => a + r.units, 0n)),
            lastPurchasedInRound: Number(bought.reduce((a, r) => (r.round > a ? r.round : a), 0n)),
          };
        }),
      },
    ]);
  });

  it('the leaderboards answer 404 for other rounds and 400 for a bad limit, with Splice messages', async () => {
    const cases: [string, number, unknown][] = [
      [`/v0/top-providers-by-app-rewards?round=${last + 1n}&limit=3`, 404, { error: `Data for round ${last + 1n} not yet computed` }],
      [
        `/v0/top-providers-by-app-rewards?round=${last - 1n}&limit=3`,
        404,
        { error: `No top providers by app rewards found for round ${last - 1n}` },
      ],
      [`/v0/top-providers-by-app-rewards?round=${last}&limit=0`, 404, { error: `No top providers by app rewards found for round ${last}` }],
      [
        `/v0/top-validators-by-validator-rewards?round=${last - 1n}&limit=3`,
        404,
        { error: `No top validators by validator rewards found for round ${last - 1n}` },
      ],
      [
        `/v0/top-validators-by-purchased-traffic?round=${first}&limit=3`,
        404,
        { error: `No top validators by purchased traffic found for round ${first}` },
      ],
      [`/v0/top-providers-by-app-rewards?round=${last}&limit=-1`, 400, { error: 'limit must be an int32 of at least 0' }],
    ];
    for (const [path, status, body] of cases) {
      const res = await get(path);
      expect([path, res.status, res.json]).toEqual([path, status, body]);
    }
    for (const path of ['/v0/top-providers-by-app-rewards?round=1', '/v0/top-validators-by-purchased-traffic?limit=2&round=x']) {
      const res = await get(path);
      expect([path, res.status]).toEqual([path, 400]);
      expect(res.json).toEqual({ error: expect.any(String) });
    }
  });

  it('the round ranges answer 400 with Splice messages, in its order', async () => {
    const cases: [string, unknown, string][] = [
      ['/v0/round-totals', { start_round: -1, end_round: 3 }, 'rounds must be non-negative: start_round -1, end_round 3'],
      ['/v0/round-totals', { start_round: 5, end_round: 4 }, 'end_round 4 must be >= start_round 5'],
      ['/v0/round-totals', { start_round: 0, end_round: 200 }, 'Cannot request more than 200 rounds at a time'],
      ['/v0/round-party-totals', { start_round: 0, end_round: 50 }, 'Cannot request more than 50 rounds at a time'],
      [
        '/v0/round-totals',
        { start_round: Number(first), end_round: Number(last) + 1 },
        `Requested rounds range ${first}-${last + 1n} is outside of the available rounds range ${first}-${last}`,
      ],
    ];
    for (const [path, body, error] of cases) {
      const res = await post(path, body);
      expect([path, res.status, res.json]).toEqual([path, 400, { error }]);
    }
    const missing = await post('/v0/round-totals', { start_round: 0 });
    expect([missing.status, missing.json]).toEqual([400, { error: expect.any(String) }]);
  });

  // Last: it clears the aggregates. The backfill's start and each round's transaction share a lock, so a
  // round is summed either before the backfill begins (and cleared with it) or after it ends.
  it('the activity backfill clears the aggregated rounds, none is summed while it runs, and all are summed again after it', async () => {
    const backfill = await beginActivityBackfill(t.db);
    expect(backfill?.finished).toBe(false);
    const none = await get('/v0/aggregated-rounds');
    expect(none.status).toBe(404);
    expect(await aggregateClosedRounds(t.db, 10)).toEqual([]);
    await sql`update activity_backfill set finished_at = now()`.execute(t.db);
    expect(await catchUpRoundAggregates(t.db, createLogger('silent'))).toBe(rounds.length);
    const range = await get('/v0/aggregated-rounds');
    expect([range.status, range.json]).toEqual([200, { start: Number(first), end: Number(last) }]);
    const res = await post('/v0/round-totals', { start_round: Number(first), end_round: Number(last) });
    expect([res.status, res.json]).toEqual([200, { entries: rounds.map(expectedRoundTotals) }]);
  });

  // After the others: it hides a round's ClosedMiningRound, as a history with a gap would lack it.
  it('a gap in the closed rounds stops the aggregation at it, and the job says so once, with the gauge, until the round is ingested', async () => {
    expect(rounds.length).toBeGreaterThanOrEqual(4);
    const missing = rounds[2]!;
    const { lines, sink } = collectLogLines();
    const logger = createLogger('warn', 'scan-indexer', sink);
    const metrics = createMetrics({ processMetrics: false });
    const gauge = async () => (await metrics.roundAggregatesMissingRound.get()).values.map((v) => v.value);
    const warnings = () => lines.filter((l) => l.level === 40).map((l) => [l.missingRound, l.nextClosedRound]);

    // No gap while every round is aggregated.
    expect(await findRoundAggregationGap(t.db)).toBeUndefined();
    expect(await reportRoundAggregationGap(t.db, logger, metrics)).toBeUndefined();
    expect(await gauge()).toEqual([0]);

    // The aggregates of the rounds from the missing one on, and that round's ClosedMiningRound, are gone.
    await sql`delete from round_totals where closed_round >= ${missing.toString()}::bigint`.execute(t.db);
    await sql`delete from round_party_totals where closed_round >= ${missing.toString()}::bigint`.execute(t.db);
    const hide = (from: string, to: string) =>
      sql`update contracts set qualified_name = ${to} where qualified_name = ${from} and round_number = ${missing.toString()}::bigint`.execute(
        t.db,
      );
    await hide('Splice.Round:ClosedMiningRound', 'Test.Gap:HiddenClosedMiningRound');

    expect(await catchUpRoundAggregates(t.db, createLogger('silent'))).toBe(0);
    expect(await findRoundAggregationGap(t.db)).toEqual({ missing, nextClosed: rounds[3]! });
    const warned = await reportRoundAggregationGap(t.db, logger, metrics);
    expect(warned).toBe(missing);
    expect(await reportRoundAggregationGap(t.db, logger, metrics, warned)).toBe(missing);
    expect(warnings()).toEqual([[String(missing), String(rounds[3])]]);
    expect(await gauge()).toEqual([Number(missing)]);
    const latest = await get('/v0/round-of-latest-data');
    expect([latest.status, latest.json]).toEqual([200, { round: Number(rounds[1]), effectiveAt: closedAt.get(rounds[1]!) }]);

    // The round's contract ingested: the aggregation goes on past it, and the gauge falls back to 0.
    await hide('Test.Gap:HiddenClosedMiningRound', 'Splice.Round:ClosedMiningRound');
    expect(await catchUpRoundAggregates(t.db, createLogger('silent'))).toBe(rounds.length - 2);
    expect(await reportRoundAggregationGap(t.db, logger, metrics, warned)).toBeUndefined();
    expect(await gauge()).toEqual([0]);
    expect(warnings()).toHaveLength(1);
  });
});
