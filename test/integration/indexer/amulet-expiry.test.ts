/**
 * Amulet the DSO expires, in the activity projection and GET /api/indexer/v0/parties/{party}/activity,
 * through the real HTTP server, on a simulated network where the DSO expires amulet (the simulator's
 * amuletExpiry, with tokenStandardV2 for the V2 forms too). Expected rows are read here from the items:
 * each Amulet_Expire, LockedAmulet_ExpireAmulet or V2 form, its owner and amount from the items' own
 * create of the contract it archives (often in an earlier batch, so the writer completes the row), its
 * round from a V1 summary; the derivation in src/domain is not called. The backfill derives the same rows
 * over the stored history, reading the amounts from the stored contracts.
 */
import type { CanonicalItem, ExercisedEvent, TransactionUpdate } from '../../../src/domain/items';
import { backfillActivities } from '../../../src/ingest/activity-backfill';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { ingestThroughWorker, simulatedItems } from '../../support/items/simulated-network';
import type { ActivityRow } from '../../support/http/activity-row';

const EXPIRES = /^(Amulet_Expire|LockedAmulet_ExpireAmulet)(V2)?$/;
const units = (x: string) => {
  const [whole, fraction = ''] = x.split('.');
  return BigInt(whole!) * 10_000_000_000n + BigInt(fraction.padEnd(10, '0').slice(0, 10));
};
const text = (x: bigint) => `${x / 10_000_000_000n}.${(x % 10_000_000_000n).toString().padStart(10, '0')}`;

/**
 * The expiry rows the items imply, in the network's order; how many of each choice; and for each V1 expiry
 * (no amount in its result), how many items before it the amulet was created.
 */
function expectedExpiries(items: CanonicalItem[]): { rows: ActivityRow[]; choices: Map<string, number>; v1Ages: number[] } {
  const created = new Map<string, { owner: string; amount: string; item: number }>();
  const rows: ActivityRow[] = [];
  const choices = new Map<string, number>();
  const v1Ages: number[] = [];
  items.forEach((item, index) => {
    const tx = item.update as TransactionUpdate | null;
    if (!tx || !('events_by_id' in tx)) return;
    const parentOf = new Map<string, string>();
    for (const [id, e] of Object.entries(tx.events_by_id))
      if (e.event_type === 'exercised_event') for (const c of e.child_event_ids) parentOf.set(c, id);
    for (const [id, e] of Object.entries(tx.events_by_id)) {
      if (e.event_type === 'created_event') {
        const locked = e.template_id.endsWith(':Splice.Amulet:LockedAmulet');
        if (!locked && !e.template_id.endsWith(':Splice.Amulet:Amulet')) continue;
        const args = e.create_arguments as {
          owner: string;
          amount: { initialAmount: string };
          amulet?: { owner: string; amount: { initialAmount: string } };
        };
        const a = args.amulet ?? args;
        created.set(`${tx.migration_id}/${e.contract_id}`, { owner: a.owner, amount: a.amount.initialAmount, item: index });
        continue;
      }
      if (!EXPIRES.test(e.choice)) continue;
      choices.set(e.choice, (choices.get(e.choice) ?? 0) + 1);
      const amulet = created.get(`${tx.migration_id}/${e.contract_id}`)!;
      if (!e.choice.endsWith('V2')) v1Ages.push(index - amulet.item);
      const sum = (e.exercise_result as { expireSum: { round?: { number: string } } }).expireSum;
      const amount = text(units(amulet.amount));
      rows.push({
        migration_id: tx.migration_id,
        record_time: tx.record_time,
        update_id: tx.update_id,
        event_id: id,
        kind: 'expire',
        leg: 0,
        party: amulet.owner,
        round: sum.round === undefined ? null : Number(sum.round.number),
        amount,
        fees: text(0n),
        holding_fees: null,
        burned: amount,
        counterparties: [],
        provider: null,
        featured: null,
        via: (tx.events_by_id[parentOf.get(id)!] as ExercisedEvent).choice,
        traffic: null,
        subject: e.contract_id,
        detail: e.choice.startsWith('LockedAmulet_') ? 'locked' : null,
        outcome: null,
        expires_at: null,
      });
    }
  });
  return { rows, choices, v1Ages };
}

describe('amulet expiry in the activity projection', () => {
  const t = useTestDatabase();
  const items = simulatedItems({
    seed: 'expiry-0',
    updates: 1500,
    meanUpdateGapMs: 30_000,
    amuletExpiry: true,
    tokenStandardV2: true,
  });
  const { rows: expected, choices, v1Ages } = expectedExpiries(items);
  const owners = [...new Set(expected.map((r) => r.party))].sort();
  let api: TestApi;
  const activity = (party: string, query: string) =>
    request(api.url, 'GET', `/api/indexer/v0/parties/${encodeURIComponent(party)}/activity${query}`);
  const storedExpiries = async () =>
    (
      await t.pool.query<{ row: string }>(
        `select concat_ws('|', migration_id, record_time, update_id, node, party, round, amount, burned, subject, detail) as row
         from activities where kind = 'expire' order by migration_id, record_time, update_id, node`,
      )
    ).rows.map((r) => r.row);

  beforeAll(async () => {
    await ingestThroughWorker(t, items);
    api = await startTestApi(t);
  }, 300_000);
  afterAll(async () => api?.close());

  it('has a dataset worth testing: every expiry choice, several owners', () => {
    expect([...choices.keys()].sort()).toEqual([
      'Amulet_Expire',
      'Amulet_ExpireV2',
      'LockedAmulet_ExpireAmulet',
      'LockedAmulet_ExpireAmuletV2',
    ]);
    expect(owners.length).toBeGreaterThan(5);
    // The worker writes batches of 100 items: a V1 expiry of an amulet created 100 or more items before is
    // completed by the writer from its archive of the stored contract.
    expect(v1Ages.filter((age) => age >= 100).length).toBeGreaterThan(3);
  });

  it("shows each owner's expiries in its activity, whole bodies, and in its unfiltered history", async () => {
    for (const owner of owners) {
      const mine = expected.filter((r) => r.party === owner);
      const res = await activity(owner, '?kind=expire&order=asc&page_size=500');
      expect({ owner, status: res.status, body: res.json }).toEqual({
        owner,
        status: 200,
        body: { activities: mine, next_page_token: null },
      });
    }
    const busiest = owners.map((o) => expected.filter((r) => r.party === o)).sort((a, b) => b.length - a.length)[0]!;
    const all = await activity(busiest[0]!.party, '?order=asc&page_size=1000');
    const body = all.json as { activities: ActivityRow[]; next_page_token: string | null };
    expect({ token: body.next_page_token, expiries: body.activities.filter((r) => r.kind === 'expire') }).toEqual({
      token: null,
      expiries: busiest,
    });
  });

  it('the writer stored every expiry row and no other, each burning its amulet', async () => {
    const { rows } = await t.pool.query<{ n: string; burned: string }>(
      `select count(*)::text as n, coalesce(sum(burned), 0)::numeric(38, 10)::text as burned from activities where kind = 'expire'`,
    );
    expect(rows[0]).toEqual({ n: String(expected.length), burned: text(expected.reduce((a, r) => a + units(r.burned!), 0n)) });
  });

  it('the backfill derives the same rows over the stored history, amounts read from the stored contracts', async () => {
    const written = await storedExpiries();
    expect(written.length).toBe(expected.length);
    await t.pool.query(`delete from activities where kind = 'expire'`);
    await t.pool.query('delete from activity_backfill');
    const result = await backfillActivities(t.db, { pageSize: 200 });
    expect(result.finished).toBe(true);
    expect(await storedExpiries()).toEqual(written);
    const owner = owners[0]!;
    const res = await activity(owner, '?kind=expire&order=asc');
    expect(res.json).toEqual({ activities: expected.filter((r) => r.party === owner), next_page_token: null });
  });
});
