/**
 * Invariants of the activity projection against the ACS snapshots (issue #29 §4), over a simulated
 * network of two migrations, between every two consecutive announced snapshots of a migration
 * (docs/ingestion.md, "Invariants"):
 *
 * - Supply: the change in total supply (the snapshots' contracts, in initial amounts) equals what the
 *   projection says was minted minus burned in between (GET /v0/network/supply's since_snapshot, read
 *   just before the second one); and, between any two instants of either migration, the change in the
 *   cumulative minted minus burned that the same operation reports (the totals kept per snapshot).
 * - Holdings, for every party that held amulet at a snapshot or had a balance change: its holdings at the
 *   second snapshot minus those at the first equal the sum of its balance changes in between. Both sides
 *   are in the Scan's terms, so that holding fees balance exactly: an amulet is its amount as of round
 *   zero (initialAmount + createdAt x rate) and its rate per round, in units of 1e-10. Holdings are the
 *   snapshots' Amulet and LockedAmulet contracts (POST /api/scan/v0/state/acs: the summaries cannot give
 *   amounts as of round zero). Balance changes come from the projection through the API: the party's
 *   activity says what and when, a transfer's change is its entry in the deprecated
 *   POST /api/scan/v0/transactions, and the other kinds count as Scan's transaction log counted them.
 *   The simulated network settles two-step transfers in a way Splice does not, with no balance change
 *   anywhere: the test moves those locks itself, from the instruction's or allocation's rows. An amulet
 *   the DSO expires leaves its owner's holdings: its row's subject names it, and the simulator's own
 *   create of it (not the projection) gives the amount and round it is taken out with.
 *
 * Both run over three networks: the simulator's default; one where the DSO expires amulet (V1 forms);
 * and one with token-standard V2 trades, which also expires amulet in the V2 forms. A V2 trade settled in
 * a batch moves amulet as the simulator's two-step transfers do: the sender's side archives its lock and
 * the receiver's side delivers a new amulet, with no transfer, so the test moves those too, from the
 * settlement's rows (its id is their detail) and the simulator's create of the delivered amulet.
 */
import type { CanonicalItem, ExercisedEvent } from '../../../src/domain/items';
import { catchUpSnapshots } from '../../../src/jobs/acs-snapshots';
import { catchUpHoldingTotals } from '../../../src/jobs/holding-totals';
import { HOLDING_TOTALS_REFRESH_OWNERS_DEFAULT } from '../../../src/internal/config';
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

interface Supply {
  migration_id: number | null;
  snapshot: string | null;
  total: string;
  since_snapshot: { minted: string; burned: string };
  cumulative: { minted: { total: string }; burned: { total: string } } | null;
}

interface Snapshot {
  migration: number;
  time: bigint;
}

/** Amulet in the Scan's balance terms: the amount as of round zero, and the holding fee per round (units of 1e-10). */
interface Balance {
  asOfRoundZero: bigint;
  ratePerRound: bigint;
}

interface ExpiringAmount {
  initialAmount: string;
  createdAt: { number: string };
  ratePerRound: { rate: string };
}

interface AcsPage {
  created_events: {
    template_id: string;
    create_arguments: { owner?: string; amount?: ExpiringAmount; amulet?: { owner: string; amount: ExpiringAmount } };
  }[];
  next_page_token?: string | null;
}

interface TransactionItem {
  transaction_type: 'transfer' | 'mint' | 'devnet_tap' | 'abort_transfer_instruction';
  event_id: string;
  round?: number;
  transfer?: {
    balance_changes: { party: string; change_to_initial_amount_as_of_round_zero: string; change_to_holding_fees_rate: string }[];
  };
  mint?: { amulet_owner: string };
  tap?: { amulet_owner: string };
}

interface ActivityRow {
  migration_id: number;
  record_time: string;
  update_id: string;
  event_id: string;
  kind: string;
  leg: number;
  party: string;
  round: number | null;
  amount: string;
  counterparties: string[];
  subject: string | null;
  detail: string | null;
  outcome: string | null;
}

/** Every Amulet and LockedAmulet the items create, by migration and contract id: owner, amount and round (units of 1e-10). */
function createdAmulets(items: CanonicalItem[]): Map<string, { owner: string; amount: bigint; round: bigint }> {
  const out = new Map<string, { owner: string; amount: bigint; round: bigint }>();
  for (const item of items) {
    const tx = item.update;
    if (!tx || !('events_by_id' in tx)) continue;
    for (const e of Object.values(tx.events_by_id)) {
      if (e.event_type !== 'created_event') continue;
      const locked = e.template_id.endsWith(':Splice.Amulet:LockedAmulet');
      if (!locked && !e.template_id.endsWith(':Splice.Amulet:Amulet')) continue;
      const args = e.create_arguments as { owner?: string; amount?: ExpiringAmount; amulet?: { owner: string; amount: ExpiringAmount } };
      const a = locked ? args.amulet! : (args as { owner: string; amount: ExpiringAmount });
      out.set(`${tx.migration_id}/${e.contract_id}`, {
        owner: a.owner,
        amount: units(a.amount.initialAmount),
        round: BigInt(a.amount.createdAt.number),
      });
    }
  }
  return out;
}

/** The kinds whose rows change no balance of their own: the transfers, taps and burns under or beside them do. */
const NEUTRAL_KINDS = new Set([
  // Inside a transfer: its balance changes count its locked outputs and the rewards it turned into amulet.
  'lock',
  'app_reward',
  'validator_reward',
  'sv_reward',
  'validator_faucet',
  'unclaimed_reward',
  // The Scan sums locked and unlocked amulet, so releasing a lock to its owner changes nothing.
  'unlock',
  'owner_expire_lock',
  // Context: the amulet moves under them are rows of their own.
  'transfer_command',
  'transfer_instruction',
  'allocation',
  'vote',
  'vote_result',
]);

const zero = (): Balance => ({ asOfRoundZero: 0n, ratePerRound: 0n });
function add(to: Map<string, Balance>, party: string, asOfRoundZero: bigint, ratePerRound: bigint): void {
  const b = to.get(party) ?? zero();
  to.set(party, { asOfRoundZero: b.asOfRoundZero + asOfRoundZero, ratePerRound: b.ratePerRound + ratePerRound });
}

/** A two-step transfer settled to its receiver: the lock leaves the sender, a new amulet reaches the receiver. */
interface Settlement {
  migration: number;
  time: bigint;
  sender: string;
  receiver: string;
  amount: bigint;
  lockRound: bigint;
  round: bigint;
}

describe.each([
  // A seed of its own for each: each network must show every kind of step the test asks for.
  ['the default network', 'invariants', false, false],
  ['a network where the DSO expires amulet', 'burns', true, false],
  ['a network with token-standard V2 trades, where the DSO expires amulet (V2 forms too)', 'inv-3', true, true],
])('activity projection invariants, %s', (_name, seed, amuletExpiry, tokenStandardV2) => {
  const t = useTestDatabase();
  const items = simulatedItems({
    seed,
    updates: 1500,
    migrations: 2,
    meanUpdateGapMs: 150_000,
    tickSeconds: 3600,
    amuletExpiry,
    tokenStandardV2,
  });
  const amulets = createdAmulets(items);
  let snapshots: Snapshot[] = [];
  let api: TestApi;
  const supply = async (at: bigint) => {
    const res = await request(api.url, 'GET', `/api/indexer/v0/network/supply?at=${encodeURIComponent(formatDateTime(at))}`);
    expect(res.status).toBe(200);
    return res.json as Supply;
  };
  /** Consecutive snapshots of the same migration. */
  const pairs = () =>
    snapshots.flatMap((b, i) => {
      const a = snapshots[i - 1];
      return a && a.migration === b.migration ? [[a, b] as const] : [];
    });

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

  it('changes total supply between consecutive snapshots by minted minus burned', async () => {
    expect(new Set(snapshots.map((s) => s.migration)).size).toBe(2);
    for (const [a, b] of pairs()) {
      const atA = await supply(a.time);
      const beforeB = await supply(b.time - 1n);
      const atB = await supply(b.time);
      expect([atA.snapshot, beforeB.snapshot, atB.snapshot]).toEqual([
        formatDateTime(a.time),
        formatDateTime(a.time),
        formatDateTime(b.time),
      ]);
      const flow = units(beforeB.since_snapshot.minted) - units(beforeB.since_snapshot.burned);
      expect({ migration: b.migration, at: atB.snapshot, change: units(atB.total) - units(atA.total) }).toEqual({
        migration: b.migration,
        at: atB.snapshot,
        change: flow,
      });
    }
    expect(pairs().length).toBeGreaterThan(4);
  });

  it('changes total supply between any two instants, across migrations too, by the cumulative minted minus burned', async () => {
    // Every snapshot, the instant before it, and a point inside each interval, over both migrations.
    const instants = snapshots.flatMap((s) => [s.time - 1n, s.time, s.time + 5_400_000_000n]);
    const rows: { at: string; migration: number | null; base: bigint }[] = [];
    for (const at of instants) {
      const s = await supply(at);
      expect(s.cumulative).not.toBeNull();
      // The supply less what the history minted and burned up to the instant: what there was before any of it.
      const net = units(s.cumulative!.minted.total) - units(s.cumulative!.burned.total);
      rows.push({ at: formatDateTime(at), migration: s.migration_id, base: units(s.total) - net });
    }
    expect(new Set(rows.map((r) => r.migration))).toEqual(new Set([0, 1]));
    // The simulated network starts from nothing: every amulet it holds was tapped, and every one that left was burned.
    expect(rows.filter((r) => r.base !== 0n)).toEqual([]);
  });

  /** Every owner's Amulet and LockedAmulet contracts at a snapshot, in balance terms; and the rates seen. */
  async function holdingsAt(s: Snapshot): Promise<{ byOwner: Map<string, Balance>; rates: Set<bigint> }> {
    const byOwner = new Map<string, Balance>();
    const rates = new Set<bigint>();
    let after: string | null = null;
    do {
      const res = await request(api.url, 'POST', '/api/scan/v0/state/acs', {
        migration_id: s.migration,
        record_time: formatDateTime(s.time),
        page_size: 1000,
        templates: ['splice-amulet:Splice.Amulet:Amulet', 'splice-amulet:Splice.Amulet:LockedAmulet'],
        ...(after === null ? {} : { after }),
      });
      expect(res.status).toBe(200);
      const page = res.json as AcsPage;
      for (const c of page.created_events) {
        const a = c.template_id.endsWith(':Splice.Amulet:LockedAmulet') ? c.create_arguments.amulet! : c.create_arguments;
        const rate = units(a.amount!.ratePerRound.rate);
        rates.add(rate);
        add(byOwner, a.owner!, units(a.amount!.initialAmount) + BigInt(a.amount!.createdAt.number) * rate, rate);
      }
      after = page.next_page_token ?? null;
    } while (after !== null);
    return { byOwner, rates };
  }

  /** The deprecated transaction history, every page, by event id. */
  async function transactions(): Promise<Map<string, TransactionItem>> {
    const out = new Map<string, TransactionItem>();
    let end: string | undefined;
    for (;;) {
      const res = await request(api.url, 'POST', '/api/scan/v0/transactions', {
        page_size: 1000,
        ...(end ? { page_end_event_id: end } : {}),
      });
      expect(res.status).toBe(200);
      const page = (res.json as { transactions: TransactionItem[] }).transactions;
      for (const item of page) out.set(item.event_id, item);
      if (page.length < 1000) return out;
      end = page[page.length - 1]!.event_id;
    }
  }

  /** A party's whole activity, oldest first, every page. */
  async function activityOf(party: string): Promise<ActivityRow[]> {
    const out: ActivityRow[] = [];
    let token: string | null = null;
    do {
      const q: string = `order=asc&page_size=1000${token === null ? '' : `&page_token=${encodeURIComponent(token)}`}`;
      const res = await request(api.url, 'GET', `/api/indexer/v0/parties/${encodeURIComponent(party)}/activity?${q}`);
      expect(res.status).toBe(200);
      const page = res.json as { activities: ActivityRow[]; next_page_token: string | null };
      out.push(...page.activities);
      token = page.next_page_token;
    } while (token !== null);
    return out;
  }

  it("changes every party's holdings between consecutive snapshots by its balance changes, holding fees as the Scan counts them", async () => {
    const holdings = new Map<Snapshot, Map<string, Balance>>();
    const rates = new Set<bigint>();
    for (const s of snapshots) {
      const h = await holdingsAt(s);
      holdings.set(s, h.byOwner);
      h.rates.forEach((r) => rates.add(r));
    }
    // One holding fee per round across the network: the rate a tap's or a burn's amulet was created with.
    expect(rates.size).toBe(1);
    const rate = [...rates][0]!;
    expect(rate).toBeGreaterThan(0n);

    // Every party that held amulet at a snapshot or had a balance change, and the counterparties of its
    // two-step transfers, each with its whole activity.
    const history = await transactions();
    const activity = new Map<string, ActivityRow[]>();
    const pending = new Set<string>([...holdings.values()].flatMap((h) => [...h.keys()]));
    for (const item of history.values()) {
      for (const c of item.transfer?.balance_changes ?? []) pending.add(c.party);
      if (item.tap) pending.add(item.tap.amulet_owner);
      if (item.mint) pending.add(item.mint.amulet_owner);
    }
    while (pending.size > 0) {
      const party = [...pending][0]!;
      pending.delete(party);
      const rows = await activityOf(party);
      activity.set(party, rows);
      for (const r of rows) {
        if (r.kind !== 'transfer_instruction' && r.kind !== 'allocation') continue;
        for (const p of r.counterparties) if (!activity.has(p)) pending.add(p);
      }
    }
    const rows = [...activity.values()].flat();
    const rowsOf = (updateId: string) => rows.filter((r) => r.update_id === updateId);
    const at = (r: ActivityRow) => ({ migration: r.migration_id, time: parseTimestamp(r.record_time) });
    /** The sender's lock of a two-step offer: the output of its own transfer under the offer's exercise. */
    const locksOf = (offer: ActivityRow | undefined) =>
      offer ? rowsOf(offer.update_id).filter((x) => x.kind === 'transfer' && x.leg === 0 && x.party === offer.party) : [];

    // The simulated network's two-step settlements (see the header): each accepted instruction or
    // executed allocation, with its sender and lock from the rows that created it (the same subject).
    const offers = new Map(rows.filter((r) => r.outcome === 'created' && r.leg === 0 && r.subject !== null).map((r) => [r.subject!, r]));
    const settlements: Settlement[] = [];
    for (const r of rows) {
      const settled =
        (r.kind === 'transfer_instruction' && r.outcome === 'accepted') || (r.kind === 'allocation' && r.outcome === 'executed');
      if (!settled || r.amount === '0.0000000000') continue;
      const offer = offers.get(r.subject!);
      // The lock: the output of the sender's own transfer under the offer. The receiver's amulet: the unlock's.
      const locks = locksOf(offer);
      const unlocks = rowsOf(r.update_id).filter((x) => x.kind === 'unlock');
      expect({
        settled: r.event_id,
        receiver: offer?.counterparties,
        locks: locks.length,
        unlocks: unlocks.map((u) => ({ party: u.party, amount: u.amount })),
      }).toEqual({ settled: r.event_id, receiver: [r.party], locks: 1, unlocks: [{ party: r.party, amount: offer?.amount }] });
      settlements.push({
        ...at(r),
        sender: offer!.party,
        receiver: r.party,
        amount: units(r.amount),
        lockRound: BigInt(locks[0]!.round!),
        round: BigInt(unlocks[0]!.round!),
      });
    }

    // Token standard V2 (see the header): the receiver's row of each settled allocation, the sender being
    // the other side of the same settlement, its lock the output of its own transfer under its allocation.
    let v2Settlements = 0;
    const updates = new Map(
      items.flatMap((i) => (i.update && 'events_by_id' in i.update ? [[i.update.update_id, i.update] as const] : [])),
    );
    for (const r of rows) {
      if (r.kind !== 'allocation' || r.outcome !== 'settled' || r.leg === 0) continue;
      const offer = rows.find(
        (x) => x.kind === 'allocation' && x.outcome === 'created' && x.leg === 0 && x.detail === r.detail && x.party !== r.party,
      );
      const locks = locksOf(offer);
      const events = updates.get(r.update_id)!.events_by_id;
      const delivered = (events[r.event_id] as ExercisedEvent).child_event_ids.flatMap((c) => {
        const a = amulets.get(`${r.migration_id}/${(events[c] as { contract_id: string }).contract_id}`);
        return a ? [a] : [];
      });
      expect({ settled: r.event_id, locks: locks.length, delivered: delivered.map((a) => [a.owner, a.amount]) }).toEqual({
        settled: r.event_id,
        locks: 1,
        delivered: [[r.party, units(r.amount)]],
      });
      v2Settlements += 1;
      settlements.push({
        ...at(r),
        sender: offer!.party,
        receiver: r.party,
        amount: units(r.amount),
        lockRound: BigInt(locks[0]!.round!),
        round: delivered[0]!.round,
      });
    }

    const unmodelled: ActivityRow[] = [];
    const counted = { transfers: 0, taps: 0, burns: 0, settlements: 0, expiries: 0, lockedExpiries: 0 };
    let changedParties = 0;
    for (const [a, b] of pairs()) {
      const within = (x: { migration: number; time: bigint }) => x.migration === b.migration && x.time > a.time && x.time <= b.time;
      const changes = new Map<string, Balance>();
      for (const [party, partyRows] of activity) {
        for (const r of partyRows.filter((x) => within(at(x)))) {
          if (r.kind === 'transfer') {
            const item = history.get(`#${r.event_id}`);
            const mine = item?.transfer?.balance_changes.filter((c) => c.party === party) ?? [];
            expect({ event: r.event_id, party, changes: mine.length }).toEqual({ event: r.event_id, party, changes: 1 });
            add(changes, party, units(mine[0]!.change_to_initial_amount_as_of_round_zero), units(mine[0]!.change_to_holding_fees_rate));
            counted.transfers += 1;
          } else if (r.kind === 'tap' || r.kind === 'mint') {
            // The amulet it creates, in the round it names (Scan's log: a balance change of the new amulet).
            add(changes, party, units(r.amount) + BigInt(r.round!) * rate, rate);
            counted.taps += 1;
          } else if (r.kind === 'ans_entry') {
            // The DSO's row: it burns the fee amulet its payment transfer (same update) created for it.
            if (r.leg === 0) continue;
            const payment = rowsOf(r.update_id).filter((x) => x.kind === 'transfer' && x.party === party);
            expect(payment.length).toBe(1);
            add(changes, party, -(units(r.amount) + BigInt(payment[0]!.round!) * rate), -rate);
            counted.burns += 1;
          } else if (r.kind === 'expire') {
            // The expired amulet leaves its owner, as the simulator created it.
            const created = amulets.get(`${r.migration_id}/${r.subject}`);
            expect({ event: r.event_id, leg: r.leg, party: r.party, amount: units(r.amount) }).toEqual({
              event: r.event_id,
              leg: 0,
              party: created?.owner,
              amount: created?.amount,
            });
            add(changes, party, -(created!.amount + created!.round * rate), -rate);
            counted.expiries += 1;
            if (r.detail === 'locked') counted.lockedExpiries += 1;
          } else if (!NEUTRAL_KINDS.has(r.kind)) {
            unmodelled.push(r);
          }
        }
      }
      for (const s of settlements.filter(within)) {
        add(changes, s.sender, -(s.amount + s.lockRound * rate), -rate);
        add(changes, s.receiver, s.amount + s.round * rate, rate);
        counted.settlements += 1;
      }

      const before = holdings.get(a)!;
      const after = holdings.get(b)!;
      const parties = [...new Set([...before.keys(), ...after.keys(), ...changes.keys()])].sort();
      const held = (p: string) => {
        const x = before.get(p) ?? zero();
        const y = after.get(p) ?? zero();
        return { asOfRoundZero: y.asOfRoundZero - x.asOfRoundZero, ratePerRound: y.ratePerRound - x.ratePerRound };
      };
      const pair = `${formatDateTime(a.time)} .. ${formatDateTime(b.time)} (migration ${b.migration})`;
      expect({ pair, holdings: Object.fromEntries(parties.map((p) => [p, held(p)])) }).toEqual({
        pair,
        holdings: Object.fromEntries(parties.map((p) => [p, changes.get(p) ?? zero()])),
      });
      changedParties += parties.filter((p) => held(p).asOfRoundZero !== 0n).length;
    }
    expect(unmodelled).toEqual([]);
    // Enough of each kind of change to mean something.
    expect(counted.transfers).toBeGreaterThan(100);
    expect(counted.taps).toBeGreaterThan(10);
    expect(counted.burns).toBeGreaterThan(0);
    expect(counted.settlements).toBeGreaterThan(0);
    expect(v2Settlements > 0).toBe(tokenStandardV2);
    expect(changedParties).toBeGreaterThan(100);
    // Amulet expired by the DSO, locked amulet too, only where the network has it.
    expect({ expiries: counted.expiries > 5, locked: counted.lockedExpiries > 0, counted }).toEqual({
      expiries: amuletExpiry,
      locked: amuletExpiry,
      counted,
    });
    // Locks released both ways, two-step transfers settled, returned and reclaimed, ANS fees burned.
    const outcomes = [...new Set(rows.map((r) => (r.outcome === null ? r.kind : `${r.kind} ${r.outcome}`)))].sort();
    const wanted = [
      'allocation cancelled',
      'allocation executed',
      'allocation withdrawn',
      'ans_entry created',
      'ans_entry renewed',
      'lock',
      'owner_expire_lock',
      'tap',
      'transfer_instruction accepted',
      'transfer_instruction rejected',
      'transfer_instruction withdrawn',
      'unlock',
      ...(amuletExpiry ? ['expire'] : []),
      ...(tokenStandardV2 ? ['allocation settled'] : []),
    ];
    expect(wanted.filter((o) => !outcomes.includes(o))).toEqual([]);
  });
});
