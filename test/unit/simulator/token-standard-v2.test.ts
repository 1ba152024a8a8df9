/**
 * The simulator's token-standard V2 trades (the `tokenStandardV2` option): off by default, and when on,
 * AmuletAllocationV2 contracts and the choices around them with the fields of Splice's Daml models
 * (Splice.AmuletAllocationV2, Splice.Api.Token.AllocationV2 and AllocationInstructionV2), locks that
 * back the senders' sides as Amulet's V2 allocation factory makes them, and settlements that consume
 * what they settle and pay the receiver the leg's amount. Checked by reading the stream, not the
 * simulator's state.
 */
import type { CanonicalItem, CreatedEvent, ExercisedEvent, TransactionUpdate, TreeEvent } from '../../../src/domain/items';
import { generateItems } from '../../../src/simulator/index';
import { sampleStream } from './fixtures';
import { checkStream } from './stream-checker';

type Obj = Record<string, unknown>;

const entity = (e: TreeEvent) => e.template_id.split(':').slice(1).join(':');
const transactions = (items: CanonicalItem[]): TransactionUpdate[] =>
  items.flatMap((i) => (i.update && 'events_by_id' in i.update ? [i.update] : []));
const exercises = (tx: TransactionUpdate, choice: string): ExercisedEvent[] =>
  Object.values(tx.events_by_id).filter((e): e is ExercisedEvent => e.event_type === 'exercised_event' && e.choice === choice);
const creates = (tx: TransactionUpdate, qualifiedName: string): CreatedEvent[] =>
  Object.values(tx.events_by_id).filter((e): e is CreatedEvent => e.event_type === 'created_event' && entity(e) === qualifiedName);
const childrenOf = (tx: TransactionUpdate, e: ExercisedEvent) => e.child_event_ids.map((id) => tx.events_by_id[id]!);

describe('token-standard V2 trades in the simulator', () => {
  it('are off by default', () => {
    const txs = transactions(sampleStream());
    expect(txs.flatMap((tx) => creates(tx, 'Splice.AmuletAllocationV2:AmuletAllocationV2'))).toEqual([]);
    expect(txs.flatMap((tx) => exercises(tx, 'SettlementFactory_SettleBatch'))).toEqual([]);
  });

  const items = [
    ...generateItems({ seed: 'v2-trades', updates: 1500, migrations: 2, tickSeconds: 120, parties: 60, tokenStandardV2: true }),
  ];
  const txs = transactions(items).filter((tx) => !tx.record_time.startsWith('0001-'));

  it('keep the stream consistent', () => {
    expect(checkStream(items).errors).toEqual([]);
  });

  it("allocate with the V2 AllocationFactory_Allocate: an AmuletAllocationV2 with the Daml fields, the sender's side locked", () => {
    let locked = 0;
    let credits = 0;
    for (const tx of txs) {
      for (const allocate of exercises(tx, 'AllocationFactory_Allocate')) {
        const arg = allocate.choice_argument as Obj;
        if (!('settlement' in arg)) continue; // a v1 allocation
        expect(Object.keys(arg)).toEqual(['settlement', 'allocation', 'requestedAt', 'inputHoldingCids', 'extraArgs', 'actors']);
        const [allocation] = creates(tx, 'Splice.AmuletAllocationV2:AmuletAllocationV2');
        const payload = allocation!.create_arguments as Obj;
        expect(Object.keys(payload)).toEqual(['lockedAmulet', 'settlement', 'allocation', 'expiresAt', 'numIterations', 'createdAt']);
        const spec = payload.allocation as {
          authorizer: { owner: string };
          admin: string;
          transferLegSides: Obj[];
          settlementDeadline: string;
        };
        expect(Object.keys(spec)).toEqual([
          'admin',
          'authorizer',
          'transferLegSides',
          'settlementDeadline',
          'nextIterationFunding',
          'committed',
          'meta',
        ]);
        expect(payload.settlement).toEqual(arg.settlement);
        expect(payload.allocation).toEqual(arg.allocation);
        expect(payload.createdAt).toBe(arg.requestedAt);
        expect(payload.expiresAt).toBe(spec.settlementDeadline);
        expect(allocation!.signatories).toEqual([spec.admin, spec.authorizer.owner].sort());
        expect(allocation!.observers).toEqual((payload.settlement as { executors: string[] }).executors);
        expect(allocate.acting_parties).toEqual([spec.authorizer.owner]);
        expect(allocate.exercise_result).toEqual({
          output: { tag: 'AllocationInstructionResult_Completed', value: { allocationCid: allocation!.contract_id } },
          authorizerChangeCids: expect.objectContaining({ Amulet: expect.any(Array) }) as unknown,
          meta: { values: {} },
        });
        const [side] = spec.transferLegSides as { side: string; amount: string }[];
        const locks = creates(tx, 'Splice.Amulet:LockedAmulet');
        if (side!.side === 'SenderSide') {
          // The net debit is locked to the DSO until the allocation expires.
          locked++;
          expect(locks).toHaveLength(1);
          expect(payload.lockedAmulet).toBe(locks[0]!.contract_id);
          const lock = locks[0]!.create_arguments as { amulet: { owner: string; amount: { initialAmount: string } }; lock: Obj };
          expect(lock.amulet.owner).toBe(spec.authorizer.owner);
          expect(lock.amulet.amount.initialAmount).toBe(side!.amount);
          expect(lock.lock).toMatchObject({ holders: [spec.admin], expiresAt: payload.expiresAt });
        } else {
          credits++;
          expect(payload.lockedAmulet).toBeNull();
          expect(locks).toEqual([]);
          expect(arg.inputHoldingCids).toEqual([]);
        }
      }
    }
    expect(locked).toBeGreaterThan(0);
    expect(credits).toBeGreaterThan(0);
  });

  it('settle with SettlementFactory_SettleBatch: every allocation and lock consumed, the receiver paid the leg', () => {
    const created = new Map<string, CreatedEvent>();
    let settled = 0;
    for (const tx of txs) {
      for (const e of Object.values(tx.events_by_id)) if (e.event_type === 'created_event') created.set(e.contract_id, e);
      for (const batch of exercises(tx, 'SettlementFactory_SettleBatch')) {
        settled++;
        const arg = batch.choice_argument as { allocations: { allocationCid: string }[]; transferLegs: { amount: string }[] };
        const settles = childrenOf(tx, batch) as ExercisedEvent[];
        expect(settles.map((s) => [s.choice, s.contract_id])).toEqual(arg.allocations.map((a) => ['Allocation_Settle', a.allocationCid]));
        for (const settle of settles) {
          const payload = created.get(settle.contract_id)!.create_arguments as { lockedAmulet: string | null };
          const children = childrenOf(tx, settle);
          const archived = children.filter((c) => c.event_type === 'exercised_event' && c.consuming).map((c) => c.contract_id);
          expect(archived).toEqual(payload.lockedAmulet === null ? [settle.contract_id] : [settle.contract_id, payload.lockedAmulet]);
          const paid = children.filter((c): c is CreatedEvent => c.event_type === 'created_event');
          if (payload.lockedAmulet === null) {
            expect(paid.map((c) => (c.create_arguments as { amount: { initialAmount: string } }).amount.initialAmount)).toEqual([
              arg.transferLegs[0]!.amount,
            ]);
          } else expect(paid).toEqual([]);
        }
      }
    }
    expect(settled).toBeGreaterThan(0);
  });
});
