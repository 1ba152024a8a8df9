import { activitiesOf, type Activity } from '../../../src/domain/activities';
import type { CreatedEvent, ExercisedEvent, TransactionUpdate, TreeEvent } from '../../../src/domain/items';
import type { Json } from '../../../src/domain/json';

// A hand-made tree: figures chosen so that each expected value below is worked out by hand.
const ALICE = 'alice::1220';
const BOB = 'bob::1220';
const CAROL = 'carol::1220';
const APP = 'app::1220';
const DSO = 'DSO::1220';
const U = 'u1';
const d = (x: string) => BigInt(x.replace('.', '').padEnd(x.indexOf('.') < 0 ? x.length + 10 : x.indexOf('.') + 10, '0'));

function exercise(n: number, choice: string, argument: Json, result: Json, children: number[] = []): ExercisedEvent {
  return {
    event_type: 'exercised_event',
    event_id: `${U}:${n}`,
    contract_id: `c${n}`,
    template_id: 'pkg:Splice.AmuletRules:AmuletRules',
    package_name: 'splice-amulet',
    choice,
    choice_argument: argument,
    child_event_ids: children.map((c) => `${U}:${c}`),
    exercise_result: result,
    consuming: false,
    acting_parties: [ALICE],
    interface_id: null,
  };
}

function amulet(n: number, owner: string, amount: string): CreatedEvent {
  return {
    event_type: 'created_event',
    event_id: `${U}:${n}`,
    contract_id: `amulet${n}`,
    template_id: 'pkg:Splice.Amulet:Amulet',
    package_name: 'splice-amulet',
    create_arguments: {
      dso: DSO,
      owner,
      amount: { initialAmount: amount, createdAt: { number: '7' }, ratePerRound: { rate: '0.0000190259' } },
    },
    created_at: '2025-01-01T00:00:00.000000Z',
    signatories: [DSO, owner],
    observers: [],
  };
}

function tx(events: TreeEvent[], roots: number[]): TransactionUpdate {
  return {
    update_id: U,
    migration_id: 0,
    workflow_id: '',
    record_time: '2025-01-01T00:00:00.000000Z',
    synchronizer_id: 'sync::1220',
    effective_at: '2025-01-01T00:00:00.000000Z',
    root_event_ids: roots.map((r) => `${U}:${r}`),
    events_by_id: Object.fromEntries(events.map((e) => [e.event_id, e])),
  };
}

const output = (receiver: string, amount: string, receiverFeeRatio = '0.0000000000', lock: Json = null) => ({
  receiver,
  receiverFeeRatio,
  amount,
  lock,
});

const summary = (over: Record<string, Json> = {}) => ({
  inputAppRewardAmount: '0.0000000000',
  inputValidatorRewardAmount: '0.0000000000',
  inputSvRewardAmount: '0.0000000000',
  inputAmuletAmount: '1000.0000000000',
  balanceChanges: [],
  holdingFees: '0.5000000000',
  outputFees: [],
  senderChangeFee: '6.0000000000',
  senderChangeAmount: '100.0000000000',
  amuletPrice: '0.0050000000',
  inputValidatorFaucetAmount: null,
  ...over,
});

const base = { holdingFees: null, burned: null, counterparties: [], provider: null, featured: null, via: null, traffic: null };

describe('activities of a transaction', () => {
  it('a transfer to several receivers, with fees split by ratio, a self-output, a lock and claimed rewards, reached through a preapproval', () => {
    const transfer = exercise(
      1,
      'AmuletRules_Transfer',
      {
        transfer: {
          sender: ALICE,
          provider: APP,
          inputs: [],
          outputs: [
            output(BOB, '100.0000000000'),
            // Carol bears a quarter of her output's fee.
            output(CAROL, '200.0000000000', '0.2500000000'),
            output(BOB, '50.0000000000'),
            // Alice locks 30 to herself for the app: no transfer to another party, but a lock.
            output(ALICE, '30.0000000000', '0.0000000000', { holders: [APP], expiresAt: '2025-01-02T00:00:00Z', optContext: null }),
          ],
          beneficiaries: null,
        },
        context: { openMiningRound: 'r', issuingMiningRounds: [], validatorRights: [], featuredAppRight: 'right1' },
        expectedDso: DSO,
      },
      {
        round: { number: '42' },
        summary: summary({
          outputFees: ['1.1000000000', '2.2000000000', '0.6000000000', '0.0300000000'],
          inputAppRewardAmount: '3.0000000000',
          inputValidatorRewardAmount: '0.0000000000',
          inputSvRewardAmount: '4.5000000000',
          inputValidatorFaucetAmount: '0.2500000000',
        }),
        createdAmulets: [],
        senderChangeAmulet: null,
        meta: null,
      },
    );
    const root = exercise(0, 'TransferPreapproval_Send', {}, {}, [1]);
    const rows = activitiesOf(tx([root, transfer], [0]));
    const common = { ...base, node: 1, round: 42n, via: 'TransferPreapproval_Send' };
    // Sender: sent 100 + 200 + 50 to others; fees: 1.1 + 2.2 * 0.75 + 0.6 + 0.03 (self-output) + 6 change fee.
    // Burned: 0.5 holding + (1.1 + 2.2 + 0.6 + 0.03) output fees + 6 change fee.
    const expected: Activity[] = [
      {
        ...common,
        kind: 'transfer',
        leg: 0,
        party: ALICE,
        amount: d('350'),
        fees: d('9.38'),
        holdingFees: d('0.5'),
        burned: d('10.43'),
        counterparties: [BOB, CAROL],
        provider: APP,
        featured: true,
      },
      {
        ...common,
        kind: 'transfer',
        leg: 1,
        party: BOB,
        amount: d('150'),
        fees: 0n,
        counterparties: [ALICE],
        provider: APP,
        featured: true,
      },
      {
        ...common,
        kind: 'transfer',
        leg: 2,
        party: CAROL,
        amount: d('200'),
        fees: d('0.55'),
        counterparties: [ALICE],
        provider: APP,
        featured: true,
      },
      { ...common, kind: 'lock', leg: 3, party: ALICE, amount: d('30'), fees: 0n, counterparties: [APP] },
      { ...common, kind: 'app_reward', leg: 0, party: ALICE, amount: d('3'), fees: 0n },
      { ...common, kind: 'sv_reward', leg: 0, party: ALICE, amount: d('4.5'), fees: 0n },
      { ...common, kind: 'validator_faucet', leg: 0, party: ALICE, amount: d('0.25'), fees: 0n },
    ];
    expect(rows).toEqual(expected);
  });

  it('a tap is one activity, not also a mint; a mint alone is a mint', () => {
    const created = amulet(2, BOB, '500.0000000000');
    const sum = { amuletSum: { amulet: created.contract_id, amuletPrice: '0.005', round: { number: '9' } } };
    const mint = exercise(1, 'AmuletRules_Mint', { receiver: BOB, amount: '500.0000000000' }, sum, [2]);
    const tap = exercise(0, 'AmuletRules_DevNet_Tap', { receiver: BOB, amount: '500.0000000000' }, { ...sum, meta: null }, [1]);
    expect(activitiesOf(tx([tap, mint, created], [0]))).toEqual([
      { ...base, node: 0, kind: 'tap', leg: 0, party: BOB, round: 9n, amount: d('500'), fees: 0n },
    ]);
    expect(activitiesOf(tx([mint, created], [1]))).toEqual([
      { ...base, node: 1, kind: 'mint', leg: 0, party: BOB, round: 9n, amount: d('500'), fees: 0n },
    ]);
  });

  it('an unlock names the owner of the amulet it creates, reached through an accepted transfer instruction', () => {
    const created = amulet(2, CAROL, '75.0000000000');
    const result = { amuletSum: { amulet: created.contract_id, amuletPrice: '0.005', round: { number: '11' } }, meta: null };
    const unlock = exercise(1, 'LockedAmulet_Unlock', {}, result, [2]);
    const accept = exercise(0, 'TransferInstruction_Accept', {}, {}, [1]);
    expect(activitiesOf(tx([accept, unlock, created], [0]))).toEqual([
      { ...base, node: 1, kind: 'unlock', leg: 0, party: CAROL, round: 11n, amount: d('75'), fees: 0n, via: 'TransferInstruction_Accept' },
    ]);
    const expire = exercise(0, 'LockedAmulet_OwnerExpireLock', {}, result, [2]);
    expect(activitiesOf(tx([expire, created], [0]))).toEqual([
      { ...base, node: 0, kind: 'owner_expire_lock', leg: 0, party: CAROL, round: 11n, amount: d('75'), fees: 0n },
    ]);
  });

  it('a traffic purchase: the amulet paid, its fees and burn, the traffic bought, and the rewards it claims', () => {
    const buy = exercise(
      0,
      'AmuletRules_BuyMemberTraffic',
      { provider: APP, memberId: 'PAR::x', synchronizerId: 'sync::1220', migrationId: '0', trafficAmount: '2000000', inputs: [] },
      {
        round: { number: '5' },
        summary: summary({ outputFees: ['0.1000000000'], inputValidatorRewardAmount: '1.0000000000' }),
        amuletPaid: '20.0000000000',
        purchasedTraffic: 'traffic1',
        senderChangeAmulet: null,
        meta: null,
      },
    );
    expect(activitiesOf(tx([buy], [0]))).toEqual([
      {
        ...base,
        node: 0,
        kind: 'traffic_purchase',
        leg: 0,
        party: APP,
        round: 5n,
        amount: d('20'),
        fees: d('6.1'),
        holdingFees: d('0.5'),
        burned: d('26.6'),
        traffic: 2_000_000n,
      },
      { ...base, node: 0, kind: 'validator_reward', leg: 0, party: APP, round: 5n, amount: d('1'), fees: 0n },
    ]);
  });

  it('a transaction without such exercises has none; a transfer result without its summary is refused, naming the event', () => {
    const other = exercise(0, 'DsoRules_CastVote', {}, {});
    expect(activitiesOf(tx([other], [0]))).toEqual([]);
    const broken = exercise(
      0,
      'AmuletRules_Transfer',
      { transfer: { sender: ALICE, provider: APP, outputs: [] } },
      { round: { number: '1' } },
    );
    expect(() => activitiesOf(tx([broken], [0]))).toThrow('AmuletRules_Transfer at event u1:0: summary must be a record');
  });
});
