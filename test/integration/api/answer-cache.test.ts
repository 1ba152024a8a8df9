/**
 * Kept answers (src/api/answer-cache.ts) through the real servers: every answer validators poll,
 * kept by three API processes over one database (two applications in this process, each with its
 * own pool, and `scan-indexer serve` as a child process), while the writer runs in this process
 * on a pool of its own. Each change is made by the real writer (or the mirror's blob store, or a
 * network fact); the first request after it commits must answer, byte for byte, what an API with
 * the cache turned off answers, and the answers the change touches must differ from before.
 * Before each change, every answer is shown to be served as kept (the hit counters of /metrics).
 */
import type pg from 'pg';
import type { CanonicalItem, CreatedEvent, TreeEvent } from '../../../src/domain/items';
import type { Json } from '../../../src/domain/json';
import { ingestItems } from '../../support/ingest';
import { storeContractBlobs } from '../../../src/store/ingest-repository';
import { setNetworkFact } from '../../../src/store/network-repository';
import { createDb, createPool, type Db } from '../../../src/store/pool';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { alice, bob, externalPartyNetwork, provider } from '../../support/items/external-party-network';
import { after, archiveEvent, createEvent, load, tx, unassign } from '../../support/items/network-items';
import { arg, ofTemplate, replay, type LiveContract } from '../../support/replays/live-acs';
import { startServerProcess, type ServerProcess } from '../../reliability/server-process';

type Answer = 'amulet-rules' | 'ans-rules' | 'external-party-amulet-rules' | 'mining-rounds' | 'dso' | 'dso-party-id' | 'transfer-factory';

interface Polled {
  name: string;
  answer: Answer;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

const items = externalPartyNetwork();
const r = replay(items);
const only = (name: string) => ofTemplate(r, name).at(-1)!;
const rules = only('Splice.AmuletRules:AmuletRules');
const dso = arg(rules, 'dso') as string;
const sync = rules.synchronizerId!;
const migration = r.currentMigration;
const openRounds = ofTemplate(r, 'Splice.Round:OpenMiningRound');
const roundNumber = (c: LiveContract) => Number(arg(c, 'round', 'number'));
const topRound = openRounds.reduce((a, b) => (roundNumber(b) > roundNumber(a) ? b : a));

const factoryBody = (sender: string, receiver: string, excludeDebugFields?: boolean) => ({
  choiceArguments: {
    expectedAdmin: dso,
    transfer: {
      sender,
      receiver,
      amount: '12.5000000000',
      instrumentId: { admin: dso, id: 'Amulet' },
      requestedAt: '2025-01-01T00:00:00Z',
      executeBefore: '2030-01-01T00:00:00Z',
      inputHoldingCids: ['00abc'],
      meta: { values: {} },
    },
    extraArgs: { context: { values: {} }, meta: { values: {} } },
  },
  ...(excludeDebugFields === undefined ? {} : { excludeDebugFields }),
});

const scan = '/api/scan/v0';
const proxy = '/api/validator/v0/scan-proxy';
const POLLED: Polled[] = [
  { name: 'amulet-rules', answer: 'amulet-rules', method: 'POST', path: `${scan}/amulet-rules`, body: {} },
  {
    name: 'amulet-rules, cached',
    answer: 'amulet-rules',
    method: 'POST',
    path: `${scan}/amulet-rules`,
    body: { cached_amulet_rules_contract_id: rules.event.contract_id },
  },
  { name: 'proxy amulet-rules', answer: 'amulet-rules', method: 'GET', path: `${proxy}/amulet-rules` },
  { name: 'ans-rules', answer: 'ans-rules', method: 'POST', path: `${scan}/ans-rules`, body: {} },
  { name: 'proxy ans-rules', answer: 'ans-rules', method: 'POST', path: `${proxy}/ans-rules`, body: {} },
  {
    name: 'external-party-amulet-rules',
    answer: 'external-party-amulet-rules',
    method: 'POST',
    path: `${scan}/external-party-amulet-rules`,
    body: {},
  },
  {
    name: 'rounds',
    answer: 'mining-rounds',
    method: 'POST',
    path: `${scan}/open-and-issuing-mining-rounds`,
    body: { cached_open_mining_round_contract_ids: [], cached_issuing_round_contract_ids: [] },
  },
  {
    name: 'rounds, some cached',
    answer: 'mining-rounds',
    method: 'POST',
    path: `${scan}/open-and-issuing-mining-rounds`,
    body: {
      cached_open_mining_round_contract_ids: openRounds.slice(1).map((c) => c.event.contract_id),
      cached_issuing_round_contract_ids: [],
    },
  },
  { name: 'proxy rounds', answer: 'mining-rounds', method: 'GET', path: `${proxy}/open-and-issuing-mining-rounds` },
  { name: 'dso', answer: 'dso', method: 'GET', path: `${scan}/dso` },
  { name: 'proxy dso', answer: 'dso', method: 'GET', path: `${proxy}/dso` },
  { name: 'dso-party-id', answer: 'dso-party-id', method: 'GET', path: `${scan}/dso-party-id` },
  { name: 'proxy dso-party-id', answer: 'dso-party-id', method: 'GET', path: `${proxy}/dso-party-id` },
  {
    name: 'transfer-factory to alice',
    answer: 'transfer-factory',
    method: 'POST',
    path: '/registry/transfer-instruction/v1/transfer-factory',
    body: factoryBody(bob, alice),
  },
  {
    name: 'transfer-factory to bob, short',
    answer: 'transfer-factory',
    method: 'POST',
    path: '/registry/transfer-instruction/v1/transfer-factory',
    body: factoryBody(alice, bob, true),
  },
  {
    name: 'proxy transfer-factory to oneself',
    answer: 'transfer-factory',
    method: 'POST',
    path: `${proxy}/registry/transfer-instruction/v1/transfer-factory`,
    body: factoryBody(bob, bob),
  },
];

const ANSWERS: Answer[] = [...new Set(POLLED.map((p) => p.answer))];

/** Hits per answer, from a server's /metrics. */
async function hits(url: string): Promise<Record<string, number>> {
  const text = (await request(url, 'GET', '/metrics')).text;
  const counts: Record<string, number> = {};
  for (const m of text.matchAll(/^scan_indexer_api_answer_cache_requests_total\{answer="([^"]+)",outcome="hit"\} (\d+)$/gm)) {
    counts[m[1]!] = Number(m[2]);
  }
  return counts;
}

type Seen = Map<string, { status: number; text: string }>;

describe('kept answers: a change is served by the next request after its commit, in every API process', () => {
  const t = useTestDatabase();
  let writer: { db: Db; pool: pg.Pool };
  let second: { db: Db; pool: pg.Pool };
  let reference: TestApi;
  let inProcess: TestApi[] = [];
  let child: ServerProcess;
  let servers: { name: string; url: string }[];
  let clock = r.latestRecordTime;
  let written = 0;

  beforeAll(async () => {
    await load(t.db, items);
    writer = { pool: createPool({ connectionString: t.url, max: 2 }), db: undefined as unknown as Db };
    writer.db = createDb(writer.pool);
    const pool = createPool({ connectionString: t.url, max: 4 });
    second = { pool, db: createDb(pool) };
    const env = { LEDGER_AUTH_DISABLED: 'true' };
    reference = await startTestApi(t, { env: { ...env, ANSWER_CACHE_ENABLED: 'false' } });
    inProcess = [await startTestApi(t, { env }), await startTestApi(second, { env })];
    child = await startServerProcess('serve', { DATABASE_URL: t.url, ...env });
    servers = [
      { name: 'app 1', url: inProcess[0]!.url },
      { name: 'app 2 (own pool)', url: inProcess[1]!.url },
      { name: 'serve (child process)', url: child.url },
    ];
  });
  afterAll(async () => {
    await child?.stop();
    for (const api of [...inProcess, reference]) await api?.close();
    await writer?.db.destroy();
    await second?.db.destroy();
  });

  const ask = async (url: string, p: Polled) => {
    const res = await request(url, p.method, p.path, p.body);
    return { status: res.status, text: res.text };
  };

  /** Every polled answer, twice, on every server: the second time each answer that is kept is a hit. */
  async function warm(): Promise<Seen> {
    const seen: Seen = new Map();
    for (const p of POLLED) seen.set(p.name, await ask(reference.url, p));
    for (const server of servers) {
      for (const p of POLLED)
        expect({ server: server.name, [p.name]: await ask(server.url, p) }).toEqual({ server: server.name, [p.name]: seen.get(p.name) });
      const before = await hits(server.url);
      for (const p of POLLED) await ask(server.url, p);
      const after = await hits(server.url);
      const kept = Object.fromEntries(
        ANSWERS.map((a) => [a, POLLED.filter((p) => p.answer === a && seen.get(p.name)!.status === 200).length]),
      );
      const served = Object.fromEntries(ANSWERS.map((a) => [a, (after[a] ?? 0) - (before[a] ?? 0)]));
      expect({ server: server.name, hits: served }).toEqual({ server: server.name, hits: kept });
    }
    return seen;
  }

  /** After a change: every server answers as the uncached reference, and the answers named changed differ from before. */
  async function expectServed(before: Seen, changed: string[]): Promise<void> {
    const now: Seen = new Map();
    for (const p of POLLED) now.set(p.name, await ask(reference.url, p));
    for (const server of servers) {
      for (const p of POLLED)
        expect({ server: server.name, [p.name]: await ask(server.url, p) }).toEqual({ server: server.name, [p.name]: now.get(p.name) });
    }
    for (const name of changed) expect({ [name]: now.get(name) }).not.toEqual({ [name]: before.get(name) });
  }

  /** Applies items after the newest stored one with the real writer, on the writer's own pool. */
  async function write(...updates: CanonicalItem[]): Promise<void> {
    await ingestItems(
      writer.db,
      'test',
      updates.map((item) => ({ item, position: `hand-${++written}`, origin: `hand ${written}` })),
    );
  }
  const next = () => (clock = after(clock, 1));
  const txOf = (events: TreeEvent[], migrationId = migration) => {
    const at = next();
    return tx(`hand-cache-${written + 1}`, at, migrationId, sync, events);
  };
  /** A copy of a live contract under another id (the newest of its template from then on). */
  const copyOf = (c: LiveContract, contractId: string, args: Json = c.event.create_arguments): CreatedEvent =>
    createEvent(`hand-cache-${written + 1}`, 0, c, contractId, args, clock, c.event.signatories);
  const asLive = (event: CreatedEvent): LiveContract => ({ ...r.live[0]!, event, synchronizerId: sync });
  const archiveOf = (event: CreatedEvent) => archiveEvent(`hand-cache-${written + 1}`, 0, asLive(event), dso);

  /** A create of a contract of the family's template, then its archive. */
  const families: [string, string, string[]][] = [
    [
      'Splice.AmuletRules:AmuletRules',
      'amulet rules',
      ['amulet-rules', 'amulet-rules, cached', 'proxy amulet-rules', 'dso', 'transfer-factory to alice'],
    ],
    ['Splice.Ans:AnsRules', 'ANS rules', ['ans-rules', 'proxy ans-rules']],
    [
      'Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules',
      'external-party rules',
      ['external-party-amulet-rules', 'transfer-factory to bob, short', 'proxy transfer-factory to oneself'],
    ],
    ['Splice.DsoRules:DsoRules', 'DSO rules', ['dso', 'proxy dso']],
  ];
  for (const [template, what, changed] of families) {
    it(`${what}: a create, then an archive`, async () => {
      const live = only(template);
      const copy = copyOf(live, `00cache-copy-${what.replace(/\W/g, '-')}`);
      let before = await warm();
      await write(txOf([copy]));
      await expectServed(before, changed);
      before = await warm();
      await write(txOf([archiveOf(copy)]));
      await expectServed(before, changed);
    });
  }

  it('mining rounds: a create, then an archive', async () => {
    const n = roundNumber(topRound) + 1;
    const round = copyOf(topRound, '00cache-round', {
      ...(topRound.event.create_arguments as object),
      round: { number: String(n) },
    });
    let before = await warm();
    await write(txOf([round]));
    const changed = ['rounds', 'rounds, some cached', 'proxy rounds', 'dso', 'proxy dso', 'transfer-factory to alice'];
    await expectServed(before, changed);
    before = await warm();
    await write(txOf([archiveOf(round)]));
    await expectServed(before, changed);
  });

  it("transfer parties: a receiver's preapproval created, then archived", async () => {
    const preapproval = only('Splice.AmuletRules:TransferPreapproval');
    const created = createEvent(
      `hand-cache-${written + 1}`,
      0,
      preapproval,
      '00cache-preapproval-bob',
      { ...(preapproval.event.create_arguments as object), receiver: bob, provider },
      clock,
      [bob, provider, dso],
    );
    let before = await warm();
    await write(txOf([created]));
    await expectServed(before, ['transfer-factory to bob, short']);
    before = await warm();
    await write(txOf([archiveOf(created)]));
    await expectServed(before, ['transfer-factory to bob, short']);
  });

  it("external party config states: the DSO's pair created, then the older archived", async () => {
    // The pair names the newer in every transfer factory's context; one alone names none.
    const state = (contractId: string, targetArchiveAfter: string): CreatedEvent => ({
      ...copyOf(rules, contractId, {
        dso,
        holdingFeesOpenRoundNumber: { number: '1' },
        amuletPrice: '0.0050000000',
        transferConfig: { holdingFee: { rate: '0.0000190259' }, maxNumInputs: '100', maxNumOutputs: '100', maxNumLockHolders: '50' },
        targetArchiveAfter,
        rewardCalculationVersion: null,
        amuletSwitchOverTimes: null,
        trafficPrice: null,
        requiredSynchronizers: null,
        minTrafficTopupAmount: null,
      }),
      template_id: rules.event.template_id.replace(
        'Splice.AmuletRules:AmuletRules',
        'Splice.ExternalPartyConfigState:ExternalPartyConfigState',
      ),
    });
    const older = state('00cache-config-state-1', '2099-01-01T00:00:00.000000Z');
    const newer = { ...state('00cache-config-state-2', '2099-01-02T00:00:00.000000Z'), event_id: `hand-cache-${written + 1}:1` };
    const factories = ['transfer-factory to alice', 'transfer-factory to bob, short', 'proxy transfer-factory to oneself'];
    let before = await warm();
    await write(txOf([older, newer]));
    await expectServed(before, factories);
    const named = await ask(
      reference.url,
      POLLED.find((p) => p.name === 'transfer-factory to alice')!,
    );
    expect(named.text).toContain('"external-party-config-state":{"tag":"AV_ContractId","value":"00cache-config-state-2"}');
    before = await warm();
    await write(txOf([archiveOf(older)]));
    await expectServed(before, factories);
  });

  it('a reassignment: a round in flight between synchronizers', async () => {
    const before = await warm();
    const at = next();
    await write(unassign(`hand-cache-${written + 1}`, at, migration, topRound, dso, 'global-domain::1220other'));
    await expectServed(before, ['rounds', 'proxy rounds']);
  });

  it("a created-event blob stored by a mirror after the contract's creation", async () => {
    const before = await warm();
    await storeContractBlobs(writer.db, [{ contract_id: rules.event.contract_id, blob: 'CgMyLjESCgMyLjES' }]);
    // (/v0/dso is a 404 since the reassignment: a round of the triple is in flight.)
    await expectServed(before, ['amulet-rules', 'proxy amulet-rules', 'transfer-factory to alice']);
  });

  it('the transfer factory: a round that opens later is used from its opening on, with no change written then', async () => {
    const factory = POLLED.find((p) => p.name === 'transfer-factory to alice')!;
    const opensAt = Date.now() + 10_000;
    const iso = `${new Date(opensAt).toISOString().slice(0, 19)}.000000Z`;
    const round = copyOf(topRound, '00cache-round-later', {
      ...(topRound.event.create_arguments as object),
      round: { number: String(roundNumber(topRound) + 2) },
      opensAt: iso,
    });
    await write(txOf([round]));
    const before = await ask(reference.url, factory);
    for (const server of servers) {
      expect(await ask(server.url, factory)).toEqual(before);
      const hitsBefore = (await hits(server.url))['transfer-factory'] ?? 0;
      expect(await ask(server.url, factory)).toEqual(before);
      expect({ server: server.name, hits: (await hits(server.url))['transfer-factory'] }).toEqual({
        server: server.name,
        hits: hitsBefore + 1,
      });
    }
    // Past its opening (by the wall clock, as Scan): the new round, though nothing was written since.
    while (Date.now() <= opensAt + 50) await new Promise((resolve) => setTimeout(resolve, 200));
    const now = await ask(reference.url, factory);
    expect(now).not.toEqual(before);
    expect(now.text).toContain('00cache-round-later');
    for (const server of servers)
      expect({ server: server.name, answer: await ask(server.url, factory) }).toEqual({ server: server.name, answer: now });
  });

  it('a new migration: answers are read at it', async () => {
    const before = await warm();
    const license = only('Splice.ValidatorLicense:ValidatorLicense');
    await write(txOf([copyOf(license, '00cache-next-migration')], migration + 1));
    await expectServed(before, ['amulet-rules', 'ans-rules', 'external-party-amulet-rules', 'rounds', 'transfer-factory to alice']);
  });
});

describe('kept answers: the DSO party id from a network fact', () => {
  const t = useTestDatabase();
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(t);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('a fact written is served by the next request', async () => {
    const get = () => request(api.url, 'GET', '/api/scan/v0/dso-party-id');
    expect((await get()).status).toBe(404);
    await setNetworkFact(t.db, 'dso_party_id', 'DSO::1220first');
    expect((await get()).text).toBe('{"dso_party_id":"DSO::1220first"}');
    const before = (await hits(api.url))['dso-party-id'] ?? 0;
    expect((await get()).text).toBe('{"dso_party_id":"DSO::1220first"}');
    expect((await hits(api.url))['dso-party-id']).toBe(before + 1);
    await setNetworkFact(t.db, 'dso_party_id', 'DSO::1220second');
    expect((await get()).text).toBe('{"dso_party_id":"DSO::1220second"}');
  });
});
