/**
 * What validators and wallets read first, through the real HTTP server, on a
 * simulated network: the rules contracts, the mining rounds with their time to
 * live, /v0/dso, ANS entries and featured apps, on Scan and on the validator's
 * scan-proxy. Expected bodies come from an independent replay of the items
 * (test/support/live-acs) and the rules of the Scan app written out here.
 */
import { createTestDatabase, destroyTestDatabase, useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { arg, dateTime, expectedContract, micros, ofTemplate, replay, type LiveContract } from '../../support/replays/live-acs';
import { load } from '../../support/items/network-items';
import { simulatedItems } from '../../support/items/simulated-network';

function expectBody(res: { status: number; text: string; json: unknown }, expected: unknown, status = 200): void {
  expect({ status: res.status, body: res.json }).toEqual({ status, body: expected });
  expect(res.text).toBe(JSON.stringify(expected));
}

const withState = (c: LiveContract) => ({ contract: expectedContract(c), domain_id: c.synchronizerId });
const round = (c: LiveContract) => BigInt(arg(c, 'round', 'number') as string);
const byRound = (a: LiveContract, b: LiveContract) => (round(a) < round(b) ? -1 : round(a) > round(b) ? 1 : 0);

describe('current state: rules, rounds, DSO, ANS and featured apps', () => {
  const t = useTestDatabase();
  let api: TestApi;
  const items = [...simulatedItems({ seed: 21, updates: 2500, meanUpdateGapMs: 3000, migrations: 1 })];
  const r = replay(items);
  const only = (name: string) => {
    const found = ofTemplate(r, name);
    expect(found).toHaveLength(1);
    return found[0]!;
  };
  const dsoRules = () => ofTemplate(r, 'Splice.DsoRules:DsoRules').at(-1)!;
  const dso = () => arg(dsoRules(), 'dso') as string;
  const svs = () => (arg(dsoRules(), 'svs') as [string, { name: string }][]).map(([party, info]) => ({ party, name: info.name }));

  beforeAll(async () => {
    await load(t.db, items);
    // Expiry against the newest record time: the simulated network lies in the past.
    api = await startTestApi(t, { env: { API_CLOCK: 'ledger', LEDGER_AUTH_DISABLED: 'true', SCAN_SV_USER: 'sv-1-user' } });
  });
  afterAll(async () => {
    await api?.close();
  });

  const post = (path: string, body: unknown) => request(api.url, 'POST', `/api/scan${path}`, body);
  const get = (path: string) => request(api.url, 'GET', `/api/scan${path}`);
  const proxy = (method: string, path: string, body?: unknown) => request(api.url, method, `/api/validator/v0/scan-proxy${path}`, body);

  it('amulet and ANS rules: the live contract, or null where the client has it cached', async () => {
    const amulet = only('Splice.AmuletRules:AmuletRules');
    expectBody(await post('/v0/amulet-rules', {}), { amulet_rules_update: withState(amulet) });
    expectBody(
      await post('/v0/amulet-rules', { cached_amulet_rules_contract_id: amulet.event.contract_id, cached_amulet_rules_domain_id: 'x' }),
      {
        amulet_rules_update: { contract: null, domain_id: amulet.synchronizerId },
      },
    );
    expectBody(await post('/v0/amulet-rules', { cached_amulet_rules_contract_id: '00outdated' }), {
      amulet_rules_update: withState(amulet),
    });
    const ans = only('Splice.Ans:AnsRules');
    expectBody(await post('/v0/ans-rules', { cached_ans_rules_contract_id: null }), { ans_rules_update: withState(ans) });
    expectBody(await post('/v0/ans-rules', { cached_ans_rules_contract_id: ans.event.contract_id }), {
      ans_rules_update: { contract: null, domain_id: ans.synchronizerId },
    });
    // The proxy: amulet rules by GET and always whole; ANS rules whole whatever the client caches.
    expectBody(await proxy('GET', '/amulet-rules'), { amulet_rules: withState(amulet) });
    expectBody(await proxy('POST', '/ans-rules', { cached_ans_rules_contract_id: ans.event.contract_id }), {
      ans_rules_update: withState(ans),
    });
  });

  it('external-party amulet rules: the live contract, or null where the client has it cached', async () => {
    const rules = only('Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules');
    expect(rules.blob).not.toBe('');
    expectBody(await post('/v0/external-party-amulet-rules', {}), { external_party_amulet_rules_update: withState(rules) });
    expectBody(await post('/v0/external-party-amulet-rules', { cached_external_party_amulet_rules_contract_id: rules.event.contract_id }), {
      external_party_amulet_rules_update: { contract: null, domain_id: rules.synchronizerId },
    });
  });

  it('external-party amulet rules: the Scan app 404 on a network that has none (nothing ingested)', async () => {
    const empty = await createTestDatabase();
    const emptyApi = await startTestApi(empty, { env: { LEDGER_AUTH_DISABLED: 'true' } });
    try {
      expectBody(
        await request(emptyApi.url, 'POST', '/api/scan/v0/external-party-amulet-rules', {}),
        { error: 'No active ExternalPartyAmuletRules contract' },
        404,
      );
    } finally {
      await emptyApi.close();
      await destroyTestDatabase(empty);
    }
  });

  it('mining rounds keyed by contract id in round order, cached ones without their contract, with the least time to live', async () => {
    const open = ofTemplate(r, 'Splice.Round:OpenMiningRound').sort(byRound);
    const issuing = ofTemplate(r, 'Splice.Round:IssuingMiningRound').sort(byRound);
    const summarizing = ofTemplate(r, 'Splice.Round:SummarizingMiningRound');
    expect(open.length).toBeGreaterThanOrEqual(3);
    const ttl = [
      ...[...open, ...summarizing].map((c) => BigInt(arg(c, 'tickDuration', 'microseconds') as string)),
      ...issuing.map((c) => (micros(arg(c, 'targetClosesAt') as string) - micros(arg(c, 'opensAt') as string)) / 2n),
    ].reduce((a, b) => (b < a ? b : a));
    const cachedOpen = open[0]!.event.contract_id;
    const body = await post('/v0/open-and-issuing-mining-rounds', {
      cached_open_mining_round_contract_ids: [cachedOpen, '00gone'],
      cached_issuing_round_contract_ids: [],
    });
    expectBody(body, {
      time_to_live_in_microseconds: Number(ttl),
      open_mining_rounds: Object.fromEntries(
        open.map((c) => [
          c.event.contract_id,
          c.event.contract_id === cachedOpen ? { contract: null, domain_id: c.synchronizerId } : withState(c),
        ]),
      ),
      issuing_mining_rounds: Object.fromEntries(issuing.map((c) => [c.event.contract_id, withState(c)])),
    });
    expectBody(
      await post('/v0/open-and-issuing-mining-rounds', { cached_open_mining_round_contract_ids: [] }),
      {
        error: "Missing required body field 'cached_issuing_round_contract_ids'.",
      },
      400,
    );
    const tooMany = Array.from({ length: 1001 }, (_, i) => `00${i}`);
    expectBody(
      await post('/v0/open-and-issuing-mining-rounds', {
        cached_open_mining_round_contract_ids: tooMany,
        cached_issuing_round_contract_ids: [],
      }),
      {
        error: "Expected 'cached_open_mining_round_contract_ids' to contain at most 1000 items, but contained 1001.",
      },
      400,
    );
    // The proxy: arrays by round number, no time to live, nothing left out.
    expectBody(await proxy('GET', '/open-and-issuing-mining-rounds'), {
      open_mining_rounds: open.map(withState),
      issuing_mining_rounds: issuing.map(withState),
    });
  });

  it('/v0/dso: the newest of three consecutive open rounds, the rules, the SV node states in DsoRules order, the voting threshold', async () => {
    const open = ofTemplate(r, 'Splice.Round:OpenMiningRound').sort(byRound);
    const nodeStates = ofTemplate(r, 'Splice.DSO.SvState:SvNodeState');
    const threshold = { 1: 1, 2: 2, 3: 2, 4: 3, 5: 4, 6: 4, 7: 5 }[svs().length];
    const expected = {
      sv_user: 'sv-1-user',
      sv_party_id: svs()[0]!.party,
      dso_party_id: dso(),
      voting_threshold: threshold,
      latest_mining_round: withState(open.at(-1)!),
      amulet_rules: withState(only('Splice.AmuletRules:AmuletRules')),
      dso_rules: withState(dsoRules()),
      sv_node_states: svs().map((sv) => withState(nodeStates.find((s) => arg(s, 'sv') === sv.party)!)),
      initial_round: '0',
    };
    expectBody(await get('/v0/dso'), expected);
    expectBody(await proxy('GET', '/dso'), expected);
    expectBody(await proxy('GET', '/dso-party-id'), { dso_party_id: dso() });
  });

  it('ANS entries: live ones by name, then the DSO-provided ones; lookups by name and by party', async () => {
    const now = micros(r.latestRecordTime);
    const entries = ofTemplate(r, 'Splice.Ans:AnsEntry')
      .filter((c) => micros(arg(c, 'expiresAt') as string) >= now)
      .sort((a, b) => ((arg(a, 'name') as string) < (arg(b, 'name') as string) ? -1 : 1));
    expect(entries.length).toBeGreaterThan(2);
    const entryJson = (c: LiveContract) => ({
      contract_id: c.event.contract_id,
      user: arg(c, 'user'),
      name: arg(c, 'name'),
      url: arg(c, 'url'),
      description: arg(c, 'description'),
      expires_at: dateTime(arg(c, 'expiresAt') as string),
    });
    const own = (user: string, name: string) => ({ contract_id: null, user, name, url: '', description: '', expires_at: null });
    const dsoOwn = [own(dso(), 'dso.cns'), ...svs().map((sv) => own(sv.party, `${sv.name.toLowerCase()}.sv.cns`))];
    expectBody(await get('/v0/ans-entries?page_size=1000'), { entries: [...entries.map(entryJson), ...dsoOwn] });
    expectBody(await get('/v0/ans-entries?page_size=2'), { entries: entries.slice(0, 2).map(entryJson) });
    expectBody(await proxy('GET', '/ans-entries?page_size=1000&name_prefix=dso'), { entries: dsoOwn.slice(0, 1) });

    const first = entries[0]!;
    const name = arg(first, 'name') as string;
    const user = arg(first, 'user') as string;
    const firstOfUser = entries.find((c) => arg(c, 'user') === user)!;
    expectBody(await get(`/v0/ans-entries/by-name/${encodeURIComponent(name)}`), { entry: entryJson(first) });
    expectBody(await get(`/v0/ans-entries/by-party/${encodeURIComponent(user)}`), { entry: entryJson(firstOfUser) });
    expectBody(await get('/v0/ans-entries/by-name/dso.cns'), { entry: dsoOwn[0] });
    expectBody(await get(`/v0/ans-entries/by-party/${encodeURIComponent(svs()[0]!.party)}`), { entry: dsoOwn[1] });
    expectBody(
      await get('/v0/ans-entries/by-name/nobody.unverified.cns'),
      { error: 'No ans entry found for name: nobody.unverified.cns' },
      404,
    );
    expectBody(await get('/v0/ans-entries/by-party/nobody::1220ab'), { error: 'No ans entry found for party: nobody::1220ab' }, 404);
    expectBody(await get('/v0/ans-entries/by-party/nobody'), { error: 'Invalid unique identifier `nobody` with missing namespace.' }, 400);
    expectBody(await get('/v0/ans-entries?page_size=0'), { error: 'Limit must be at least 1.' }, 400);
    // The proxy answers the lookups alike, with the validator's own 404 messages.
    expectBody(await proxy('GET', `/ans-entries/by-name/${encodeURIComponent(name)}`), { entry: entryJson(first) });
    expectBody(
      await proxy('GET', '/ans-entries/by-name/nobody.unverified.cns'),
      { error: 'Did not find a AnsEntry with name nobody.unverified.cns' },
      404,
    );
    expectBody(
      await proxy('GET', '/ans-entries/by-party/nobody::1220ab'),
      { error: 'Party nobody::1220ab does not have any ANSEntry.' },
      404,
    );
  });

  it('featured apps: every live right, and the right of a provider or null', async () => {
    const rights = ofTemplate(r, 'Splice.Amulet:FeaturedAppRight');
    expect(rights.length).toBeGreaterThan(0);
    expectBody(await get('/v0/featured-apps'), { featured_apps: rights.map(expectedContract) });
    const provider = arg(rights[0]!, 'provider') as string;
    expectBody(await get(`/v0/featured-apps/${encodeURIComponent(provider)}`), {
      featured_app_right: expectedContract(rights.find((c) => arg(c, 'provider') === provider)!),
    });
    expectBody(await get('/v0/featured-apps/nobody::1220ab'), { featured_app_right: null });
    expectBody(await get('/v0/featured-apps/::1220ab'), { error: 'Invalid unique identifier `::1220ab` with empty identifier.' }, 400);
    expectBody(await proxy('GET', `/featured-apps/${encodeURIComponent(provider)}`), {
      featured_app_right: expectedContract(rights.find((c) => arg(c, 'provider') === provider)!),
    });
  });
});
