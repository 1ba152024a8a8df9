/**
 * Splice's published client, `@canton-network/core-splice-client`, against the
 * server, as a wallet uses it: ScanClient on /api/scan and ScanProxyClient on
 * the validator's scan-proxy. Its helpers (amulet rules, open rounds, the
 * active round, the amulet synchronizer) must return what a replay of the
 * simulated data gives; every other operation it types that this server
 * serves must come back as the server sent it, and errors as the Scan
 * app's bodies. `@canton-network/core-amulet-service` is driven over both
 * clients for its lookups and the commands it builds from rules and rounds.
 */
import { AmuletService } from '@canton-network/core-amulet-service';
import { ScanClient, ScanProxyClient } from '@canton-network/core-splice-client';
import pino from 'pino';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { alice, bob, externalPartyNetwork, provider } from '../../support/items/external-party-network';
import { ingestThroughWorker } from '../../support/items/simulated-network';
import { snapshotTimes } from '../../support/replays/acs-replay';
import { arg, expectedContract, ofTemplate, replay, type LiveContract } from '../../support/replays/live-acs';

type Payload = { opensAt?: string; targetClosesAt?: string };

/** The client's rule for the active round, applied to the replay: open now, the latest opening. */
function activeRound(open: LiveContract[], now: number): LiveContract | null {
  const ms = (t: string | undefined) => (t ? Date.parse(t) : NaN);
  const active = open.filter((c) => {
    const p = c.event.create_arguments as Payload;
    return ms(p.opensAt) <= now && now < ms(p.targetClosesAt);
  });
  return active.at(-1) ?? null;
}

/** The synchronizer the amulet rules name: the last future value's, else the initial one. */
function amuletSynchronizer(rules: LiveContract): string | undefined {
  type Config = { decentralizedSynchronizer?: { activeSynchronizer?: string } };
  const schedule = arg(rules, 'configSchedule') as { initialValue: Config; futureValues: Config[] | [string, Config][] };
  let synchronizer = schedule.initialValue.decentralizedSynchronizer?.activeSynchronizer;
  for (const value of schedule.futureValues) {
    const config = Array.isArray(value) ? value[1] : value;
    synchronizer = config.decentralizedSynchronizer?.activeSynchronizer ?? synchronizer;
  }
  return synchronizer;
}

describe("Splice's published scan clients against the server", () => {
  const t = useTestDatabase();
  let api: TestApi;
  const items = externalPartyNetwork();
  const r = replay(items);
  const tokens = { getAccessToken: async () => '', getAuthContext: async () => ({}) as never };
  const logger = pino({ level: 'silent' });
  const round = (c: LiveContract) => Number(arg(c, 'round', 'number'));
  const open = ofTemplate(r, 'Splice.Round:OpenMiningRound').sort((a, b) => round(a) - round(b));
  const rules = ofTemplate(r, 'Splice.AmuletRules:AmuletRules').at(-1)!;
  let scan: ScanClient;
  let proxy: ScanProxyClient;

  beforeAll(async () => {
    await ingestThroughWorker(t, items);
    api = await startTestApi(t, { env: { LEDGER_AUTH_DISABLED: 'true', API_CLOCK: 'ledger' } });
    scan = new ScanClient(new URL(`${api.url}/api/scan`), logger, tokens);
    proxy = new ScanProxyClient(new URL(`${api.url}/api/validator`), logger, tokens);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('ScanClient: amulet rules, open rounds, the active round and the amulet synchronizer are the replay’s', async () => {
    expect(open.length).toBeGreaterThanOrEqual(3);
    expect(await scan.getAmuletRules()).toEqual(expectedContract(rules));
    expect(await scan.getOpenMiningRounds()).toEqual(open.map(expectedContract));
    const active = activeRound(open, Date.now());
    expect(await scan.getActiveOpenMiningRound()).toEqual(active ? expectedContract(active) : null);
    expect(await scan.getAmuletSynchronizerId()).toBe(amuletSynchronizer(rules));
    expect(amuletSynchronizer(rules)).toEqual(expect.stringContaining('::'));
    expect(await scan.isDevNet()).toBe((rules.event.create_arguments as { isDevNet?: boolean }).isDevNet ?? false);
  });

  it('ScanProxyClient: the same helpers through the scan-proxy', async () => {
    expect(await proxy.getAmuletRules()).toEqual(expectedContract(rules));
    expect(await proxy.getOpenMiningRounds()).toEqual(open.map(expectedContract));
    expect(await proxy.getAmuletSynchronizerId()).toBe(amuletSynchronizer(rules));
    const active = activeRound(open, Date.now());
    expect(await proxy.getActiveOpenMiningRound()).toEqual(active ? expectedContract(active) : null);
  });

  describe('@canton-network/core-amulet-service on Scan and on the scan-proxy', () => {
    // Its ledger side (holdings to spend) is not this server's: a stand-in that spends the inputs given.
    const ledgerSide = {
      getInputHoldingsCids: async (_party: string, inputs?: string[]) => inputs ?? [],
    } as unknown as ConstructorParameters<typeof AmuletService>[0];
    const services = () =>
      [
        ['Scan', new AmuletService(ledgerSide, scan)],
        ['scan-proxy', new AmuletService(ledgerSide, proxy, undefined)],
      ] as const;

    it('looks up a preapproval and a featured app right by party, and whether the network is a DevNet', async () => {
      const preapproval = ofTemplate(r, 'Splice.AmuletRules:TransferPreapproval').find((c) => arg(c, 'receiver') === alice)!;
      const right = ofTemplate(r, 'Splice.Amulet:FeaturedAppRight')[0]!;
      for (const [where, service] of services()) {
        expect({ where, value: await service.getTransferPreApprovalByParty(alice) }).toEqual({
          where,
          value: { contract: expectedContract(preapproval), domain_id: preapproval.synchronizerId },
        });
        expect({ where, value: await service.getFeaturedAppsByParty(arg(right, 'provider') as string) }).toEqual({
          where,
          value: expectedContract(right),
        });
        expect(await service.isDevNet()).toBe((rules.event.create_arguments as { isDevNet?: boolean }).isDevNet ?? false);
        await expect(service.getTransferPreApprovalByParty(provider)).rejects.toEqual({
          error: `No TransferPreapproval found for party: ${provider}`,
        });
      }
    });

    it('builds its commands from the amulet rules and the active round it reads', async () => {
      const sync = rules.synchronizerId!;
      const active = activeRound(open, Date.now());
      // The simulator gives the rules a blob; the service must pass on the one the server serves.
      expect(rules.blob).toMatch(/^CgMyLjE/);
      for (const [where, service] of services()) {
        // The rules contract is disclosed with the blob the server serves for it.
        expect({ where, value: await service.selfGrantFeatureAppRight(alice, sync) }).toEqual({
          where,
          value: [
            {
              templateId: rules.event.template_id,
              contractId: rules.event.contract_id,
              choice: 'AmuletRules_DevNet_FeatureApp',
              choiceArgument: { provider: alice },
            },
            [
              {
                templateId: rules.event.template_id,
                contractId: rules.event.contract_id,
                createdEventBlob: rules.blob,
                synchronizerId: sync,
              },
            ],
          ],
        });
        const renew = service.renewTransferPreapproval(
          '00preapproval-2',
          'pkg:Splice.AmuletRules:TransferPreapproval',
          provider,
          sync,
          new Date('2031-06-01T00:00:00Z'),
          ['00input'],
        );
        if (active === null) {
          // The simulated rounds are in the past: no round is open at this moment, which the service reports.
          await expect(renew).rejects.toThrow('OpenMiningRound active at current moment not found');
        } else {
          const [exercise, disclosed] = await renew;
          expect({
            where,
            round: (exercise.choiceArgument as { context: { context: { openMiningRound: string } } }).context.context.openMiningRound,
          }).toEqual({
            where,
            round: active.event.contract_id,
          });
          expect(disclosed.map((d) => [d.contractId, d.createdEventBlob])).toEqual([
            [rules.event.contract_id, rules.blob],
            [active.event.contract_id, active.blob],
          ]);
        }
      }
    });
  });

  it('ScanClient: typed reads come back as the server sends them', async () => {
    const raw = async (path: string) => (await request(api.url, 'GET', `/api/scan${path}`)).json;
    const gets: [Parameters<ScanClient['get']>[0], Parameters<ScanClient['get']>[1], string][] = [
      ['/v0/dso', undefined, '/v0/dso'],
      ['/v0/dso-party-id', undefined, '/v0/dso-party-id'],
      ['/v0/scans', undefined, '/v0/scans'],
      ['/v0/dso-sequencers', undefined, '/v0/dso-sequencers'],
      ['/v0/closed-rounds', undefined, '/v0/closed-rounds'],
      ['/v0/admin/sv/voterequests', undefined, '/v0/admin/sv/voterequests'],
      ['/v0/featured-apps', undefined, '/v0/featured-apps'],
      ['/v0/featured-apps/{provider_party_id}', { path: { provider_party_id: provider } }, `/v0/featured-apps/${provider}`],
      ['/v0/ans-entries', { query: { page_size: '50' } }, '/v0/ans-entries?page_size=50'],
      ['/v0/splice-instance-names', undefined, '/v0/splice-instance-names'],
      ['/v0/feature-support', undefined, '/v0/feature-support'],
      ['/v0/backfilling/status', undefined, '/v0/backfilling/status'],
      ['/v0/unclaimed-development-fund-coupons', undefined, '/v0/unclaimed-development-fund-coupons'],
      ['/v0/admin/validator/licenses', { query: { limit: '1' } }, '/v0/admin/validator/licenses?limit=1'],
      ['/v0/amulet-price/votes', undefined, '/v0/amulet-price/votes'],
      [
        '/v0/validators/validator-faucets',
        { query: { validator_ids: provider } },
        `/v0/validators/validator-faucets?validator_ids=${encodeURIComponent(provider)}`,
      ],
      [
        '/v0/transfer-command/status',
        { query: { sender: bob, nonce: '3' } },
        `/v0/transfer-command/status?sender=${encodeURIComponent(bob)}&nonce=3`,
      ],
    ];
    for (const [path, params, url] of gets) {
      expect({ path, value: await scan.get(path, params) }).toEqual({ path, value: await raw(url) });
    }
    expect(await scan.get('/v0/transfer-preapprovals/by-party/{party}', { path: { party: alice } })).toEqual({
      transfer_preapproval: {
        contract: expectedContract(ofTemplate(r, 'Splice.AmuletRules:TransferPreapproval').find((c) => arg(c, 'receiver') === alice)!),
        domain_id: rules.synchronizerId,
      },
    });
    expect(await scan.get('/v0/transfer-command-counter/{party}', { path: { party: bob } })).toEqual({
      transfer_command_counter: {
        contract: expectedContract(
          ofTemplate(r, 'Splice.ExternalPartyAmuletRules:TransferCommandCounter').find((c) => arg(c, 'sender') === bob)!,
        ),
        domain_id: rules.synchronizerId,
      },
    });
  });

  it('ScanClient: typed POST reads come back as the server sends them', async () => {
    const snapshot = snapshotTimes(items).at(-1)!;
    const owners = ofTemplate(r, 'Splice.Amulet:Amulet')
      .slice(0, 2)
      .map((c) => arg(c, 'owner') as string);
    const posts: [Parameters<ScanClient['post']>[0], unknown][] = [
      ['/v0/amulet-rules', {}],
      ['/v0/ans-rules', {}],
      ['/v0/open-and-issuing-mining-rounds', { cached_open_mining_round_contract_ids: [], cached_issuing_round_contract_ids: [] }],
      ['/v0/holdings/summary', { migration_id: snapshot.migration, record_time: snapshot.time, owner_party_ids: owners }],
      ['/v0/state/acs', { migration_id: snapshot.migration, record_time: snapshot.time, page_size: 5 }],
      ['/v0/backfilling/migration-info', { migration_id: snapshot.migration }],
      ['/v0/admin/sv/voteresults', { limit: 10 }],
      ['/v0/voterequest', { vote_request_contract_ids: [] }],
      [
        '/v0/backfilling/updates-before',
        { migration_id: snapshot.migration, synchronizer_id: rules.synchronizerId, before: snapshot.time, count: 5 },
      ],
    ];
    for (const [path, body] of posts) {
      const sent = (await request(api.url, 'POST', `/api/scan${path}`, body)).json;
      expect({ path, value: await scan.post(path, body as never) }).toEqual({ path, value: sent });
    }
  });

  it('errors reach the caller as the Scan app’s bodies', async () => {
    await expect(scan.get('/v0/transfer-preapprovals/by-party/{party}', { path: { party: provider } })).rejects.toEqual({
      error: `No TransferPreapproval found for party: ${provider}`,
    });
    await expect(scan.get('/v0/transfer-command-counter/{party}', { path: { party: alice } })).rejects.toEqual({
      error: `No TransferCommandCounter found for party: ${alice}, use 0 for the nonce`,
    });
    await expect(scan.get('/v0/featured-apps/{provider_party_id}', { path: { provider_party_id: 'no-namespace' } })).rejects.toEqual({
      error: 'Invalid unique identifier `no-namespace` with missing namespace.',
    });
  });

  it('ScanProxyClient: typed reads come back as the server sends them', async () => {
    const raw = async (path: string) => (await request(api.url, 'GET', `/api/validator${path}`)).json;
    const gets: [Parameters<ScanProxyClient['get']>[0], Parameters<ScanProxyClient['get']>[1], string][] = [
      ['/v0/scan-proxy/dso-party-id', undefined, '/v0/scan-proxy/dso-party-id'],
      ['/v0/scan-proxy/dso', undefined, '/v0/scan-proxy/dso'],
      ['/v0/scan-proxy/ans-entries', { query: { page_size: '20' } }, '/v0/scan-proxy/ans-entries?page_size=20'],
      [
        '/v0/scan-proxy/transfer-preapprovals/by-party/{party}',
        { path: { party: alice } },
        `/v0/scan-proxy/transfer-preapprovals/by-party/${alice}`,
      ],
      ['/v0/scan-proxy/transfer-command-counter/{party}', { path: { party: bob } }, `/v0/scan-proxy/transfer-command-counter/${bob}`],
      ['/v0/scan-proxy/unclaimed-development-fund-coupons', undefined, '/v0/scan-proxy/unclaimed-development-fund-coupons'],
      [
        '/v0/scan-proxy/transfer-command/status',
        { query: { sender: bob, nonce: '4' } },
        `/v0/scan-proxy/transfer-command/status?sender=${encodeURIComponent(bob)}&nonce=4`,
      ],
    ];
    for (const [path, params, url] of gets) {
      expect({ path, value: await proxy.get(path, params) }).toEqual({ path, value: await raw(url) });
    }
    await expect(proxy.get('/v0/scan-proxy/transfer-command-counter/{party}', { path: { party: alice } })).rejects.toEqual({
      error: `No TransferCommandCounter found for party: ${alice}, use 0 for the nonce`,
    });
  });
});
