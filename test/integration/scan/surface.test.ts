/**
 * The rest of the Scan surface (src/api/scan/surface-routes.ts), through the real HTTP server on a
 * simulated network: featured apps by provider and by contract id, the vote-result count, the
 * previous SV reward weight, Splice's common status, and the 501s of what the indexer does not
 * ingest. Expected bodies come from the simulator's items (an independent replay and the vote
 * results read here from the exercise results), not from the store.
 */
import type { CanonicalItem } from '../../../src/domain/items';
import { createTestDatabase, destroyTestDatabase, useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { arg, expectedContract, micros, ofTemplate, replay } from '../../support/replays/live-acs';
import { after, createEvent, load, tx } from '../../support/items/network-items';
import { simulatedItems } from '../../support/items/simulated-network';

function expectBody(res: { status: number; text: string; json: unknown }, expected: unknown, status = 200): void {
  expect({ status: res.status, body: res.json }).toEqual({ status, body: expected });
  expect(res.text).toBe(JSON.stringify(expected));
}

/** Every closed vote of the items, in ingestion order, with what the filters read of it. */
function closedVotes(items: CanonicalItem[]) {
  return items.flatMap((item) => {
    const u = item.update;
    if (!u || !('events_by_id' in u) || u.record_time.startsWith('0001-01-01')) return [];
    return Object.values(u.events_by_id).flatMap((e) => {
      if (e.event_type !== 'exercised_event' || e.choice !== 'DsoRules_CloseVoteRequest') return [];
      const result = e.exercise_result as {
        request: { requester: string; action: { tag: string; value: Record<string, { tag: string; value: Record<string, unknown> }> } };
        outcome: { tag: string; value: { effectiveAt?: string } };
      };
      const action = result.request.action;
      const inner =
        action.tag === 'ARC_DsoRules'
          ? action.value.dsoAction
          : action.tag === 'ARC_AmuletRules'
            ? action.value.amuletRulesAction
            : undefined;
      const accepted = result.outcome.tag === 'VRO_Accepted';
      return [
        {
          actionName: inner?.tag ?? '',
          actionValue: inner?.value ?? {},
          accepted,
          requester: result.request.requester,
          effectiveAt: accepted ? result.outcome.value.effectiveAt! : null,
        },
      ];
    });
  });
}

describe('the rest of the Scan surface', () => {
  const t = useTestDatabase();
  let api: TestApi;
  const items = [...simulatedItems({ seed: 7, updates: 6000, meanUpdateGapMs: 3000, migrations: 1 })];
  const base = replay(items);
  // A second right of one provider (the simulator grants one each), so that by-provider lists more than one.
  const firstRight = ofTemplate(base, 'Splice.Amulet:FeaturedAppRight')[0]!;
  const provider = arg(firstRight, 'provider') as string;
  const global = firstRight.synchronizerId!;
  items.push(
    tx('hand-right', after(base.latestRecordTime, 1), base.currentMigration, global, [
      createEvent(
        'hand-right',
        0,
        firstRight,
        '00hand-featured-right',
        firstRight.event.create_arguments,
        after(base.latestRecordTime, 1),
        firstRight.event.signatories,
      ),
    ]),
  );
  // A round opened twice (the newer at another price) and a new round with another fee schedule.
  const openRound = ofTemplate(base, 'Splice.Round:OpenMiningRound').at(-1)!;
  const reopened = arg(openRound, 'round', 'number') as string;
  const config = openRound.event.create_arguments as Record<string, unknown>;
  const usd = config.transferConfigUsd as Record<string, unknown>;
  const newRound = String(BigInt(reopened) + 100n);
  const roundsAt = after(base.latestRecordTime, 2);
  items.push(
    tx('hand-rounds', roundsAt, base.currentMigration, global, [
      createEvent(
        'hand-rounds',
        0,
        openRound,
        '00hand-round-again',
        { ...config, amuletPrice: '0.0070000000' },
        roundsAt,
        openRound.event.signatories,
      ),
      createEvent(
        'hand-rounds',
        1,
        openRound,
        '00hand-round-new',
        {
          ...config,
          round: { number: newRound },
          amuletPrice: '0.3000000000',
          transferConfigUsd: {
            ...usd,
            createFee: { fee: '0.0500000000' },
            transferFee: { initialRate: '0.0200000000', steps: [{ _1: '10.0000000000', _2: '0.0020000000' }] },
          },
        },
        roundsAt,
        openRound.event.signatories,
      ),
    ]),
  );
  const r = replay(items);
  const closed = closedVotes(items);

  beforeAll(async () => {
    await load(t.db, items);
    api = await startTestApi(t, { env: { LEDGER_AUTH_DISABLED: 'true' } });
  });
  afterAll(async () => {
    await api?.close();
  });

  const get = (path: string) => request(api.url, 'GET', `/api/scan${path}`);
  const post = (path: string, body: unknown) => request(api.url, 'POST', `/api/scan${path}`, body);

  it('featured apps by provider: every live right of the provider in ingestion order, an empty list for none', async () => {
    const rights = ofTemplate(r, 'Splice.Amulet:FeaturedAppRight').filter((c) => arg(c, 'provider') === provider);
    expect(rights.map((c) => c.event.contract_id)).toContain('00hand-featured-right');
    expect(rights.length).toBe(2);
    expectBody(await get(`/v0/featured-apps/by-provider/${encodeURIComponent(provider)}`), { featured_apps: rights.map(expectedContract) });
    expectBody(await get('/v0/featured-apps/by-provider/nobody::1220ab'), { featured_apps: [] });
    expectBody(
      await get('/v0/featured-apps/by-provider/::1220ab'),
      { error: 'Invalid unique identifier `::1220ab` with empty identifier.' },
      400,
    );
  });

  it('featured app by contract id: the live right, null for another contract or an unknown id', async () => {
    const right = ofTemplate(r, 'Splice.Amulet:FeaturedAppRight').at(-1)!;
    expectBody(await get(`/v0/featured-apps/by-contract-id/${encodeURIComponent(right.event.contract_id)}`), {
      featured_app_right: expectedContract(right),
    });
    const rules = ofTemplate(r, 'Splice.AmuletRules:AmuletRules')[0]!;
    expectBody(await get(`/v0/featured-apps/by-contract-id/${encodeURIComponent(rules.event.contract_id)}`), { featured_app_right: null });
    expectBody(await get('/v0/featured-apps/by-contract-id/00no-such-contract'), { featured_app_right: null });
  });

  it('active synchronizer serial: 501 naming the synchronizer, as the serial is the participant connection', async () => {
    const rules = ofTemplate(r, 'Splice.AmuletRules:AmuletRules')[0]!;
    expectBody(
      await get('/v0/active-synchronizer-serial'),
      {
        error: `The physical synchronizer serial of ${rules.synchronizerId} is what the SV participant is connected to; this indexer ingests updates, which name only the logical synchronizer.`,
      },
      501,
    );
  });

  describe('amulet config for round', () => {
    /** Every OpenMiningRound payload of the items by round number, the newest created last. */
    type Fee = { fee: string };
    type RoundPayload = {
      round: { number: string };
      amuletPrice: string;
      transferConfigUsd: {
        createFee: Fee;
        holdingFee: { rate: string };
        lockHolderFee: Fee;
        transferFee: { initialRate: string; steps: { _1: string; _2: string }[] };
      };
    };
    const openRoundPayloads = new Map<string, RoundPayload>();
    for (const item of items) {
      const u = item.update;
      if (!u || !('events_by_id' in u)) continue;
      for (const e of Object.values(u.events_by_id)) {
        if (e.event_type === 'created_event' && e.template_id.endsWith(':Splice.Round:OpenMiningRound')) {
          const payload = e.create_arguments as unknown as RoundPayload;
          openRoundPayloads.set(payload.round.number, payload);
        }
      }
    }
    // Numeric 10 as Daml divides it: half to even, ten digits.
    const units = (d: string) => {
      const [w, f = ''] = d.split('.');
      return BigInt(w!) * 10n ** 10n + BigInt(f.padEnd(10, '0'));
    };
    const show = (u: bigint) => `${u / 10n ** 10n}.${String(u % 10n ** 10n).padStart(10, '0')}`;
    const divide = (a: string, b: string) => {
      const n = units(a) * 10n ** 10n;
      const d = units(b);
      let q = n / d;
      const rem = 2n * (n % d);
      if (rem > d || (rem === d && q % 2n === 1n)) q += 1n;
      return show(q);
    };
    const expected = (round: string) => {
      const p = openRoundPayloads.get(round)!;
      const c = p.transferConfigUsd;
      return {
        amulet_create_fee: divide(c.createFee.fee, p.amuletPrice),
        holding_fee: divide(c.holdingFee.rate, p.amuletPrice),
        lock_holder_fee: divide(c.lockHolderFee.fee, p.amuletPrice),
        transfer_fee: {
          initial: show(units(c.transferFee.initialRate)),
          steps: c.transferFee.steps.map((s) => ({
            amount: divide(s._1, p.amuletPrice),
            rate: show(units(s._2)),
          })),
        },
      };
    };
    const ask = (round: string) => get(`/v0/amulet-config-for-round?round=${round}`);

    it("answers each round's fees in Amulet, from the newest OpenMiningRound of the round", async () => {
      const rounds = [...openRoundPayloads.keys()];
      expect(rounds.length).toBeGreaterThan(3);
      for (const round of [rounds[0]!, rounds[Math.floor(rounds.length / 2)]!, reopened, newRound]) {
        expectBody(await ask(round), expected(round));
      }
      // The round opened again at 0.007 answers that price's fees, not the first one's.
      expect(expected(reopened).amulet_create_fee).toBe(divide((usd.createFee as { fee: string }).fee, '0.0070000000'));
      expect(expected(newRound)).toEqual({
        amulet_create_fee: '0.1666666667',
        holding_fee: divide((usd.holdingFee as { rate: string }).rate, '0.3000000000'),
        lock_holder_fee: divide((usd.lockHolderFee as { fee: string }).fee, '0.3000000000'),
        transfer_fee: { initial: '0.0200000000', steps: [{ amount: '33.3333333333', rate: '0.0020000000' }] },
      });
    });

    it('404 for a round never opened, 400 without an integer round', async () => {
      expectBody(await ask('987654321'), { error: 'Round 987654321 not found' }, 404);
      for (const path of ['/v0/amulet-config-for-round?round=two', '/v0/amulet-config-for-round']) {
        const bad = await get(path);
        expect(bad.status).toBe(400);
        expect(bad.json).toEqual({ error: expect.any(String) });
      }
    });
  });

  describe('vote result count', () => {
    const count = async (body: unknown, expected: number) =>
      expectBody(await post('/v0/admin/sv/voteresults/count', body), { count: expected });

    it('has accepted and refused votes of more than one action', () => {
      expect(closed.some((c) => c.accepted) && closed.some((c) => !c.accepted)).toBe(true);
      expect(new Set(closed.map((c) => c.actionName)).size).toBeGreaterThan(1);
    });

    it('counts every result the filters match, without a limit', async () => {
      await count({}, closed.length);
      await count({ accepted: true }, closed.filter((c) => c.accepted).length);
      await count({ accepted: false, actionName: null }, closed.filter((c) => !c.accepted).length);
      const part = closed[0]!.actionName.slice(6, 16);
      await count({ actionName: part }, closed.filter((c) => c.actionName.includes(part)).length);
      const requester = closed[0]!.requester;
      await count({ requester, accepted: true }, closed.filter((c) => c.requester.includes(requester) && c.accepted).length);
      const effective = closed.filter((c) => c.effectiveAt !== null).map((c) => c.effectiveAt!);
      const sorted = [...effective].sort((a, b) => (micros(a) < micros(b) ? -1 : micros(a) > micros(b) ? 1 : 0));
      const [from, to] = [sorted[1]!, sorted.at(-2)!];
      const within = (t: string, lo?: string, hi?: string) =>
        (lo === undefined || micros(t) > micros(lo)) && (hi === undefined || micros(t) < micros(hi));
      // Both bounds: inclusive; one: exclusive (as the list).
      await count(
        { effectiveFrom: from, effectiveTo: to },
        effective.filter((t) => micros(t) >= micros(from) && micros(t) <= micros(to)).length,
      );
      await count({ effectiveFrom: from }, effective.filter((t) => within(t, from)).length);
      await count({ effectiveTo: to }, effective.filter((t) => within(t, undefined, to)).length);
      await count({ actionName: 'no such action' }, 0);
    });

    it('refuses a bad filter with 400', async () => {
      const bad = await post('/v0/admin/sv/voteresults/count', { effectiveFrom: 'last week' });
      expect(bad.status).toBe(400);
      expect((bad.json as { error: string }).error).toMatch(/^Invalid timestamp: /);
      const wrong = await post('/v0/admin/sv/voteresults/count', { accepted: 'yes' });
      expect(wrong.status).toBe(400);
      expect(wrong.json).toEqual({ error: expect.any(String) });
    });
  });

  describe('previous SV reward weight', () => {
    const weightVotes = closed.map((c, i) => ({ ...c, i })).filter((c) => c.actionName === 'SRARC_UpdateSvRewardWeight' && c.accepted);
    /** The newest accepted weight of the SV effective strictly before `before`, in ingestion order among equals. */
    const expected = (sv: string, before?: string) => {
      const found = weightVotes
        .filter((c) => c.actionValue.svParty === sv && (before === undefined || micros(c.effectiveAt!) < micros(before)))
        .sort((a, b) =>
          micros(a.effectiveAt!) === micros(b.effectiveAt!) ? b.i - a.i : micros(a.effectiveAt!) < micros(b.effectiveAt!) ? 1 : -1,
        );
      return found[0] === undefined ? {} : { rewardWeight: String(found[0].actionValue.newRewardWeight) };
    };
    const ask = (body: unknown) => post('/v0/admin/sv/previous-sv-reward-weight', body);

    it('answers the newest accepted weight before the time, and none before the first', async () => {
      expect(weightVotes.length).toBeGreaterThan(0);
      const sv = weightVotes.at(-1)!.actionValue.svParty as string;
      const ofSv = weightVotes.filter((c) => c.actionValue.svParty === sv);
      expectBody(await ask({ svParty: sv }), expected(sv));
      expect(expected(sv)).toHaveProperty('rewardWeight');
      const last = ofSv.at(-1)!.effectiveAt!;
      expectBody(await ask({ svParty: sv, effectiveBefore: last }), expected(sv, last));
      const first = [...ofSv].sort((a, b) => (micros(a.effectiveAt!) < micros(b.effectiveAt!) ? -1 : 1))[0]!.effectiveAt!;
      expectBody(await ask({ svParty: sv, effectiveBefore: first }), {});
      expectBody(await ask({ svParty: 'nobody::1220ab' }), {});
    });

    it('refuses a bad party or time with 400', async () => {
      expectBody(await ask({ svParty: '::1220ab' }), { error: 'Invalid unique identifier `::1220ab` with empty identifier.' }, 400);
      const bad = await ask({ svParty: 'nobody::1220ab', effectiveBefore: 'soon' });
      expect(bad.status).toBe(400);
      expect((bad.json as { error: string }).error).toMatch(/^Invalid timestamp: /);
      const missing = await ask({});
      expect(missing.status).toBe(400);
    });
  });

  it("common status: success, active, with the process's uptime and the port it serves on; the root /status stays", async () => {
    const res = await get('/status');
    expect({ status: res.status, body: res.json }).toEqual({
      status: 200,
      body: {
        success: {
          id: 'scan-indexer',
          uptime: expect.stringMatching(/^PT(\d+H)?(\d+M)?(\d+(\.\d+)?S)?$/),
          ports: { http: Number(new URL(api.url).port) },
          active: true,
        },
      },
    });
    const own = await request(api.url, 'GET', '/status');
    expect(own.status).toBe(200);
    expect(own.json).toHaveProperty('streams');
  });

  it('traffic status, participant ids and BFT sequencers: 501 naming what the indexer would need', async () => {
    const member = 'PAR::participant1::1220ab';
    expectBody(
      await get(`/v0/domains/${encodeURIComponent(global)}/members/${encodeURIComponent(member)}/traffic-status`),
      {
        error: `The traffic status of ${member} on ${global} is the sequencer's traffic state (extra traffic consumed and its limit), which this indexer does not ingest; ask a Scan of an SV.`,
      },
      501,
    );
    for (const version of ['v0', 'v1']) {
      expectBody(
        await get(`/${version}/domains/${encodeURIComponent(global)}/parties/${encodeURIComponent(provider)}/participant-id`),
        {
          error: `The participants hosting ${provider} on ${global} are the synchronizer's party-to-participant topology mapping, which this indexer does not ingest; ask a Scan of an SV.`,
        },
        501,
      );
      expectBody(
        await get(`/${version}/domains/${encodeURIComponent(global)}/parties/${encodeURIComponent('::1220ab')}/participant-id`),
        { error: 'Invalid unique identifier `::1220ab` with empty identifier.' },
        400,
      );
    }
    expectBody(
      await get('/v0/sv-bft-sequencers'),
      {
        error:
          "The BFT sequencers of this SV are an SV node's own configuration (its sequencers' ids and P2P URLs); this indexer is no SV node and has none.",
      },
      501,
    );
  });

  it('active synchronizer serial: the Scan app 404 where no AmuletRules is live', async () => {
    const empty = await createTestDatabase();
    const emptyApi = await startTestApi(empty, { env: { LEDGER_AUTH_DISABLED: 'true' } });
    try {
      expectBody(await request(emptyApi.url, 'GET', '/api/scan/v0/active-synchronizer-serial'), { error: 'No amulet rules' }, 404);
      expectBody(await request(emptyApi.url, 'POST', '/api/scan/v0/admin/sv/voteresults/count', {}), { count: 0 });
    } finally {
      await emptyApi.close();
      await destroyTestDatabase(empty);
    }
  });
});
