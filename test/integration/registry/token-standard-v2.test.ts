/**
 * The token-standard registry's v2 operations through the real server, at the host root and through
 * the validator proxy. Expected bodies are computed from a replay of the simulated network, following
 * Scan's v2 handlers: the transfer factory's context as in v1, kinds decided by accounts; the v2
 * two-step contexts (the lock disclosed with expire-lock, no rules or round); allocation instructions
 * refused. The published wallet SDK has no v2 client yet, so requests are plain HTTP.
 */
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { ingestThroughWorker, simulatedItems } from '../../support/items/simulated-network';
import { arg, dateTime, isoInstant, micros, ofTemplate, replay, type LiveContract } from '../../support/replays/live-acs';

const items = simulatedItems({ seed: 'token-standard', updates: 3000, migrations: 2, meanUpdateGapMs: 30_000 });
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
      [
        [null, lock],
        ['expire-lock', true],
      ],
      true,
    ),
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

  it('allocation v2 choice contexts for every live allocation; allocation instructions refused', async () => {
    for (const root of roots) {
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
