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

const base = {
  holdingFees: null,
  burned: null,
  counterparties: [],
  provider: null,
  featured: null,
  via: null,
  traffic: null,
  subject: null,
  detail: null,
  outcome: null,
  expiresAt: null,
  amountOf: null,
};

describe('activities of a transaction', () => {
  describe('amulet expiry', () => {
    const expireSum = {
      owner: ALICE,
      round: { number: '9' },
      changeToInitialAmountAsOfRoundZero: '-3.0001331813',
      changeToHoldingFeesRate: '-0.0000190259',
    };
    const dso = (e: ExercisedEvent): ExercisedEvent => ({ ...e, contract_id: 'amulet5', consuming: true, acting_parties: [DSO] });

    it('Amulet_Expire of an amulet created earlier: the owner burns an amount the writer reads from the stored contract', () => {
      const expire = dso(exercise(0, 'Amulet_Expire', { roundCid: 'r' }, { expireSum, meta: null }));
      expect(activitiesOf(tx([expire], [0]))).toEqual([
        {
          ...base,
          node: 0,
          kind: 'expire',
          leg: 0,
          party: ALICE,
          round: 9n,
          amount: 0n,
          fees: 0n,
          subject: 'amulet5',
          amountOf: 'amulet5',
        },
      ]);
    });

    it('Amulet_Expire of an amulet created in the same transaction: its initial amount, burned', () => {
      const expire = dso(exercise(0, 'Amulet_Expire', { roundCid: 'r' }, { expireSum, meta: null }));
      const created = amulet(5, ALICE, '3.0000000000');
      expect(activitiesOf(tx([created, expire], [5, 0]))).toEqual([
        { ...base, node: 0, kind: 'expire', leg: 0, party: ALICE, round: 9n, amount: d('3'), fees: 0n, burned: d('3'), subject: 'amulet5' },
      ]);
    });

    it('LockedAmulet_ExpireAmulet: the locked amulet inside, marked locked', () => {
      const expire = {
        ...dso(exercise(0, 'LockedAmulet_ExpireAmulet', { roundCid: 'r' }, { expireSum, meta: null })),
        contract_id: 'amulet5',
      };
      const inner = amulet(5, ALICE, '2.5000000000');
      const locked: CreatedEvent = {
        ...inner,
        template_id: 'pkg:Splice.Amulet:LockedAmulet',
        create_arguments: { amulet: inner.create_arguments, lock: { holders: [APP], expiresAt: '2025-01-02T00:00:00Z', optContext: null } },
      };
      expect(activitiesOf(tx([locked, expire], [5, 0]))).toEqual([
        {
          ...base,
          node: 0,
          kind: 'expire',
          leg: 0,
          party: ALICE,
          round: 9n,
          amount: d('2.5'),
          fees: 0n,
          burned: d('2.5'),
          subject: 'amulet5',
          detail: 'locked',
        },
      ]);
    });

    it('Amulet_ExpireV2: the burned amount of its metadata, no round', () => {
      const meta = {
        values: { 'splice.lfdecentralizedtrust.org/burned': '1.7500000000', 'splice.lfdecentralizedtrust.org/tx-kind': 'expire-dust' },
      };
      const expire = dso(
        exercise(
          0,
          'Amulet_ExpireV2',
          { externalPartyConfigState0Cid: 'e0', externalPartyConfigState1Cid: 'e1' },
          { expireSum: { owner: BOB }, meta },
        ),
      );
      expect(activitiesOf(tx([expire], [0]))).toEqual([
        {
          ...base,
          node: 0,
          kind: 'expire',
          leg: 0,
          party: BOB,
          round: null,
          amount: d('1.75'),
          fees: 0n,
          burned: d('1.75'),
          subject: 'amulet5',
        },
      ]);
    });

    it('an expiry without its summary owner is skipped', () => {
      const expire = dso(exercise(0, 'Amulet_ExpireV2', {}, { expireSum: {}, meta: { values: {} } }));
      const skipped: { eventId: string; choice: string; reason: string }[] = [];
      expect(activitiesOf(tx([expire], [0]), undefined, skipped)).toEqual([]);
      expect(skipped).toEqual([{ eventId: 'u1:0', choice: 'Amulet_ExpireV2', reason: 'expireSum.owner must be text' }]);
    });
  });

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
    const accept = exercise(
      0,
      'TransferInstruction_Accept',
      {},
      { output: { tag: 'TransferInstructionResult_Completed', value: { receiverHoldingCids: [] } } },
      [1],
    );
    expect(activitiesOf(tx([accept, unlock, created], [0])).filter((a) => a.kind === 'unlock')).toEqual([
      { ...base, node: 1, kind: 'unlock', leg: 0, party: CAROL, round: 11n, amount: d('75'), fees: 0n, via: 'TransferInstruction_Accept' },
    ]);
    const expire = exercise(0, 'LockedAmulet_OwnerExpireLock', {}, result, [2]);
    expect(activitiesOf(tx([expire, created], [0]))).toEqual([
      { ...base, node: 0, kind: 'owner_expire_lock', leg: 0, party: CAROL, round: 11n, amount: d('75'), fees: 0n },
    ]);
  });

  it('the V2 choices that release a lock name the amulet they create without a round: the same rows, round null', () => {
    const created = amulet(1, CAROL, '75.0000000000');
    const result = { amuletCid: created.contract_id, meta: { values: { 'splice.lfdecentralizedtrust.org/tx-kind': 'unlock' } } };
    const unlock = exercise(0, 'LockedAmulet_UnlockV2', {}, result, [1]);
    expect(activitiesOf(tx([unlock, created], [0]))).toEqual([
      { ...base, node: 0, kind: 'unlock', leg: 0, party: CAROL, round: null, amount: d('75'), fees: 0n },
    ]);
    const expire = exercise(0, 'LockedAmulet_OwnerExpireLockV2', {}, result, [1]);
    expect(activitiesOf(tx([expire, created], [0]))).toEqual([
      { ...base, node: 0, kind: 'owner_expire_lock', leg: 0, party: CAROL, round: null, amount: d('75'), fees: 0n },
    ]);
    // An amulet the tree does not create is a skipped activity, as for the V1 choices.
    const skipped: { eventId: string; choice: string; reason: string }[] = [];
    expect(activitiesOf(tx([exercise(0, 'LockedAmulet_UnlockV2', {}, { amuletCid: 'elsewhere' })], [0]), undefined, skipped)).toEqual([]);
    expect(skipped).toEqual([
      { eventId: 'u1:0', choice: 'LockedAmulet_UnlockV2', reason: 'amulet elsewhere is not created in the transaction' },
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
    const other = exercise(0, 'DsoRules_SubmitStatusReport', {}, {});
    expect(activitiesOf(tx([other], [0]))).toEqual([]);
    const broken = exercise(
      0,
      'AmuletRules_Transfer',
      { transfer: { sender: ALICE, provider: APP, outputs: [] } },
      { round: { number: '1' } },
    );
    expect(() => activitiesOf(tx([broken], [0]))).toThrow('AmuletRules_Transfer at event u1:0: summary must be a record');
  });

  it('an error names the place of the value: the output, the round, the balance change, the choice', () => {
    const transfer = (outputs: Json[], result: Json) =>
      tx([exercise(0, 'AmuletRules_Transfer', { transfer: { sender: ALICE, provider: APP, outputs } }, result)], [0]);
    const good = { receiver: BOB, amount: '1.0' };
    expect(() => activitiesOf(transfer([good, { receiver: BOB, amount: 7 }], {}))).toThrow(
      'AmuletRules_Transfer at event u1:0: outputs[1].amount must be text',
    );
    expect(() => activitiesOf(transfer([good, { receiver: BOB, amount: '1', lock: { holders: [ALICE, 3] } }], {}))).toThrow(
      'at event u1:0: lock.holders[1] must be text',
    );
    expect(() => activitiesOf(transfer([good], { round: { number: 5 } }))).toThrow('at event u1:0: round.number must be text');
    const summary = { balanceChanges: [[ALICE, 'x']] };
    expect(() => activitiesOf(transfer([good], { round: { number: '5' }, summary }))).toThrow(
      `at event u1:0: summary.balanceChanges[${ALICE}] must be a record`,
    );
    expect(() => activitiesOf(tx([exercise(0, 'TransferCommand_Send', {}, 'none')], [0]))).toThrow(
      'TransferCommand_Send at event u1:0: TransferCommand_Send result must be a record',
    );
  });
});

// The kinds beyond Amulet's own: shapes as the Splice choices return them, figures worked out by hand.
const SV1 = 'sv1::1220';
const SV2 = 'sv2::1220';
const t = (iso: string) => BigInt(Date.parse(iso)) * 1000n;

function created(n: number, cid: string, entity: string, args: Json): CreatedEvent {
  return {
    event_type: 'created_event',
    event_id: `${U}:${n}`,
    contract_id: cid,
    template_id: `pkg:${entity}`,
    package_name: 'splice',
    create_arguments: args,
    created_at: '2025-01-01T00:00:00.000000Z',
    signatories: [DSO],
    observers: [],
  };
}

const on = (e: ExercisedEvent, over: Partial<ExercisedEvent>): ExercisedEvent => ({ ...e, ...over });

/** Alice pays 1.5 to the DSO under `root` (node 0); the DSO archives the amulet it got (the burn); the entry is created. */
function ansTree(choice: string, result: Json): TransactionUpdate {
  const pay = exercise(
    1,
    'AmuletRules_Transfer',
    { transfer: { sender: ALICE, provider: DSO, inputs: [], outputs: [output(DSO, '1.5000000000')] }, context: { featuredAppRight: null } },
    { round: { number: '3' }, summary: summary({ outputFees: ['0.0000000000'], holdingFees: '0', senderChangeFee: '0' }), meta: null },
    [2],
  );
  const paid = amulet(2, DSO, '1.5000000000');
  const burn = on(exercise(3, 'Archive', {}, {}), {
    contract_id: paid.contract_id,
    consuming: true,
    template_id: 'pkg:Splice.Amulet:Amulet',
  });
  const entry = created(4, 'entry4', 'Splice.Ans:AnsEntry', {
    user: ALICE,
    dso: DSO,
    name: 'alice.unverified.cns',
    url: '',
    description: '',
    expiresAt: '2025-04-01T00:00:00Z',
  });
  const root = exercise(0, choice, { user: ALICE, entryContext: 'ctx', paymentCid: 'p', transferContext: {} }, result, [1, 3, 4]);
  return tx([root, pay, paid, burn, entry], [0]);
}

describe('activities beyond Amulet: ANS, transfer commands, two-step transfers, votes', () => {
  it('an ANS entry paid for: the user, the fee burned, the name and expiry; the payment stays a transfer of its own', () => {
    const rows = activitiesOf(ansTree('AnsRules_CollectInitialEntryPayment', { entryCid: 'entry4', subscriptionStateCid: 's' }));
    expect(rows.map((r) => [r.kind, r.leg, r.party])).toEqual([
      ['ans_entry', 0, ALICE],
      ['ans_entry', 1, DSO],
      ['transfer', 0, ALICE],
      ['transfer', 1, DSO],
    ]);
    expect(rows[0]).toEqual({
      ...base,
      node: 0,
      kind: 'ans_entry',
      leg: 0,
      party: ALICE,
      round: null,
      amount: d('1.5'),
      fees: 0n,
      burned: d('1.5'),
      counterparties: [DSO],
      subject: 'alice.unverified.cns',
      outcome: 'created',
      expiresAt: t('2025-04-01T00:00:00Z'),
    });
    // The DSO burned what it received; the burn is counted once, on leg 0.
    expect(rows[1]).toEqual({ ...rows[0], leg: 1, party: DSO, counterparties: [ALICE], burned: null });
    expect(rows[2]!.via).toBe('AnsRules_CollectInitialEntryPayment');
    // An argument without the user: the entry names it.
    const bare = ansTree('AnsRules_CollectInitialEntryPayment', { entryCid: 'entry4', subscriptionStateCid: 's' });
    (bare.events_by_id['u1:0'] as ExercisedEvent).choice_argument = { entryContext: 'ctx', paymentCid: 'p', transferContext: {} };
    expect(activitiesOf(bare).slice(0, 2)).toEqual(rows.slice(0, 2));
    const renewed = activitiesOf(ansTree('AnsRules_CollectEntryRenewalPayment', { entryCid: 'entry4', subscriptionStateCid: 's' }));
    expect(renewed[0]).toMatchObject({ kind: 'ans_entry', outcome: 'renewed', amount: d('1.5'), subject: 'alice.unverified.cns' });
  });

  it('skip-and-count: an activity that cannot be derived is listed, the others of the transaction are kept', () => {
    const broken = ansTree('AnsRules_CollectInitialEntryPayment', { subscriptionStateCid: 's' });
    const skipped: { eventId: string; choice: string; reason: string }[] = [];
    const rows = activitiesOf(broken, undefined, skipped);
    expect(skipped).toEqual([{ eventId: 'u1:0', choice: 'AnsRules_CollectInitialEntryPayment', reason: 'entryCid must be text' }]);
    // Its subtree is still walked: the payment is a transfer.
    expect(rows.map((r) => r.kind)).toEqual(['transfer', 'transfer']);
    // Without the list, it is an error naming the event.
    expect(() => activitiesOf(broken)).toThrow('AnsRules_CollectInitialEntryPayment at event u1:0: entryCid must be text');
    // A transfer missing its summary beside a tap: the tap is kept, the transfer skipped, nothing under it read.
    const transfer = exercise(
      1,
      'AmuletRules_Transfer',
      { transfer: { sender: ALICE, provider: APP, outputs: [] } },
      { round: { number: '1' } },
    );
    const coin = amulet(3, BOB, '5.0000000000');
    const tap = exercise(2, 'AmuletRules_DevNet_Tap', {}, { amuletSum: { amulet: coin.contract_id, round: { number: '2' } } }, [3]);
    const both: { eventId: string; choice: string; reason: string }[] = [];
    expect(activitiesOf(tx([transfer, tap, coin], [1, 2]), undefined, both).map((r) => r.kind)).toEqual(['tap']);
    expect(both).toEqual([{ eventId: 'u1:1', choice: 'AmuletRules_Transfer', reason: 'summary must be a record' }]);
  });

  it('a transfer command: created with both parties and the amount; sent, failed, withdrawn or expired by its sender', () => {
    const create = exercise(
      0,
      'ExternalPartyAmuletRules_CreateTransferCommand',
      {
        sender: ALICE,
        receiver: BOB,
        delegate: APP,
        amount: '25.0000000000',
        expiresAt: '2025-01-02T00:00:00Z',
        nonce: '4',
        description: null,
      },
      { transferCommandCid: 'cmd1' },
    );
    const common = { ...base, node: 0, kind: 'transfer_command', round: null, fees: 0n };
    expect(activitiesOf(tx([create], [0]))).toEqual([
      {
        ...common,
        leg: 0,
        party: ALICE,
        amount: d('25'),
        counterparties: [BOB],
        provider: APP,
        subject: 'cmd1',
        outcome: 'created',
        expiresAt: t('2025-01-02T00:00:00Z'),
      },
      {
        ...common,
        leg: 1,
        party: BOB,
        amount: d('25'),
        counterparties: [ALICE],
        provider: APP,
        subject: 'cmd1',
        outcome: 'created',
        expiresAt: t('2025-01-02T00:00:00Z'),
      },
    ]);
    const step = (choice: string, result: Json) => activitiesOf(tx([on(exercise(0, choice, {}, result), { contract_id: 'cmd1' })], [0]));
    const sender = { ...common, leg: 0, party: ALICE, amount: 0n, subject: 'cmd1' };
    expect(
      step('TransferCommand_Send', {
        result: { tag: 'TransferCommandResultSuccess', value: { sender: ALICE } },
        sender: ALICE,
        nonce: '4',
      }),
    ).toEqual([{ ...sender, outcome: 'sent' }]);
    const failure = {
      tag: 'TransferCommandResultFailure',
      value: { reason: { tag: 'ITR_InsufficientFunds', value: { missingAmount: '25.0000000000' } } },
    };
    expect(step('TransferCommand_Send', { result: failure, sender: ALICE, nonce: '4' })).toEqual([
      { ...sender, outcome: 'failed', detail: 'ITR_InsufficientFunds(25.0000000000)' },
    ]);
    expect(step('TransferCommand_Withdraw', { sender: ALICE, nonce: '4' })).toEqual([{ ...sender, outcome: 'withdrawn' }]);
    expect(step('TransferCommand_Expire', { sender: ALICE, nonce: '4' })).toEqual([{ ...sender, outcome: 'expired' }]);
  });

  it('a transfer instruction: created when pending (not when completed at once); accepted, rejected or withdrawn with the holdings it returns', () => {
    const transfer = { sender: ALICE, receiver: BOB, amount: '40.0000000000', executeBefore: '2025-01-03T00:00:00Z', meta: { values: {} } };
    const factory = (output: Json) =>
      exercise(0, 'TransferFactory_Transfer', { expectedAdmin: DSO, transfer, extraArgs: {} }, { output, senderChangeCids: [] });
    const common = {
      ...base,
      node: 0,
      kind: 'transfer_instruction',
      round: null,
      fees: 0n,
      subject: 'ti1',
      outcome: 'created',
      expiresAt: t('2025-01-03T00:00:00Z'),
    };
    expect(
      activitiesOf(tx([factory({ tag: 'TransferInstructionResult_Pending', value: { transferInstructionCid: 'ti1' } })], [0])),
    ).toEqual([
      { ...common, leg: 0, party: ALICE, amount: d('40'), counterparties: [BOB] },
      { ...common, leg: 1, party: BOB, amount: d('40'), counterparties: [ALICE] },
    ]);
    expect(activitiesOf(tx([factory({ tag: 'TransferInstructionResult_Completed', value: { receiverHoldingCids: [] } })], [0]))).toEqual(
      [],
    );

    const settle = (choice: string, actor: string, result: Json, owner: string) => {
      const back = amulet(1, owner, '40.0000000000');
      const e = on(exercise(0, choice, { extraArgs: {} }, result, [1]), { contract_id: 'ti1', acting_parties: [actor], consuming: true });
      return activitiesOf(tx([e, back], [0]));
    };
    const settled = { ...base, node: 0, kind: 'transfer_instruction', round: null, fees: 0n, subject: 'ti1' };
    // Accepted by the receiver, whose holding it is.
    expect(
      settle(
        'TransferInstruction_Accept',
        BOB,
        { output: { tag: 'TransferInstructionResult_Completed', value: { receiverHoldingCids: ['amulet1'] } } },
        BOB,
      ),
    ).toEqual([{ ...settled, leg: 0, party: BOB, amount: d('40'), outcome: 'accepted' }]);
    // Rejected by the receiver: the amount goes back to the sender, who is named by the holding.
    expect(
      settle(
        'TransferInstruction_Reject',
        BOB,
        { output: { tag: 'TransferInstructionResult_Failed', value: {} }, senderChangeCids: ['amulet1'] },
        ALICE,
      ),
    ).toEqual([
      { ...settled, leg: 0, party: BOB, amount: 0n, counterparties: [ALICE], outcome: 'rejected' },
      { ...settled, leg: 1, party: ALICE, amount: d('40'), counterparties: [BOB], outcome: 'rejected' },
    ]);
    expect(
      settle(
        'TransferInstruction_Withdraw',
        ALICE,
        { output: { tag: 'TransferInstructionResult_Failed', value: {} }, senderChangeCids: ['amulet1'] },
        ALICE,
      ),
    ).toEqual([{ ...settled, leg: 0, party: ALICE, amount: d('40'), outcome: 'withdrawn' }]);
  });

  it('an allocation: created with sender, receiver, executor, settlement and deadline; executed, cancelled or withdrawn', () => {
    const allocation = {
      settlement: { executor: APP, settlementRef: { id: 'settlement-7', cid: null }, settleBefore: '2025-01-01T06:00:00Z' },
      transferLegId: 'leg-0',
      transferLeg: { sender: ALICE, receiver: CAROL, amount: '12.5000000000' },
    };
    const allocate = exercise(
      0,
      'AllocationFactory_Allocate',
      { expectedAdmin: DSO, allocation },
      { output: { tag: 'AllocationInstructionResult_Completed', value: { allocationCid: 'al1' } }, senderChangeCids: [] },
    );
    const common = {
      ...base,
      node: 0,
      kind: 'allocation',
      round: null,
      fees: 0n,
      provider: APP,
      subject: 'al1',
      detail: 'settlement-7',
      outcome: 'created',
      expiresAt: t('2025-01-01T06:00:00Z'),
    };
    expect(activitiesOf(tx([allocate], [0]))).toEqual([
      { ...common, leg: 0, party: ALICE, amount: d('12.5'), counterparties: [CAROL] },
      { ...common, leg: 1, party: CAROL, amount: d('12.5'), counterparties: [ALICE] },
    ]);
    const delivered = amulet(1, CAROL, '12.5000000000');
    const execute = on(exercise(0, 'Allocation_ExecuteTransfer', {}, { senderHoldingCids: [], receiverHoldingCids: ['amulet1'] }, [1]), {
      contract_id: 'al1',
      acting_parties: [APP],
    });
    const settled = { ...base, node: 0, kind: 'allocation', round: null, fees: 0n, subject: 'al1', outcome: 'executed' };
    expect(activitiesOf(tx([execute, delivered], [0]))).toEqual([
      { ...settled, leg: 0, party: APP, amount: 0n, counterparties: [CAROL] },
      { ...settled, leg: 1, party: CAROL, amount: d('12.5'), counterparties: [APP] },
    ]);
    const back = amulet(1, ALICE, '12.5000000000');
    const cancel = on(exercise(0, 'Allocation_Cancel', {}, { senderHoldingCids: ['amulet1'] }, [1]), {
      contract_id: 'al1',
      acting_parties: [APP],
    });
    expect(activitiesOf(tx([cancel, back], [0])).map((r) => [r.party, r.amount, r.outcome])).toEqual([
      [APP, 0n, 'cancelled'],
      [ALICE, d('12.5'), 'cancelled'],
    ]);
    const withdraw = on(cancel, { choice: 'Allocation_Withdraw', acting_parties: [ALICE] });
    expect(activitiesOf(tx([withdraw, back], [0])).map((r) => [r.party, r.amount, r.outcome])).toEqual([[ALICE, d('12.5'), 'withdrawn']]);
  });

  it('a V2 allocation: created by each side with its legs, the executor and deadline; settled in a batch, cancelled or withdrawn', () => {
    const account = (owner: string | null) => ({ owner, provider: null, id: '' });
    const side = (side: string, other: string | null, amount: string) => ({
      transferLegId: `leg-${amount}`,
      side,
      otherside: account(other),
      amount,
      instrumentId: 'Amulet',
      meta: { values: {} },
    });
    const settlement = { executors: [APP], id: 'settlement-9', cid: null, meta: { values: {} } };
    const allocate = (authorizer: string, sides: Json[], deadline: string | null) =>
      exercise(
        0,
        'AllocationFactory_Allocate',
        {
          settlement,
          allocation: {
            admin: DSO,
            authorizer: account(authorizer),
            transferLegSides: sides,
            settlementDeadline: deadline,
            committed: false,
          },
          requestedAt: '2025-01-01T00:00:00Z',
          inputHoldingCids: [],
          actors: [authorizer],
        },
        { output: { tag: 'AllocationInstructionResult_Completed', value: { allocationCid: 'av1' } }, authorizerChangeCids: {} },
      );
    const created = { ...base, node: 0, kind: 'allocation', round: null, fees: 0n, provider: APP, subject: 'av1', detail: 'settlement-9' };
    // Two legs to Carol and one from Bob: the authorizer's row sums its sides, each other owner its own; an unowned account has no row.
    expect(
      activitiesOf(
        tx(
          [
            allocate(
              ALICE,
              [
                side('SenderSide', CAROL, '2.5000000000'),
                side('ReceiverSide', BOB, '1.0000000000'),
                side('SenderSide', CAROL, '4.0000000000'),
                side('SenderSide', null, '0.5000000000'),
              ],
              '2025-01-01T06:00:00Z',
            ),
          ],
          [0],
        ),
      ),
    ).toEqual([
      {
        ...created,
        leg: 0,
        party: ALICE,
        amount: d('8'),
        counterparties: [CAROL, BOB],
        outcome: 'created',
        expiresAt: t('2025-01-01T06:00:00Z'),
      },
      {
        ...created,
        leg: 1,
        party: CAROL,
        amount: d('6.5'),
        counterparties: [ALICE],
        outcome: 'created',
        expiresAt: t('2025-01-01T06:00:00Z'),
      },
      { ...created, leg: 2, party: BOB, amount: d('1'), counterparties: [ALICE], outcome: 'created', expiresAt: t('2025-01-01T06:00:00Z') },
    ]);
    // The deadline is optional in V2; a result that is not completed has no rows.
    expect(activitiesOf(tx([allocate(CAROL, [side('ReceiverSide', ALICE, '6.5000000000')], null)], [0]))).toEqual([
      { ...created, leg: 0, party: CAROL, amount: d('6.5'), counterparties: [ALICE], outcome: 'created', expiresAt: null },
      { ...created, leg: 1, party: ALICE, amount: d('6.5'), counterparties: [CAROL], outcome: 'created', expiresAt: null },
    ]);
    const pending = on(allocate(ALICE, [side('SenderSide', CAROL, '1.0000000000')], null), {
      exercise_result: { output: { tag: 'AllocationInstructionResult_Pending', value: {} } },
    });
    expect(activitiesOf(tx([pending], [0]))).toEqual([]);

    // The batch: the executor acts with the DSO; the receiver's side delivers an amulet, the sender's (its lock archived) none.
    const settle = (n: number, cid: string, holdings: string[], children: number[]) =>
      on(
        exercise(
          n,
          'Allocation_Settle',
          { actors: [DSO, APP] },
          {
            output: { tag: 'AllocationResult_Settled', value: { nextIterationAllocationCid: null } },
            authorizerHoldingCids: holdings.length === 0 ? {} : { Amulet: holdings },
          },
          children,
        ),
        { contract_id: cid, acting_parties: [DSO, APP], consuming: true },
      );
    const batch = on(exercise(0, 'SettlementFactory_SettleBatch', { settlement, actors: [APP] }, {}, [1, 2]), { acting_parties: [APP] });
    const settled = {
      ...base,
      kind: 'allocation',
      round: null,
      fees: 0n,
      detail: 'settlement-9',
      outcome: 'settled',
      via: 'SettlementFactory_SettleBatch',
    };
    expect(
      activitiesOf(tx([batch, settle(1, 'av1', [], []), settle(2, 'av2', ['amulet3'], [3]), amulet(3, CAROL, '6.5000000000')], [0])),
    ).toEqual([
      { ...settled, node: 1, leg: 0, party: APP, amount: 0n, subject: 'av1' },
      { ...settled, node: 2, leg: 0, party: APP, amount: 0n, counterparties: [CAROL], subject: 'av2' },
      { ...settled, node: 2, leg: 1, party: CAROL, amount: d('6.5'), counterparties: [APP], subject: 'av2' },
    ]);

    // Cancelled by the executor or withdrawn by the sender: the lock comes back to the authorizer.
    const back = amulet(1, ALICE, '6.5000000000');
    const cancel = on(
      exercise(
        0,
        'Allocation_Cancel',
        {},
        { output: { tag: 'AllocationResult_Cancelled', value: {} }, authorizerHoldingCids: { Amulet: ['amulet1'] } },
        [1],
      ),
      {
        contract_id: 'av1',
        acting_parties: [APP],
      },
    );
    expect(activitiesOf(tx([cancel, back], [0])).map((r) => [r.party, r.amount, r.outcome, r.detail])).toEqual([
      [APP, 0n, 'cancelled', null],
      [ALICE, d('6.5'), 'cancelled', null],
    ]);
    const withdraw = on(cancel, { choice: 'Allocation_Withdraw', acting_parties: [ALICE] });
    expect(activitiesOf(tx([withdraw, back], [0])).map((r) => [r.party, r.amount, r.outcome])).toEqual([[ALICE, d('6.5'), 'withdrawn']]);
  });

  it('a vote cast: the voter, the request (its tracking id), the action and the ballot; a vote result: the DSO and each voter', () => {
    const action = { tag: 'ARC_DsoRules', value: { dsoAction: { tag: 'SRARC_GrantFeaturedAppRight', value: { provider: APP } } } };
    const ballot = (sv: string, accept: boolean) => ({ sv, accept, reason: { url: '', body: '' }, optCastAt: null });
    const request = (trackingCid: string | null, votes: Json) => ({
      dso: DSO,
      requester: 'SV1',
      action,
      reason: {},
      voteBefore: '2025-01-02T00:00:00Z',
      votes,
      trackingCid,
    });
    const cast = exercise(0, 'DsoRules_CastVote', { requestCid: 'vr2', vote: ballot(SV2, false) }, { voteRequest: 'vr3' }, [1]);
    const next = created(
      1,
      'vr3',
      'Splice.DsoRules:VoteRequest',
      request('vr1', [
        ['SV1', ballot(SV1, true)],
        ['SV2', ballot(SV2, false)],
      ]),
    );
    expect(activitiesOf(tx([cast, next], [0]))).toEqual([
      {
        ...base,
        node: 0,
        kind: 'vote',
        leg: 0,
        party: SV2,
        round: null,
        amount: 0n,
        fees: 0n,
        subject: 'vr1',
        detail: 'SRARC_GrantFeaturedAppRight',
        outcome: 'reject',
      },
    ]);
    // The first ballot on a request: its request has no tracking id yet, the request cast on is the id.
    const first = created(1, 'vr2', 'Splice.DsoRules:VoteRequest', request('vr1', []));
    const firstCast = exercise(0, 'DsoRules_CastVote', { requestCid: 'vr1', vote: ballot(SV1, true) }, { voteRequest: 'vr2' }, [1]);
    expect(activitiesOf(tx([firstCast, first], [0]))[0]).toMatchObject({ party: SV1, subject: 'vr1', outcome: 'accept' });
    // The request itself holds the requester's ballot; a new request is its own id.
    const requested = created(1, 'vr1', 'Splice.DsoRules:VoteRequest', request(null, [['SV1', ballot(SV1, true)]]));
    const requestVote = exercise(0, 'DsoRules_RequestVote', { requester: SV1, action }, { voteRequest: 'vr1' }, [1]);
    expect(activitiesOf(tx([requestVote, requested], [0]))).toEqual([
      {
        ...base,
        node: 0,
        kind: 'vote',
        leg: 0,
        party: SV1,
        round: null,
        amount: 0n,
        fees: 0n,
        subject: 'vr1',
        detail: 'SRARC_GrantFeaturedAppRight',
        outcome: 'accept',
      },
    ]);

    const close = (outcome: Json) =>
      exercise(
        0,
        'DsoRules_CloseVoteRequest',
        { requestCid: 'vr3', amuletRulesCid: null, sv: SV1 },
        {
          request: request('vr1', [
            ['SV1', ballot(SV1, true)],
            ['SV2', ballot(SV2, true)],
          ]),
          completedAt: '2025-01-01T12:00:00Z',
          offboardedVoters: [],
          abstainingSvs: [],
          outcome,
        },
      );
    const result = {
      ...base,
      node: 0,
      kind: 'vote_result',
      round: null,
      amount: 0n,
      fees: 0n,
      subject: 'vr1',
      detail: 'SRARC_GrantFeaturedAppRight',
    };
    expect(activitiesOf(tx([close({ tag: 'VRO_Accepted', value: { effectiveAt: '2025-01-01T12:00:00Z' } })], [0]))).toEqual([
      { ...result, leg: 0, party: DSO, counterparties: [SV1, SV2], outcome: 'accepted', expiresAt: t('2025-01-01T12:00:00Z') },
      { ...result, leg: 1, party: SV1, counterparties: [DSO], outcome: 'accepted', expiresAt: t('2025-01-01T12:00:00Z') },
      { ...result, leg: 2, party: SV2, counterparties: [DSO], outcome: 'accepted', expiresAt: t('2025-01-01T12:00:00Z') },
    ]);
    expect(activitiesOf(tx([close({ tag: 'VRO_Expired', value: {} })], [0])).map((r) => r.outcome)).toEqual([
      'expired',
      'expired',
      'expired',
    ]);
    const skipped: { eventId: string; choice: string; reason: string }[] = [];
    expect(activitiesOf(tx([close({ tag: 'VRO_Maybe', value: {} })], [0]), undefined, skipped)).toEqual([]);
    expect(skipped[0]!.reason).toBe('outcome must be VRO_Accepted, VRO_Rejected or VRO_Expired');
  });

  it('rewards from unclaimed activity records spent by a transfer are a claim of their own', () => {
    const transfer = exercise(
      0,
      'AmuletRules_Transfer',
      { transfer: { sender: ALICE, provider: APP, inputs: [], outputs: [] }, context: { featuredAppRight: null } },
      { round: { number: '8' }, summary: summary({ inputUnclaimedActivityRecordAmount: '7.2500000000' }), meta: null },
    );
    expect(activitiesOf(tx([transfer], [0])).filter((r) => r.kind !== 'transfer')).toEqual([
      { ...base, node: 0, kind: 'unclaimed_reward', leg: 0, party: ALICE, round: 8n, amount: d('7.25'), fees: 0n },
    ]);
  });
});
