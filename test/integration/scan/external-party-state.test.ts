/**
 * What external-party wallets look up before they transfer, through the real
 * HTTP server, on Scan and on the validator's scan-proxy: a receiver's
 * TransferPreapproval, a sender's TransferCommandCounter, the unclaimed
 * development fund coupons, validator licenses, and the proxy's holdings
 * summary, on a simulated network (whose users get preapprovals, counters,
 * licenses and coupons of their own) continued by the hand-built contracts of
 * test/support/items/external-party-network for cases the simulator makes
 * rarely; expected bodies come from an independent replay.
 */
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { alice, bob, externalPartyNetwork, provider } from '../../support/items/external-party-network';
import { ingestThroughWorker } from '../../support/items/simulated-network';
import { snapshotTimes } from '../../support/replays/acs-replay';
import { arg, expectedContract, ofTemplate, replay, type LiveContract } from '../../support/replays/live-acs';

function expectBody(res: { status: number; text: string; json: unknown }, expected: unknown, status = 200): void {
  expect({ status: res.status, body: res.json }).toEqual({ status, body: expected });
  expect(res.text).toBe(JSON.stringify(expected));
}

const withState = (c: LiveContract) => ({ contract: expectedContract(c), domain_id: c.synchronizerId });

describe('external-party state: preapprovals, command counters, development fund coupons', () => {
  const t = useTestDatabase();
  let api: TestApi;
  const items = externalPartyNetwork();
  const r = replay(items);

  beforeAll(async () => {
    await ingestThroughWorker(t, items);
    api = await startTestApi(t, { env: { LEDGER_AUTH_DISABLED: 'true' } });
  });
  afterAll(async () => {
    await api?.close();
  });

  const scan = (path: string, body?: unknown) => request(api.url, body === undefined ? 'GET' : 'POST', `/api/scan${path}`, body);
  const proxy = (path: string, body?: unknown) =>
    request(api.url, body === undefined ? 'GET' : 'POST', `/api/validator/v0/scan-proxy${path}`, body);

  it("a receiver's live TransferPreapproval: the renewed one, not the archived one", async () => {
    const all = ofTemplate(r, 'Splice.AmuletRules:TransferPreapproval');
    const live = all.filter((c) => arg(c, 'receiver') === alice);
    expect(live.map((c) => c.event.contract_id)).toEqual(['00preapproval-2']);
    // Those of the simulated users, each found by its receiver, blob included.
    const simulated = all.filter((c) => arg(c, 'receiver') !== alice);
    expect(simulated.length).toBeGreaterThanOrEqual(3);
    for (const c of simulated) {
      expect(c.blob).not.toBe('');
      const receiver = encodeURIComponent(arg(c, 'receiver') as string);
      expectBody(await scan(`/v0/transfer-preapprovals/by-party/${receiver}`), { transfer_preapproval: withState(c) });
      expectBody(await proxy(`/transfer-preapprovals/by-party/${receiver}`), { transfer_preapproval: withState(c) });
    }
    const expected = { transfer_preapproval: withState(live[0]!) };
    expectBody(await scan(`/v0/transfer-preapprovals/by-party/${encodeURIComponent(alice)}`), expected);
    expectBody(await proxy(`/transfer-preapprovals/by-party/${encodeURIComponent(alice)}`), expected);
    // The provider is a stakeholder but not the receiver.
    for (const get of [scan, proxy]) {
      const path = get === scan ? '/v0/transfer-preapprovals/by-party/' : '/transfer-preapprovals/by-party/';
      expectBody(
        await get(`${path}${encodeURIComponent(provider)}`),
        { error: `No TransferPreapproval found for party: ${provider}` },
        404,
      );
    }
  });

  it("a sender's TransferCommandCounter, or the 404 that says to start at nonce 0", async () => {
    const all = ofTemplate(r, 'Splice.ExternalPartyAmuletRules:TransferCommandCounter');
    const counter = all.filter((c) => arg(c, 'sender') === bob);
    expect(counter).toHaveLength(1);
    const simulated = all.filter((c) => arg(c, 'sender') !== bob);
    expect(simulated.length).toBeGreaterThanOrEqual(3);
    for (const c of simulated) {
      const sender = encodeURIComponent(arg(c, 'sender') as string);
      expectBody(await scan(`/v0/transfer-command-counter/${sender}`), { transfer_command_counter: withState(c) });
    }
    const expected = { transfer_command_counter: withState(counter[0]!) };
    expectBody(await scan(`/v0/transfer-command-counter/${encodeURIComponent(bob)}`), expected);
    expectBody(await proxy(`/transfer-command-counter/${encodeURIComponent(bob)}`), expected);
    const missing = { error: `No TransferCommandCounter found for party: ${alice}, use 0 for the nonce` };
    expectBody(await scan(`/v0/transfer-command-counter/${encodeURIComponent(alice)}`), missing, 404);
    expectBody(await proxy(`/transfer-command-counter/${encodeURIComponent(alice)}`), missing, 404);
  });

  it('malformed parties are 400s with Canton’s message, never 500s', async () => {
    for (const res of [
      await scan('/v0/transfer-preapprovals/by-party/no-fingerprint'),
      await scan('/v0/transfer-command-counter/no-fingerprint'),
      await proxy('/transfer-preapprovals/by-party/no-fingerprint'),
      await proxy('/transfer-command-counter/no-fingerprint'),
    ]) {
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: expect.stringContaining('no-fingerprint') });
    }
  });

  it('the live development fund coupons in ingestion order', async () => {
    const coupons = ofTemplate(r, 'Splice.Amulet:UnclaimedDevelopmentFundCoupon');
    // The simulated DSO's coupons, then the two hand-built ones.
    expect(coupons.length).toBeGreaterThan(2);
    expect(coupons.map((c) => c.event.contract_id).slice(-2)).toEqual(['00coupon-1', '00coupon-2']);
    const expected = { 'unclaimed-development-fund-coupons': coupons.map(withState) };
    expectBody(await scan('/v0/unclaimed-development-fund-coupons'), expected);
    expectBody(await proxy('/unclaimed-development-fund-coupons'), expected);
  });

  it('validator licenses: the live ones in ingestion order, paged by an integer token until a short page', async () => {
    const live = ofTemplate(r, 'Splice.ValidatorLicense:ValidatorLicense');
    // The simulated validators' licenses, re-created as they record liveness, then the hand-built ones.
    expect(live.length).toBeGreaterThan(2);
    expect(live.map((c) => c.event.contract_id).slice(-2)).toEqual(['00license-0', '00license-2']);
    expectBody(await scan('/v0/admin/validator/licenses'), { validator_licenses: live.map(expectedContract), next_page_token: null });
    const seen: unknown[] = [];
    let after: number | undefined;
    for (let page = 0; page <= live.length; page++) {
      const res = await scan(`/v0/admin/validator/licenses?limit=1${after === undefined ? '' : `&after=${after}`}`);
      const body = res.json as { validator_licenses: unknown[]; next_page_token: number | null };
      expect(res.status).toBe(200);
      expect(body.validator_licenses.length === 1 ? Number.isSafeInteger(body.next_page_token) : body.next_page_token === null).toBe(true);
      seen.push(...body.validator_licenses);
      if (body.next_page_token === null) break;
      after = body.next_page_token;
    }
    expect(seen).toEqual(live.map(expectedContract));
    for (const [query, error] of [
      ['limit=0', 'Limit must be at least 1.'],
      ['limit=1001', 'Exceeded limit maximum (1001 > 1000).'],
    ] as const) {
      expectBody(await scan(`/v0/admin/validator/licenses?${query}`), { error }, 400);
    }
    const bad = await scan('/v0/admin/validator/licenses?after=latest');
    expect(bad.status).toBe(400);
  });

  it('validator faucets: the rounds each named validator collected, from its live license', async () => {
    const live = ofTemplate(r, 'Splice.ValidatorLicense:ValidatorLicense');
    const [aliceLicense, providerLicense] = [alice, provider].map((v) => live.find((c) => arg(c, 'validator') === v)!);
    expect(arg(providerLicense!, 'faucetState')).not.toBeNull();
    // collected + missed = last - first + 1, as the interface guarantees.
    const providerFaucets = {
      validator: provider,
      numRoundsCollected: 6,
      numRoundsMissed: 2,
      firstCollectedInRound: 5,
      lastCollectedInRound: 12,
    };
    const aliceFaucets = { validator: alice, numRoundsCollected: 0, numRoundsMissed: 0, firstCollectedInRound: 0, lastCollectedInRound: 0 };
    expect(aliceLicense).toBeDefined();
    const q = (...ids: string[]) =>
      `/v0/validators/validator-faucets?${ids.map((id) => `validator_ids=${encodeURIComponent(id)}`).join('&')}`;
    // In the licenses' ingestion order; bob's license was withdrawn, unknown parties are ignored.
    expectBody(await scan(q(provider, bob, 'nobody::1220ab', alice, provider)), {
      validatorsReceivedFaucets: [aliceFaucets, providerFaucets],
    });
    expectBody(await scan(q(provider)), { validatorsReceivedFaucets: [providerFaucets] });
    // The simulated validators, from the faucet state their liveness records left on their licenses.
    const simulated = live.filter((c) => ![alice, bob, provider].includes(arg(c, 'validator') as string));
    expect(simulated.some((c) => arg(c, 'faucetState') !== null)).toBe(true);
    const faucets = simulated.map((c) => {
      const state = arg(c, 'faucetState') as {
        firstReceivedFor: { number: string };
        lastReceivedFor: { number: string };
        numCouponsMissed: string;
      } | null;
      const [first, last, missed] = state
        ? [Number(state.firstReceivedFor.number), Number(state.lastReceivedFor.number), Number(state.numCouponsMissed)]
        : [0, 0, 0];
      return {
        validator: arg(c, 'validator'),
        numRoundsCollected: state ? last - first + 1 - missed : 0,
        numRoundsMissed: missed,
        firstCollectedInRound: first,
        lastCollectedInRound: last,
      };
    });
    expectBody(await scan(q(...simulated.map((c) => arg(c, 'validator') as string))), { validatorsReceivedFaucets: faucets });
    expectBody(await scan('/v0/validators/validator-faucets'), { error: "Missing required query field 'validator_ids'." }, 400);
    expectBody(await scan(q('not-a-party')), { error: 'Invalid unique identifier `not-a-party` with missing namespace.' }, 400);
  });

  it("transfer command status: the latest event of each of the sender's commands with that nonce", async () => {
    // The commands' contracts from their create events, archived or not (independently of the service).
    const created = new Map<string, unknown>();
    for (const item of items) {
      const u = item.update;
      if (!u || !('events_by_id' in u)) continue;
      for (const e of Object.values(u.events_by_id)) {
        if (e.event_type === 'created_event' && e.template_id.endsWith(':Splice.ExternalPartyAmuletRules:TransferCommand')) {
          created.set(e.contract_id, expectedContract({ event: e, blob: item.created_event_blobs?.[e.contract_id] ?? '' } as LiveContract));
        }
      }
    }
    const entry = (cid: string, status: unknown) => [cid, { contract: created.get(cid), status }] as const;
    const status = (nonce: number, ...entries: (readonly [string, unknown])[]) => ({
      transfer_commands_by_contract_id: Object.fromEntries(entries),
    });
    const cases: [number, unknown][] = [
      // Nonce 3 was sent, then reused by a command still waiting: both, in the order of their latest events.
      [3, status(3, entry('00tc-hand-tc-3', { status: 'sent' }), entry('00tc-hand-tc-again-3', { status: 'created' }))],
      [
        4,
        status(
          4,
          entry('00tc-hand-tc-4', {
            status: 'failed',
            failure_kind: 'failed',
            reason: `ITR_Other(No TransferPreapproval for receiver '${alice}')`,
          }),
        ),
      ],
      [
        5,
        status(
          5,
          entry('00tc-hand-tc-5', {
            status: 'failed',
            failure_kind: 'withdrawn',
            reason: 'The TransferCommand has been withdrawn by the sender',
          }),
        ),
      ],
      [6, status(6, entry('00tc-hand-tc-6', { status: 'created' }))],
    ];
    for (const [nonce, expected] of cases) {
      const query = `?sender=${encodeURIComponent(bob)}&nonce=${nonce}`;
      expectBody(await scan(`/v0/transfer-command/status${query}`), expected);
      expectBody(await proxy(`/transfer-command/status${query}`), expected);
    }
    for (const get of [scan, proxy]) {
      const path = get === scan ? '/v0/transfer-command/status' : '/transfer-command/status';
      expectBody(
        await get(`${path}?sender=${encodeURIComponent(bob)}&nonce=7`),
        { error: `Couldn't find transfer command for sender ${bob} with nonce 7 created in the last 24h` },
        404,
      );
      expectBody(
        await get(`${path}?sender=${encodeURIComponent(alice)}&nonce=3`),
        { error: `Couldn't find transfer command for sender ${alice} with nonce 3 created in the last 24h` },
        404,
      );
      expectBody(await get(`${path}?sender=bob&nonce=3`), { error: 'Invalid unique identifier `bob` with missing namespace.' }, 400);
      expectBody(await get(`${path}?sender=${encodeURIComponent(bob)}`), { error: "Missing required query field 'nonce'." }, 400);
      expectBody(
        await get(`${path}?sender=${encodeURIComponent(bob)}&nonce=three`),
        { error: "Invalid query field 'nonce': expected an integer nonce." },
        400,
      );
    }
  });

  it("transfer command status of the simulated external parties' commands, replayed from their exercises", async () => {
    type Status = { status: string; failure_kind?: string; reason?: string };
    const commands = new Map<string, { key: string; status: Status; contract: unknown; order: number }>();
    let order = 0;
    const printed = (reason: { tag: string; value: Record<string, string> }) => `${reason.tag}(${Object.values(reason.value).join(', ')})`;
    for (const item of items) {
      const u = item.update;
      if (!u || !('events_by_id' in u)) continue;
      for (const e of Object.values(u.events_by_id)) {
        if (!e.template_id.endsWith(':Splice.ExternalPartyAmuletRules:TransferCommand')) continue;
        if (e.event_type === 'created_event') {
          const a = e.create_arguments as { sender: string; nonce: string };
          commands.set(e.contract_id, {
            key: `${a.sender}/${a.nonce}`,
            status: { status: 'created' },
            contract: expectedContract({ event: e, blob: item.created_event_blobs?.[e.contract_id] ?? '' } as LiveContract),
            order: order++,
          });
          continue;
        }
        const c = commands.get(e.contract_id)!;
        c.order = order++;
        const outcome = (
          e.exercise_result as { result?: { tag: string; value: { reason?: { tag: string; value: Record<string, string> } } } }
        ).result;
        if (e.choice === 'TransferCommand_Withdraw') {
          c.status = { status: 'failed', failure_kind: 'withdrawn', reason: 'The TransferCommand has been withdrawn by the sender' };
        } else if (e.choice === 'TransferCommand_Expire') {
          c.status = { status: 'failed', failure_kind: 'expired', reason: 'The TransferCommand has expired' };
        } else if (outcome?.tag === 'TransferCommandResultSuccess') {
          c.status = { status: 'sent' };
        } else {
          c.status = { status: 'failed', failure_kind: 'failed', reason: printed(outcome!.value.reason!) };
        }
      }
    }
    const simulated = [...commands].filter(([cid]) => !cid.startsWith('00tc-hand'));
    // Sent and failed sends at least (withdrawals and expiries are rarer; the hand-built commands have a withdrawal).
    const kinds = new Set(simulated.map(([, c]) => c.status.failure_kind ?? c.status.status));
    expect(kinds).toContain('sent');
    expect(kinds).toContain('failed');
    for (const key of new Set(simulated.map(([, c]) => c.key))) {
      const [sender, nonce] = key.split('/') as [string, string];
      const ofKey = simulated.filter(([, c]) => c.key === key).sort((x, y) => x[1].order - y[1].order);
      const expected = {
        transfer_commands_by_contract_id: Object.fromEntries(ofKey.map(([cid, c]) => [cid, { contract: c.contract, status: c.status }])),
      };
      expectBody(await scan(`/v0/transfer-command/status?sender=${encodeURIComponent(sender)}&nonce=${nonce}`), expected);
    }
  });

  it("the proxy's holdings summary is the Scan's", async () => {
    const snapshot = snapshotTimes(items).at(-1)!;
    const owners = ofTemplate(r, 'Splice.Amulet:Amulet')
      .slice(0, 3)
      .map((c) => arg(c, 'owner') as string);
    const body = { migration_id: snapshot.migration, record_time: snapshot.time, owner_party_ids: owners };
    const fromScan = await scan('/v0/holdings/summary', body);
    expect(fromScan.status).toBe(200);
    expect((fromScan.json as { summaries: unknown[] }).summaries.length).toBeGreaterThan(0);
    const fromProxy = await proxy('/holdings/summary', body);
    expect({ status: fromProxy.status, text: fromProxy.text }).toEqual({ status: 200, text: fromScan.text });
    // The v1 path of both: totals without fees.
    const v1FromScan = await scan('/v1/holdings/summary', body);
    expect(v1FromScan.status).toBe(200);
    const v1FromProxy = await request(api.url, 'POST', '/api/validator/v1/scan-proxy/holdings/summary', body);
    expect({ status: v1FromProxy.status, text: v1FromProxy.text }).toEqual({ status: 200, text: v1FromScan.text });
    const missing = await proxy('/holdings/summary', { ...body, record_time: '2000-01-01T00:00:00Z' });
    expect(missing.status).toBe(404);
    expect(missing.text).toBe((await scan('/v0/holdings/summary', { ...body, record_time: '2000-01-01T00:00:00Z' })).text);
  });
});
