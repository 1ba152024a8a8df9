/**
 * The token-standard registry's metadata for Amulet, at the host root and through the validator
 * proxy, through the real server: the admin, the instrument list and lookup, and Amulet's total
 * supply at the latest ACS snapshot, replayed from the simulated network independently of the
 * service (unlocked plus locked amulet, initial amounts, as the snapshot sums hold them).
 */
import { TokenStandardClient } from '@canton-network/core-token-standard';
import pino from 'pino';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { ingestThroughWorker, simulatedItems } from '../../support/items/simulated-network';
import { acsAt, dateTimeText, decimalText, holdingOf, snapshotTimes } from '../../support/replays/acs-replay';
import { arg, ofTemplate, replay } from '../../support/replays/live-acs';

const items = simulatedItems({ seed: 'registry', updates: 900, migrations: 2, meanUpdateGapMs: 30_000 });

function expectBody(res: { status: number; text: string; json: unknown }, expected: unknown, status = 200): void {
  expect({ status: res.status, body: res.json }).toEqual({ status, body: expected });
  expect(res.text).toBe(JSON.stringify(expected));
}

describe('registry metadata (token standard)', () => {
  const t = useTestDatabase();
  let api: TestApi;
  beforeAll(async () => {
    await ingestThroughWorker(t, items);
    api = await startTestApi(t, {
      env: { LEDGER_AUTH_DISABLED: 'true', SPLICE_AMULET_NAME: 'Canton Coin', SPLICE_AMULET_NAME_ACRONYM: 'CC' },
    });
  });
  afterAll(async () => {
    await api?.close();
  });

  const dso = arg(ofTemplate(replay(items), 'Splice.DsoRules:DsoRules').at(-1)!, 'dso') as string;
  const latest = snapshotTimes(items)
    .filter((k) => k.migration === Math.max(...snapshotTimes(items).map((s) => s.migration)))
    .at(-1)!;
  const supply = [...acsAt(items, latest).values()].reduce((sum, c) => sum + (holdingOf(c)?.initial ?? 0n), 0n);
  const amulet = {
    id: 'Amulet',
    name: 'Canton Coin',
    symbol: 'CC',
    totalSupply: decimalText(supply),
    totalSupplyAsOf: dateTimeText(latest.time),
    decimals: 10,
    supportedApis: {
      'splice-api-token-metadata-v1': 1,
      'splice-api-token-holding-v1': 1,
      'splice-api-token-transfer-instruction-v1': 1,
      'splice-api-token-allocation-v1': 1,
      'splice-api-token-allocation-instruction-v1': 1,
      'splice-api-token-holding-v2': 1,
      'splice-api-token-allocation-v2': 1,
      'splice-api-token-allocation-instruction-v2': 1,
      'splice-api-token-transfer-instruction-v2': 1,
      'splice-api-token-transfer-events-v2': 1,
    },
  };
  const roots = ['/registry/metadata/v1', '/api/validator/v0/scan-proxy/registry/metadata/v1'];

  it('names the DSO party as the registry admin', async () => {
    expect(latest.migration).toBe(1);
    expect(supply).toBeGreaterThan(0n);
    for (const root of roots) {
      expectBody(await request(api.url, 'GET', `${root}/info`), { adminId: dso, supportedApis: { 'splice-api-token-metadata-v1': 1 } });
    }
  });

  it('lists Amulet, with its total supply at the latest snapshot, whatever the page asked for', async () => {
    for (const root of roots) {
      for (const query of ['', '?pageSize=1', '?pageSize=5&pageToken=abc']) {
        expectBody(await request(api.url, 'GET', `${root}/instruments${query}`), { instruments: [amulet] });
      }
      expectBody(await request(api.url, 'GET', `${root}/instruments/Amulet`), amulet);
      expectBody(await request(api.url, 'GET', `${root}/instruments/USDC`), { error: 'No instrument with id USDC found' }, 404);
    }
  });

  it("the wallet SDK's registry client reads the same, at the root and through the proxy", async () => {
    const tokens = { getAccessToken: async () => '', getAuthContext: async () => ({}) as never };
    for (const base of [api.url, `${api.url}/api/validator/v0/scan-proxy`]) {
      const client = new TokenStandardClient(base, pino({ level: 'silent' }), tokens);
      expect(await client.get('/registry/metadata/v1/info')).toEqual({
        adminId: dso,
        supportedApis: { 'splice-api-token-metadata-v1': 1 },
      });
      expect(await client.get('/registry/metadata/v1/instruments', { query: { pageSize: 10 } })).toEqual({ instruments: [amulet] });
      expect(await client.get('/registry/metadata/v1/instruments/{instrumentId}', { path: { instrumentId: 'Amulet' } })).toEqual(amulet);
      await expect(client.get('/registry/metadata/v1/instruments/{instrumentId}', { path: { instrumentId: 'USDC' } })).rejects.toEqual({
        error: 'No instrument with id USDC found',
      });
    }
  });
});
