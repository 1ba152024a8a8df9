/**
 * The activity projection and GET /api/indexer/v0/parties/{party}/activity through the real HTTP server,
 * on a simulated network of two migrations. Expected rows are read here from the items the simulator
 * emitted, by a walk of their trees written for this test: the simulator pays every fee from the sender
 * (receiverFeeRatio 0), records each transfer's burn in its result's `burned` metadata, and creates the
 * amulet of a tap, unlock or expired lock under the exercise; the derivation in src/domain is not called.
 */
import type { CanonicalItem, CreatedEvent, ExercisedEvent, TransactionUpdate } from '../../../src/domain/items';
import { backfillActivities } from '../../../src/ingest/activity-backfill';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { ingestThroughWorker, simulatedItems } from '../../support/items/simulated-network';
import type { ActivityRow } from '../../support/http/activity-row';

interface Page {
  activities: ActivityRow[];
  next_page_token: string | null;
}

const BURNED = 'splice.lfdecentralizedtrust.org/burned';
const units = (x: string) => {
  const [whole, fraction = ''] = x.split('.');
  return BigInt(whole!) * 10_000_000_000n + BigInt(fraction.padEnd(10, '0').slice(0, 10)) * (x.startsWith('-') ? -1n : 1n);
};
const text = (x: bigint) => `${x / 10_000_000_000n}.${(x % 10_000_000_000n).toString().padStart(10, '0')}`;
const sum = (xs: string[]) => text(xs.reduce((a, x) => a + units(x), 0n));

type Obj = Record<string, unknown>;

const SETTLED: Record<string, [string, string]> = {
  TransferInstruction_Accept: ['transfer_instruction', 'accepted'],
  TransferInstruction_Reject: ['transfer_instruction', 'rejected'],
  TransferInstruction_Withdraw: ['transfer_instruction', 'withdrawn'],
  Allocation_ExecuteTransfer: ['allocation', 'executed'],
  Allocation_Cancel: ['allocation', 'cancelled'],
  Allocation_Withdraw: ['allocation', 'withdrawn'],
};
const COMMAND_STEPS: Record<string, string> = {
  TransferCommand_Send: 'sent',
  TransferCommand_Withdraw: 'withdrawn',
  TransferCommand_Expire: 'expired',
};
const VOTE_OUTCOMES: Record<string, string> = { VRO_Accepted: 'accepted', VRO_Rejected: 'rejected', VRO_Expired: 'expired' };
type Action = { value: { dsoAction?: { tag: string }; amuletRulesAction?: { tag: string } } };
const actionName = (a: Action) => (a.value.dsoAction ?? a.value.amuletRulesAction)!.tag;

/** Every activity row of the items, in the network's order (migration, record time, update, node, kind, leg). */
function expectedRows(items: CanonicalItem[]): ActivityRow[] {
  const rows: ActivityRow[] = [];
  // A vote request's id: the first request's contract id, followed through each ballot's new request.
  const requestIds = new Map<string, string>();
  for (const item of items) {
    const tx = item.update as TransactionUpdate | null;
    if (!tx || !('events_by_id' in tx) || tx.record_time.startsWith('0001-')) continue;
    const base = { migration_id: tx.migration_id, record_time: tx.record_time, update_id: tx.update_id };
    const createdUnder = (e: ExercisedEvent) =>
      e.child_event_ids.map((id) => tx.events_by_id[id]!).find((c): c is CreatedEvent => c.event_type === 'created_event')!;
    const parentOf = new Map<string, string>();
    for (const [id, e] of Object.entries(tx.events_by_id))
      if (e.event_type === 'exercised_event') for (const c of e.child_event_ids) parentOf.set(c, id);
    for (const [id, e] of Object.entries(tx.events_by_id)) {
      if (e.event_type !== 'exercised_event') continue;
      const parent = parentOf.get(id);
      const via = parent === undefined ? null : (tx.events_by_id[parent] as ExercisedEvent).choice;
      const common = {
        ...base,
        event_id: id,
        via,
        holding_fees: null,
        burned: null,
        provider: null,
        featured: null,
        traffic: null,
        subject: null,
        detail: null,
        outcome: null,
        expires_at: null,
      };
      const result = e.exercise_result as Obj;
      const arg = e.choice_argument as Obj;
      const zero = { round: null, fees: text(0n) };
      const childExercise = (choice: string) =>
        e.child_event_ids
          .map((c) => tx.events_by_id[c]!)
          .find((c): c is ExercisedEvent => c.event_type === 'exercised_event' && c.choice === choice)!;
      const createdOf = (entity: string) =>
        Object.values(tx.events_by_id).find(
          (c): c is CreatedEvent => c.event_type === 'created_event' && c.template_id.endsWith(`:${entity}`),
        )!;
      // The simulator pays the ANS fee by a transfer to the DSO under the exercise, and creates one entry in the transaction.
      if (e.choice === 'AnsRules_CollectInitialEntryPayment' || e.choice === 'AnsRules_CollectEntryRenewalPayment') {
        const fee = ((childExercise('AmuletRules_Transfer').choice_argument as Obj).transfer as { outputs: { amount: string }[] })
          .outputs[0]!.amount;
        const entry = createdOf('Splice.Ans:AnsEntry').create_arguments as { dso: string; name: string; expiresAt: string };
        const ans = {
          ...common,
          ...zero,
          kind: 'ans_entry',
          amount: text(units(fee)),
          subject: entry.name,
          outcome: e.choice === 'AnsRules_CollectInitialEntryPayment' ? 'created' : 'renewed',
          expires_at: entry.expiresAt,
        };
        rows.push(
          { ...ans, leg: 0, party: arg.user as string, burned: text(units(fee)), counterparties: [entry.dso] },
          { ...ans, leg: 1, party: entry.dso, counterparties: [arg.user as string] },
        );
      }
      if (e.choice === 'ExternalPartyAmuletRules_CreateTransferCommand') {
        const c = arg as { sender: string; receiver: string; delegate: string; amount: string; expiresAt: string };
        const command = {
          ...common,
          ...zero,
          kind: 'transfer_command',
          amount: text(units(c.amount)),
          provider: c.delegate,
          subject: result.transferCommandCid as string,
          outcome: 'created',
          expires_at: c.expiresAt,
        };
        rows.push(
          { ...command, leg: 0, party: c.sender, counterparties: [c.receiver] },
          { ...command, leg: 1, party: c.receiver, counterparties: [c.sender] },
        );
      }
      if (COMMAND_STEPS[e.choice]) {
        const outcome = result.result as { tag: string; value: { reason?: { tag: string; value: Record<string, string> } } } | undefined;
        const reason = outcome?.value.reason;
        rows.push({
          ...common,
          ...zero,
          kind: 'transfer_command',
          leg: 0,
          party: result.sender as string,
          amount: text(0n),
          counterparties: [],
          subject: e.contract_id,
          detail: reason ? `${reason.tag}(${Object.values(reason.value).join(', ')})` : null,
          outcome: reason ? 'failed' : COMMAND_STEPS[e.choice]!,
        });
      }
      // Token standard V2 names the settlement beside the allocation: below.
      if (e.choice === 'TransferFactory_Transfer' || (e.choice === 'AllocationFactory_Allocate' && arg.settlement === undefined)) {
        const output = result.output as { tag: string; value: Record<string, string> };
        const allocation = e.choice === 'AllocationFactory_Allocate';
        type Leg = { sender: string; receiver: string; amount: string; executeBefore: string };
        const spec = arg.allocation as
          { settlement: { executor: string; settlementRef: { id: string }; settleBefore: string }; transferLeg: Leg } | undefined;
        const leg = allocation ? spec!.transferLeg : (arg.transfer as Leg);
        if (allocation || output.tag === 'TransferInstructionResult_Pending') {
          const made = {
            ...common,
            ...zero,
            kind: allocation ? 'allocation' : 'transfer_instruction',
            amount: text(units(leg.amount)),
            provider: allocation ? spec!.settlement.executor : null,
            subject: allocation ? output.value.allocationCid! : output.value.transferInstructionCid!,
            detail: allocation ? spec!.settlement.settlementRef.id : null,
            outcome: 'created',
            expires_at: allocation ? spec!.settlement.settleBefore : leg.executeBefore,
          };
          rows.push(
            { ...made, leg: 0, party: leg.sender, counterparties: [leg.receiver] },
            { ...made, leg: 1, party: leg.receiver, counterparties: [leg.sender] },
          );
        }
      }
      if (e.choice === 'AllocationFactory_Allocate' && arg.settlement !== undefined) {
        // The simulator's V2 allocation has one transfer leg side, to or from the other side's owner.
        const settlement = arg.settlement as { executors: string[]; id: string };
        const spec = arg.allocation as {
          authorizer: { owner: string };
          transferLegSides: { otherside: { owner: string }; amount: string }[];
          settlementDeadline: string | null;
        };
        const side = spec.transferLegSides[0]!;
        const made = {
          ...common,
          ...zero,
          kind: 'allocation',
          amount: text(units(side.amount)),
          provider: settlement.executors[0]!,
          subject: (result.output as { value: { allocationCid: string } }).value.allocationCid,
          detail: settlement.id,
          outcome: 'created',
          expires_at: spec.settlementDeadline,
        };
        rows.push(
          { ...made, leg: 0, party: spec.authorizer.owner, counterparties: [side.otherside.owner] },
          { ...made, leg: 1, party: side.otherside.owner, counterparties: [spec.authorizer.owner] },
        );
      }
      const v2 = e.choice === 'Allocation_Settle' || (SETTLED[e.choice] !== undefined && result.authorizerHoldingCids !== undefined);
      if (v2) {
        // The executor of a batch acts with the DSO. A settlement delivers the receiver's side a new amulet
        // (the sender's side only archives its lock); a cancel or withdraw unlocks the sender's lock back to it.
        const batch = parent === undefined ? undefined : (tx.events_by_id[parent] as ExercisedEvent);
        const settlement =
          batch?.choice === 'SettlementFactory_SettleBatch'
            ? (batch.choice_argument as { settlement: { executors: string[]; id: string } }).settlement
            : null;
        const actor = e.acting_parties.find((p) => settlement?.executors.includes(p)) ?? e.acting_parties[0]!;
        const unlock = e.child_event_ids
          .map((c) => tx.events_by_id[c]!)
          .find((c) => c.event_type === 'exercised_event' && c.choice === 'LockedAmulet_Unlock');
        const amulet = (unlock ? createdUnder(unlock as ExercisedEvent) : createdUnder(e)) as CreatedEvent | undefined;
        const back = amulet?.create_arguments as { owner: string; amount: { initialAmount: string } } | undefined;
        const outcome = e.choice === 'Allocation_Settle' ? 'settled' : SETTLED[e.choice]![1];
        const settled = { ...common, ...zero, kind: 'allocation', subject: e.contract_id, detail: settlement?.id ?? null, outcome };
        if (back === undefined) rows.push({ ...settled, leg: 0, party: actor, amount: text(0n), counterparties: [] });
        else if (back.owner === actor)
          rows.push({ ...settled, leg: 0, party: actor, amount: text(units(back.amount.initialAmount)), counterparties: [] });
        else
          rows.push(
            { ...settled, leg: 0, party: actor, amount: text(0n), counterparties: [back.owner] },
            { ...settled, leg: 1, party: back.owner, amount: text(units(back.amount.initialAmount)), counterparties: [actor] },
          );
      }
      if (SETTLED[e.choice] && !v2) {
        // The simulator unlocks the amulet under the choice, as a new amulet of whoever it goes to.
        const back = createdUnder(childExercise('LockedAmulet_Unlock')).create_arguments as {
          owner: string;
          amount: { initialAmount: string };
        };
        const actor = e.acting_parties[0]!;
        const [kind, outcome] = SETTLED[e.choice]!;
        const settled = { ...common, ...zero, kind, subject: e.contract_id, outcome };
        const amount = text(units(back.amount.initialAmount));
        if (back.owner === actor) rows.push({ ...settled, leg: 0, party: actor, amount, counterparties: [] });
        else
          rows.push(
            { ...settled, leg: 0, party: actor, amount: text(0n), counterparties: [back.owner] },
            { ...settled, leg: 1, party: back.owner, amount, counterparties: [actor] },
          );
      }
      const ballot = { ...common, ...zero, kind: 'vote', leg: 0, amount: text(0n), counterparties: [] };
      if (e.choice === 'DsoRules_RequestVote') {
        const cid = result.voteRequest as string;
        requestIds.set(cid, cid);
        rows.push({ ...ballot, party: arg.requester as string, subject: cid, detail: actionName(arg.action as Action), outcome: 'accept' });
      }
      if (e.choice === 'DsoRules_CastVote') {
        const requestId = requestIds.get(arg.requestCid as string)!;
        requestIds.set(result.voteRequest as string, requestId);
        const vote = arg.vote as { sv: string; accept: boolean };
        const action = (createdOf('Splice.DsoRules:VoteRequest').create_arguments as { action: Action }).action;
        rows.push({
          ...ballot,
          party: vote.sv,
          subject: requestId,
          detail: actionName(action),
          outcome: vote.accept ? 'accept' : 'reject',
        });
      }
      if (e.choice === 'DsoRules_CloseVoteRequest') {
        const request = result.request as { dso: string; action: Action; votes: [string, { sv: string }][] };
        const outcome = result.outcome as { tag: string; value: { effectiveAt?: string } | null };
        const voters = request.votes.map(([, v]) => v.sv);
        const closed = {
          ...common,
          ...zero,
          kind: 'vote_result',
          amount: text(0n),
          subject: requestIds.get(arg.requestCid as string)!,
          detail: actionName(request.action),
          outcome: VOTE_OUTCOMES[outcome.tag]!,
          expires_at: outcome.tag === 'VRO_Accepted' ? outcome.value!.effectiveAt! : null,
        };
        rows.push({ ...closed, leg: 0, party: request.dso, counterparties: voters });
        voters.forEach((v, i) => rows.push({ ...closed, leg: i + 1, party: v, counterparties: [request.dso] }));
      }
      if (e.choice === 'AmuletRules_Transfer') {
        const arg = e.choice_argument as { transfer: { sender: string; provider: string; outputs: Obj[] }; context: Obj };
        const summary = result.summary as { outputFees: string[]; senderChangeFee: string; holdingFees: string };
        const round = Number((result.round as { number: string }).number);
        const sender = arg.transfer.sender;
        const outputs = arg.transfer.outputs as { receiver: string; amount: string; lock: { holders: string[] } | null }[];
        const others = outputs.filter((o) => o.receiver !== sender);
        const receivers = [...new Set(others.map((o) => o.receiver))];
        const transfer = {
          ...common,
          kind: 'transfer',
          round,
          provider: arg.transfer.provider,
          featured: arg.context.featuredAppRight !== null,
        };
        rows.push({
          ...transfer,
          leg: 0,
          party: sender,
          amount: sum(others.map((o) => o.amount)),
          fees: sum([...summary.outputFees, summary.senderChangeFee]),
          holding_fees: summary.holdingFees,
          burned: text(units((result.meta as { values: Record<string, string> }).values[BURNED]!)),
          counterparties: receivers,
        });
        receivers.forEach((r, i) =>
          rows.push({
            ...transfer,
            leg: i + 1,
            party: r,
            amount: sum(others.filter((o) => o.receiver === r).map((o) => o.amount)),
            fees: text(0n),
            counterparties: [sender],
          }),
        );
        outputs.forEach((o, i) => {
          if (o.lock)
            rows.push({
              ...common,
              kind: 'lock',
              leg: i,
              party: o.receiver,
              round,
              amount: o.amount,
              fees: text(0n),
              counterparties: o.lock.holders,
            });
        });
      }
      const creates: Record<string, string> = {
        AmuletRules_DevNet_Tap: 'tap',
        LockedAmulet_Unlock: 'unlock',
        LockedAmulet_OwnerExpireLock: 'owner_expire_lock',
      };
      // A mint under a tap is the tap; the simulator mints only so.
      if (creates[e.choice]) {
        const amulet = (
          e.choice === 'AmuletRules_DevNet_Tap' ? createdUnder(tx.events_by_id[e.child_event_ids[0]!] as ExercisedEvent) : createdUnder(e)
        ).create_arguments as { owner: string; amount: { initialAmount: string } };
        const sumOf = result.amuletSum as { round: { number: string } };
        rows.push({
          ...common,
          kind: creates[e.choice]!,
          leg: 0,
          party: amulet.owner,
          round: Number(sumOf.round.number),
          amount: text(units(amulet.amount.initialAmount)),
          fees: text(0n),
          counterparties: [],
        });
      }
    }
  }
  const node = (r: ActivityRow) => Number(r.event_id.split(':').pop());
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return rows.sort(
    (a, b) =>
      a.migration_id - b.migration_id ||
      cmp(a.record_time, b.record_time) ||
      cmp(a.update_id, b.update_id) ||
      node(a) - node(b) ||
      cmp(a.kind, b.kind) ||
      a.leg - b.leg,
  );
}

const csvField = (x: string) => (/[",\r\n]/.test(x) ? `"${x.replace(/"/g, '""')}"` : x);
const csvOf = (rows: ActivityRow[]) =>
  'migration_id,record_time,update_id,event_id,kind,leg,party,round,amount,fees,holding_fees,burned,counterparties,provider,featured,via,traffic,subject,detail,outcome,expires_at\r\n' +
  rows
    .map(
      (r) =>
        [
          r.migration_id,
          r.record_time,
          r.update_id,
          r.event_id,
          r.kind,
          r.leg,
          r.party,
          r.round ?? '',
          r.amount,
          r.fees,
          r.holding_fees ?? '',
          r.burned ?? '',
          r.counterparties.join(' '),
          r.provider ?? '',
          r.featured ?? '',
          r.via ?? '',
          r.traffic ?? '',
          r.subject ?? '',
          csvField(r.detail ?? ''),
          r.outcome ?? '',
          r.expires_at ?? '',
        ].join(',') + '\r\n',
    )
    .join('');

describe('the activity projection and a party activity', () => {
  const t = useTestDatabase();
  const items = simulatedItems({ seed: 'activity', updates: 1200, migrations: 2, meanUpdateGapMs: 30_000 });
  const all = expectedRows(items);
  // The party with the most rows, and one that has received, tapped, locked and unlocked.
  const counts = new Map<string, number>();
  for (const r of all) counts.set(r.party, (counts.get(r.party) ?? 0) + 1);
  const busiest = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
  const ofParty = (party: string) => all.filter((r) => r.party === party);
  let api: TestApi;
  const get = (path: string, headers?: Record<string, string>) => request(api.url, 'GET', `/api/indexer${path}`, undefined, headers);
  const activityPath = (party: string, query = '') => `/v0/parties/${encodeURIComponent(party)}/activity${query}`;

  beforeAll(async () => {
    await ingestThroughWorker(t, items);
    api = await startTestApi(t);
  }, 300_000);
  afterAll(async () => api?.close());

  it('has a dataset worth testing', () => {
    const kinds = new Set(all.map((r) => r.kind));
    expect([...kinds].sort()).toEqual([
      'allocation',
      'ans_entry',
      'lock',
      'owner_expire_lock',
      'tap',
      'transfer',
      'transfer_command',
      'transfer_instruction',
      'unlock',
      'vote',
      'vote_result',
    ]);
    const outcomes = (kind: string) => [...new Set(all.filter((r) => r.kind === kind).map((r) => r.outcome))].sort();
    expect(outcomes('ans_entry')).toEqual(['created', 'renewed']);
    // The delegate's sends all fail in this network (no preapproval, or too little to send).
    expect(outcomes('transfer_command')).toEqual(['created', 'failed', 'withdrawn']);
    expect(outcomes('transfer_instruction')).toEqual(['accepted', 'created', 'rejected']);
    expect(outcomes('allocation')).toEqual(['created', 'executed', 'withdrawn']);
    expect(outcomes('vote')).toEqual(['accept']);
    expect(outcomes('vote_result').length).toBeGreaterThan(0);
    expect(all.some((r) => r.kind === 'transfer' && r.leg === 2)).toBe(true);
    expect(all.some((r) => r.featured === true)).toBe(true);
    expect(new Set(all.map((r) => r.migration_id))).toEqual(new Set([0, 1]));
    expect(ofParty(busiest).length).toBeGreaterThan(25);
  });

  it('the writer stored every row the items imply', async () => {
    const { rows } = await t.pool.query<{ n: string; burned: string }>(
      'select count(*)::text as n, coalesce(sum(burned), 0)::numeric(38, 10)::text as burned from activities',
    );
    expect(rows[0]).toEqual({ n: String(all.length), burned: sum(all.flatMap((r) => (r.burned === null ? [] : [r.burned]))) });
  });

  it('pages a party activity newest first, whole bodies, through every page', async () => {
    const expected = ofParty(busiest).reverse();
    const first = await get(activityPath(busiest, '?page_size=7'));
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect((first.json as Page).activities).toEqual(expected.slice(0, 7));
    const seen: ActivityRow[] = [];
    let token: string | null = null;
    let pages = 0;
    do {
      const res = await get(activityPath(busiest, `?page_size=7${token ? `&page_token=${encodeURIComponent(token)}` : ''}`));
      const page = res.json as Page;
      seen.push(...page.activities);
      token = page.next_page_token;
      pages += 1;
    } while (token !== null && pages < 100);
    expect(seen).toEqual(expected);
  });

  it('filters by kinds and a record-time range, oldest first', async () => {
    const rows = ofParty(busiest);
    const from = rows[Math.floor(rows.length / 4)]!.record_time;
    const to = rows[Math.floor((3 * rows.length) / 4)]!.record_time;
    const expected = rows.filter((r) => ['transfer', 'tap'].includes(r.kind) && r.record_time >= from && r.record_time < to);
    const res = await get(
      activityPath(
        busiest,
        `?kind=transfer&kind=tap&order=asc&page_size=1000&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`,
      ),
    );
    expect({ status: res.status, body: res.json }).toEqual({ status: 200, body: { activities: expected, next_page_token: null } });
    const one = await get(activityPath(busiest, '?kind=lock&order=asc&page_size=1000'));
    expect(one.json).toEqual({ activities: rows.filter((r) => r.kind === 'lock'), next_page_token: null });
  });

  it('streams the same rows as CSV with a header, over the whole range', async () => {
    const res = await get(activityPath(busiest), { accept: 'text/csv' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.text).toBe(csvOf(ofParty(busiest).reverse()));
    const asc = await get(activityPath(busiest, '?order=asc&kind=unlock&kind=owner_expire_lock'), { accept: 'text/csv' });
    expect(asc.text).toBe(csvOf(ofParty(busiest).filter((r) => r.kind === 'unlock' || r.kind === 'owner_expire_lock')));
  });

  it('shows the kinds beyond Amulet for the parties they concern: ANS entries, transfer commands, instructions, allocations, votes', async () => {
    for (const kind of ['ans_entry', 'transfer_command', 'transfer_instruction', 'allocation', 'vote', 'vote_result']) {
      // Every party with rows of the kind: its rows of the kind, oldest first, whole bodies.
      for (const party of new Set(all.filter((r) => r.kind === kind).map((r) => r.party))) {
        const res = await get(activityPath(party, `?kind=${kind}&order=asc&page_size=1000`));
        expect({ kind, party, status: res.status, body: res.json }).toEqual({
          kind,
          party,
          status: 200,
          body: { activities: ofParty(party).filter((r) => r.kind === kind), next_page_token: null },
        });
      }
    }
    // An SV's history as CSV: its ballots and the results of the votes it took part in.
    const voter = all.find((r) => r.kind === 'vote')!.party;
    const csv = await get(activityPath(voter, '?order=asc&kind=vote&kind=vote_result'), { accept: 'text/csv' });
    expect(csv.text).toBe(csvOf(ofParty(voter).filter((r) => r.kind === 'vote' || r.kind === 'vote_result')));
  });

  it('answers a party without activity with an empty page, and client mistakes with the Scan error body', async () => {
    expect((await get(activityPath('nobody::1220'))).json).toEqual({ activities: [], next_page_token: null });
    const cases: [string, string][] = [
      [activityPath('no-namespace'), 'Invalid unique identifier `no-namespace` with missing namespace.'],
      [activityPath(busiest, '?from=yesterday'), "Invalid from: expected an ISO 8601 date-time with a zone, got 'yesterday'."],
    ];
    for (const [path, error] of cases) {
      const res = await get(path);
      expect({ status: res.status, body: res.json }).toEqual({ status: 400, body: { error } });
    }
    const kind = await get(activityPath(busiest, '?kind=gift'));
    expect(kind.status).toBe(400);
    const other = await get(activityPath(busiest, '?page_size=2'));
    const token = (other.json as Page).next_page_token!;
    const replayed = await get(activityPath(busiest, `?page_size=2&order=asc&page_token=${encodeURIComponent(token)}`));
    expect({ status: replayed.status, body: replayed.json }).toEqual({
      status: 400,
      body: {
        error:
          "Invalid page token in 'page_token': it was issued for a different request. Repeat the request that returned it, changing only 'page_token'.",
      },
    });
  });

  it('the backfill derives the same rows from stored history, resumes after an interruption, and keeps rows already there', async () => {
    const snapshot = async () =>
      (await t.pool.query('select * from activities order by migration_id, record_time, update_id, node, kind, leg')).rows as unknown[];
    const written = await snapshot();
    expect(written).toHaveLength(all.length);
    // The kinds beyond Amulet's own are derived again too.
    expect(new Set((written as { kind: string }[]).map((r) => r.kind))).toEqual(new Set(all.map((r) => r.kind)));
    // History stored before the projection: no rows.
    await t.pool.query('delete from activities');
    const stop = new AbortController();
    let pages = 0;
    const first = await backfillActivities(t.db, {
      pageSize: 100,
      signal: stop.signal,
      onProgress: () => {
        if (++pages === 3) stop.abort();
      },
    });
    expect(first).toEqual({ updates: 300, activities: expect.any(Number), finished: false });
    const progress: number[] = [];
    const second = await backfillActivities(t.db, { pageSize: 100, onProgress: (p) => progress.push(p.updatesDone) });
    expect(second.finished).toBe(true);
    expect(progress[0]).toBe(400);
    expect(await snapshot()).toEqual(written);
    // Finished: a third run does nothing.
    expect(await backfillActivities(t.db)).toEqual({ updates: 0, activities: 0, finished: true });
  });
});

describe('token-standard V2 allocations in a party activity', () => {
  const t = useTestDatabase();
  const items = simulatedItems({ seed: 'activity-1', updates: 1200, migrations: 2, meanUpdateGapMs: 30_000, tokenStandardV2: true });
  const allocations = expectedRows(items).filter((r) => r.kind === 'allocation');
  let api: TestApi;

  beforeAll(async () => {
    await ingestThroughWorker(t, items);
    api = await startTestApi(t);
  }, 300_000);
  afterAll(async () => api?.close());

  it('shows every side of a V2 trade, created, settled in a batch, cancelled or withdrawn, beside V1 allocations, whole bodies', async () => {
    // V1 allocations are executed; V2 ones settled in a batch (with the settlement's id); both cancelled and withdrawn.
    const outcomes = [...new Set(allocations.map((r) => r.outcome))].sort();
    expect(outcomes).toEqual(['cancelled', 'created', 'executed', 'settled', 'withdrawn']);
    // The network has each V2 step (a V2 result names the authorizer's holdings).
    const v2Steps = new Set(
      items.flatMap((i) =>
        Object.values((i.update as TransactionUpdate | null)?.events_by_id ?? {}).flatMap((e) =>
          e.event_type === 'exercised_event' && (e.exercise_result as Obj | null)?.authorizerHoldingCids !== undefined ? [e.choice] : [],
        ),
      ),
    );
    expect([...v2Steps].sort()).toEqual(['Allocation_Cancel', 'Allocation_Settle', 'Allocation_Withdraw']);
    expect(allocations.some((r) => r.outcome === 'settled' && r.leg === 1)).toBe(true);
    for (const party of new Set(allocations.map((r) => r.party))) {
      const res = await request(
        api.url,
        'GET',
        `/api/indexer/v0/parties/${encodeURIComponent(party)}/activity?kind=allocation&order=asc&page_size=1000`,
      );
      expect({ party, status: res.status, body: res.json }).toEqual({
        party,
        status: 200,
        body: { activities: allocations.filter((r) => r.party === party), next_page_token: null },
      });
    }
    // Nothing skipped: every V2 exercise derived.
    const { rows } = await t.pool.query<{ n: string }>(`select count(*)::text as n from activities where kind = 'allocation'`);
    expect(Number(rows[0]!.n)).toBe(allocations.length);
  });
});
