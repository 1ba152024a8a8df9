/**
 * The token-standard registry's transfer-instruction and allocation APIs through the real server,
 * at the host root and through the validator proxy, and through the wallet SDK's own registry
 * client (`@canton-network/core-token-standard`). Every expected body is computed here from a
 * replay of the simulated network, following Scan's token-standard handlers: which contracts go
 * into each choice context, in which order they are disclosed, with their blobs.
 */
import { TokenStandardClient } from '@canton-network/core-token-standard';
import pino from 'pino';
import type { CanonicalItem } from '../../../src/domain/items';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { ingestThroughWorker, simulatedItems } from '../../support/items/simulated-network';
import { arg, dateTime, isoInstant, micros, ofTemplate, replay, type LiveContract } from '../../support/replays/live-acs';

const items = simulatedItems({ seed: 'token-standard', updates: 3000, migrations: 2, meanUpdateGapMs: 30_000 });
const r = replay(items);

const qualified = (templateId: string) => templateId.split(':').slice(1).join(':');
const id = (c: LiveContract) => c.event.contract_id;

/** Every contract of a template ever created, by id (the archived ones answer 404). */
function createdEver(all: CanonicalItem[], name: string): string[] {
  const ids = new Set<string>();
  for (const item of all) {
    const u = item.update;
    if (!u || !('events_by_id' in u)) continue;
    for (const e of Object.values(u.events_by_id)) {
      if (e.event_type === 'created_event' && qualified(e.template_id) === name) ids.add(e.contract_id);
    }
  }
  return [...ids];
}

// The facts Scan's handlers read, from the replay.
// The server runs on the wall clock (as Scan): every simulated round has opened by now. The rule for
// rounds that have not opened yet is tested in test/unit/domain/mining-rounds.test.ts.
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
/** The receiver's newest preapproval (by creation time, then contract id). */
const preapprovalOf = (receiver: string) =>
  ofTemplate(r, 'Splice.AmuletRules:TransferPreapproval')
    .filter((c) => arg(c, 'receiver') === receiver)
    .sort((a, b) =>
      a.event.created_at === b.event.created_at ? (id(a) < id(b) ? 1 : -1) : a.event.created_at < b.event.created_at ? 1 : -1,
    )[0];

const instructions = ofTemplate(r, 'Splice.AmuletTransferInstruction:AmuletTransferInstruction');
const allocations = ofTemplate(r, 'Splice.AmuletAllocation:AmuletAllocation');
const lockOf = (c: LiveContract) => arg(c, 'lockedAmulet') as string;

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

/** A ChoiceContext from entries in the order Scan adds them: contracts are context values and disclosed; key null only discloses. */
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

function expectedTransferFactory(sender: string, receiver: string, debug: boolean) {
  const preapproval = sender === receiver ? undefined : preapprovalOf(receiver);
  const featured = preapproval && featuredRight(arg(preapproval, 'provider') as string);
  const entries: Entry[] = [
    ['amulet-rules', rules],
    ['open-round', usableRound],
  ];
  if (featured) entries.push(['featured-app-right', featured]);
  if (preapproval) entries.push(['transfer-preapproval', preapproval]);
  entries.push([null, factory]);
  return {
    factoryId: id(factory),
    transferKind: sender === receiver ? 'self' : preapproval ? 'direct' : 'offer',
    choiceContext: context(entries, debug),
  };
}

/** getTwoStepTransferContext: the lock disclosed with expire-lock true; without it, a 404 or expire-lock false alone. */
function expectedTwoStep(lockId: string, required: boolean, describe: string, expiresAt: string, featured?: LiveContract) {
  const lock = locked.get(lockId);
  if (!lock) {
    return required
      ? { status: 404, body: { error: `LockedAmulet '${lockId}' not found for ${describe}, which expires on ${isoInstant(expiresAt)}` } }
      : { status: 200, body: context([['expire-lock', false]], true) };
  }
  const entries: Entry[] = [
    ['amulet-rules', rules],
    ['open-round', usableRound],
    [null, lock],
    ['expire-lock', true],
  ];
  if (featured) entries.push(['featured-app-right', featured]);
  return { status: 200, body: context(entries, true) };
}

function transferArguments(sender: string, receiver: string) {
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

describe('token-standard registry: transfer instructions and allocations', () => {
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
  const executors = new Set(allocations.map((c) => arg(c, 'allocation', 'settlement', 'executor') as string));

  it('has every case worth testing', () => {
    expect(r.currentMigration).toBe(1);
    expect(usableRound).toBeDefined();
    expect(withPreapproval.length).toBeGreaterThan(0);
    expect(withoutPreapproval.length).toBeGreaterThan(0);
    expect(withPreapproval.some((p) => featuredRight(arg(preapprovalOf(p)!, 'provider') as string))).toBe(true);
    // Pending instructions and allocations, with their lock and with it reclaimed after the deadline.
    expect(instructions.filter((c) => locked.has(lockOf(c))).length).toBeGreaterThan(0);
    expect(instructions.filter((c) => !locked.has(lockOf(c))).length).toBeGreaterThan(0);
    expect(allocations.filter((c) => locked.has(lockOf(c))).length).toBeGreaterThan(0);
    expect(allocations.filter((c) => !locked.has(lockOf(c))).length).toBeGreaterThan(0);
    expect([...executors].some((e) => featuredRight(e))).toBe(true);
    // Settled ones are gone: accepted, rejected or withdrawn instructions; executed, cancelled or withdrawn allocations.
    expect(createdEver(items, 'Splice.AmuletTransferInstruction:AmuletTransferInstruction').length).toBeGreaterThan(instructions.length);
    expect(createdEver(items, 'Splice.AmuletAllocation:AmuletAllocation').length).toBeGreaterThan(allocations.length);
    // Every way an instruction or allocation ends happened somewhere in the history.
    const choices = new Set(
      items
        .flatMap((i) => (i.update && 'events_by_id' in i.update ? Object.values(i.update.events_by_id) : []))
        .flatMap((e) => (e.event_type === 'exercised_event' ? [e.choice] : [])),
    );
    for (const choice of [
      'TransferFactory_Transfer',
      'TransferInstruction_Accept',
      'TransferInstruction_Reject',
      'TransferInstruction_Withdraw',
      'AllocationFactory_Allocate',
      'Allocation_ExecuteTransfer',
      'Allocation_Cancel',
      'Allocation_Withdraw',
      'LockedAmulet_OwnerExpireLock',
    ]) {
      expect([choice, choices.has(choice)]).toEqual([choice, true]);
    }
    for (const c of [rules, factory, usableRound, ...locked.values()]) expect(c.blob).not.toBe('');
  });

  it('transfer-factory: self, direct (with and without a featured provider) and offer, with and without debug fields', async () => {
    const cases: [string, string][] = [
      [users[0]!, users[0]!],
      ...withPreapproval.map((p) => [users.find((u) => u !== p)!, p] as [string, string]),
      ...withoutPreapproval.slice(0, 3).map((p) => [users.find((u) => u !== p)!, p] as [string, string]),
    ];
    for (const root of roots) {
      for (const [sender, receiver] of cases) {
        const choiceArguments = transferArguments(sender, receiver);
        await expectAnswer(
          `${root}/transfer-instruction/v1/transfer-factory`,
          { choiceArguments },
          {
            status: 200,
            body: expectedTransferFactory(sender, receiver, true),
          },
        );
        await expectAnswer(
          `${root}/transfer-instruction/v1/transfer-factory`,
          { choiceArguments, excludeDebugFields: true },
          {
            status: 200,
            body: expectedTransferFactory(sender, receiver, false),
          },
        );
      }
    }
  });

  it('transfer-instruction choice contexts for every live instruction; 404 for settled ones and other templates', async () => {
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
            `${root}/transfer-instruction/v1/${id(c)}/choice-contexts/${choice}`,
            {},
            expectedTwoStep(lockOf(c), required, describe, expiresAt),
          );
        }
      }
      const live = new Set(instructions.map(id));
      for (const gone of createdEver(items, 'Splice.AmuletTransferInstruction:AmuletTransferInstruction')
        .filter((i) => !live.has(i))
        .slice(0, 5)) {
        await expectAnswer(
          `${root}/transfer-instruction/v1/${gone}/choice-contexts/accept`,
          {},
          {
            status: 404,
            body: { error: `AmuletTransferInstruction '${gone}' not found.` },
          },
        );
      }
      // An allocation is not a transfer instruction, nor the other way round.
      await expectAnswer(
        `${root}/transfer-instruction/v1/${id(allocations[0]!)}/choice-contexts/reject`,
        {},
        {
          status: 404,
          body: { error: `AmuletTransferInstruction '${id(allocations[0]!)}' not found.` },
        },
      );
      await expectAnswer(
        `${root}/allocations/v1/${id(instructions[0]!)}/choice-contexts/cancel`,
        {},
        {
          status: 404,
          body: { error: `AmuletAllocation '${id(instructions[0]!)}' not found.` },
        },
      );
    }
  });

  it('allocation-factory, and allocation choice contexts for every live allocation (the executor featured on execute)', async () => {
    for (const root of roots) {
      await expectAnswer(
        `${root}/allocation-instruction/v1/allocation-factory`,
        { choiceArguments: { anything: 1 } },
        {
          status: 200,
          body: {
            factoryId: id(factory),
            choiceContext: context(
              [
                ['amulet-rules', rules],
                ['open-round', usableRound],
                [null, factory],
              ],
              true,
            ),
          },
        },
      );
      for (const c of allocations) {
        const describe = `AmuletAllocation '${id(c)}'`;
        const expiresAt = arg(c, 'allocation', 'settlement', 'settleBefore') as string;
        const executor = arg(c, 'allocation', 'settlement', 'executor') as string;
        await expectAnswer(
          `${root}/allocations/v1/${id(c)}/choice-contexts/execute-transfer`,
          {},
          expectedTwoStep(lockOf(c), true, describe, expiresAt, featuredRight(executor)),
        );
        for (const choice of ['withdraw', 'cancel']) {
          await expectAnswer(
            `${root}/allocations/v1/${id(c)}/choice-contexts/${choice}`,
            {},
            expectedTwoStep(lockOf(c), false, describe, expiresAt),
          );
        }
      }
    }
  });

  it('refuses malformed bodies with the registry error shape', async () => {
    const factoryPath = '/registry/transfer-instruction/v1/transfer-factory';
    const bad = async (path: string, body: unknown, error: string | RegExp) => {
      const res = await post(path, body);
      expect(res.status).toBe(400);
      expect(Object.keys(res.json as object)).toEqual(['error']);
      if (typeof error === 'string') expect((res.json as { error: string }).error).toBe(error);
      else expect((res.json as { error: string }).error).toMatch(error);
    };
    await bad(factoryPath, {}, /choiceArguments/);
    await bad(factoryPath, { choiceArguments: 'x' }, /choiceArguments/);
    const args = transferArguments(users[0]!, users[1]!);
    await bad(
      factoryPath,
      { choiceArguments: { ...args, transfer: { ...args.transfer, receiver: 'nobody' } } },
      'Field `choiceArguments` does not contain a valid `TransferFactory_Transfer`: expected a party id <name>::<fingerprint> at transfer.receiver',
    );
    await bad(
      factoryPath,
      { choiceArguments: { expectedAdmin: args.expectedAdmin } },
      /^Field `choiceArguments` does not contain a valid `TransferFactory_Transfer`: .* at transfer$/,
    );
    await bad(factoryPath, { choiceArguments: args, excludeDebugFields: 'yes' }, /excludeDebugFields/);
    await bad(`/registry/transfer-instruction/v1/${id(instructions[0]!)}/choice-contexts/accept`, { meta: { a: 1 } }, /meta/);
    await bad('/registry/allocation-instruction/v1/allocation-factory', { choiceArguments: [] }, /choiceArguments/);
    const malformed = await request(api.url, 'POST', factoryPath, '{"choiceArguments":', { 'content-type': 'application/json' });
    expect(malformed.status).toBe(400);
    expect(Object.keys(malformed.json as object)).toEqual(['error']);
  });

  it("the wallet SDK's registry client gets the replayed answers, at the root and through the proxy", async () => {
    const tokens = { getAccessToken: async () => '', getAuthContext: async () => ({}) as never };
    const logger = pino({ level: 'silent' });
    for (const base of [api.url, `${api.url}/api/validator/v0/scan-proxy`]) {
      const client = new TokenStandardClient(base, logger, tokens);
      const receiver = withPreapproval[0]!;
      const sender = users.find((u) => u !== receiver)!;
      expect(
        await client.post('/registry/transfer-instruction/v1/transfer-factory', {
          // The SDK's generated type for choiceArguments is an object without declared fields.
          choiceArguments: transferArguments(sender, receiver) as unknown as Record<string, never>,
          excludeDebugFields: true,
        }),
      ).toEqual(expectedTransferFactory(sender, receiver, false));
      const pending = instructions.find((c) => locked.has(lockOf(c)))!;
      for (const choice of ['accept', 'reject', 'withdraw'] as const) {
        const answer = await client.post(
          `/registry/transfer-instruction/v1/{transferInstructionId}/choice-contexts/${choice}`,
          { excludeDebugFields: true },
          { path: { transferInstructionId: id(pending) } },
        );
        const expected = expectedTwoStep(lockOf(pending), choice === 'accept', '', '').body as ReturnType<typeof context>;
        expect(answer).toEqual({ ...expected, disclosedContracts: expected.disclosedContracts.map(stripDebug) });
      }
      expect(
        await client.post('/registry/allocation-instruction/v1/allocation-factory', { choiceArguments: {}, excludeDebugFields: true }),
      ).toEqual({
        factoryId: id(factory),
        choiceContext: context(
          [
            ['amulet-rules', rules],
            ['open-round', usableRound],
            [null, factory],
          ],
          false,
        ),
      });
      const allocation = allocations.find((c) => locked.has(lockOf(c)))!;
      const executor = arg(allocation, 'allocation', 'settlement', 'executor') as string;
      for (const choice of ['execute-transfer', 'withdraw', 'cancel'] as const) {
        const answer = await client.post(
          `/registry/allocations/v1/{allocationId}/choice-contexts/${choice}`,
          { excludeDebugFields: true },
          { path: { allocationId: id(allocation) } },
        );
        const featured = choice === 'execute-transfer' ? featuredRight(executor) : undefined;
        const expected = expectedTwoStep(lockOf(allocation), false, '', '', featured).body as ReturnType<typeof context>;
        expect(answer).toEqual({ ...expected, disclosedContracts: expected.disclosedContracts.map(stripDebug) });
      }
      // Errors come back as the registry's error body.
      await expect(
        client.post(
          '/registry/transfer-instruction/v1/{transferInstructionId}/choice-contexts/accept',
          { excludeDebugFields: true },
          { path: { transferInstructionId: 'nope' } },
        ),
      ).rejects.toEqual({ error: "AmuletTransferInstruction 'nope' not found." });
    }
  });
});

function stripDebug<T extends object>(d: T): Omit<T, 'debugPackageName' | 'debugPayload' | 'debugCreatedAt'> {
  const { debugPackageName: _p, debugPayload: _l, debugCreatedAt: _c, ...rest } = d as T & Record<string, unknown>;
  return rest;
}
