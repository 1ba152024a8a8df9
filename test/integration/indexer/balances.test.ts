/**
 * Balances and supply at any instant (GET /api/indexer/v0/parties/{party}/balance, …/balances/daily,
 * /v0/network/supply) through the real HTTP server, on a simulated network of two migrations with its
 * ACS snapshots announced. The expected bodies come from a model of the simulator's items written for
 * this test: every Amulet and LockedAmulet created and archived, with its record times, the open
 * mining rounds, and the fee rule min(amount, (R - created round) x rate) in exact integers; taps and
 * the transfers' `burned` metadata for the flows; the amulets the DSO expires (the simulator's amuletExpiry),
 * burned at the initial amount of their create. Neither the contracts table nor the derivation in
 * src/domain is read for an expected value.
 */
import { catchUpSnapshots } from '../../../src/jobs/acs-snapshots';
import { catchUpHoldingTotals } from '../../../src/jobs/holding-totals';
import { HOLDING_TOTALS_REFRESH_OWNERS_DEFAULT } from '../../../src/internal/config';
import type { CanonicalItem, TransactionUpdate } from '../../../src/domain/items';
import { formatDateTime, parseTimestamp } from '../../../src/domain/time';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { ingestThroughWorker, simulatedItems } from '../../support/items/simulated-network';

const UNIT = 10_000_000_000n;
const units = (x: string) => {
  const negative = x.startsWith('-');
  const [whole, fraction = ''] = x.replace('-', '').split('.');
  const v = BigInt(whole!) * UNIT + BigInt(fraction.padEnd(10, '0').slice(0, 10));
  return negative ? -v : v;
};
const text = (x: bigint) => {
  const abs = x < 0n ? -x : x;
  return `${x < 0n ? '-' : ''}${abs / UNIT}.${(abs % UNIT).toString().padStart(10, '0')}`;
};
const BURNED = 'splice.lfdecentralizedtrust.org/burned';

/** Microseconds since the epoch of a record time; imports (year 1) come before everything. */
const micros = (time: string) => parseTimestamp(time);

interface Holding {
  migration: number;
  cid: string;
  owner: string;
  amount: bigint;
  round: bigint;
  rate: bigint;
  locked: boolean;
  created: bigint;
  archived: bigint | null;
}

interface Round {
  migration: number;
  cid: string;
  round: bigint;
  created: bigint;
  archived: bigint | null;
}

interface Model {
  holdings: Holding[];
  rounds: Round[];
  /** First non-import record time per migration. */
  firsts: Map<number, bigint>;
  /**
   * Per migration: taps (minted) and burns by record time: transfers' (with the holding fees among them)
   * and ANS entry fees, and expired amulet.
   */
  flows: { migration: number; time: bigint; minted: bigint; burned: bigint; holdingFees: bigint; ans: bigint; expired: bigint }[];
  /** Rounds that started issuing (an IssuingMiningRound created live), with what the issuance curve let them issue. */
  issuing: { migration: number; time: bigint; allowed: bigint }[];
}

const YEAR_MICROS = 365n * 86_400n * 1_000_000n;
/** Daml Decimal division: a / b rounded half-even to 10 digits, both in units of 1e-10. */
function damlDivide(a: bigint, b: bigint): bigint {
  const n = a * UNIT;
  const q = n / b;
  const r = n % b;
  const twice = 2n * (r < 0n ? -r : r);
  const abs = b < 0n ? -b : b;
  if (twice > abs || (twice === abs && q % 2n !== 0n)) return q + (n < 0n !== b < 0n ? -1n : 1n);
  return q;
}
/** Splice.Issuance: amuletsToIssueInRound = amuletToIssuePerYear / (365 days / tickDuration), in Decimal steps. */
const roundAllowance = (perYear: bigint, tickMicros: bigint) => damlDivide(perYear, damlDivide(YEAR_MICROS * UNIT, tickMicros * UNIT));

function modelOf(items: CanonicalItem[]): Model {
  const holdings = new Map<string, Holding>();
  const rounds = new Map<string, Round>();
  const firsts = new Map<number, bigint>();
  const flows: Model['flows'] = [];
  const issuing: Model['issuing'] = [];
  /** SummarizingMiningRound configurations by migration and contract id (imported ones too). */
  const summarizing = new Map<string, { perYear: bigint; tick: bigint }>();
  for (const item of items) {
    const tx = item.update as TransactionUpdate | null;
    if (!tx || !('events_by_id' in tx)) continue;
    const m = tx.migration_id;
    const time = micros(tx.record_time);
    const imported = tx.record_time.startsWith('0001-');
    if (!imported && (!firsts.has(m) || firsts.get(m)! > time)) firsts.set(m, time);
    for (const e of Object.values(tx.events_by_id)) {
      const key = `${m}/${e.contract_id}`;
      if (e.event_type === 'created_event') {
        const args = e.create_arguments as Record<string, unknown>;
        if (e.template_id.endsWith(':Splice.Amulet:Amulet') || e.template_id.endsWith(':Splice.Amulet:LockedAmulet')) {
          const locked = e.template_id.endsWith(':LockedAmulet');
          const a = (locked ? args.amulet : args) as {
            owner: string;
            amount: { initialAmount: string; createdAt: { number: string }; ratePerRound: { rate: string } };
          };
          holdings.set(key, {
            migration: m,
            cid: e.contract_id,
            owner: a.owner,
            amount: units(a.amount.initialAmount),
            round: BigInt(a.amount.createdAt.number),
            rate: units(a.amount.ratePerRound.rate),
            locked,
            created: time,
            archived: null,
          });
        } else if (e.template_id.endsWith(':Splice.Round:OpenMiningRound')) {
          const r = (args as { round: { number: string } }).round;
          rounds.set(key, { migration: m, cid: e.contract_id, round: BigInt(r.number), created: time, archived: null });
        } else if (e.template_id.endsWith(':Splice.Round:SummarizingMiningRound')) {
          const a = args as { issuanceConfig: { amuletToIssuePerYear: string }; tickDuration: { microseconds: string } };
          summarizing.set(key, { perYear: units(a.issuanceConfig.amuletToIssuePerYear), tick: BigInt(a.tickDuration.microseconds) });
        } else if (e.template_id.endsWith(':Splice.Round:IssuingMiningRound') && !imported) {
          // Its configuration is the summarizing round the same transaction archives.
          const consumed = Object.values(tx.events_by_id).flatMap((x) =>
            x.event_type === 'exercised_event' && x.consuming && summarizing.has(`${m}/${x.contract_id}`) ? [x.contract_id] : [],
          );
          expect(consumed.length).toBe(1);
          const c = summarizing.get(`${m}/${consumed[0]}`)!;
          issuing.push({ migration: m, time, allowed: roundAllowance(c.perYear, c.tick) });
        }
      } else if (e.consuming) {
        const h = holdings.get(key) ?? rounds.get(key);
        if (h) h.archived = time;
      }
      if (e.event_type === 'exercised_event' && !imported) {
        if (e.choice === 'AmuletRules_DevNet_Tap') {
          const mint = tx.events_by_id[e.child_event_ids[0]!]!;
          const created = mint.event_type === 'exercised_event' ? mint.child_event_ids.map((id) => tx.events_by_id[id]!) : [];
          for (const c of created) {
            if (c.event_type === 'created_event' && c.template_id.endsWith(':Splice.Amulet:Amulet')) {
              const amount = (c.create_arguments as { amount: { initialAmount: string } }).amount.initialAmount;
              flows.push({ migration: m, time, minted: units(amount), burned: 0n, holdingFees: 0n, ans: 0n, expired: 0n });
            }
          }
        } else if (e.choice === 'AmuletRules_Transfer') {
          const result = e.exercise_result as { meta?: { values: Record<string, string> }; summary: { holdingFees: string } };
          const holdingFees = units(result.summary.holdingFees);
          flows.push({ migration: m, time, minted: 0n, burned: units(result.meta!.values[BURNED]!), holdingFees, ans: 0n, expired: 0n });
        } else if (/^(Amulet_Expire|LockedAmulet_ExpireAmulet)(V2)?$/.test(e.choice)) {
          // The DSO expires the amulet: what leaves the supply is its initial amount, as the items created it.
          const amount = holdings.get(key)!.amount;
          flows.push({ migration: m, time, minted: 0n, burned: amount, holdingFees: 0n, ans: 0n, expired: amount });
        } else if (e.choice === 'AnsRules_CollectInitialEntryPayment' || e.choice === 'AnsRules_CollectEntryRenewalPayment') {
          // The ANS fee: the amulets the DSO receives under the collection and archives there (burns).
          const created = new Map<string, bigint>();
          const consumed = new Set<string>();
          const walk = (id: string): void => {
            const n = tx.events_by_id[id]!;
            if (n.event_type === 'created_event') {
              if (n.template_id.endsWith(':Splice.Amulet:Amulet')) {
                created.set(n.contract_id, units((n.create_arguments as { amount: { initialAmount: string } }).amount.initialAmount));
              }
              return;
            }
            if (n.consuming) consumed.add(n.contract_id);
            n.child_event_ids.forEach(walk);
          };
          e.child_event_ids.forEach(walk);
          const burned = [...created].filter(([cid]) => consumed.has(cid)).reduce((a, [, amount]) => a + amount, 0n);
          flows.push({ migration: m, time, minted: 0n, burned, holdingFees: 0n, ans: burned, expired: 0n });
        }
      }
    }
  }
  return { holdings: [...holdings.values()], rounds: [...rounds.values()], firsts, flows, issuing };
}

const fee = (h: Holding, r: bigint) => {
  const accrued = (r - h.round) * h.rate;
  return accrued < h.amount ? accrued : h.amount;
};

/** The migration an instant reads: the newest begun by then. */
function migrationOf(model: Model, at: bigint): number | undefined {
  let found: number | undefined;
  for (const [m, first] of model.firsts) if (first <= at && (found === undefined || m > found)) found = m;
  return found;
}

const alive = (x: { created: bigint; archived: bigint | null }, at: bigint) => x.created <= at && (x.archived === null || x.archived > at);

function openRound(model: Model, m: number, at: bigint): bigint | undefined {
  const open = model.rounds.filter((r) => r.migration === m && alive(r, at)).map((r) => r.round);
  return open.length === 0 ? undefined : open.reduce((a, b) => (a < b ? a : b));
}

/** The cumulative figures at an instant of migration m: every earlier migration, and m up to the instant. */
function expectedCumulative(model: Model, m: number, at: bigint) {
  const upTo = (x: { migration: number; time: bigint }) => x.migration < m || (x.migration === m && x.time <= at);
  const flows = model.flows.filter(upTo);
  const sum = (f: (x: Model['flows'][number]) => bigint) => flows.reduce((a, x) => a + f(x), 0n);
  const minted = sum((x) => x.minted);
  const burned = sum((x) => x.burned);
  const holdingFees = sum((x) => x.holdingFees);
  const ans = sum((x) => x.ans);
  const expired = sum((x) => x.expired);
  const issuing = model.issuing.filter(upTo);
  const zero = text(0n);
  return {
    // The simulated network mints by taps only (no reward is claimed) and buys no traffic.
    minted: {
      total: text(minted),
      mint: zero,
      tap: text(minted),
      app_reward: zero,
      validator_reward: zero,
      sv_reward: zero,
      validator_faucet: zero,
    },
    burned: {
      total: text(burned),
      fees: text(burned - holdingFees - ans - expired),
      holding_fees: text(holdingFees),
      traffic: zero,
      ans: text(ans),
      expired: text(expired),
    },
    allowed_mint: text(issuing.reduce((a, x) => a + x.allowed, 0n)),
    issuing_rounds: issuing.length,
  };
}

function expectedBalance(model: Model, party: string, at: bigint, round?: bigint) {
  const m = migrationOf(model, at);
  const r = round ?? (m === undefined ? undefined : openRound(model, m, at));
  const held = m === undefined ? [] : model.holdings.filter((h) => h.migration === m && h.owner === party && alive(h, at));
  const sum = (locked: boolean, f: (h: Holding) => bigint) => held.filter((h) => h.locked === locked).reduce((a, h) => a + f(h), 0n);
  const unlocked = sum(false, (h) => h.amount);
  const locked = sum(true, (h) => h.amount);
  const feesUnlocked = r === undefined ? 0n : sum(false, (h) => fee(h, r));
  const feesLocked = r === undefined ? 0n : sum(true, (h) => fee(h, r));
  return {
    migration_id: m ?? null,
    as_of_round: r === undefined ? null : Number(r),
    holdings: held.length,
    total_unlocked_coin: text(unlocked),
    total_locked_coin: text(locked),
    total_coin_holdings: text(unlocked + locked),
    accumulated_holding_fees_unlocked: text(feesUnlocked),
    accumulated_holding_fees_locked: text(feesLocked),
    accumulated_holding_fees_total: text(feesUnlocked + feesLocked),
    total_available_coin: text(unlocked - feesUnlocked),
  };
}

describe('balances and supply at any instant', () => {
  const t = useTestDatabase();
  // About three days in two migrations, with locks, token-standard transfers and taps.
  const items = simulatedItems({
    seed: 'balances',
    updates: 1500,
    migrations: 2,
    meanUpdateGapMs: 150_000,
    tickSeconds: 3600,
    amuletExpiry: true,
    tokenStandardV2: true,
  });
  const model = modelOf(items);
  const owners = [...new Set(model.holdings.map((h) => h.owner))].sort();
  const times = [...model.firsts.values()];
  const first = times.reduce((a, b) => (a < b ? a : b));
  const last = model.holdings.reduce((a, h) => (h.created > a ? h.created : a), first);
  /** Snapshot times per migration, as announced. */
  let snapshots: { migration: number; time: bigint }[] = [];
  let api: TestApi;
  const get = (path: string) => request(api.url, 'GET', `/api/indexer${path}`);

  beforeAll(async () => {
    await ingestThroughWorker(t, items);
    await catchUpSnapshots(t.db);
    await catchUpHoldingTotals(t.db, HOLDING_TOTALS_REFRESH_OWNERS_DEFAULT);
    const { rows } = await t.pool.query<{ migration_id: string; t: string }>(
      `select migration_id::text, to_char(record_time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as t
       from acs_snapshots order by migration_id, record_time`,
    );
    snapshots = rows.map((r) => ({ migration: Number(r.migration_id), time: parseTimestamp(r.t) }));
    api = await startTestApi(t);
  }, 300_000);
  afterAll(async () => api?.close());

  /** Instants spread over the network: exactly at snapshots, just before and after them, between updates. */
  function instants(): bigint[] {
    const out = new Set<bigint>([first - 1n, first, last, last + 86_400_000_000n]);
    // Each migration's beginning, before its first snapshot (the totals come from the migrations before).
    for (const f of model.firsts.values()) for (const d of [-1n, 0n, 3_600_000_000n]) out.add(f + d);
    for (const s of snapshots.filter((_, i) => i % 3 === 0)) for (const d of [-1n, 0n, 1n, 5_400_000_000n]) out.add(s.time + d);
    for (const h of model.holdings.filter((_, i) => i % 97 === 0)) {
      out.add(h.created);
      out.add(h.created - 1n);
      if (h.archived !== null) out.add(h.archived);
    }
    return [...out].filter((x) => x > 0n).sort((a, b) => (a < b ? -1 : 1));
  }

  it('has a dataset worth testing', () => {
    expect(model.firsts.size).toBe(2);
    expect(snapshots.filter((s) => s.migration === 0).length).toBeGreaterThan(3);
    expect(snapshots.filter((s) => s.migration === 1).length).toBeGreaterThan(3);
    expect(model.holdings.some((h) => h.locked)).toBe(true);
    expect(model.holdings.filter((h) => h.archived !== null).length).toBeGreaterThan(100);
    expect(owners.length).toBeGreaterThan(5);
    expect(new Set(model.issuing.map((r) => r.migration))).toEqual(new Set([0, 1]));
    expect(model.flows.some((f) => f.ans > 0n) && model.flows.some((f) => f.holdingFees > 0n)).toBe(true);
    expect(model.flows.filter((f) => f.expired > 0n).length).toBeGreaterThan(5);
  });

  it("answers a party's balance at any instant, fees as of the round open then or the round asked", async () => {
    let nonZero = 0;
    for (const [i, at] of instants().entries()) {
      // Three parties per instant, in turn, so that every owner is read at many instants.
      for (const party of [0, 1, 2].map((k) => owners[(i * 3 + k) % owners.length]!)) {
        const q = `at=${encodeURIComponent(formatDateTime(at))}`;
        const res = await get(`/v0/parties/${encodeURIComponent(party)}/balance?${q}`);
        const expected = { party, at: formatDateTime(at), ...expectedBalance(model, party, at) };
        expect({ status: res.status, body: res.json }).toEqual({ status: 200, body: expected });
        if (expected.holdings > 0 && expected.accumulated_holding_fees_total !== '0.0000000000') nonZero += 1;
      }
    }
    expect(nonZero).toBeGreaterThan(20);
    // A late round makes every small holding's fee clamp at its amount.
    const party = owners[1]!;
    for (const round of [0n, 3n, 1_000_000_000n]) {
      const res = await get(`/v0/parties/${encodeURIComponent(party)}/balance?at=${formatDateTime(last)}&as_of_round=${round}`);
      expect(res.json).toEqual({ party, at: formatDateTime(last), ...expectedBalance(model, party, last, round) });
    }
  });

  it("answers a party's balance at each UTC day's end over a range", async () => {
    const day = (x: bigint) => formatDateTime(x).slice(0, 10);
    const from = day(first - 86_400_000_000n);
    const to = day(last + 2n * 86_400_000_000n);
    for (const party of owners.slice(0, 4)) {
      const res = await get(`/v0/parties/${encodeURIComponent(party)}/balances/daily?from=${from}&to=${to}`);
      const days = [];
      for (let d = parseTimestamp(`${from}T00:00:00Z`); d < parseTimestamp(`${to}T00:00:00Z`); d += 86_400_000_000n) {
        const end = d + 86_400_000_000n - 1n;
        days.push({ day: day(d), at: formatDateTime(end), ...expectedBalance(model, party, end) });
      }
      expect({ status: res.status, body: res.json }).toEqual({ status: 200, body: { party, days } });
    }
  });

  it('answers the supply at any instant, with what was minted and burned since its snapshot and since the beginning, and the allowed mint', async () => {
    for (const at of instants()) {
      const m = migrationOf(model, at);
      const held = m === undefined ? [] : model.holdings.filter((h) => h.migration === m && alive(h, at));
      const unlocked = held.filter((h) => !h.locked).reduce((a, h) => a + h.amount, 0n);
      const locked = held.filter((h) => h.locked).reduce((a, h) => a + h.amount, 0n);
      const snapshot = snapshots.filter((s) => s.migration === m && s.time <= at).pop();
      const since = snapshot?.time ?? -1n << 62n;
      const flows = model.flows.filter((f) => f.migration === m && f.time > since && f.time <= at);
      const res = await get(`/v0/network/supply?at=${encodeURIComponent(formatDateTime(at))}`);
      expect({ status: res.status, body: res.json }).toEqual({
        status: 200,
        body: {
          at: formatDateTime(at),
          migration_id: m ?? null,
          snapshot: snapshot === undefined ? null : formatDateTime(snapshot.time),
          unlocked: text(unlocked),
          locked: text(locked),
          total: text(unlocked + locked),
          since_snapshot: {
            minted: text(flows.reduce((a, f) => a + f.minted, 0n)),
            burned: text(flows.reduce((a, f) => a + f.burned, 0n)),
          },
          cumulative: m === undefined ? null : expectedCumulative(model, m, at),
        },
      });
    }
  });

  it('answers client mistakes with the Scan error body', async () => {
    const cases: [string, string][] = [
      ['/v0/parties/alice::1220/balance?at=yesterday', "Invalid at: expected an ISO 8601 date-time with a zone, got 'yesterday'."],
      ['/v0/parties/alice::1220/balances/daily?from=2025-01-05&to=2025-01-05', 'Invalid range: to must be after from.'],
      ['/v0/parties/alice::1220/balances/daily?from=2025-01-01&to=2025-06-01', 'Invalid range: at most 92 days.'],
      ['/v0/parties/alice::1220/balances/daily?from=2025-02-30&to=2025-03-02', "Invalid from: '2025-02-30' is no date."],
      ['/v0/network/supply?at=2025-13-01T00:00:00Z', "Invalid at: expected an ISO 8601 date-time with a zone, got '2025-13-01T00:00:00Z'."],
    ];
    for (const [path, error] of cases) {
      const res = await get(path);
      expect({ status: res.status, body: res.json }).toEqual({ status: 400, body: { error } });
    }
    for (const path of [
      '/v0/parties/alice/balance?at=2025-01-01T00:00:00Z',
      '/v0/parties/alice::1220/balance',
      '/v0/parties/alice::1220/balance?at=2025-01-01T00:00:00Z&as_of_round=-1',
      '/v0/parties/alice::1220/balances/daily?from=2025-01-01',
      '/v0/network/supply',
    ]) {
      const res = await get(path);
      expect({ path, status: res.status, hasError: typeof (res.json as { error?: unknown }).error }).toEqual({
        path,
        status: 400,
        hasError: 'string',
      });
    }
  });
});
