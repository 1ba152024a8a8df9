/**
 * The token-standard registry's v2 operations through the real server, at the host root and through
 * the validator proxy. Expected bodies are computed from a replay of the simulated network (with its
 * token-standard V2 trades and the DSO's pair of ExternalPartyConfigStates), following Scan's v2
 * handlers: the transfer factory's context as in v1 (the newest config state after the round), kinds
 * decided by accounts; the v2 two-step contexts (the newest config state, the lock disclosed with
 * expire-lock, no rules or round) for transfer instructions and for AmuletAllocationV2 and
 * AmuletAllocation contracts; the allocation factory (the config state, the factory disclosed, the
 * choice arguments checked against the limits on legs and parties); the settlement factory (the config
 * state, the factory, then the live locks of the batch's V2, then v1, allocations, each once);
 * allocation instructions refused; and the 404s of a network without rules.
 * The published wallet SDK has no v2 client yet, so requests are plain HTTP.
 */
import type { CanonicalItem, ExercisedEvent } from '../../../src/domain/items';
import type { Json } from '../../../src/domain/json';
import { createTestDatabase, destroyTestDatabase, useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { ingestThroughWorker, simulatedItems } from '../../support/items/simulated-network';
import { arg, dateTime, isoInstant, micros, ofTemplate, replay, type LiveContract } from '../../support/replays/live-acs';

const items = simulatedItems({ seed: 'token-standard-2', updates: 3000, migrations: 2, meanUpdateGapMs: 30_000, tokenStandardV2: true });
const r = replay(items);
const id = (c: LiveContract) => c.event.contract_id;

const now = BigInt(Date.now()) * 1000n;
const rules = ofTemplate(r, 'Splice.AmuletRules:AmuletRules').at(-1)!;
const factory = ofTemplate(r, 'Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules').at(-1)!;
const synchronizerId = arg(rules, 'configSchedule', 'initialValue', 'decentralizedSynchronizer', 'activeSynchronizer') as string;
const roundOf = (c: LiveContract) => Number(arg(c, 'round', 'number'));
const usableRound = ofTemplate(r, 'Splice.Round:OpenMiningRound')
  .filter((c) => micros(arg(c, 'opensAt') as string) <= now)
  .sort((a, b) => roundOf(b) - roundOf(a))[0]!;
const locked = new Map(ofTemplate(r, 'Splice.Amulet:LockedAmulet').map((c) => [id(c), c]));
const featuredRight = (provider: string) => ofTemplate(r, 'Splice.Amulet:FeaturedAppRight').find((c) => arg(c, 'provider') === provider);
const preapprovalOf = (receiver: string) =>
  ofTemplate(r, 'Splice.AmuletRules:TransferPreapproval')
    .filter((c) => arg(c, 'receiver') === receiver)
    .sort((a, b) =>
      a.event.created_at === b.event.created_at ? (id(a) < id(b) ? 1 : -1) : a.event.created_at < b.event.created_at ? 1 : -1,
    )[0];
const instructions = ofTemplate(r, 'Splice.AmuletTransferInstruction:AmuletTransferInstruction');
const allocations = ofTemplate(r, 'Splice.AmuletAllocation:AmuletAllocation');
const lockOf = (c: LiveContract) => arg(c, 'lockedAmulet') as string;
const allocationsV2 = ofTemplate(r, 'Splice.AmuletAllocationV2:AmuletAllocationV2');
/** An AmuletAllocationV2's lock: none when its side is a net credit. */
const lockOfV2 = (c: LiveContract) => arg(c, 'lockedAmulet') as string | null;
const dso = arg(rules, 'dso') as string;
/** The newest of the DSO's two live ExternalPartyConfigStates (by targetArchiveAfter); none unless there are exactly two. */
const configStates = ofTemplate(r, 'Splice.ExternalPartyConfigState:ExternalPartyConfigState');
const configState =
  configStates.length === 2
    ? [...configStates].sort((a, b) =>
        micros(arg(b, 'targetArchiveAfter') as string) - micros(arg(a, 'targetArchiveAfter') as string) > 0n ? 1 : -1,
      )[0]!
    : undefined;
const withConfigState = (entries: Entry[]): Entry[] => (configState ? [['external-party-config-state', configState], ...entries] : entries);

/** The exercises of a choice anywhere in the stream, with their arguments as the network sent them. */
function exercisesOf(all: CanonicalItem[], choice: string): ExercisedEvent[] {
  return all.flatMap((item) => {
    const u = item.update;
    if (!u || !('events_by_id' in u)) return [];
    return Object.values(u.events_by_id).filter((e): e is ExercisedEvent => e.event_type === 'exercised_event' && e.choice === choice);
  });
}

function disclosed(c: LiveContract, debug: boolean) {
  return {
    templateId: c.event.template_id,
    contractId: id(c),
    createdEventBlob: c.blob,
    synchronizerId,
    ...(debug
      ? { debugPackageName: c.event.package_name, debugPayload: c.event.create_arguments, debugCreatedAt: dateTime(c.event.created_at) }
      : {}),
  };
}

type Entry = [key: string, contract: LiveContract] | [key: string, flag: boolean] | [key: null, contract: LiveContract];

function context(entries: Entry[], debug: boolean) {
  const values: Record<string, unknown> = {};
  const contracts: LiveContract[] = [];
  for (const [key, v] of entries) {
    if (typeof v === 'boolean') values[key] = { tag: 'AV_Bool', value: v };
    else {
      if (key !== null) values[key] = { tag: 'AV_ContractId', value: id(v) };
      contracts.push(v);
    }
  }
  return { choiceContextData: { values }, disclosedContracts: contracts.map((c) => disclosed(c, debug)) };
}

/** Scan's v2 transfer factory: preapproval looked up between different owners; "self" only for one account. */
function expectedTransferFactory(sender: string, receiver: string, sameAccount: boolean, debug: boolean) {
  const preapproval = sender === receiver ? undefined : preapprovalOf(receiver);
  const featured = preapproval && featuredRight(arg(preapproval, 'provider') as string);
  const entries: Entry[] = [
    ['amulet-rules', rules],
    ['open-round', usableRound],
  ];
  if (configState) entries.push(['external-party-config-state', configState]);
  if (featured) entries.push(['featured-app-right', featured]);
  if (preapproval) entries.push(['transfer-preapproval', preapproval]);
  entries.push([null, factory]);
  return {
    factoryId: id(factory),
    transferKind: sameAccount ? 'self' : preapproval ? 'direct' : 'offer',
    choiceContext: context(entries, debug),
  };
}

function expectedTwoStepV2(lockId: string, required: boolean, describe: string, expiresAt: string) {
  const lock = locked.get(lockId);
  if (!lock) {
    return required
      ? { status: 404, body: { error: `LockedAmulet '${lockId}' not found for ${describe}, which expires on ${isoInstant(expiresAt)}` } }
      : { status: 200, body: context([['expire-lock', false]], true) };
  }
  return {
    status: 200,
    body: context(
      withConfigState([
        [null, lock],
        ['expire-lock', true],
      ]),
      true,
    ),
  };
}

/** The v2 context of an AmuletAllocationV2's choices: the lock's, or expire-lock false when it has none. */
function expectedAllocationV2(c: LiveContract) {
  const lock = lockOfV2(c);
  return lock === null
    ? { status: 200, body: context([['expire-lock', false]], true) }
    : expectedTwoStepV2(lock, false, `AmuletAllocation '${id(c)}'`, arg(c, 'expiresAt') as string);
}

/** The V2 allocation factory: the newest config state, then the factory disclosed. */
const expectedAllocationFactory = (debug: boolean) => ({
  factoryId: id(factory),
  choiceContext: context(withConfigState([[null, factory]]), debug),
});

/** The settlement factory: the factory, then the live locks of the named V2 allocations, then of the v1 ones, each once. */
function expectedSettlementFactory(allocationIds: string[], debug: boolean) {
  const named = [...new Set(allocationIds)];
  const v2 = named.flatMap((a) => allocationsV2.filter((c) => id(c) === a));
  const v1 = named.flatMap((a) => allocations.filter((c) => id(c) === a));
  const lockIds = [...new Set([...v2.flatMap((c) => lockOfV2(c) ?? []), ...v1.map(lockOf)])];
  const locks = lockIds.flatMap((l) => locked.get(l) ?? []);
  return {
    factoryId: id(factory),
    choiceContext: context(withConfigState([[null, factory], ...locks.map((l): Entry => [null, l])]), debug),
  };
}

const meta = { values: {} };
const basicAccount = (owner: string | null) => ({ owner, provider: null, id: '' });
const party = (i: number) => `party-${i}::1220${i.toString(16).padStart(64, '0')}`;

/** An AllocationFactory_Allocate (V2) whose authorizer sends to each of `othersides` (Daml JSON, empty extraArgs). */
function allocateArguments(authorizer: string, othersides: string[]) {
  return {
    settlement: { executors: [party(0)], id: 'settlement-of-a-test', cid: null, meta },
    allocation: {
      admin: dso,
      authorizer: basicAccount(authorizer),
      transferLegSides: othersides.map((o, i) => ({
        transferLegId: `leg-${i}`,
        side: 'SenderSide',
        otherside: basicAccount(o),
        amount: '10.0000000000',
        instrumentId: 'Amulet',
        meta,
      })),
      settlementDeadline: '2030-01-01T00:00:00Z',
      nextIterationFunding: null,
      committed: false,
      meta,
    },
    requestedAt: '2025-01-01T00:00:00Z',
    inputHoldingCids: [],
    extraArgs: { context: { values: {} }, meta },
    actors: [authorizer],
  };
}

/** A SettlementFactory_SettleBatch of `allocationIds` with a leg per pair of parties (Daml JSON, empty extraArgs). */
function settleArguments(allocationIds: string[], legs: [string | null, string | null][]) {
  return {
    settlement: { executors: [party(0)], id: 'settlement-of-a-test', cid: null, meta },
    transferLegs: legs.map(([sender, receiver], i) => ({
      transferLegId: `leg-${i}`,
      sender: basicAccount(sender),
      receiver: basicAccount(receiver),
      amount: '10.0000000000',
      instrumentId: 'Amulet',
      meta,
    })),
    allocations: allocationIds.map((allocationCid) => ({ allocationCid, extraTransferLegSides: [], nextIterationFunding: null })),
    actors: [party(0)],
    extraArgs: { context: { values: {} }, meta },
  };
}

const account = (owner: string, id = '') => ({ owner, provider: null, id });

function transferArguments(sender: ReturnType<typeof account>, receiver: ReturnType<typeof account>) {
  return {
    expectedAdmin: arg(rules, 'dso'),
    transfer: {
      sender,
      receiver,
      amount: '12.5000000000',
      instrumentId: { admin: arg(rules, 'dso'), id: 'Amulet' },
      requestedAt: '2025-01-01T00:00:00Z',
      executeBefore: '2030-01-01T00:00:00Z',
      inputHoldingCids: ['00abc'],
      meta: { values: {} },
    },
    extraArgs: { context: { values: {} }, meta: { values: {} } },
  };
}

describe('token-standard registry v2', () => {
  const t = useTestDatabase();
  let api: TestApi;
  const roots = ['/registry', '/api/validator/v0/scan-proxy/registry'];
  const post = (path: string, body: unknown) => request(api.url, 'POST', path, body);
  const expectAnswer = async (path: string, body: unknown, expected: { status: number; body: unknown }) => {
    const res = await post(path, body);
    expect({ path, status: res.status, body: res.json }).toEqual({ path, ...expected });
    expect(res.text).toBe(JSON.stringify(expected.body));
  };

  beforeAll(async () => {
    await ingestThroughWorker(t, items);
    api = await startTestApi(t, { env: { LEDGER_AUTH_DISABLED: 'true' } });
  });
  afterAll(async () => {
    await api?.close();
  });

  const users = [...new Set(ofTemplate(r, 'Splice.Amulet:Amulet').map((c) => arg(c, 'owner') as string))].filter(
    (p) => !p.startsWith('DSO::'),
  );
  const withPreapproval = users.filter((p) => preapprovalOf(p));
  const withoutPreapproval = users.filter((p) => !preapprovalOf(p));

  it('has every case worth testing', () => {
    expect(withPreapproval.length).toBeGreaterThan(0);
    expect(withoutPreapproval.length).toBeGreaterThan(0);
    expect(instructions.filter((c) => locked.has(lockOf(c))).length).toBeGreaterThan(0);
    expect(instructions.filter((c) => !locked.has(lockOf(c))).length).toBeGreaterThan(0);
    expect(allocations.filter((c) => locked.has(lockOf(c))).length).toBeGreaterThan(0);
    expect(allocations.filter((c) => !locked.has(lockOf(c))).length).toBeGreaterThan(0);
    expect(allocationsV2.filter((c) => lockOfV2(c) === null).length).toBeGreaterThan(0);
    expect(allocationsV2.filter((c) => lockOfV2(c) !== null && locked.has(lockOfV2(c)!)).length).toBeGreaterThan(0);
    expect(allocationsV2.filter((c) => lockOfV2(c) !== null && !locked.has(lockOfV2(c)!)).length).toBeGreaterThan(0);
    expect(exercisesOf(items, 'SettlementFactory_SettleBatch').length).toBeGreaterThan(0);
    // The DSO's pair of config states, rotated at least once.
    expect(configState).toBeDefined();
    expect(exercisesOf(items, 'DsoRules_UpdateExternalPartyConfigStates').length).toBeGreaterThan(0);
  });

  it('transfer-factory: one account (self), two accounts of one owner (offer), direct and offer, with and without debug fields', async () => {
    const u = users[0]!;
    const cases: [ReturnType<typeof account>, ReturnType<typeof account>][] = [
      [account(u), account(u)],
      [account(u), account(u, 'savings')],
      ...withPreapproval.map(
        (p) => [account(users.find((x) => x !== p)!), account(p)] as [ReturnType<typeof account>, ReturnType<typeof account>],
      ),
      ...withoutPreapproval
        .slice(0, 3)
        .map((p) => [account(users.find((x) => x !== p)!), account(p)] as [ReturnType<typeof account>, ReturnType<typeof account>]),
    ];
    for (const root of roots) {
      for (const [sender, receiver] of cases) {
        const choiceArguments = transferArguments(sender, receiver);
        const same = JSON.stringify(sender) === JSON.stringify(receiver);
        for (const debug of [true, false]) {
          await expectAnswer(
            `${root}/transfer-instruction/v2/transfer-factory`,
            debug ? { choiceArguments } : { choiceArguments, excludeDebugFields: true },
            { status: 200, body: expectedTransferFactory(sender.owner, receiver.owner, same, debug) },
          );
        }
      }
    }
    // The kept v1 answer for a transfer to oneself is not changed by v2's offer between two accounts.
    const res = await post('/registry/transfer-instruction/v1/transfer-factory', {
      choiceArguments: {
        ...transferArguments(account(u), account(u)),
        transfer: { ...transferArguments(account(u), account(u)).transfer, sender: u, receiver: u },
      },
    });
    expect((res.json as { transferKind: string }).transferKind).toBe('self');
  });

  it('transfer-instruction v2 choice contexts for every live instruction; 404 for others', async () => {
    for (const root of roots) {
      for (const c of instructions) {
        const describe = `AmuletTransferInstruction '${id(c)}'`;
        const expiresAt = arg(c, 'transfer', 'executeBefore') as string;
        for (const [choice, required] of [
          ['accept', true],
          ['reject', false],
          ['withdraw', false],
        ] as const) {
          await expectAnswer(
            `${root}/transfer-instruction/v2/${id(c)}/choice-contexts/${choice}`,
            {},
            expectedTwoStepV2(lockOf(c), required, describe, expiresAt),
          );
        }
      }
      await expectAnswer(
        `${root}/transfer-instruction/v2/${id(allocations[0]!)}/choice-contexts/accept`,
        {},
        { status: 404, body: { error: `AmuletTransferInstruction '${id(allocations[0]!)}' not found.` } },
      );
    }
  });

  it('allocation v2 choice contexts for every live AmuletAllocationV2 and AmuletAllocation; allocation instructions refused', async () => {
    for (const root of roots) {
      for (const c of allocationsV2) {
        for (const choice of ['withdraw', 'cancel']) {
          await expectAnswer(
            `${root}/allocations/v2/${id(c)}/choice-contexts/${choice}`,
            { excludeDebugFields: false },
            expectedAllocationV2(c),
          );
        }
      }
      for (const c of allocations) {
        const describe = `AmuletAllocation '${id(c)}'`;
        const expiresAt = arg(c, 'allocation', 'settlement', 'settleBefore') as string;
        for (const choice of ['withdraw', 'cancel']) {
          await expectAnswer(
            `${root}/allocations/v2/${id(c)}/choice-contexts/${choice}`,
            {},
            expectedTwoStepV2(lockOf(c), false, describe, expiresAt),
          );
        }
      }
      await expectAnswer(
        `${root}/allocations/v2/${id(instructions[0]!)}/choice-contexts/cancel`,
        {},
        { status: 404, body: { error: `AmuletAllocation '${id(instructions[0]!)}' not found.` } },
      );
      for (const choice of ['accept', 'withdraw']) {
        await expectAnswer(
          `${root}/allocation-instruction/v2/${id(allocations[0]!)}/choice-contexts/${choice}`,
          { excludeDebugFields: true },
          {
            status: 400,
            body: {
              error: 'Allocation instruction choice contexts are unsupported because amulet does not create allocation instructions.',
            },
          },
        );
      }
    }
  });

  it('allocation-instruction v2 allocation-factory: the factory for every V2 allocation the network made, and at the limits', async () => {
    const made = exercisesOf(items, 'AllocationFactory_Allocate')
      .map((e) => e.choice_argument as Record<string, Json>)
      .filter((a) => 'settlement' in a);
    expect(made.length).toBeGreaterThan(0);
    const atTheLimits = allocateArguments(
      party(1),
      Array.from({ length: 100 }, (_, i) => party(i + 2)),
    );
    for (const root of roots) {
      for (const choiceArguments of [...made, atTheLimits]) {
        for (const debug of [true, false]) {
          await expectAnswer(
            `${root}/allocation-instruction/v2/allocation-factory`,
            debug ? { choiceArguments } : { choiceArguments, excludeDebugFields: true },
            { status: 200, body: expectedAllocationFactory(debug) },
          );
        }
      }
    }
  });

  it('allocation v2 settlement-factory: the factory and the live locks of the batch, V2 allocations first, each once', async () => {
    const settled = exercisesOf(items, 'SettlementFactory_SettleBatch').map(
      (e) => e.choice_argument as { allocations: { allocationCid: string }[] },
    );
    const archivedV2 = settled.flatMap((a) => a.allocations.map((x) => x.allocationCid));
    expect(archivedV2.filter((a) => allocationsV2.some((c) => id(c) === a)).length).toBe(0);
    // Interleaved v1 and V2 allocations, some twice, with ids that name no live allocation of Amulet.
    const mixed = [
      ...allocations.flatMap((c, i) => [id(c), ...(allocationsV2[i] ? [id(allocationsV2[i])] : [])]),
      ...allocationsV2.slice(allocations.length).map(id),
      id(allocationsV2[0]!),
      id(allocations[0]!),
      archivedV2[0]!,
      id(instructions[0]!),
      lockOf(allocations[0]!),
      '00unknown',
    ];
    const legs: [string, string][] = [[party(1), party(2)]];
    const batches: { choiceArguments: unknown; named: string[] }[] = [
      ...settled.slice(0, 3).map((a) => ({ choiceArguments: a, named: a.allocations.map((x) => x.allocationCid) })),
      { choiceArguments: settleArguments(mixed, legs), named: mixed },
      { choiceArguments: settleArguments([], legs), named: [] },
    ];
    expect(expectedSettlementFactory(mixed, true).choiceContext.disclosedContracts.length).toBeGreaterThan(2);
    for (const root of roots) {
      for (const { choiceArguments, named } of batches) {
        for (const debug of [true, false]) {
          await expectAnswer(
            `${root}/allocation/v2/settlement-factory`,
            debug ? { choiceArguments } : { choiceArguments, excludeDebugFields: true },
            { status: 200, body: expectedSettlementFactory(named, debug) },
          );
        }
      }
    }
    // At the limits: 100 legs between 100 parties.
    const full = Array.from({ length: 100 }, (_, i): [string, string] => [party(1 + (i % 50) * 2), party(2 + (i % 50) * 2)]);
    await expectAnswer(
      '/registry/allocation/v2/settlement-factory',
      { choiceArguments: settleArguments([], full) },
      { status: 200, body: expectedSettlementFactory([], true) },
    );
  });

  it('the V2 factories refuse what is not their choice, or is over the limits, in Scan order (arguments first)', async () => {
    const allocate = '/registry/allocation-instruction/v2/allocation-factory';
    const settle = '/registry/allocation/v2/settlement-factory';
    const refused = (path: string, choiceArguments: unknown, error: string) =>
      expectAnswer(path, { choiceArguments }, { status: 400, body: { error } });
    const notAllocate = 'Field `choiceArguments` does not contain a valid `AllocationFactory_Allocate`: ';
    const notSettle = 'Field `choiceArguments` does not contain a valid `SettlementFactory_SettleBatch`: ';
    await refused(allocate, {}, `${notAllocate}expected a settlement at settlement`);
    // A v1 AllocationFactory_Allocate, as the network sent it, is not a V2 one.
    const v1 = exercisesOf(items, 'AllocationFactory_Allocate').find((e) => !('settlement' in (e.choice_argument as object)))!;
    await refused(allocate, v1.choice_argument, `${notAllocate}expected a settlement at settlement`);
    const wrongSide = allocateArguments(party(1), [party(2)]);
    wrongSide.allocation.transferLegSides[0]!.side = 'Sender';
    await refused(allocate, wrongSide, `${notAllocate}expected SenderSide or ReceiverSide at allocation.transferLegSides.0.side`);
    await refused(
      allocate,
      { ...allocateArguments(party(1), [party(2)]), actors: 'me' },
      `${notAllocate}expected a list of parties at actors`,
    );
    await refused(
      allocate,
      allocateArguments(
        party(1),
        Array.from({ length: 101 }, (_, i) => party(i + 2)),
      ),
      'Too many transfer legs in the settle batch: 101. Maximum allowed: 100',
    );
    await refused(settle, {}, `${notSettle}expected a settlement at settlement`);
    await refused(
      settle,
      { ...settleArguments([], [[party(1), party(2)]]), allocations: [{ extraTransferLegSides: [] }] },
      `${notSettle}expected a contract id at allocations.0.allocationCid`,
    );
    await refused(
      settle,
      settleArguments(
        [],
        Array.from({ length: 101 }, () => [party(1), party(2)] as [string, string]),
      ),
      'Too many transfer legs in the settle batch: 101. Maximum allowed: 100',
    );
    await refused(
      settle,
      settleArguments(
        [],
        Array.from({ length: 51 }, (_, i): [string, string] => [party(1 + i * 2), party(2 + i * 2)]),
      ),
      'Too many parties in the settle batch: 102. Maximum allowed: 100',
    );
    const missing = await post(settle, {});
    expect(missing.status).toBe(400);
    expect((missing.json as { error: string }).error).toMatch(/choiceArguments/);

    // The limits are the operator's (REGISTRY_SETTLEMENT_MAX_LEGS, REGISTRY_SETTLEMENT_MAX_PARTIES).
    const strict = await startTestApi(t, {
      env: { LEDGER_AUTH_DISABLED: 'true', REGISTRY_SETTLEMENT_MAX_LEGS: '3', REGISTRY_SETTLEMENT_MAX_PARTIES: '2' },
    });
    try {
      const at = async (path: string, choiceArguments: unknown, expected: { status: number; body: unknown }) => {
        const res = await request(strict.url, 'POST', path, { choiceArguments });
        expect({ path, status: res.status, body: res.json }).toEqual({ path, ...expected });
      };
      await at(allocate, allocateArguments(party(1), [party(2), party(3), party(2)]), {
        status: 200,
        body: expectedAllocationFactory(true),
      });
      await at(allocate, allocateArguments(party(1), [party(2), party(3), party(4)]), {
        status: 400,
        body: { error: 'Too many parties in the settle batch: 3. Maximum allowed: 2' },
      });
      await at(allocate, allocateArguments(party(1), [party(2), party(2), party(2), party(2)]), {
        status: 400,
        body: { error: 'Too many transfer legs in the settle batch: 4. Maximum allowed: 3' },
      });
      await at(
        settle,
        settleArguments(
          [],
          [
            [party(1), party(2)],
            [party(2), party(1)],
          ],
        ),
        { status: 200, body: expectedSettlementFactory([], true) },
      );
      await at(
        settle,
        settleArguments(
          [],
          [
            [party(1), party(2)],
            // A special account (no owner: the registry's mint or burn) names no party.
            [party(3), null],
          ],
        ),
        { status: 400, body: { error: 'Too many parties in the settle batch: 3. Maximum allowed: 2' } },
      );
    } finally {
      await strict.close();
    }
  });

  it('a network without AmuletRules or ExternalPartyAmuletRules: the factories 404 (after checking their arguments), allocations 404', async () => {
    const empty = await createTestDatabase();
    const emptyApi = await startTestApi(empty, { env: { LEDGER_AUTH_DISABLED: 'true' } });
    try {
      for (const root of roots) {
        const at = async (path: string, body: unknown, expected: { status: number; body: unknown }) => {
          const res = await request(emptyApi.url, 'POST', `${root}${path}`, body);
          expect({ path, status: res.status, body: res.json }).toEqual({ path, ...expected });
        };
        // Scan looks the factory up before AmuletRules for an allocation, after it for a settlement.
        await at(
          '/allocation-instruction/v2/allocation-factory',
          { choiceArguments: allocateArguments(party(1), [party(2)]) },
          { status: 404, body: { error: 'No active ExternalPartyAmuletRules contract' } },
        );
        await at(
          '/allocation/v2/settlement-factory',
          { choiceArguments: settleArguments(['00aa'], [[party(1), party(2)]]) },
          { status: 404, body: { error: 'No active AmuletRules contract' } },
        );
        await at(
          '/allocation/v2/settlement-factory',
          { choiceArguments: {} },
          {
            status: 400,
            body: {
              error:
                'Field `choiceArguments` does not contain a valid `SettlementFactory_SettleBatch`: expected a settlement at settlement',
            },
          },
        );
        await at(
          '/allocations/v2/00aa/choice-contexts/withdraw',
          {},
          { status: 404, body: { error: "AmuletAllocation '00aa' not found." } },
        );
      }
    } finally {
      await emptyApi.close();
      await destroyTestDatabase(empty);
    }
  });

  it('refuses malformed bodies with the registry error shape', async () => {
    const factoryPath = '/registry/transfer-instruction/v2/transfer-factory';
    const bad = async (path: string, body: unknown, error: string | RegExp) => {
      const res = await post(path, body);
      expect(res.status).toBe(400);
      expect(Object.keys(res.json as object)).toEqual(['error']);
      if (typeof error === 'string') expect((res.json as { error: string }).error).toBe(error);
      else expect((res.json as { error: string }).error).toMatch(error);
    };
    await bad(factoryPath, {}, /choiceArguments/);
    await bad(
      factoryPath,
      { choiceArguments: {} },
      'Field `choiceArguments` does not contain a valid `TransferFactory_Transfer`: expected a transfer at transfer',
    );
    // A v1 transfer (parties, not accounts) is not a v2 one.
    const v1 = transferArguments(account(users[0]!), account(users[1]!));
    await bad(
      factoryPath,
      { choiceArguments: { ...v1, transfer: { ...v1.transfer, sender: users[0] } } },
      'Field `choiceArguments` does not contain a valid `TransferFactory_Transfer`: expected an account at transfer.sender',
    );
    await bad(
      factoryPath,
      { choiceArguments: { ...v1, transfer: { ...v1.transfer, receiver: account('nobody') } } },
      'Field `choiceArguments` does not contain a valid `TransferFactory_Transfer`: expected a party id <name>::<fingerprint> at transfer.receiver.owner',
    );
    await bad(`/registry/allocations/v2/${id(allocations[0]!)}/choice-contexts/cancel`, { meta: { a: 1 } }, /meta/);
    await bad(`/registry/allocation-instruction/v2/x/choice-contexts/accept`, { excludeDebugFields: 'yes' }, /excludeDebugFields/);
  });
});
