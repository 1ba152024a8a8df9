/**
 * GET /api/indexer/v0/network/daily-mint-burn and /series, /v0/leaderboards/rewards and /volume through the real HTTP server,
 * on a simulated network of two migrations over several days. Expected bodies are computed here from the
 * simulator's items by a walk of their trees written for this test (taps, and each transfer's outputs,
 * summary fees and the burn the simulator records in its result's `burned` metadata); the derivation in
 * src/domain is not called. The simulator claims no rewards, so reward claims are added as rows of the
 * projection, and the expected figures add the same rows. A series period's supply is expected to be what
 * GET /v0/network/supply answers at the period's last microsecond, asked separately for each period (its
 * own figures are checked against a model of the items in balances.test.ts). The DSO expires amulet in this
 * network (the simulator's amuletExpiry, V1 and V2 forms): each expiry burns the initial amount of the
 * amulet the items created, counted as the series' burned.expired.
 *
 * A second part checks the plans: on a history of several months, a short range reads an index range of
 * the activities' key in the range's partition only, never a sequential scan.
 */
import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import type { CanonicalItem, CreatedEvent, ExercisedEvent, TransactionUpdate } from '../../../src/domain/items';
import { formatDateTime, parseTimestamp } from '../../../src/domain/time';
import { catchUpSnapshots } from '../../../src/jobs/acs-snapshots';
import { catchUpHoldingTotals } from '../../../src/jobs/holding-totals';
import { HOLDING_TOTALS_REFRESH_OWNERS_DEFAULT } from '../../../src/internal/config';
import { ensureHistoryPartitions } from '../../../src/store/partitions';
import type { Database } from '../../../src/store/schema';
import {
  activePartiesPerPeriod,
  dailyActivitySums,
  periodActivitySums,
  rewardLeaders,
  volumeLeaders,
} from '../../../src/store/series-repository';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { ingestThroughWorker, simulatedItems } from '../../support/items/simulated-network';

const BURNED = 'splice.lfdecentralizedtrust.org/burned';
const units = (x: string) => {
  const [whole, fraction = ''] = x.split('.');
  return BigInt(whole!) * 10_000_000_000n + BigInt(fraction.padEnd(10, '0').slice(0, 10)) * (x.startsWith('-') ? -1n : 1n);
};
const text = (x: bigint) => `${x / 10_000_000_000n}.${(x % 10_000_000_000n).toString().padStart(10, '0')}`;

const MINTED = ['mint', 'tap', 'app_reward', 'validator_reward', 'sv_reward', 'validator_faucet'] as const;
type Minted = (typeof MINTED)[number];
interface DayFigures {
  minted: Record<Minted, bigint>;
  fees: bigint;
  holding: bigint;
  burned: bigint;
  transfers: number;
  volume: bigint;
}
const emptyDay = (): DayFigures => ({
  minted: { mint: 0n, tap: 0n, app_reward: 0n, validator_reward: 0n, sv_reward: 0n, validator_faucet: 0n },
  fees: 0n,
  holding: 0n,
  burned: 0n,
  transfers: 0,
  volume: 0n,
});

interface Claim {
  migration: number;
  time: string;
  party: string;
  kind: 'app_reward' | 'validator_reward' | 'sv_reward' | 'validator_faucet';
  amount: string;
}

const EXPIRES = /^(Amulet_Expire|LockedAmulet_ExpireAmulet)(V2)?$/;

/** Per UTC day (or hour, keyLength 13), the initial amounts of the amulets the DSO expired, read from the items' creates. */
function expiredByPeriod(items: CanonicalItem[], keyLength: number): Map<string, bigint> {
  const amounts = new Map<string, bigint>();
  const out = new Map<string, bigint>();
  for (const item of items) {
    const tx = item.update as TransactionUpdate | null;
    if (!tx || !('events_by_id' in tx)) continue;
    for (const e of Object.values(tx.events_by_id)) {
      if (e.event_type === 'created_event' && /:Splice\.Amulet:(Locked)?Amulet$/.test(e.template_id)) {
        const args = e.create_arguments as { amount?: { initialAmount: string }; amulet?: { amount: { initialAmount: string } } };
        amounts.set(`${tx.migration_id}/${e.contract_id}`, units((args.amulet ?? args).amount!.initialAmount));
      } else if (e.event_type === 'exercised_event' && EXPIRES.test(e.choice)) {
        const k = tx.record_time.slice(0, keyLength);
        out.set(k, (out.get(k) ?? 0n) + amounts.get(`${tx.migration_id}/${e.contract_id}`)!);
      }
    }
  }
  return out;
}

/** Per UTC day (or hour, keyLength 13), the figures of the items' taps and transfers, and of the claims. */
function figuresByDay(items: CanonicalItem[], claims: Claim[], keyLength = 10): Map<string, DayFigures> {
  const days = new Map<string, DayFigures>();
  const dayOf = (time: string) => {
    const day = time.slice(0, keyLength);
    let f = days.get(day);
    if (!f) days.set(day, (f = emptyDay()));
    return f;
  };
  for (const item of items) {
    const tx = item.update as TransactionUpdate | null;
    if (!tx || !('events_by_id' in tx) || tx.record_time.startsWith('0001-')) continue;
    for (const e of Object.values(tx.events_by_id)) {
      if (e.event_type !== 'exercised_event') continue;
      if (e.choice === 'AmuletRules_DevNet_Tap') {
        const mint = tx.events_by_id[e.child_event_ids[0]!] as ExercisedEvent;
        const amulet = mint.child_event_ids
          .map((id) => tx.events_by_id[id]!)
          .find((c): c is CreatedEvent => c.event_type === 'created_event')!;
        dayOf(tx.record_time).minted.tap += units((amulet.create_arguments as { amount: { initialAmount: string } }).amount.initialAmount);
      } else if (e.choice === 'AmuletRules_Transfer') {
        const arg = e.choice_argument as { transfer: { sender: string; outputs: { receiver: string; amount: string }[] } };
        const result = e.exercise_result as {
          summary: { outputFees: string[]; senderChangeFee: string; holdingFees: string };
          meta: { values: Record<string, string> };
        };
        const f = dayOf(tx.record_time);
        f.transfers += 1;
        for (const o of arg.transfer.outputs) if (o.receiver !== arg.transfer.sender) f.volume += units(o.amount);
        for (const fee of [...result.summary.outputFees, result.summary.senderChangeFee]) f.fees += units(fee);
        f.holding += units(result.summary.holdingFees);
        f.burned += units(result.meta.values[BURNED]!);
      }
    }
  }
  for (const c of claims) dayOf(c.time).minted[c.kind] += units(c.amount);
  return days;
}

function expectedDaily(byDay: Map<string, DayFigures>, from: string, to: string) {
  const out = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t < Date.parse(`${to}T00:00:00Z`); t += 86_400_000) {
    const day = new Date(t).toISOString().slice(0, 10);
    const f = byDay.get(day) ?? emptyDay();
    out.push({
      day,
      minted: {
        total: text(MINTED.reduce((a, k) => a + f.minted[k], 0n)),
        ...Object.fromEntries(MINTED.map((k) => [k, text(f.minted[k])])),
      },
      burned: { total: text(f.burned), fees: text(f.fees), holding_fees: text(f.holding), traffic: text(0n) },
      transfers: f.transfers,
      transfer_volume: text(f.volume),
    });
  }
  return { days: out };
}

describe('network time series and reward leaderboards', () => {
  const t = useTestDatabase();
  // About four days, in two migrations; two-hour round ticks leave most updates to transfers and taps.
  const items = simulatedItems({
    seed: 'series',
    updates: 2000,
    migrations: 2,
    meanUpdateGapMs: 150_000,
    tickSeconds: 7200,
    amuletExpiry: true,
    tokenStandardV2: true,
  });
  const times = items
    .map((i) => (i.update as { record_time?: string } | null)?.record_time)
    .filter((x): x is string => x !== undefined && !x.startsWith('0001-'))
    .sort();
  const firstDay = times[0]!.slice(0, 10);
  const lastDay = times[times.length - 1]!.slice(0, 10);
  const dayAfter = (day: string, n = 1) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
  // Reward claims, spread over the network's days, with amounts that differ per party.
  const kinds = ['app_reward', 'validator_reward', 'sv_reward', 'validator_faucet'] as const;
  const claims: Claim[] = Array.from({ length: 60 }, (_, i) => ({
    migration: i % 2,
    time: new Date(Date.parse(`${firstDay}T01:00:00Z`) + i * 5_400_000 + 17).toISOString().replace('Z', '000Z'),
    party: `leader${i % 7}::1220`,
    kind: kinds[i % 4]!,
    amount: `${((i * 37) % 11) + 1}.${String(i * 1234567).slice(0, 10)}`,
  }));
  let api: TestApi;
  const get = (path: string) => request(api.url, 'GET', `/api/indexer${path}`);

  beforeAll(async () => {
    await ingestThroughWorker(t, items);
    // The ACS snapshots, which the supply at a period's end starts from.
    await catchUpSnapshots(t.db);
    await catchUpHoldingTotals(t.db, HOLDING_TOTALS_REFRESH_OWNERS_DEFAULT);
    for (const [i, c] of claims.entries()) {
      await t.pool.query(
        `insert into activities (migration_id, record_time, update_id, node, kind, leg, party, round, amount, fees, counterparties)
         values ($1, $2::timestamptz, $3, 0, $4, 0, $5, 1, $6::numeric, 0, '{}')`,
        [c.migration, c.time, `claim-${i}`, c.kind, c.party, c.amount],
      );
    }
    for (const [i, a] of ansFees.entries()) {
      await t.pool.query(
        `insert into activities (migration_id, record_time, update_id, node, kind, leg, party, amount, fees, burned, counterparties)
         values ($1, $2::timestamptz, $3, 0, 'ans_entry', 0, $4, $5::numeric, 0, $5::numeric, '{dso::1220}'),
                ($1, $2::timestamptz, $3, 0, 'ans_entry', 1, 'dso::1220', $5::numeric, 0, null, array[$4])`,
        [a.migration, a.time, `ans-${i}`, a.user, a.fee],
      );
    }
    api = await startTestApi(t);
  }, 300_000);
  afterAll(async () => api?.close());

  it('has a dataset worth testing', () => {
    expect(lastDay > dayAfter(firstDay, 2)).toBe(true);
    const byDay = figuresByDay(items, []);
    expect([...byDay.values()].filter((f) => f.transfers > 0).length).toBeGreaterThan(3);
    expect([...byDay.values()].some((f) => f.minted.tap > 0n)).toBe(true);
  });

  it('sums mint, burn, fees and transfers per UTC day over the whole network, days without activity included', async () => {
    const from = dayAfter(firstDay, -2);
    const to = dayAfter(lastDay, 2);
    const res = await get(`/v0/network/daily-mint-burn?from=${from}&to=${to}`);
    expect({ status: res.status, body: res.json }).toEqual({ status: 200, body: expectedDaily(figuresByDay(items, claims), from, to) });
    const body = res.json as { days: { burned: { total: string; fees: string; holding_fees: string } }[] };
    expect(body.days[0]!.burned.total).toBe('0.0000000000');
  });

  it('answers one day', async () => {
    const day = dayAfter(firstDay);
    const res = await get(`/v0/network/daily-mint-burn?from=${day}&to=${dayAfter(day)}`);
    expect(res.json).toEqual(expectedDaily(figuresByDay(items, claims), day, dayAfter(day)));
  });

  it('ranks the parties by each reward over a window', async () => {
    const from = claims[10]!.time;
    const to = claims[50]!.time;
    for (const reward of ['app', 'validator', 'sv', 'validator_faucet'] as const) {
      const kind = reward === 'validator_faucet' ? reward : (`${reward}_reward` as const);
      const sums = new Map<string, { amount: bigint; claims: number }>();
      for (const c of claims.filter((c) => c.kind === kind && c.time >= from && c.time < to)) {
        const s = sums.get(c.party) ?? { amount: 0n, claims: 0 };
        sums.set(c.party, { amount: s.amount + units(c.amount), claims: s.claims + 1 });
      }
      const ranked = [...sums]
        .sort((a, b) => (a[1].amount === b[1].amount ? (a[0] < b[0] ? -1 : 1) : a[1].amount > b[1].amount ? -1 : 1))
        .map(([party, s], i) => ({ rank: i + 1, party, amount: text(s.amount), claims: s.claims }));
      expect(ranked.length).toBeGreaterThan(2);
      const q = (limit: string) => `?reward=${reward}&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}${limit}`;
      const res = await get(`/v0/leaderboards/rewards${q('')}`);
      const window = { reward, from: from.replace(/\.?0+Z$/, 'Z'), to: to.replace(/\.?0+Z$/, 'Z') };
      expect({ status: res.status, body: res.json }).toEqual({ status: 200, body: { ...window, leaders: ranked } });
      const top2 = await get(`/v0/leaderboards/rewards${q('&limit=2')}`);
      expect(top2.json).toEqual({ ...window, leaders: ranked.slice(0, 2) });
    }
  });

  it('ranks the parties by transfer volume, sent to others plus received, over a window', async () => {
    // A window in the middle of the network's days, at instants that are no day boundaries.
    const from = times[Math.floor(times.length / 4)]!;
    const to = times[Math.floor((times.length * 3) / 4)]!;
    const sums = new Map<string, { sent: bigint; received: bigint; transfers: number }>();
    const of = (party: string) => {
      let s = sums.get(party);
      if (!s) sums.set(party, (s = { sent: 0n, received: 0n, transfers: 0 }));
      return s;
    };
    for (const item of items) {
      const tx = item.update as TransactionUpdate | null;
      if (!tx || !('events_by_id' in tx) || tx.record_time < from || tx.record_time >= to) continue;
      for (const e of Object.values(tx.events_by_id)) {
        if (e.event_type !== 'exercised_event' || e.choice !== 'AmuletRules_Transfer') continue;
        const { sender, outputs } = (e.choice_argument as { transfer: { sender: string; outputs: { receiver: string; amount: string }[] } })
          .transfer;
        of(sender).transfers += 1;
        for (const o of outputs.filter((o) => o.receiver !== sender)) {
          of(sender).sent += units(o.amount);
          of(o.receiver).received += units(o.amount);
        }
        for (const r of new Set(outputs.map((o) => o.receiver).filter((r) => r !== sender))) of(r).transfers += 1;
      }
    }
    const ranked = [...sums]
      .map(([party, s]) => ({ party, volume: s.sent + s.received, ...s }))
      .sort((a, b) => (a.volume === b.volume ? (a.party < b.party ? -1 : 1) : a.volume > b.volume ? -1 : 1))
      .map((s, i) => ({
        rank: i + 1,
        party: s.party,
        volume: text(s.volume),
        sent: text(s.sent),
        received: text(s.received),
        transfers: s.transfers,
      }));
    expect(ranked.length).toBeGreaterThan(3);
    const window = { from: from.replace(/\.?0+Z$/, 'Z'), to: to.replace(/\.?0+Z$/, 'Z') };
    const q = `?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
    const res = await get(`/v0/leaderboards/volume${q}&limit=100`);
    expect({ status: res.status, body: res.json }).toEqual({ status: 200, body: { ...window, leaders: ranked.slice(0, 100) } });
    const top3 = await get(`/v0/leaderboards/volume${q}&limit=3`);
    expect(top3.json).toEqual({ ...window, leaders: ranked.slice(0, 3) });
  });

  // ANS entry fees: the simulator makes no ANS entries, so rows of the projection are added (see beforeAll).
  const ansFees = Array.from({ length: 5 }, (_, i) => ({
    migration: 1,
    time: new Date(Date.parse(`${dayAfter(firstDay)}T03:00:00Z`) + i * 2_700_000 + 31).toISOString().replace('Z', '000Z'),
    user: `ansuser${i % 2}::1220`,
    fee: `${i + 1}.25`,
  }));

  /**
   * The supply at a period's end (its last microsecond) as GET /v0/network/supply answers it there, without
   * the flows since the snapshot and the cumulative ones; null before every migration.
   */
  async function supplyAtEnd(end: bigint) {
    const res = await get(`/v0/network/supply?at=${encodeURIComponent(formatDateTime(end))}`);
    expect(res.status).toBe(200);
    const {
      since_snapshot: _flows,
      cumulative: _cumulative,
      ...figures
    } = res.json as {
      at: string;
      migration_id: number | null;
      snapshot: string | null;
      unlocked: string;
      locked: string;
      total: string;
      since_snapshot: unknown;
      cumulative: unknown;
    };
    return figures.migration_id === null ? null : figures;
  }

  /** The expected series: the daily model keyed by day or hour, the ANS fees, the active parties and the supply. */
  async function expectedSeries(interval: 'day' | 'hour', from: string, to: string) {
    const keyLength = interval === 'day' ? 10 : 13;
    const step = interval === 'day' ? 86_400_000 : 3_600_000;
    const byKey = figuresByDay(items, claims, keyLength);
    const expired = expiredByPeriod(items, keyLength);
    const ans = new Map<string, bigint>();
    const addAns = (time: string, fee: bigint) => ans.set(time.slice(0, keyLength), (ans.get(time.slice(0, keyLength)) ?? 0n) + fee);
    for (const a of ansFees) addAns(a.time, units(a.fee));
    // The simulator's ANS entry payments: the DSO burns what the payment's transfer sent it.
    for (const item of items) {
      const tx = item.update as TransactionUpdate | null;
      if (!tx || !('events_by_id' in tx)) continue;
      for (const e of Object.values(tx.events_by_id)) {
        if (e.event_type !== 'exercised_event' || !/^AnsRules_Collect(InitialEntry|EntryRenewal)Payment$/.test(e.choice)) continue;
        const stack = [...e.child_event_ids];
        while (stack.length > 0) {
          const c = tx.events_by_id[stack.pop()!]!;
          if (c.event_type !== 'exercised_event') continue;
          stack.push(...c.child_event_ids);
          if (c.choice !== 'AmuletRules_Transfer') continue;
          const { outputs } = (c.choice_argument as { transfer: { outputs: { amount: string }[] } }).transfer;
          addAns(
            tx.record_time,
            outputs.reduce((x, o) => x + units(o.amount), 0n),
          );
        }
      }
    }
    // Every row of the projection (written by the worker or added here), bucketed here.
    const { rows } = await t.pool.query<{ t: string; party: string }>(
      `select to_char(record_time at time zone 'UTC', 'YYYY-MM-DD"T"HH24') as t, party from activities`,
    );
    const parties = new Map<string, Set<string>>();
    for (const r of rows) {
      const k = r.t.slice(0, keyLength);
      if (!parties.has(k)) parties.set(k, new Set());
      parties.get(k)!.add(r.party);
    }
    const periods = [];
    for (let ms = Date.parse(from); ms < Date.parse(to); ms += step) {
      const start = new Date(ms).toISOString().replace('.000Z', 'Z');
      const k = start.slice(0, keyLength);
      const f = byKey.get(k) ?? emptyDay();
      const a = ans.get(k) ?? 0n;
      const x = expired.get(k) ?? 0n;
      periods.push({
        start,
        minted: {
          total: text(MINTED.reduce((x, m) => x + f.minted[m], 0n)),
          ...Object.fromEntries(MINTED.map((m) => [m, text(f.minted[m])])),
        },
        burned: {
          total: text(f.burned + a + x),
          fees: text(f.fees),
          holding_fees: text(f.holding),
          traffic: text(0n),
          ans: text(a),
          expired: text(x),
        },
        transfers: f.transfers,
        transfer_volume: text(f.volume),
        active_parties: parties.get(k)?.size ?? 0,
        supply: await supplyAtEnd(parseTimestamp(start) + BigInt(step) * 1000n - 1n),
      });
    }
    return { interval, from, to, periods };
  }

  it('gives the series by day, ANS fees and active parties included', async () => {
    const from = `${dayAfter(firstDay, -1)}T00:00:00Z`;
    const to = `${dayAfter(lastDay, 1)}T00:00:00Z`;
    const res = await get(`/v0/network/series?interval=day&from=${from}&to=${to}`);
    const expected = await expectedSeries('day', from, to);
    expect(expected.periods.some((p) => p.burned.ans !== '0.0000000000' && p.active_parties > 3)).toBe(true);
    expect(expected.periods.filter((p) => p.burned.expired !== '0.0000000000').length).toBeGreaterThan(2);
    // The first day ends before the first migration; later days end in either migration, on no snapshot.
    expect(expected.periods[0]!.supply).toBeNull();
    expect(new Set(expected.periods.map((p) => p.supply?.migration_id ?? null))).toEqual(new Set([null, 0, 1]));
    expect(new Set(expected.periods.map((p) => p.supply?.total)).size).toBeGreaterThan(3);
    expect({ status: res.status, body: res.json }).toEqual({ status: 200, body: expected });
  });

  it('gives the series by hour', async () => {
    const from = `${dayAfter(firstDay)}T00:00:00Z`;
    const to = `${dayAfter(firstDay, 3)}T00:00:00Z`;
    const res = await get(`/v0/network/series?interval=hour&from=${from}&to=${to}`);
    const expected = await expectedSeries('hour', from, to);
    expect(expected.periods.length).toBe(48);
    expect(expected.periods.filter((p) => p.transfers > 0).length).toBeGreaterThan(20);
    // The hours cross from migration 0 into 1, the first hours of 1 before its first snapshot.
    expect(new Set(expected.periods.map((p) => p.supply?.migration_id))).toEqual(new Set([0, 1]));
    expect(expected.periods.some((p) => p.supply?.migration_id === 1 && p.supply.snapshot === null)).toBe(true);
    expect({ status: res.status, body: res.json }).toEqual({ status: 200, body: expected });
  });

  it("gives the supply at each hour's end from before the first migration", async () => {
    const from = `${dayAfter(firstDay, -1)}T18:00:00Z`;
    const to = `${dayAfter(firstDay)}T00:00:00Z`;
    const res = await get(`/v0/network/series?interval=hour&from=${from}&to=${to}`);
    const expected = await expectedSeries('hour', from, to);
    expect(expected.periods[0]!.supply).toBeNull();
    expect(expected.periods.some((p) => p.supply?.migration_id === 0 && p.supply.snapshot === null)).toBe(true);
    expect(expected.periods.some((p) => p.supply?.migration_id === 0 && p.supply.snapshot !== null)).toBe(true);
    expect({ status: res.status, body: res.json }).toEqual({ status: 200, body: expected });
  });

  it('answers client mistakes with the Scan error body', async () => {
    const cases: [string, string][] = [
      ['/v0/network/daily-mint-burn?from=2025-01-05&to=2025-01-05', 'Invalid range: to must be after from.'],
      ['/v0/network/daily-mint-burn?from=2025-01-01&to=2025-06-01', 'Invalid range: at most 92 days.'],
      ['/v0/network/daily-mint-burn?from=2025-02-30&to=2025-03-02', "Invalid from: '2025-02-30' is no date."],
      [
        '/v0/leaderboards/rewards?reward=app&from=yesterday&to=2025-01-02T00:00:00Z',
        "Invalid from: expected an ISO 8601 date-time with a zone, got 'yesterday'.",
      ],
      ['/v0/leaderboards/volume?from=2025-01-02T00:00:00Z&to=2025-01-01T00:00:00Z', 'Invalid range: to must be after from.'],
      [
        '/v0/network/series?interval=day&from=2025-01-01T01:00:00Z&to=2025-01-03T00:00:00Z',
        'Invalid from: not the first instant of a UTC day.',
      ],
      [
        '/v0/network/series?interval=hour&from=2025-01-01T00:00:00Z&to=2025-01-01T01:30:00Z',
        'Invalid to: not the first instant of a UTC hour.',
      ],
      ['/v0/network/series?interval=hour&from=2025-01-01T00:00:00Z&to=2025-02-02T00:00:00Z', 'Invalid range: at most 31 days by hour.'],
      ['/v0/network/series?interval=day&from=2025-01-01T00:00:00Z&to=2025-06-01T00:00:00Z', 'Invalid range: at most 92 days.'],
      ['/v0/network/series?interval=day&from=2025-01-02T00:00:00Z&to=2025-01-02T00:00:00Z', 'Invalid range: to must be after from.'],
      ['/v0/leaderboards/volume?from=2025-01-01T00:00:00Z&to=2025-06-01T00:00:00Z', 'Invalid range: at most 92 days.'],
    ];
    for (const [path, error] of cases) {
      const res = await get(path);
      expect({ status: res.status, body: res.json }).toEqual({ status: 400, body: { error } });
    }
    for (const path of [
      '/v0/network/daily-mint-burn?from=2025-01-01',
      '/v0/network/daily-mint-burn?from=20250101&to=2025-01-02',
      '/v0/leaderboards/rewards?reward=gift&from=2025-01-01T00:00:00Z&to=2025-01-02T00:00:00Z',
      '/v0/leaderboards/rewards?reward=app&from=2025-01-01T00:00:00Z&to=2025-01-02T00:00:00Z&limit=101',
      '/v0/leaderboards/volume?from=2025-01-01T00:00:00Z&to=2025-01-02T00:00:00Z&limit=0',
      '/v0/leaderboards/volume?to=2025-01-02T00:00:00Z',
      '/v0/network/series?interval=week&from=2025-01-01T00:00:00Z&to=2025-01-02T00:00:00Z',
      '/v0/network/series?from=2025-01-01T00:00:00Z&to=2025-01-02T00:00:00Z',
    ]) {
      expect((await get(path)).status).toBe(400);
    }
  });
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

describe('the series read an index range of the range partitions only', () => {
  const t = useTestDatabase();

  beforeAll(async () => {
    // Six months of activities in migration 0, one a minute.
    const months = ['2025-01', '2025-02', '2025-03', '2025-04', '2025-05', '2025-06'];
    await ensureHistoryPartitions(
      t.db,
      months.map((m) => ({ migrationId: 0, recordTime: parseTimestamp(`${m}-01T00:00:00Z`) })),
    );
    await t.pool.query('insert into migrations (migration_id) values (0) on conflict do nothing');
    await t.pool.query(
      `insert into activities (migration_id, record_time, update_id, node, kind, leg, party, round, amount, fees, holding_fees, burned, counterparties)
       select 0, timestamptz '2025-01-01' + i * interval '1 minute', 'u' || i, 0,
         (array['transfer', 'app_reward', 'tap', 'validator_reward'])[1 + i % 4], 0, 'p' || (i % 50) || '::1220', 1, 1, 0.1, 0.01, 0.2, '{}'
       from generate_series(0, 260000) i`,
    );
    await t.pool.query('vacuum analyze activities');
  }, 120_000);

  async function plansOf(run: (db: Kysely<Database>) => Promise<unknown>): Promise<PlanNode[]> {
    const captured: CompiledQuery[] = [];
    const db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: t.pool }),
      log: (e) => void (e.level === 'query' && captured.push(e.query)),
    });
    await run(db);
    const query = captured.find((q) => q.sql.includes('from activities'))!;
    const { rows } = await t.pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`explain (format json) ${query.sql}`, [
      ...query.parameters,
    ]);
    const nodes: PlanNode[] = [];
    const walk = (n: PlanNode) => {
      nodes.push(n);
      n.Plans?.forEach(walk);
    };
    walk(rows[0]!['QUERY PLAN'][0].Plan);
    return nodes;
  }

  it.each([
    [
      'daily sums',
      (db: Kysely<Database>) => dailyActivitySums(db, parseTimestamp('2025-03-10T00:00:00Z'), parseTimestamp('2025-03-12T00:00:00Z')),
    ],
    [
      'a leaderboard',
      (db: Kysely<Database>) =>
        rewardLeaders(db, ['app_reward'], parseTimestamp('2025-03-10T00:00:00Z'), parseTimestamp('2025-03-12T00:00:00Z'), 10),
    ],
    [
      'the volume leaderboard',
      (db: Kysely<Database>) => volumeLeaders(db, parseTimestamp('2025-03-10T00:00:00Z'), parseTimestamp('2025-03-12T00:00:00Z'), 10),
    ],
    [
      'hourly sums',
      (db: Kysely<Database>) =>
        periodActivitySums(db, 'hour', parseTimestamp('2025-03-10T00:00:00Z'), parseTimestamp('2025-03-12T00:00:00Z')),
    ],
    [
      'active parties',
      (db: Kysely<Database>) =>
        activePartiesPerPeriod(db, 'day', parseTimestamp('2025-03-10T00:00:00Z'), parseTimestamp('2025-03-12T00:00:00Z')),
    ],
  ])('%s', async (_name, run) => {
    const nodes = await plansOf(run);
    const scans = nodes.filter((n) => n['Relation Name'] !== undefined);
    expect(scans.map((n) => n['Relation Name'])).toEqual(['activities_m0_p202503']);
    expect(scans.map((n) => n['Node Type']).filter((type) => !/^(Bitmap Heap|Index|Index Only) Scan$/.test(type))).toEqual([]);
    // The range is an index condition (of the index scan, or of the bitmap's index scan).
    expect(nodes.some((n) => /Index/.test(n['Node Type']) && /record_time >=/.test(n['Index Cond'] ?? ''))).toBe(true);
  });
});
