/**
 * The ledger source's conversion, on a transaction tree written by hand in
 * the shape the JSON Ledger API prints (Canton JsSchema): an
 * AmuletRules_Transfer reached through TransferPreapproval_Send, with input
 * archives, output creates and reward coupons. Node ids have gaps where the
 * ledger has nodes the API does not show (fetches of rounds and rules), and
 * the expected item is written out in full, key order included.
 */
import {
  CONSISTENT_REASSIGNMENT_OFFSET,
  convertUpdatesResponse,
  LedgerConversionError,
} from '../../../src/ingest/sources/ledger-conversion';

const UPDATE = '1220f3a8c6e9d1b2a4c5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d';
const SYNC = 'global-domain::1220b1431ef217342db44d516bb9befde802be7d8899637d290895fa58880f19accc';
const OTHER_SYNC = 'private-sync::1220c8d3f0b1a2e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0f1e2d3c4b5a6f7e8d9c0';
const DSO = 'DSO::1220d2b4f6a8c0e1f3a5c7e9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1';
const ALICE = 'alice::1220a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9';
const BOB = 'bob::1220b0c1d2e3f405162738495a6b7c8d9e0fb0c1d2e3f405162738495a6b7c8d9e';
const VALIDATOR = 'validator-1::1220e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4';
const AMULET_PKG = '3ca1343ab26b453d38c8adb70dca5f1ead8440c42b59b68f070786955cbf9ec1';
const WALLET_PKG = 'a5b055492fb8f08b2e7bc0fc94da6da50c39c2e1d7f24cd5ea8db12fc87c1332';
const RULES_CID = '00a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90ca10122001';
const PREAPPROVAL_CID = '00b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a1ca10122002';
const INPUT1_CID = '00c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3ca10122003';
const INPUT2_CID = '00c5d6e7f8092a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4ca10122004';
const BOB_AMULET_CID = '00e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5dca10122005';
const CHANGE_CID = '00e8f9001a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6ca10122006';
const APP_COUPON_CID = '00f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8ca10122007';
const VALIDATOR_COUPON_CID = '00f2a3b4c5d6e7f8092a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f80ca10122008';
const OFFER_CID = '00d1e2f3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6ca10122009';
const OLD_OFFER_CID = '00d2e3f4a5b6c7d8e9f00a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6ca1012200a';
const MARKER_CID = '00d3e4f5a6b7c8d9e0f10a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6ca1012200b';

const AMULET = `${AMULET_PKG}:Splice.Amulet:Amulet`;
const amount = (initial: string) => ({
  initialAmount: initial,
  createdAt: { number: '24513' },
  ratePerRound: { rate: '0.0038051800' },
});
const transferArgument = {
  transfer: {
    sender: ALICE,
    provider: ALICE,
    inputs: [
      { tag: 'InputAmulet', value: INPUT1_CID },
      { tag: 'InputAmulet', value: INPUT2_CID },
    ],
    outputs: [{ receiver: BOB, receiverFeeRatio: '0.0000000000', amount: '100.0000000000', lock: null }],
    beneficiaries: null,
  },
  context: {
    openMiningRound: '00aa11ca101220aa',
    issuingMiningRounds: [],
    validatorRights: [],
    featuredAppRight: null,
  },
  expectedDso: DSO,
};
const transferResult = {
  round: { number: '24513' },
  summary: {
    inputAppRewardAmount: '0.0000000000',
    inputValidatorRewardAmount: '0.0000000000',
    inputSvRewardAmount: '0.0000000000',
    inputAmuletAmount: '250.0000000000',
    balanceChanges: [[ALICE, { changeToInitialAmountAsOfRoundZero: '-101.0000000000', changeToHoldingFeesRate: '0.0000000000' }]],
    holdingFees: '0.0000000000',
    outputFees: ['1.0000000000'],
    senderChangeFee: '0.0000000000',
    senderChangeAmount: '149.0000000000',
    amuletPrice: '0.0050000000',
    inputValidatorFaucetAmount: null,
    inputUnclaimedActivityRecordAmount: null,
  },
  createdAmulets: [{ tag: 'TransferResultAmulet', value: BOB_AMULET_CID }],
  senderChangeAmulet: CHANGE_CID,
  meta: null,
};

const EFFECTIVE_AT = '2025-10-14T11:29:20.0155Z';
const OFFSET = 60678;

function created(
  nodeId: number,
  contractId: string,
  templateId: string,
  args: unknown,
  signatories: string[],
  observers: string[],
  packageName = 'splice-amulet',
) {
  return {
    CreatedEvent: {
      offset: OFFSET,
      nodeId,
      contractId,
      templateId,
      contractKey: null,
      contractKeyHash: '',
      createArgument: args,
      createdEventBlob: '',
      interfaceViews: [],
      witnessParties: [ALICE],
      signatories,
      observers,
      createdAt: EFFECTIVE_AT,
      packageName,
      representativePackageId: templateId.split(':')[0],
      acsDelta: true,
    },
  };
}

function exercised(
  nodeId: number,
  lastDescendantNodeId: number,
  contractId: string,
  templateId: string,
  choice: string,
  choiceArgument: unknown,
  exerciseResult: unknown,
  consuming: boolean,
  actingParties: string[],
  packageName = 'splice-amulet',
) {
  return {
    ExercisedEvent: {
      offset: OFFSET,
      nodeId,
      contractId,
      templateId,
      interfaceId: null,
      choice,
      choiceArgument,
      actingParties,
      consuming,
      witnessParties: [ALICE],
      lastDescendantNodeId,
      exerciseResult,
      packageName,
      implementedInterfaces: [],
      acsDelta: consuming,
    },
  };
}

/** `POST /v2/updates` element as the participant of alice prints it. */
const transferResponse = {
  update: {
    Transaction: {
      value: {
        updateId: UPDATE,
        commandId: 'transfer-7f3a',
        workflowId: '',
        effectiveAt: EFFECTIVE_AT,
        offset: OFFSET,
        synchronizerId: SYNC,
        traceContext: { traceparent: '00-17c7b3bb2c5a6f0e9d8c7b6a5f4e3d2c-2737ebff1a2b3c4d-01', tracestate: null },
        recordTime: '2025-10-14T11:29:19.9165Z',
        externalTransactionHash: null,
        paidTrafficCost: 13542,
        events: [
          // Node 0: alice sends through bob's preapproval; its subtree ends at node 11, a fetch the API does not show.
          exercised(
            0,
            11,
            PREAPPROVAL_CID,
            `${AMULET_PKG}:Splice.AmuletRules:TransferPreapproval`,
            'TransferPreapproval_Send',
            {
              context: { amuletRules: RULES_CID, context: transferArgument.context },
              inputs: transferArgument.transfer.inputs,
              amount: '100.0000000000',
              sender: ALICE,
              description: null,
            },
            { result: transferResult, meta: null },
            false,
            [ALICE],
          ),
          exercised(
            1,
            11,
            RULES_CID,
            `${AMULET_PKG}:Splice.AmuletRules:AmuletRules`,
            'AmuletRules_Transfer',
            transferArgument,
            transferResult,
            false,
            [ALICE],
          ),
          // Node 2 fetches the open mining round.
          exercised(3, 3, INPUT1_CID, AMULET, 'Archive', {}, {}, true, [DSO, ALICE]),
          // Node 4 fetches the second input before archiving it.
          exercised(5, 5, INPUT2_CID, AMULET, 'Archive', {}, {}, true, [DSO, ALICE]),
          created(6, BOB_AMULET_CID, AMULET, { dso: DSO, owner: BOB, amount: amount('99.0000000000') }, [DSO, BOB], []),
          created(7, CHANGE_CID, AMULET, { dso: DSO, owner: ALICE, amount: amount('149.0000000000') }, [ALICE, DSO], []),
          // Node 8 fetches the featured-app right.
          created(
            9,
            APP_COUPON_CID,
            `${AMULET_PKG}:Splice.Amulet:AppRewardCoupon`,
            { dso: DSO, provider: ALICE, featured: false, amount: '0.0300000000', round: { number: '24513' }, beneficiary: null },
            [DSO],
            [ALICE],
          ),
          created(
            10,
            VALIDATOR_COUPON_CID,
            `${AMULET_PKG}:Splice.Amulet:ValidatorRewardCoupon`,
            { dso: DSO, user: VALIDATOR, amount: '0.0300000000', round: { number: '24513' } },
            [DSO],
            [VALIDATOR, ALICE],
          ),
          // Three more commands of the same submission.
          created(
            12,
            OFFER_CID,
            `${WALLET_PKG}:Splice.Wallet.TransferOffer:TransferOffer`,
            {
              sender: ALICE,
              receiver: BOB,
              amount: { amount: '5.0000000000', unit: 'AmuletUnit' },
              description: 'lunch',
              expiresAt: '2025-10-15T11:29:20Z',
              trackingId: 'lunch-1',
            },
            [ALICE],
            [BOB],
            'splice-wallet',
          ),
          exercised(
            13,
            13,
            OLD_OFFER_CID,
            `${WALLET_PKG}:Splice.Wallet.TransferOffer:TransferOffer`,
            'Archive',
            {},
            {},
            true,
            [ALICE],
            'splice-wallet',
          ),
          created(
            14,
            MARKER_CID,
            `${AMULET_PKG}:Splice.Amulet:FeaturedAppActivityMarker`,
            { dso: DSO, provider: ALICE, beneficiary: ALICE, weight: '1.0000000000' },
            [DSO, ALICE],
            [],
          ),
        ],
      },
    },
  },
};

const id = (n: number) => `${UPDATE}:${n}`;
const expectedTransfer = {
  update_id: UPDATE,
  migration_id: 4,
  workflow_id: '',
  record_time: '2025-10-14T11:29:19.916500Z',
  synchronizer_id: SYNC,
  effective_at: '2025-10-14T11:29:20.015500Z',
  root_event_ids: [id(0), id(8), id(9), id(10)],
  events_by_id: {
    [id(0)]: {
      event_type: 'exercised_event',
      event_id: id(0),
      contract_id: PREAPPROVAL_CID,
      template_id: `${AMULET_PKG}:Splice.AmuletRules:TransferPreapproval`,
      package_name: 'splice-amulet',
      choice: 'TransferPreapproval_Send',
      choice_argument: {
        context: { amuletRules: RULES_CID, context: transferArgument.context },
        inputs: transferArgument.transfer.inputs,
        amount: '100.0000000000',
        sender: ALICE,
        description: null,
      },
      child_event_ids: [id(1)],
      exercise_result: { result: transferResult, meta: null },
      consuming: false,
      acting_parties: [ALICE],
      interface_id: null,
    },
    [id(1)]: {
      event_type: 'exercised_event',
      event_id: id(1),
      contract_id: RULES_CID,
      template_id: `${AMULET_PKG}:Splice.AmuletRules:AmuletRules`,
      package_name: 'splice-amulet',
      choice: 'AmuletRules_Transfer',
      choice_argument: transferArgument,
      child_event_ids: [id(2), id(3), id(4), id(5), id(6), id(7)],
      exercise_result: transferResult,
      consuming: false,
      acting_parties: [ALICE],
      interface_id: null,
    },
    // Lexicographic: "…:10" sorts between "…:1" and "…:2".
    [id(10)]: {
      event_type: 'created_event',
      event_id: id(10),
      contract_id: MARKER_CID,
      template_id: `${AMULET_PKG}:Splice.Amulet:FeaturedAppActivityMarker`,
      package_name: 'splice-amulet',
      create_arguments: { dso: DSO, provider: ALICE, beneficiary: ALICE, weight: '1.0000000000' },
      created_at: '2025-10-14T11:29:20.0155Z',
      signatories: [DSO, ALICE],
      observers: [],
    },
    [id(2)]: {
      event_type: 'exercised_event',
      event_id: id(2),
      contract_id: INPUT1_CID,
      template_id: AMULET,
      package_name: 'splice-amulet',
      choice: 'Archive',
      choice_argument: {},
      child_event_ids: [],
      exercise_result: {},
      consuming: true,
      acting_parties: [DSO, ALICE],
      interface_id: null,
    },
    [id(3)]: {
      event_type: 'exercised_event',
      event_id: id(3),
      contract_id: INPUT2_CID,
      template_id: AMULET,
      package_name: 'splice-amulet',
      choice: 'Archive',
      choice_argument: {},
      child_event_ids: [],
      exercise_result: {},
      consuming: true,
      acting_parties: [DSO, ALICE],
      interface_id: null,
    },
    [id(4)]: {
      event_type: 'created_event',
      event_id: id(4),
      contract_id: BOB_AMULET_CID,
      template_id: AMULET,
      package_name: 'splice-amulet',
      create_arguments: { dso: DSO, owner: BOB, amount: amount('99.0000000000') },
      created_at: '2025-10-14T11:29:20.0155Z',
      signatories: [DSO, BOB],
      observers: [],
    },
    [id(5)]: {
      event_type: 'created_event',
      event_id: id(5),
      contract_id: CHANGE_CID,
      template_id: AMULET,
      package_name: 'splice-amulet',
      create_arguments: { dso: DSO, owner: ALICE, amount: amount('149.0000000000') },
      created_at: '2025-10-14T11:29:20.0155Z',
      signatories: [DSO, ALICE],
      observers: [],
    },
    [id(6)]: {
      event_type: 'created_event',
      event_id: id(6),
      contract_id: APP_COUPON_CID,
      template_id: `${AMULET_PKG}:Splice.Amulet:AppRewardCoupon`,
      package_name: 'splice-amulet',
      create_arguments: {
        dso: DSO,
        provider: ALICE,
        featured: false,
        amount: '0.0300000000',
        round: { number: '24513' },
        beneficiary: null,
      },
      created_at: '2025-10-14T11:29:20.0155Z',
      signatories: [DSO],
      observers: [ALICE],
    },
    [id(7)]: {
      event_type: 'created_event',
      event_id: id(7),
      contract_id: VALIDATOR_COUPON_CID,
      template_id: `${AMULET_PKG}:Splice.Amulet:ValidatorRewardCoupon`,
      package_name: 'splice-amulet',
      create_arguments: { dso: DSO, user: VALIDATOR, amount: '0.0300000000', round: { number: '24513' } },
      created_at: '2025-10-14T11:29:20.0155Z',
      signatories: [DSO],
      observers: [ALICE, VALIDATOR],
    },
    [id(8)]: {
      event_type: 'created_event',
      event_id: id(8),
      contract_id: OFFER_CID,
      template_id: `${WALLET_PKG}:Splice.Wallet.TransferOffer:TransferOffer`,
      package_name: 'splice-wallet',
      create_arguments: {
        sender: ALICE,
        receiver: BOB,
        amount: { amount: '5.0000000000', unit: 'AmuletUnit' },
        description: 'lunch',
        expiresAt: '2025-10-15T11:29:20Z',
        trackingId: 'lunch-1',
      },
      created_at: '2025-10-14T11:29:20.0155Z',
      signatories: [ALICE],
      observers: [BOB],
    },
    [id(9)]: {
      event_type: 'exercised_event',
      event_id: id(9),
      contract_id: OLD_OFFER_CID,
      template_id: `${WALLET_PKG}:Splice.Wallet.TransferOffer:TransferOffer`,
      package_name: 'splice-wallet',
      choice: 'Archive',
      choice_argument: {},
      child_event_ids: [],
      exercise_result: {},
      consuming: true,
      acting_parties: [ALICE],
      interface_id: null,
    },
  },
};

describe('ledger conversion', () => {
  it('converts a ledger-effects transaction tree into the canonical update', () => {
    const converted = convertUpdatesResponse(transferResponse, 4);
    expect(converted.kind).toBe('update');
    expect(converted.offset).toBe(OFFSET);
    if (converted.kind !== 'update') return;
    // Whole object, key order included: the writer stores this JSON verbatim.
    expect(JSON.stringify(converted.update)).toBe(JSON.stringify(expectedTransfer));
    expect(Object.keys(converted.update)).toEqual([
      'update_id',
      'migration_id',
      'workflow_id',
      'record_time',
      'synchronizer_id',
      'effective_at',
      'root_event_ids',
      'events_by_id',
    ]);
  });

  it('keeps an external transaction hash as lowercase hex and fills an absent workflow id', () => {
    const value = { ...transferResponse.update.Transaction.value, externalTransactionHash: 'AB12CD', workflowId: null };
    const converted = convertUpdatesResponse({ update: { Transaction: { value } } }, 4);
    if (converted.kind !== 'update') throw new Error('expected an update');
    const update = converted.update as { workflow_id: string; external_transaction_hash?: string };
    expect(update.workflow_id).toBe('');
    expect(update.external_transaction_hash).toBe('ab12cd');
    expect(Object.keys(update).at(-1)).toBe('external_transaction_hash');
  });

  const createdEvent = created(
    0,
    BOB_AMULET_CID,
    AMULET,
    { dso: DSO, owner: BOB, amount: amount('99.0000000000') },
    [DSO, BOB],
    [ALICE],
  ).CreatedEvent;

  it('converts an assignment', () => {
    const response = {
      update: {
        Reassignment: {
          value: {
            updateId: '1220aa01bb02cc03dd04ee05ff060718293a4b5c6d7e8f90a1b2c3d4e5f60718293a',
            commandId: '',
            workflowId: '',
            offset: 70001,
            events: [
              {
                JsAssignmentEvent: {
                  source: OTHER_SYNC,
                  target: SYNC,
                  reassignmentId: '0012ab34cd',
                  submitter: ALICE,
                  reassignmentCounter: 1,
                  createdEvent: { ...createdEvent, offset: 70001, createdAt: '2025-10-14T11:00:00Z' },
                },
              },
            ],
            traceContext: null,
            recordTime: '2025-10-14T12:00:00Z',
            synchronizerId: SYNC,
            paidTrafficCost: null,
          },
        },
      },
    };
    const converted = convertUpdatesResponse(response, 4);
    expect(converted.offset).toBe(70001);
    if (converted.kind !== 'update') throw new Error('expected an update');
    expect(JSON.stringify(converted.update)).toBe(
      JSON.stringify({
        update_id: '1220aa01bb02cc03dd04ee05ff060718293a4b5c6d7e8f90a1b2c3d4e5f60718293a',
        offset: CONSISTENT_REASSIGNMENT_OFFSET,
        record_time: '2025-10-14T12:00:00.000000Z',
        event: {
          submitter: ALICE,
          source_synchronizer: OTHER_SYNC,
          target_synchronizer: SYNC,
          migration_id: 4,
          unassign_id: '0012ab34cd',
          created_event: {
            event_type: 'created_event',
            event_id: '1220aa01bb02cc03dd04ee05ff060718293a4b5c6d7e8f90a1b2c3d4e5f60718293a:0',
            contract_id: BOB_AMULET_CID,
            template_id: AMULET,
            package_name: 'splice-amulet',
            create_arguments: { dso: DSO, owner: BOB, amount: amount('99.0000000000') },
            created_at: '2025-10-14T11:00:00Z',
            signatories: [DSO, BOB],
            observers: [ALICE],
          },
          reassignment_counter: 1,
        },
      }),
    );
  });

  it('converts an unassignment', () => {
    const response = {
      update: {
        Reassignment: {
          value: {
            updateId: '1220bb02cc03dd04ee05ff060718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b',
            commandId: '',
            workflowId: '',
            offset: 70000,
            events: [
              {
                JsUnassignedEvent: {
                  value: {
                    reassignmentId: '0012ab34cd',
                    contractId: BOB_AMULET_CID,
                    templateId: AMULET,
                    source: SYNC,
                    target: OTHER_SYNC,
                    submitter: ALICE,
                    reassignmentCounter: 1,
                    assignmentExclusivity: '2025-10-14T11:59:59.5Z',
                    witnessParties: [ALICE],
                    packageName: 'splice-amulet',
                    offset: 70000,
                    nodeId: 0,
                  },
                },
              },
            ],
            traceContext: null,
            recordTime: '2025-10-14T11:59:58.123Z',
            synchronizerId: SYNC,
            paidTrafficCost: null,
          },
        },
      },
    };
    const converted = convertUpdatesResponse(response, 4);
    if (converted.kind !== 'update') throw new Error('expected an update');
    expect(JSON.stringify(converted.update)).toBe(
      JSON.stringify({
        update_id: '1220bb02cc03dd04ee05ff060718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b',
        offset: CONSISTENT_REASSIGNMENT_OFFSET,
        record_time: '2025-10-14T11:59:58.123000Z',
        event: {
          submitter: ALICE,
          source_synchronizer: SYNC,
          migration_id: 4,
          target_synchronizer: OTHER_SYNC,
          unassign_id: '0012ab34cd',
          reassignment_counter: 1,
          contract_id: BOB_AMULET_CID,
        },
      }),
    );
  });

  it('passes offset checkpoints and topology transactions through as offsets only', () => {
    expect(
      convertUpdatesResponse(
        {
          update: {
            OffsetCheckpoint: {
              value: { offset: 70010, synchronizerTimes: [{ synchronizerId: SYNC, recordTime: '2025-10-14T12:00:01Z' }] },
            },
          },
        },
        4,
      ),
    ).toEqual({ kind: 'offset', offset: 70010 });
    expect(
      convertUpdatesResponse(
        {
          update: {
            TopologyTransaction: {
              value: {
                updateId: '1220cc',
                offset: 70011,
                synchronizerId: SYNC,
                recordTime: '2025-10-14T12:00:02Z',
                events: [],
                traceContext: null,
              },
            },
          },
        },
        4,
      ),
    ).toEqual({ kind: 'offset', offset: 70011 });
  });

  it('names the update and the field when the input is malformed', () => {
    const value = transferResponse.update.Transaction.value;
    const broken = {
      ...value,
      events: value.events.map((e, i) =>
        i === 4 ? { CreatedEvent: { ...(e as ReturnType<typeof created>).CreatedEvent, signatories: 'DSO' } } : e,
      ),
    };
    expect(() => convertUpdatesResponse({ update: { Transaction: { value: broken } } }, 4)).toThrow(
      expect.objectContaining({
        name: 'LedgerConversionError',
        updateId: UPDATE,
        message: expect.stringContaining('update.Transaction.value.events[4].CreatedEvent.signatories: expected an array'),
      }),
    );
    const archived = {
      ...value,
      events: [
        {
          ArchivedEvent: {
            offset: OFFSET,
            nodeId: 0,
            contractId: INPUT1_CID,
            templateId: AMULET,
            witnessParties: [ALICE],
            packageName: 'splice-amulet',
            implementedInterfaces: [],
          },
        },
      ],
    };
    expect(() => convertUpdatesResponse({ update: { Transaction: { value: archived } } }, 4)).toThrow(LedgerConversionError);
    const overlapping = { ...value, events: [value.events[1], exercised(3, 20, INPUT1_CID, AMULET, 'Archive', {}, {}, true, [ALICE])] };
    expect(() => convertUpdatesResponse({ update: { Transaction: { value: overlapping } } }, 4)).toThrow(
      /subtree of node 3 ends after that of its parent node 1/,
    );
  });

  it('refuses batched reassignments, as Splice does', () => {
    const one = {
      JsUnassignedEvent: {
        value: {
          reassignmentId: 'r',
          contractId: 'c',
          templateId: AMULET,
          source: SYNC,
          target: OTHER_SYNC,
          submitter: ALICE,
          reassignmentCounter: 1,
          offset: 1,
          nodeId: 0,
        },
      },
    };
    const response = {
      update: { Reassignment: { value: { updateId: '1220dd', offset: 5, recordTime: '2025-10-14T12:00:00Z', events: [one, one] } } },
    };
    expect(() => convertUpdatesResponse(response, 4)).toThrow(/2 events; only single-contract reassignments/);
  });
});
