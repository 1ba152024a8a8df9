/** Stored transaction → JsTransaction on a hand-built transaction whose visibility is worked out by hand. */
import type { CreatedEvent, ExercisedEvent, TransactionUpdate } from '../../../src/domain/items';
import { WILDCARD, parseIdentifier, type Filters, type TransactionFormat, type TransactionShape } from '../../../src/domain/ledger-filters';
import { toJsTransaction, type JsEvent, type StoredContract, type StoredTransaction } from '../../../src/domain/ledger-transaction';

const PKG = 'a'.repeat(64);
const HOLDING = '718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b:Splice.Api.Token.HoldingV1:Holding';
const DSO = 'DSO::1220dd';
const ALICE = 'alice::1220aa';
const BOB = 'bob::1220bb';
const CAROL = 'carol::1220cc';
const ID = `1220${'11'.repeat(32)}`;

const created = (n: number, cid: string, entity: string, signatories: string[], observers: string[] = []): CreatedEvent => ({
  event_type: 'created_event',
  event_id: `${ID}:${n}`,
  contract_id: cid,
  template_id: `${PKG}:Splice.Amulet:${entity}`,
  package_name: 'splice-amulet',
  create_arguments: { n },
  created_at: '2025-01-01T00:00:00.123456Z',
  signatories,
  observers,
});
const exercised = (
  n: number,
  cid: string,
  entity: string,
  consuming: boolean,
  acting: string[],
  children: number[] = [],
): ExercisedEvent => ({
  event_type: 'exercised_event',
  event_id: `${ID}:${n}`,
  contract_id: cid,
  template_id: `${PKG}:${entity === 'AmuletRules' ? 'Splice.AmuletRules' : 'Splice.Amulet'}:${entity}`,
  package_name: 'splice-amulet',
  choice: consuming ? 'Archive' : 'AmuletRules_Transfer',
  choice_argument: {},
  child_event_ids: children.map((c) => `${ID}:${c}`),
  exercise_result: null,
  consuming,
  acting_parties: acting,
  interface_id: null,
});

// 0 Transfer on AmuletRules (non-consuming, by alice) → 1 archive alice's old amulet, 2 LockedAmulet (bob observes),
//   3 Amulet T created and 4 consumed here (transient) → 5 Amulet for bob.
// 6 (root) archive of a contract the indexer never saw, by carol: no known stakeholders.
const events = [
  exercised(0, 'rules', 'AmuletRules', false, [ALICE], [1, 2, 3, 4]),
  exercised(1, 'old', 'Amulet', true, [ALICE]),
  created(2, 'locked', 'LockedAmulet', [DSO, ALICE], [BOB]),
  created(3, 'transient', 'Amulet', [DSO]),
  exercised(4, 'transient', 'Amulet', true, [DSO], [5]),
  created(5, 'bobs', 'Amulet', [DSO, BOB]),
  exercised(6, 'unseen', 'Amulet', true, [CAROL]),
];
const update: TransactionUpdate = {
  update_id: ID,
  migration_id: 0,
  workflow_id: 'wf',
  record_time: '2025-01-01T00:00:01.500000Z',
  synchronizer_id: 'global-domain::1220ee',
  effective_at: '2025-01-01T00:00:01.000000Z',
  root_event_ids: [`${ID}:0`, `${ID}:6`],
  // Keys in lexicographic order, as Scan sorts them: node 10+ would come before 2.
  events_by_id: Object.fromEntries(events.map((e) => [e.event_id, e])),
};
const contracts = new Map<string, StoredContract>([
  ['rules', { signatories: [DSO], observers: [], createdEventBlob: '' }],
  ['old', { signatories: [DSO, ALICE], observers: [], createdEventBlob: '' }],
  ['locked', { signatories: [DSO, ALICE], observers: [BOB], createdEventBlob: 'YmxvYg==' }],
]);
const stored: StoredTransaction = { update, offset: 42, commandId: 'cmd-1', externalTransactionHash: null, submitters: [ALICE], contracts };

function format(shape: 'ACS_DELTA' | 'LEDGER_EFFECTS', byParty: Record<string, Filters>, anyParty?: Filters): TransactionFormat {
  return {
    eventFormat: { filtersByParty: new Map(Object.entries(byParty)), filtersForAnyParty: anyParty },
    shape: `TRANSACTION_SHAPE_${shape}` as TransactionShape,
  };
}
const summary = (events: JsEvent[]) =>
  events.map((e) => {
    const [kind, body] = Object.entries(e)[0] as [string, { nodeId: number; witnessParties: string[]; acsDelta?: boolean }];
    return [kind, body.nodeId, body.witnessParties, body.acsDelta];
  });
const holdingFilter = (): Filters => {
  const ref = parseIdentifier('#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding');
  if ('error' in ref) throw new Error(ref.error);
  return [{ kind: 'interface', interfaceId: ref, includeInterfaceView: true, includeCreatedEventBlob: true }];
};

describe('toJsTransaction', () => {
  it('ACS_DELTA for bob: the creates he is a stakeholder of, nothing transient (whole body)', () => {
    expect(toJsTransaction(stored, format('ACS_DELTA', { [BOB]: WILDCARD }))).toEqual({
      updateId: ID,
      commandId: '',
      workflowId: 'wf',
      effectiveAt: '2025-01-01T00:00:01Z',
      events: [
        {
          CreatedEvent: {
            offset: 42,
            nodeId: 2,
            contractId: 'locked',
            templateId: `${PKG}:Splice.Amulet:LockedAmulet`,
            contractKey: null,
            contractKeyHash: '',
            createArgument: { n: 2 },
            createdEventBlob: '',
            interfaceViews: [],
            witnessParties: [BOB],
            signatories: [DSO, ALICE],
            observers: [BOB],
            createdAt: '2025-01-01T00:00:00.123456Z',
            packageName: 'splice-amulet',
            representativePackageId: PKG,
            acsDelta: true,
          },
        },
        expect.objectContaining({ CreatedEvent: expect.objectContaining({ nodeId: 5, contractId: 'bobs', witnessParties: [BOB] }) }),
      ],
      offset: 42,
      synchronizerId: 'global-domain::1220ee',
      traceContext: null,
      recordTime: '2025-01-01T00:00:01.500Z',
      externalTransactionHash: null,
      paidTrafficCost: null,
    });
  });

  it('LEDGER_EFFECTS for alice: the whole subtree of her exercise; acsDelta only for her ACS changes', () => {
    const tx = toJsTransaction(stored, format('LEDGER_EFFECTS', { [ALICE]: WILDCARD }))!;
    expect(summary(tx.events)).toEqual([
      ['ExercisedEvent', 0, [ALICE], false],
      ['ExercisedEvent', 1, [ALICE], true],
      ['CreatedEvent', 2, [ALICE], true],
      ['CreatedEvent', 3, [ALICE], false],
      ['ExercisedEvent', 4, [ALICE], false],
      ['CreatedEvent', 5, [ALICE], false],
    ]);
    const root = tx.events[0] as { ExercisedEvent: { lastDescendantNodeId: number } };
    expect(root.ExercisedEvent.lastDescendantNodeId).toBe(5);
    expect((tx.events[1] as { ExercisedEvent: { lastDescendantNodeId: number } }).ExercisedEvent.lastDescendantNodeId).toBe(1);
    expect(tx.commandId).toBe('cmd-1');
  });

  it('LEDGER_EFFECTS for bob: only the nodes he is an informee of, or below them', () => {
    const tx = toJsTransaction(stored, format('LEDGER_EFFECTS', { [BOB]: WILDCARD }))!;
    expect(summary(tx.events)).toEqual([
      ['CreatedEvent', 2, [BOB], true],
      ['CreatedEvent', 5, [BOB], true],
    ]);
    expect(tx.commandId).toBe('');
  });

  it('a non-consuming exercise informs the signatories only, a consuming one all stakeholders', () => {
    const observerOfRules = new Map(contracts).set('rules', { signatories: [DSO], observers: [CAROL], createdEventBlob: '' });
    const tx = toJsTransaction({ ...stored, contracts: observerOfRules }, format('LEDGER_EFFECTS', { [CAROL]: WILDCARD }))!;
    expect(summary(tx.events)).toEqual([['ExercisedEvent', 6, [CAROL], false]]);
  });

  it('an archive of a contract never seen is in no ACS_DELTA view: its stakeholders are unknown, its actors need not be any', () => {
    expect(toJsTransaction(stored, format('ACS_DELTA', { [CAROL]: WILDCARD }))).toBeUndefined();
    // Nor to an any-party reader, which would otherwise see it with no witness party.
    expect(summary(toJsTransaction(stored, format('ACS_DELTA', {}, WILDCARD))!.events).map(([, n]) => n)).not.toContain(6);
    // LEDGER_EFFECTS still shows the exercise to its actors, as not part of the ACS delta.
    expect(summary(toJsTransaction(stored, format('LEDGER_EFFECTS', { [CAROL]: WILDCARD }))!.events)).toEqual([
      ['ExercisedEvent', 6, [CAROL], false],
    ]);
  });

  it('filtersForAnyParty: every ACS change, with all its stakeholders', () => {
    const tx = toJsTransaction(stored, format('ACS_DELTA', {}, WILDCARD))!;
    expect(summary(tx.events)).toEqual([
      ['ArchivedEvent', 1, [DSO, ALICE], undefined],
      ['CreatedEvent', 2, [DSO, ALICE, BOB], true],
      ['CreatedEvent', 5, [DSO, BOB], true],
    ]);
    expect(tx.commandId).toBe('cmd-1');
  });

  it('the Holding interface filter: views with a non-OK status, implemented interfaces of consuming exercises, blobs', () => {
    const tx = toJsTransaction(stored, format('LEDGER_EFFECTS', { [ALICE]: holdingFilter() }))!;
    expect(tx.events.map((e) => Object.values(e)[0].nodeId)).toEqual([1, 2, 3, 4, 5]);
    const locked = (tx.events[1] as { CreatedEvent: { interfaceViews: unknown[]; createdEventBlob: string } }).CreatedEvent;
    expect(locked.createdEventBlob).toBe('YmxvYg==');
    expect(locked.interfaceViews).toEqual([
      {
        interfaceId: HOLDING,
        viewStatus: { code: 12, message: 'Interface views are not computed by scan-indexer: it has no Daml engine.', details: [] },
        viewValue: null,
        implementationPackageId: PKG,
      },
    ]);
    expect((tx.events[0] as { ExercisedEvent: { implementedInterfaces: string[] } }).ExercisedEvent.implementedInterfaces).toEqual([
      HOLDING,
    ]);
  });

  it('is undefined when no event is visible', () => {
    expect(toJsTransaction(stored, format('ACS_DELTA', { 'nobody::1220': WILDCARD }))).toBeUndefined();
    const other = parseIdentifier('#other-package:Other.Module:Template');
    if ('error' in other) throw new Error(other.error);
    expect(
      toJsTransaction(
        stored,
        format('LEDGER_EFFECTS', { [BOB]: [{ kind: 'template', templateId: other, includeCreatedEventBlob: false }] }),
      ),
    ).toBeUndefined();
  });
});
