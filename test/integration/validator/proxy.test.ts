/**
 * V1 and V2 of the validator scan-proxy through the real HTTP server on a
 * simulated network of two migrations, continued by hand-built items for
 * what the simulator does not produce (an ANS entry expired but not yet
 * archived, entries that outlive the wall clock, names with LIKE wildcards, a
 * round in flight). Expected bodies come from an independent replay of the
 * item stream (test/support/live-acs).
 */
import express from 'express';
import type { CanonicalItem } from '../../../src/domain/items';
import type { Json } from '../../../src/domain/json';
import { validatorRouter } from '../../../src/api/validator/router';
import { listen } from '../../../src/api/server';
import { loadConfig } from '../../../src/internal/config';
import { createLogger } from '../../../src/internal/logger';
import { createMetrics } from '../../../src/internal/metrics';
import { readMigrationFiles } from '../../../src/store/migrator';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { arg, dateTime, expectedContract, micros, ofTemplate, replay, type LiveContract } from '../../support/replays/live-acs';
import { after, createEvent, load, tx, unassign } from '../../support/items/network-items';
import { simulatedItems } from '../../support/items/simulated-network';

function expectBody(res: { status: number; text: string; json: unknown; headers: Headers }, expected: unknown): void {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.json).toEqual(expected);
  expect(res.text).toBe(JSON.stringify(expected));
}

const roundOf = (c: LiveContract) => Number(arg(c, 'round', 'number'));

interface Entry {
  contract_id: string | null;
  user: string;
  name: string;
  url: string;
  description: string;
  expires_at: string | null;
}

/** Scan's algorithm (docs/interfaces.md, "Scan: contract-backed state"), on the replayed ACS. */
function expectedEntries(items: CanonicalItem[], now: string, pageSize: number, prefix = '', acronym = 'cns'): { entries: Entry[] } {
  const r = replay(items);
  const contracts = ofTemplate(r, 'Splice.Ans:AnsEntry')
    .filter((c) => (arg(c, 'name') as string).startsWith(prefix) && micros(arg(c, 'expiresAt') as string) >= micros(now))
    .sort((a, b) => ((arg(a, 'name') as string) < (arg(b, 'name') as string) ? -1 : 1))
    .slice(0, pageSize)
    .map((c) => ({
      contract_id: c.event.contract_id,
      user: arg(c, 'user') as string,
      name: arg(c, 'name') as string,
      url: arg(c, 'url') as string,
      description: arg(c, 'description') as string,
      expires_at: dateTime(arg(c, 'expiresAt') as string),
    }));
  const rules = ofTemplate(r, 'Splice.DsoRules:DsoRules').at(-1)!;
  const dsoEntry = (user: string, name: string): Entry => ({ contract_id: null, user, name, url: '', description: '', expires_at: null });
  const dsoEntries = [
    dsoEntry(arg(rules, 'dso') as string, `dso.${acronym}`),
    ...(arg(rules, 'svs') as [string, { name: string }][]).map(([party, info]) =>
      dsoEntry(party, `${info.name.toLowerCase()}.sv.${acronym}`),
    ),
  ].filter((e) => e.name.startsWith(prefix));
  return { entries: [...contracts, ...dsoEntries.slice(0, Math.max(0, pageSize - contracts.length))] };
}

const ans = (api: TestApi, query: string) => request(api.url, 'GET', `/api/validator/v0/scan-proxy/ans-entries${query}`);

describe('validator scan-proxy (V1, V2)', () => {
  const t = useTestDatabase();
  let ledgerApi: TestApi;
  let wallApi: TestApi;
  const sim = simulatedItems({ seed: 13, updates: 3000, meanUpdateGapMs: 4000, migrations: 2 });
  const items: CanonicalItem[] = [...sim];
  const base = replay(sim);
  const last = base.latestRecordTime;
  const anyEntry = ofTemplate(base, 'Splice.Ans:AnsEntry')[0]!;
  const dso = arg(anyEntry, 'dso') as string;
  const user = arg(anyEntry, 'user') as string;
  const global = anyEntry.synchronizerId!;
  const entry = (n: number, name: string, expiresAt: string): CanonicalItem => {
    const id = `hand-ans-${n}`;
    const when = after(last, n);
    return tx(id, when, base.currentMigration, global, [
      createEvent(id, 0, anyEntry, `00${id}`, { user, dso, name, url: 'https://x.example', description: `entry ${n}`, expiresAt }, when, [
        user,
        dso,
      ]),
    ]);
  };
  items.push(
    // Expired a second before the newest record time, not yet archived by the DSO.
    entry(1, 'aaa-expired.unverified.cns', after(last, 9).replace(/\.\d+Z$/, '.5Z')),
    // Outlive any wall clock.
    entry(2, 'zzz-future.unverified.cns', '2999-01-01T00:00:00.000001Z'),
    entry(3, '100%_sure.unverified.cns', '2999-06-01T00:00:00Z'),
    entry(4, '100xx.unverified.cns', '2999-06-01T00:00:00.120Z'),
  );
  // One open round is in flight between synchronizers (domain_id null).
  const openRound = ofTemplate(base, 'Splice.Round:OpenMiningRound').sort((a, b) => roundOf(a) - roundOf(b))[1]!;
  items.push(unassign('hand-unassign', after(last, 10), base.currentMigration, openRound, dso, 'other-synchronizer::1220'));
  const ledgerNow = after(last, 10);

  beforeAll(async () => {
    await load(t.db, items);
    ledgerApi = await startTestApi(t, { env: { API_CLOCK: 'ledger' } });
    wallApi = await startTestApi(t);
  });
  afterAll(async () => {
    await ledgerApi?.close();
    await wallApi?.close();
  });

  it('V1 lists the open and issuing rounds of the current migration by round number, in-flight ones with domain_id null', async () => {
    const r = replay(items);
    const rounds = (q: string) =>
      ofTemplate(r, q)
        .sort((a, b) => roundOf(a) - roundOf(b))
        .map((c) => ({ contract: expectedContract(c), domain_id: c.synchronizerId }));
    const expected = {
      open_mining_rounds: rounds('Splice.Round:OpenMiningRound'),
      issuing_mining_rounds: rounds('Splice.Round:IssuingMiningRound'),
    };
    expect(expected.open_mining_rounds.length).toBeGreaterThan(1);
    expect(expected.issuing_mining_rounds.length).toBeGreaterThan(0);
    expect(expected.open_mining_rounds.map((o) => o.domain_id)).toContain(null);
    expectBody(await request(ledgerApi.url, 'GET', '/api/validator/v0/scan-proxy/open-and-issuing-mining-rounds'), expected);
  });

  it('V2 lists unexpired entries by name, then the DSO-provided ones (ledger clock)', async () => {
    const expected = expectedEntries(items, ledgerNow, 1000);
    const names = expected.entries.map((e) => e.name);
    expect(names).not.toContain('aaa-expired.unverified.cns');
    expect(names.slice(-5)).toEqual(['dso.cns', ...names.slice(-4)]);
    expect(expected.entries.filter((e) => e.contract_id !== null).length).toBeGreaterThan(5);
    expectBody(await ans(ledgerApi, '?page_size=1000'), expected);
  });

  it('V2 respects the page size: contract entries first, DSO entries only to fill the page', async () => {
    const contracts = expectedEntries(items, ledgerNow, 1000).entries.filter((e) => e.contract_id !== null).length;
    for (const pageSize of [1, 3, contracts, contracts + 1, contracts + 2]) {
      const expected = expectedEntries(items, ledgerNow, pageSize);
      expect(expected.entries).toHaveLength(pageSize);
      expectBody(await ans(ledgerApi, `?page_size=${pageSize}`), expected);
    }
  });

  it('V2 filters by name prefix, literally and case-sensitively, for contract and DSO entries', async () => {
    const someName = expectedEntries(items, ledgerNow, 1000).entries.find((e) => e.contract_id !== null && !e.name.startsWith('100'))!.name;
    const svName = expectedEntries(items, ledgerNow, 1000).entries.at(-1)!.name;
    const cases: [string, number][] = [
      [someName.slice(0, 2), 1000],
      [someName, 5],
      ['dso', 10],
      [svName.slice(0, 3), 10],
      ['100%', 10],
      ['100_', 10],
      ['100', 10],
      [someName.slice(0, 2).toUpperCase(), 10],
      ['', 2],
    ];
    for (const [prefix, pageSize] of cases) {
      const expected = expectedEntries(items, ledgerNow, pageSize, prefix);
      if (prefix === '100%') expect(expected.entries.map((e) => e.name)).toEqual(['100%_sure.unverified.cns']);
      if (prefix === '100_') expect(expected.entries).toEqual([]);
      expectBody(await ans(ledgerApi, `?name_prefix=${encodeURIComponent(prefix)}&page_size=${pageSize}`), expected);
    }
  });

  it('V2 by the wall clock (the default) leaves out every entry expired before now', async () => {
    const before = new Date().toISOString().replace('Z', '000Z');
    const res = await ans(wallApi, '?page_size=100');
    const afterwards = new Date().toISOString().replace('Z', '000Z');
    const expected = expectedEntries(items, before, 100);
    expect(expectedEntries(items, afterwards, 100)).toEqual(expected);
    expect(expected.entries.filter((e) => e.contract_id !== null).map((e) => e.name)).toEqual([
      '100%_sure.unverified.cns',
      '100xx.unverified.cns',
      'zzz-future.unverified.cns',
    ]);
    expectBody(res, expected);
  });

  it('V2 names the DSO entries with the configured name service acronym', async () => {
    const custom = await startTestApi(t, { env: { ANS_NAME_ACRONYM: 'ANS' } });
    try {
      const expected = expectedEntries(items, new Date().toISOString().replace('Z', '000Z'), 100, 'dso', 'ans');
      expect(expected.entries.map((e) => e.name)).toEqual(['dso.ans']);
      expectBody(await ans(custom, '?name_prefix=dso&page_size=100'), expected);
    } finally {
      await custom.close();
    }
  });

  it('V2 answers client mistakes with 400 and a clear message', async () => {
    const cases: [string, string][] = [
      ['', "Missing required query field 'page_size'."],
      ['?name_prefix=a', "Missing required query field 'page_size'."],
      ['?page_size=', "Invalid query field 'page_size': expected an integer."],
      ['?page_size=abc', "Invalid query field 'page_size': expected an integer."],
      ['?page_size=1.5', "Invalid query field 'page_size': expected an integer."],
      ['?page_size=0', 'Limit must be at least 1.'],
      ['?page_size=-3', 'Limit must be at least 1.'],
      ['?page_size=1001', 'Exceeded limit maximum (1001 > 1000).'],
      ['?page_size=99999999999', "Invalid query field 'page_size': expected a 32-bit integer."],
      ['?page_size=1&page_size=2', "Invalid query field 'page_size': expected a single integer."],
      [`?page_size=1&name_prefix=${'x'.repeat(2067)}`, "Invalid query field 'name_prefix': at most 2066 characters are allowed."],
      ['?page_size=1&name_prefix=a%00b', 'Text in the request must not contain NUL characters (\\u0000).'],
      ['?page_size=1&name_prefix=a&name_prefix=b', "Invalid query field 'name_prefix': expected a single string."],
    ];
    for (const [query, error] of cases) {
      const res = await ans(ledgerApi, query);
      expect({ query, status: res.status, body: res.json }).toEqual({ query, status: 400, body: { error } });
    }
  });
});

describe('validator scan-proxy on an empty database', () => {
  const t = useTestDatabase();
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(t);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('answers empty lists', async () => {
    expectBody(await request(api.url, 'GET', '/api/validator/v0/scan-proxy/open-and-issuing-mining-rounds'), {
      open_mining_rounds: [],
      issuing_mining_rounds: [],
    });
    expectBody(await ans(api, '?page_size=10'), { entries: [] });
  });
});

describe('validator scan-proxy authentication hook', () => {
  const t = useTestDatabase();

  it('runs the given auth middleware before every validator route', async () => {
    const config = loadConfig({ LOG_LEVEL: 'silent' });
    const app = express();
    const auth: express.RequestHandler = (req, res, next) => {
      if (req.headers.authorization === 'Bearer good') next();
      else res.status(401).json({ error: 'unauthorized' });
    };
    const logger = createLogger('silent');
    const context = { config, db: t.db, pool: t.pool, logger, metrics: createMetrics(), migrationFiles: readMigrationFiles() };
    app.use('/api/validator', validatorRouter(context, { auth }));
    const server = await listen(app, '127.0.0.1', 0);
    try {
      for (const path of ['/v0/scan-proxy/open-and-issuing-mining-rounds', '/v0/scan-proxy/ans-entries?page_size=1']) {
        const denied = await request(server.url, 'GET', `/api/validator${path}`);
        expect({ status: denied.status, body: denied.json as Json }).toEqual({ status: 401, body: { error: 'unauthorized' } });
        const allowed = await request(server.url, 'GET', `/api/validator${path}`, undefined, { authorization: 'Bearer good' });
        expect(allowed.status).toBe(200);
      }
    } finally {
      await server.close(1000);
    }
  });
});
