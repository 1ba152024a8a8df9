/**
 * The deprecated POST /api/scan/v0/transactions through the real HTTP server, on a simulated network of two
 * migrations. Expected items are read here from the items the simulator emitted, by a walk of their trees
 * written for this test (the derivation in src/domain is not called): a transfer's figures from its
 * AmuletRules_Transfer argument and summary, a tap's from the amulet its mint creates.
 */
import type { CanonicalItem, CreatedEvent, ExercisedEvent, TransactionUpdate } from '../../../src/domain/items';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { ingestThroughWorker, simulatedItems } from '../../support/items/simulated-network';

type Obj = Record<string, unknown>;
interface Item {
  transaction_type: string;
  event_id: string;
  date: string;
  domain_id: string;
  round?: number;
  transfer?: {
    sender: Record<string, string>;
    receivers: { party: string; amount: string; receiver_fee: string }[];
    balance_changes: { party: string; change_to_initial_amount_as_of_round_zero: string; change_to_holding_fees_rate: string }[];
  };
  mint?: { amulet_owner: string; amulet_amount: string };
  tap?: { amulet_owner: string; amulet_amount: string };
}

const ONE = 10_000_000_000n;
const units = (x: string) => {
  const negative = x.startsWith('-');
  const [whole, fraction = ''] = (negative ? x.slice(1) : x).split('.');
  const v = BigInt(whole!) * ONE + BigInt(fraction.padEnd(10, '0').slice(0, 10));
  return negative ? -v : v;
};
const text = (x: bigint) => {
  const a = x < 0n ? -x : x;
  return `${x < 0n ? '-' : ''}${a / ONE}.${(a % ONE).toString().padStart(10, '0')}`;
};
const norm = (x: unknown) => text(units(x as string));
/** A fee times a ratio, at ten decimals, half to even. */
const times = (fee: bigint, ratio: bigint) => {
  const p = fee * ratio;
  const q = p / ONE;
  const r = p % ONE;
  return 2n * r > ONE || (2n * r === ONE && q % 2n === 1n) ? q + 1n : q;
};
/** circe's OffsetDateTime: seconds always, the fraction's trailing zeros dropped. */
const dateOf = (iso: string) => iso.replace(/\.(\d*?)0*Z$/, (_m, f: string) => (f ? `.${f}Z` : 'Z'));
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Every item of the history in the network's order: migration, record time, update id, node. */
function expectedItems(items: CanonicalItem[]): Item[] {
  const out: { key: [number, string, string, number]; item: Item }[] = [];
  for (const canonical of items) {
    const tx = canonical.update as TransactionUpdate | null;
    if (!tx || !('events_by_id' in tx) || tx.record_time.startsWith('0001-')) continue;
    const parentOf = new Map<string, string>();
    for (const [id, e] of Object.entries(tx.events_by_id))
      if (e.event_type === 'exercised_event') for (const c of e.child_event_ids) parentOf.set(c, id);
    const choiceOf = (id: string | undefined) => (id === undefined ? undefined : (tx.events_by_id[id] as ExercisedEvent).choice);
    for (const [id, e] of Object.entries(tx.events_by_id)) {
      if (e.event_type !== 'exercised_event') continue;
      const node = Number(id.slice(id.lastIndexOf(':') + 1));
      const head = { event_id: `#${id}`, date: dateOf(tx.effective_at), domain_id: tx.synchronizer_id };
      const result = e.exercise_result as Obj;
      let item: Item | undefined;
      if (e.choice === 'AmuletRules_Transfer') {
        const arg = e.choice_argument as {
          transfer: { sender: string; outputs: { receiver: string; amount: string; receiverFeeRatio: string }[] };
        };
        const s = result.summary as Record<string, unknown> & { outputFees: string[]; balanceChanges: [string, Obj][] };
        const outputs = arg.transfer.outputs;
        const receivers: { party: string; amount: bigint; fee: bigint }[] = [];
        let senderFee = 0n;
        outputs.forEach((o, i) => {
          const fee = units(s.outputFees[i]!);
          const ratio = units(o.receiverFeeRatio);
          senderFee += times(fee, ONE - ratio);
          const r = receivers.find((x) => x.party === o.receiver);
          if (r) {
            r.amount += units(o.amount);
            r.fee += times(fee, ratio);
          } else receivers.push({ party: o.receiver, amount: units(o.amount), fee: times(fee, ratio) });
        });
        item = {
          transaction_type: 'transfer',
          ...head,
          round: Number((result.round as { number: string }).number),
          transfer: {
            sender: {
              party: arg.transfer.sender,
              input_amulet_amount: norm(s.inputAmuletAmount),
              input_app_reward_amount: norm(s.inputAppRewardAmount),
              input_validator_reward_amount: norm(s.inputValidatorRewardAmount),
              input_sv_reward_amount: norm(s.inputSvRewardAmount ?? '0'),
              input_validator_faucet_amount: norm(s.inputValidatorFaucetAmount ?? '0'),
              sender_change_fee: norm(s.senderChangeFee),
              sender_change_amount: norm(s.senderChangeAmount),
              sender_fee: text(senderFee),
              holding_fees: norm(s.holdingFees),
            },
            receivers: receivers.map((r) => ({ party: r.party, amount: text(r.amount), receiver_fee: text(r.fee) })),
            balance_changes: s.balanceChanges
              .map(([party, c]) => ({
                party,
                change_to_initial_amount_as_of_round_zero: norm(c.changeToInitialAmountAsOfRoundZero),
                change_to_holding_fees_rate: norm(c.changeToHoldingFeesRate),
              }))
              .sort((a, b) => cmp(a.party, b.party)),
          },
        };
      } else if (
        e.choice === 'AmuletRules_DevNet_Tap' ||
        (e.choice === 'AmuletRules_Mint' && choiceOf(parentOf.get(id)) !== 'AmuletRules_DevNet_Tap')
      ) {
        // The amulet is created under the mint (a tap's child).
        const mint = e.choice === 'AmuletRules_Mint' ? e : (tx.events_by_id[e.child_event_ids[0]!] as ExercisedEvent);
        const created = mint.child_event_ids
          .map((c) => tx.events_by_id[c]!)
          .find((c): c is CreatedEvent => c.event_type === 'created_event')!;
        const amulet = created.create_arguments as { owner: string; amount: { initialAmount: string } };
        const amount = { amulet_owner: amulet.owner, amulet_amount: norm(amulet.amount.initialAmount) };
        const round = Number(((result.amuletSum as Obj).round as { number: string }).number);
        item =
          e.choice === 'AmuletRules_Mint'
            ? { transaction_type: 'mint', ...head, mint: amount }
            : { transaction_type: 'devnet_tap', ...head, round, tap: amount };
      }
      if (item) out.push({ key: [tx.migration_id, tx.record_time, tx.update_id, node], item });
    }
  }
  return out
    .sort((a, b) => a.key[0] - b.key[0] || cmp(a.key[1], b.key[1]) || cmp(a.key[2], b.key[2]) || a.key[3] - b.key[3])
    .map((x) => x.item);
}

/**
 * What the simulator never does, appended after its history by hand: a mint outside a tap, and a transfer
 * whose sender claims rewards and whose receivers pay part of the fees, the sender paying itself between them.
 */
function handMade(simulated: CanonicalItem[]): CanonicalItem[] {
  const txs = simulated.flatMap((i) => (i.update && 'events_by_id' in i.update ? [i.update] : []));
  const last = txs[txs.length - 1]!;
  const events = txs.flatMap((tx) => Object.values(tx.events_by_id));
  const rules = events.find((e): e is ExercisedEvent => e.event_type === 'exercised_event' && e.choice === 'AmuletRules_Transfer')!;
  const amulet = events.find(
    (e): e is CreatedEvent => e.event_type === 'created_event' && e.template_id.endsWith(':Splice.Amulet:Amulet'),
  )!;
  const later = (seconds: number, fraction: string) =>
    new Date(Date.parse(last.record_time) + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, `.${fraction}Z`);
  const [alice, bob, carol, dso] = [
    'hm-alice::1220aa',
    'hm-bob::1220bb',
    'hm-carol::1220cc',
    (amulet.create_arguments as Obj).dso as string,
  ];
  const exercise = (id: string, choice: string, argument: unknown, result: unknown, children: string[]): ExercisedEvent => ({
    ...rules,
    event_id: id,
    choice,
    choice_argument: argument as ExercisedEvent['choice_argument'],
    exercise_result: result as ExercisedEvent['exercise_result'],
    child_event_ids: children,
    consuming: false,
  });
  const tx = (updateId: string, at: string, list: (ExercisedEvent | CreatedEvent)[]): CanonicalItem => ({
    update: {
      ...last,
      update_id: updateId,
      record_time: at,
      effective_at: at,
      root_event_ids: [list[0]!.event_id],
      events_by_id: Object.fromEntries(list.map((e) => [e.event_id, e])),
    },
    verdict: null,
    traffic_summary: null,
    app_activity_records: null,
  });
  const mintArgs = {
    ...(amulet.create_arguments as Obj),
    owner: carol,
    amount: { initialAmount: '12.3456789000', createdAt: { number: '7' }, ratePerRound: { rate: '0.0000190259' } },
  };
  const mint = tx('handmade-mint', later(5, '120000'), [
    exercise(
      'handmade-mint:0',
      'AmuletRules_Mint',
      { receiver: carol, amount: '12.3456789000' },
      { amuletSum: { amulet: 'hm-amulet', amuletPrice: '0.0050000000', round: { number: '7' } } },
      ['handmade-mint:1'],
    ),
    { ...amulet, event_id: 'handmade-mint:1', contract_id: 'hm-amulet', create_arguments: mintArgs },
  ]);
  const output = (receiver: string, amount: string, receiverFeeRatio: string) => ({ receiver, receiverFeeRatio, amount, lock: null });
  const transfer = tx('handmade-transfer', later(9, '000000'), [
    exercise(
      'handmade-transfer:0',
      'AmuletRules_Transfer',
      {
        transfer: {
          sender: alice,
          provider: alice,
          inputs: [],
          outputs: [
            output(bob, '10.0000000000', '0.5000000000'),
            output(alice, '3.0000000000', '0.0000000000'),
            output(carol, '2.0000000000', '0.2500000000'),
            output(bob, '1.0000000000', '0.5000000000'),
          ],
          beneficiaries: null,
        },
        context: { openMiningRound: 'round', issuingMiningRounds: [], validatorRights: [], featuredAppRight: null },
        expectedDso: dso,
      },
      {
        round: { number: '8' },
        summary: {
          inputAppRewardAmount: '1.5000000000',
          inputValidatorRewardAmount: '0.2500000000',
          inputSvRewardAmount: '0.0000000000',
          inputAmuletAmount: '20.0000000000',
          balanceChanges: [
            [carol, { changeToInitialAmountAsOfRoundZero: '2.0001000000', changeToHoldingFeesRate: '0.0000190259' }],
            [alice, { changeToInitialAmountAsOfRoundZero: '-14.5000000000', changeToHoldingFeesRate: '-0.0000190259' }],
            [bob, { changeToInitialAmountAsOfRoundZero: '11.0000000000', changeToHoldingFeesRate: '0.0000380518' }],
          ],
          holdingFees: '0.0100000000',
          // Odd last digits at a ratio of one half: each share is rounded half to even on its own.
          outputFees: ['0.0000000003', '0.1000000000', '0.0000000001', '0.2000000007'],
          senderChangeFee: '0.0300000000',
          senderChangeAmount: '4.0000000000',
          amuletPrice: '0.0050000000',
          inputValidatorFaucetAmount: '0.1250000000',
        },
        createdAmulets: [],
        senderChangeAmulet: null,
        meta: null,
      },
      [],
    ),
  ]);
  return [mint, transfer];
}

describe('POST /api/scan/v0/transactions', () => {
  const t = useTestDatabase();
  const simulated = simulatedItems({ seed: 'transactions', updates: 900, migrations: 2, meanUpdateGapMs: 30_000 });
  const items = [...simulated, ...handMade(simulated)];
  const all = expectedItems(items);
  let api: TestApi;
  const post = (body: unknown) => request(api.url, 'POST', '/api/scan/v0/transactions', body);

  beforeAll(async () => {
    await ingestThroughWorker(t, items);
    api = await startTestApi(t);
  }, 300_000);
  afterAll(async () => api?.close());

  it('has a dataset worth testing', () => {
    const kinds = new Set(all.map((i) => i.transaction_type));
    // The simulator mints only under a tap, which is the tap: the one mint is hand-made.
    expect([...kinds].sort()).toEqual(['devnet_tap', 'mint', 'transfer']);
    expect(all.filter((i) => i.mint)).toEqual([
      {
        transaction_type: 'mint',
        event_id: '#handmade-mint:0',
        date: expect.stringMatching(/\.12Z$/),
        domain_id: expect.any(String),
        mint: { amulet_owner: 'hm-carol::1220cc', amulet_amount: '12.3456789000' },
      },
    ]);
    // Worked out by hand: fees 3e-10 and 2.000000007e-1 at one half round to 2e-10 and 1.000000004e-1 (even) for both shares.
    expect(all[all.length - 1]!.transfer).toEqual({
      sender: {
        party: 'hm-alice::1220aa',
        input_amulet_amount: '20.0000000000',
        input_app_reward_amount: '1.5000000000',
        input_validator_reward_amount: '0.2500000000',
        input_sv_reward_amount: '0.0000000000',
        input_validator_faucet_amount: '0.1250000000',
        sender_change_fee: '0.0300000000',
        sender_change_amount: '4.0000000000',
        sender_fee: '0.2000000007',
        holding_fees: '0.0100000000',
      },
      receivers: [
        { party: 'hm-bob::1220bb', amount: '11.0000000000', receiver_fee: '0.1000000006' },
        { party: 'hm-alice::1220aa', amount: '3.0000000000', receiver_fee: '0.0000000000' },
        { party: 'hm-carol::1220cc', amount: '2.0000000000', receiver_fee: '0.0000000000' },
      ],
      balance_changes: [
        {
          party: 'hm-alice::1220aa',
          change_to_initial_amount_as_of_round_zero: '-14.5000000000',
          change_to_holding_fees_rate: '-0.0000190259',
        },
        {
          party: 'hm-bob::1220bb',
          change_to_initial_amount_as_of_round_zero: '11.0000000000',
          change_to_holding_fees_rate: '0.0000380518',
        },
        {
          party: 'hm-carol::1220cc',
          change_to_initial_amount_as_of_round_zero: '2.0001000000',
          change_to_holding_fees_rate: '0.0000190259',
        },
      ],
    });
    const transfers = all.flatMap((i) => (i.transfer ? [i.transfer] : []));
    expect(transfers.some((x) => x.receivers.length >= 2)).toBe(true);
    expect(transfers.some((x) => x.receivers.some((r) => r.party === x.sender.party))).toBe(true);
    expect(transfers.some((x) => x.receivers.some((r) => r.party !== x.sender.party))).toBe(true);
    expect(transfers.every((x) => x.balance_changes.length > 0)).toBe(true);
    expect(transfers.some((x) => units(x.sender.holding_fees!) > 0n)).toBe(true);
    expect(all.length).toBeGreaterThan(100);
  });

  it('pages through the whole history oldest first, by the last event id of each page', async () => {
    const seen: Item[] = [];
    let end: string | undefined;
    for (let n = 0; n < 200; n++) {
      const res = await post({ page_size: 37, ...(end === undefined ? {} : { page_end_event_id: end }) });
      expect(res.status).toBe(200);
      const page = (res.json as { transactions: Item[] }).transactions;
      expect(page).toEqual(all.slice(seen.length, seen.length + 37));
      seen.push(...page);
      if (page.length < 37) break;
      end = page[page.length - 1]!.event_id;
    }
    expect(seen).toEqual(all);
  });

  it('pages newest first with sort_order desc', async () => {
    const reversed = [...all].reverse();
    const seen: Item[] = [];
    let end: string | undefined;
    for (let n = 0; n < 100; n++) {
      const res = await post({ page_size: 100, sort_order: 'desc', ...(end === undefined ? {} : { page_end_event_id: end }) });
      expect(res.status).toBe(200);
      const page = (res.json as { transactions: Item[] }).transactions;
      expect(page).toEqual(reversed.slice(seen.length, seen.length + 100));
      seen.push(...page);
      if (page.length < 100) break;
      end = page[page.length - 1]!.event_id;
    }
    expect(seen).toEqual(reversed);
  });

  it('answers the first page for an empty page end, none after the last item or after an unknown event id', async () => {
    const first = await post({ page_end_event_id: '', sort_order: 'asc', page_size: 3 });
    expect({ status: first.status, body: first.json }).toEqual({ status: 200, body: { transactions: all.slice(0, 3) } });
    const last = all[all.length - 1]!.event_id;
    expect((await post({ page_end_event_id: last, page_size: 10 })).json).toEqual({ transactions: [] });
    expect((await post({ page_end_event_id: last, sort_order: 'desc', page_size: 2 })).json).toEqual({
      transactions: all.slice(-3, -1).reverse(),
    });
    // Without the '#' the same item ends the page.
    expect((await post({ page_end_event_id: all[4]!.event_id.slice(1), page_size: 2 })).json).toEqual({ transactions: all.slice(5, 7) });
    for (const unknown of ['#nothing:0', 'not an event id', `${all[0]!.event_id}9999`]) {
      const res = await post({ page_end_event_id: unknown, page_size: 10 });
      expect({ status: res.status, body: res.json }).toEqual({ status: 200, body: { transactions: [] } });
    }
  });

  it('refuses a malformed request with 400', async () => {
    for (const body of [
      {},
      { page_size: 0 },
      { page_size: 1001 },
      { page_size: 10, sort_order: 'newest' },
      { page_size: 1.5 },
      { page_size: 10, page_end_event_id: 7 },
    ]) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: expect.any(String) });
    }
  });
});
