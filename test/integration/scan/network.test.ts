/**
 * S9–S16 through the real HTTP server on a simulated network of two
 * migrations (with a scheduled upgrade in the second), continued by
 * hand-built items for what the simulator does not produce. Expected bodies
 * come from an independent replay of the item stream (test/support/live-acs).
 */
import { sql } from 'kysely';
import type { CanonicalItem, ExercisedEvent } from '../../../src/domain/items';
import type { Json } from '../../../src/domain/json';
import { formatRecordTime, parseTimestamp } from '../../../src/domain/time';
import { loadConfig } from '../../../src/internal/config';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { arg, dateTime, expectedContract, ofTemplate, replay, type LiveContract } from '../../support/replays/live-acs';
import { after, archiveEvent, createEvent, load, tx } from '../../support/items/network-items';
import { simulatedItems } from '../../support/items/simulated-network';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../../src/internal/paths';

const APP_SYNC = 'app-synchronizer::1220aa00000000000000000000000000000000000000000000000000000000000000';
const PRIVATE_SYNC = 'private-synchronizer::1220bb00000000000000000000000000000000000000000000000000000000000000';

/** Asserts the whole body, values first (readable diff), then the exact bytes (key order). */
function expectBody(res: { status: number; text: string; json: unknown; headers: Headers }, expected: unknown): void {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.json).toEqual(expected);
  expect(res.text).toBe(JSON.stringify(expected));
}

const pairs = (v: Json) => v as [Json, Json][];

/** DsoRules.svs in payload order. */
function svsOf(rules: LiveContract): { party: string; name: string }[] {
  return pairs(arg(rules, 'svs')).map(([party, info]) => ({ party: party as string, name: (info as { name: string }).name }));
}

/** `/v0/scans` computed from ScanStore.listDsoScans's rule. */
/** S13 as ScanStore.listDsoScans builds it: every live SvNodeState in ingestion order, one entry per scan it configures. */
function expectedScans(items: CanonicalItem[]): unknown {
  const r = replay(items);
  const states = ofTemplate(r, 'Splice.DSO.SvState:SvNodeState');
  const groups: Record<string, { publicUrl: string; svName: string }[]> = {};
  for (const state of states) {
    for (const [sync, config] of pairs(arg(state, 'state', 'synchronizerNodes'))) {
      const scan = (config as { scan: { publicUrl: string } | null }).scan;
      if (scan) (groups[sync as string] ??= []).push({ publicUrl: scan.publicUrl, svName: arg(state, 'svName') as string });
    }
  }
  return {
    scans: Object.keys(groups)
      .sort()
      .map((domainId) => ({ domainId, scans: groups[domainId] })),
  };
}

type SequencerConfig = { migrationId: string; sequencerId: string; url: string; availableAfter?: string | null };

/** /v0/dso-sequencers as HttpScanHandler.listDsoSequencers describes it, from the replay. */
function expectedSequencers(items: CanonicalItem[]): unknown {
  const states = ofTemplate(replay(items), 'Splice.DSO.SvState:SvNodeState');
  const groups: Record<string, unknown[]> = {};
  const served = (url: string) => /^https?:\/\/[^\s/]+/.test(url);
  for (const state of states) {
    const svName = arg(state, 'svName') as string;
    for (const [sync, config] of pairs(arg(state, 'state', 'synchronizerNodes'))) {
      const { legacySequencerConfig: legacy, sequencer } = config as {
        legacySequencerConfig?: SequencerConfig | null;
        sequencer: SequencerConfig | null;
      };
      const entry = (c: SequencerConfig, availableAfter: string) => ({
        migrationId: Number(c.migrationId),
        synchronizerSerial: null,
        id: c.sequencerId,
        url: c.url,
        svName,
        availableAfter,
      });
      if (legacy && served(legacy.url)) (groups[sync as string] ??= []).push(entry(legacy, '-999999999-01-01T00:00:00+18:00'));
      if (sequencer?.availableAfter && served(sequencer.url)) {
        (groups[sync as string] ??= []).push(entry(sequencer, dateTime(sequencer.availableAfter)));
      }
    }
  }
  return {
    domainSequencers: Object.keys(groups)
      .sort()
      .map((domainId) => ({ domainId, sequencers: groups[domainId] })),
  };
}

describe('Scan network state (S9–S16)', () => {
  const t = useTestDatabase();
  let api: TestApi;
  const sim = simulatedItems({
    // A seed whose network ends with votes open, one of them voted on (the vote tests need both).
    seed: 29,
    updates: 3000,
    meanUpdateGapMs: 4000,
    migrations: 2,
    scheduledUpgradeAt: parseTimestamp('2025-06-01T12:00:00.5Z'),
  });
  const items: CanonicalItem[] = [...sim];
  const base = replay(sim);
  const last = base.latestRecordTime;
  const global = ofTemplate(base, 'Splice.DsoRules:DsoRules').at(-1)!.synchronizerId!;
  const dso = arg(ofTemplate(base, 'Splice.DsoRules:DsoRules').at(-1)!, 'dso') as string;

  // The first SV of DsoRules moves its node state to a new contract (ingested last) that
  // also configures an app synchronizer (with a scan) and a private one (without).
  const firstSv = svsOf(ofTemplate(base, 'Splice.DsoRules:DsoRules').at(-1)!)[0]!;
  const oldState = ofTemplate(base, 'Splice.DSO.SvState:SvNodeState').find((s) => arg(s, 'sv') === firstSv.party)!;
  const nodes = pairs(arg(oldState, 'state', 'synchronizerNodes'));
  const globalConfig = nodes[0]![1] as Record<string, Json>;
  items.push(
    tx('hand-node-state', after(last, 1), base.currentMigration, global, [
      archiveEvent('hand-node-state', 0, oldState, dso),
      createEvent(
        'hand-node-state',
        1,
        oldState,
        '00hand-node-state',
        {
          ...(oldState.event.create_arguments as Record<string, Json>),
          state: {
            synchronizerNodes: [
              [
                APP_SYNC,
                {
                  ...globalConfig,
                  scan: { publicUrl: 'https://scan.app.example' },
                  legacySequencerConfig: { migrationId: '0', sequencerId: 'SEQ::legacy-app', url: 'https://legacy-sequencer.app.example' },
                },
              ],
              ...nodes,
              [
                PRIVATE_SYNC,
                {
                  ...globalConfig,
                  scan: null,
                  // Not served: a legacy sequencer without a valid URL, a current one not yet available.
                  legacySequencerConfig: { migrationId: '0', sequencerId: 'SEQ::legacy-private', url: 'not a url' },
                  sequencer: { ...(globalConfig.sequencer as Record<string, Json>), availableAfter: null },
                },
              ],
            ],
          },
        },
        after(last, 1),
        [dso],
      ),
    ]),
  );

  // A second vote request, so that S10's order is tested whatever the simulator leaves open.
  const rulesTemplate = ofTemplate(base, 'Splice.DsoRules:DsoRules').at(-1)!.event;
  const closeVote = (n: number, action: Json, outcome: string): ExercisedEvent => ({
    event_type: 'exercised_event',
    event_id: `hand-vote:${n}`,
    contract_id: rulesTemplate.contract_id,
    template_id: rulesTemplate.template_id,
    package_name: rulesTemplate.package_name,
    choice: 'DsoRules_CloseVoteRequest',
    choice_argument: { requestCid: `00closed-${n}`, amuletRulesCid: null, sv: firstSv.party },
    child_event_ids: [],
    exercise_result: {
      request: {
        dso,
        requester: `hand-requester-${n}`,
        action,
        reason: { url: '', body: 'hand-built' },
        voteBefore: '2025-03-17T09:00:00Z',
        votes: [],
        trackingCid: null,
        targetEffectiveAt: null,
      },
      completedAt: after(last, 3),
      offboardedVoters: [],
      abstainingSvs: [],
      outcome: { tag: outcome, value: {} },
    },
    consuming: false,
    acting_parties: [firstSv.party],
    interface_id: null,
  });
  items.push(
    tx('hand-vote', after(last, 3), base.currentMigration, global, [
      createEvent(
        'hand-vote',
        0,
        { templateId: rulesTemplate.template_id.replace(/:DsoRules$/, ':VoteRequest'), packageName: rulesTemplate.package_name },
        '00hand-vote-request',
        {
          dso,
          requester: firstSv.name,
          action: { tag: 'ARC_DsoRules', value: { dsoAction: { tag: 'SRARC_GrantFeaturedAppRight', value: { provider: firstSv.party } } } },
          reason: { url: 'https://forum.example.org/t/x', body: 'Grant featured status to X' },
          voteBefore: '2025-03-17T09:00:00Z',
          votes: [
            [
              firstSv.name,
              { sv: firstSv.party, accept: true, reason: { url: '', body: 'I accept.' }, optCastAt: '2025-03-10T09:00:00.004711Z' },
            ],
          ],
          trackingCid: null,
          targetEffectiveAt: null,
        },
        after(last, 3).replace(/\.\d+Z$/, '.120000Z'),
        [dso],
      ),
      // Two votes closed without acceptance (the simulator's votes here all pass): an amulet-rules
      // action rejected, and an action of another kind (no action name) expired.
      closeVote(1, { tag: 'ARC_AmuletRules', value: { amuletRulesAction: { tag: 'CRARC_SetConfig', value: {} } } }, 'VRO_Rejected'),
      closeVote(
        2,
        { tag: 'ARC_AnsEntryContext', value: { ansEntryContextCid: '00ans', ansEntryContextAction: { tag: 'X', value: {} } } },
        'VRO_Expired',
      ),
    ]),
  );

  beforeAll(async () => {
    await load(t.db, items);
    api = await startTestApi(t);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('S9 lists the closed rounds of the current migration by round number', async () => {
    const r = replay(items);
    const round = (c: LiveContract) => Number(arg(c, 'round', 'number'));
    const closed = ofTemplate(r, 'Splice.Round:ClosedMiningRound').sort((a, b) => round(a) - round(b));
    expect(closed.length).toBeGreaterThan(1);
    // Migration 0 had closed rounds too; they are not part of the current ACS.
    const migration0 = sim.filter(
      (i) => i.update && ('events_by_id' in i.update ? i.update.migration_id : i.update.event.migration_id) === 0,
    );
    expect(ofTemplate(replay(migration0), 'Splice.Round:ClosedMiningRound').length).toBeGreaterThan(0);
    expectBody(await request(api.url, 'GET', '/api/scan/v0/closed-rounds'), { rounds: closed.map(expectedContract) });
  });

  it('S10 lists the active vote requests in ingestion order', async () => {
    const votes = ofTemplate(replay(items), 'Splice.DsoRules:VoteRequest');
    expect(votes.length).toBeGreaterThan(1);
    expect(votes.at(-1)!.event.contract_id).toBe('00hand-vote-request');
    expectBody(await request(api.url, 'GET', '/api/scan/v0/admin/sv/voterequests'), {
      dso_rules_vote_requests: votes.map(expectedContract),
    });
  });

  describe('vote results', () => {
    /** Every closed vote of the items, in ingestion order, with the facts computed here from its result. */
    const closed = items.flatMap((item) => {
      const u = item.update;
      if (!u || !('events_by_id' in u) || u.record_time.startsWith('0001-01-01')) return [];
      return Object.values(u.events_by_id).flatMap((e) => {
        if (e.event_type !== 'exercised_event' || e.choice !== 'DsoRules_CloseVoteRequest') return [];
        const result = e.exercise_result as {
          request: { requester: string; action: { tag: string; value: Record<string, { tag: string }> } };
          completedAt: string;
          outcome: { tag: string; value: { effectiveAt?: string } };
        };
        const action = result.request.action;
        const accepted = result.outcome.tag === 'VRO_Accepted';
        const effectiveAt = accepted ? parseTimestamp(result.outcome.value.effectiveAt!) : null;
        return [
          {
            result: e.exercise_result,
            actionName: (action.tag === 'ARC_DsoRules' ? action.value.dsoAction : action.value.amuletRulesAction)?.tag ?? '',
            accepted,
            requester: result.request.requester,
            effectiveAt,
            sortKey: effectiveAt ?? parseTimestamp(result.completedAt),
          },
        ];
      });
    });
    type Closed = (typeof closed)[number];
    const newestFirst = (list: Closed[]) =>
      list
        .map((c, i) => ({ c, i }))
        .sort((a, b) => (a.c.sortKey === b.c.sortKey ? b.i - a.i : a.c.sortKey < b.c.sortKey ? 1 : -1))
        .map(({ c }) => c);
    const post = (body: unknown) => request(api.url, 'POST', '/api/scan/v0/admin/sv/voteresults', body);
    const expectResults = async (body: unknown, expected: Closed[]) => {
      expect(expected.length).toBeGreaterThan(0);
      expectBody(await post(body), { dso_rules_vote_results: expected.map((c) => c.result) });
    };

    it('has accepted and refused votes of more than one action', () => {
      expect(closed.some((c) => c.accepted) && closed.some((c) => !c.accepted)).toBe(true);
      expect(new Set(closed.map((c) => c.actionName)).size).toBeGreaterThan(1);
    });

    it('lists the results newest first, by effective time (completion time when not accepted), up to the limit', async () => {
      await expectResults({ limit: 1000 }, newestFirst(closed));
      await expectResults({ limit: 2 }, newestFirst(closed).slice(0, 2));
    });

    it('filters by acceptance, action name and requester (substrings), and effective time', async () => {
      await expectResults({ accepted: true, limit: 100 }, newestFirst(closed.filter((c) => c.accepted)));
      await expectResults({ accepted: false, limit: 100 }, newestFirst(closed.filter((c) => !c.accepted)));
      const action = closed[0]!.actionName;
      const part = action.slice(6, 16);
      await expectResults({ actionName: part, limit: 100 }, newestFirst(closed.filter((c) => c.actionName.includes(part))));
      const requester = closed[0]!.requester;
      await expectResults({ requester, limit: 100 }, newestFirst(closed.filter((c) => c.requester.includes(requester))));
      const effective = newestFirst(closed.filter((c) => c.effectiveAt !== null));
      expect(effective.length).toBeGreaterThan(2);
      const [to, from] = [effective[0]!.effectiveAt!, effective.at(-1)!.effectiveAt!];
      await expectResults({ effectiveFrom: formatRecordTime(from), effectiveTo: formatRecordTime(to), limit: 100 }, effective);
      await expectResults({ effectiveFrom: formatRecordTime(from), limit: 100 }, effective.slice(0, -1));
      await expectResults({ effectiveTo: formatRecordTime(to), limit: 100 }, effective.slice(1));
      expectBody(await post({ actionName: 'no such action', limit: 10 }), { dso_rules_vote_results: [] });
    });

    it('refuses a bad limit or timestamp with 400', async () => {
      for (const [body, error] of [
        [{ limit: 0 }, 'Limit must be at least 1.'],
        [{ limit: 1001 }, 'Exceeded limit maximum (1001 > 1000).'],
        [{}, "Missing required body field 'limit'."],
      ] as const) {
        const res = await post(body);
        expect({ status: res.status, json: res.json }).toEqual({ status: 400, json: { error } });
      }
      const bad = await post({ effectiveFrom: 'last week', limit: 10 });
      expect(bad.status).toBe(400);
      expect((bad.json as { error: string }).error).toMatch(/^Invalid timestamp: /);
    });
  });

  it("lists each SV's current amulet price vote in ingestion order", async () => {
    const votes = ofTemplate(replay(items), 'Splice.DSO.AmuletPrice:AmuletPriceVote');
    const svs = svsOf(ofTemplate(replay(items), 'Splice.DsoRules:DsoRules').at(-1)!);
    // One live vote per SV; some have voted (a price), some not yet (none).
    expect(votes.map((v) => arg(v, 'sv')).sort()).toEqual(svs.map((sv) => sv.party).sort());
    expect(votes.some((v) => arg(v, 'amuletPrice') !== null)).toBe(true);
    expectBody(await request(api.url, 'GET', '/api/scan/v0/amulet-price/votes'), { amulet_price_votes: votes.map(expectedContract) });
  });

  it('finds vote requests by tracking id: the first contract id of a request, whatever votes re-created it', async () => {
    const votes = ofTemplate(replay(items), 'Splice.DsoRules:VoteRequest');
    const trackingOf = (c: LiveContract) => (arg(c, 'trackingCid') as string | null) ?? c.event.contract_id;
    const voted = votes.find((c) => arg(c, 'trackingCid') !== null)!;
    expect(voted).toBeDefined();
    expect(trackingOf(voted)).not.toBe(voted.event.contract_id);
    expectBody(await request(api.url, 'GET', `/api/scan/v0/voterequests/${encodeURIComponent(trackingOf(voted))}`), {
      dso_rules_vote_request: expectedContract(voted),
    });
    // The current contract id of a request that has votes is not its tracking id.
    const byCurrentId = await request(api.url, 'GET', `/api/scan/v0/voterequests/${encodeURIComponent(voted.event.contract_id)}`);
    expect({ status: byCurrentId.status, json: byCurrentId.json }).toEqual({
      status: 404,
      json: { error: `No VoteRequest found contract: ${voted.event.contract_id}` },
    });
    const ids = [...votes.map(trackingOf).reverse(), 'no-such-request'];
    expectBody(await request(api.url, 'POST', '/api/scan/v0/voterequest', { vote_request_contract_ids: ids }), {
      vote_requests: votes.map(expectedContract),
    });
    expectBody(await request(api.url, 'POST', '/api/scan/v0/voterequest', { vote_request_contract_ids: [] }), { vote_requests: [] });
    const bad = await request(api.url, 'POST', '/api/scan/v0/voterequest', { vote_request_contract_ids: 'x' });
    expect(bad.status).toBe(400);
  });

  it("S13 groups the SVs' scans by synchronizer, groups sorted by id, in node-state order", async () => {
    const expected = expectedScans(items) as { scans: { domainId: string; scans: { svName: string }[] }[] };
    expect(expected.scans.map((g) => g.domainId)).toEqual([APP_SYNC, global]);
    // The moved node state was ingested last, so its SV comes last although it is first in DsoRules.
    expect(expected.scans[1]!.scans.at(-1)!.svName).toBe(firstSv.name);
    expectBody(await request(api.url, 'GET', '/api/scan/v0/scans'), expected);
  });

  it("lists the SVs' sequencers by synchronizer: legacy ones first, only available ones with valid URLs", async () => {
    const expected = expectedSequencers(items) as { domainSequencers: { domainId: string; sequencers: { id: string }[] }[] };
    expect(expected.domainSequencers.map((g) => g.domainId)).toEqual([APP_SYNC, global]);
    expect(expected.domainSequencers[0]!.sequencers.map((s) => s.id)).toEqual(['SEQ::legacy-app', expect.stringMatching(/^SEQ::/)]);
    expectBody(await request(api.url, 'GET', '/api/scan/v0/dso-sequencers'), expected);
  });

  it('serves the instance names from configuration, no optional features, and whether the history is complete', async () => {
    expectBody(await request(api.url, 'GET', '/api/scan/v0/splice-instance-names'), {
      network_name: 'Canton Network',
      network_favicon_url: 'https://www.canton.network/hubfs/cn-favicon-05%201-1.png',
      amulet_name: 'Canton Coin',
      amulet_name_acronym: 'CC',
      name_service_name: 'Canton Name Service',
      name_service_name_acronym: 'CNS',
    });
    const named = await startTestApi(t, {
      env: { SPLICE_NETWORK_NAME: 'Test Network', SPLICE_AMULET_NAME_ACRONYM: 'TC', ANS_NAME_ACRONYM: 'TNS' },
    });
    try {
      const res = await request(named.url, 'GET', '/api/scan/v0/splice-instance-names');
      expect(res.json).toMatchObject({ network_name: 'Test Network', amulet_name_acronym: 'TC', name_service_name_acronym: 'TNS' });
    } finally {
      await named.close();
    }
    expectBody(await request(api.url, 'GET', '/api/scan/v0/feature-support'), { dummy: null });
    // The release, and the time of a commit of this repository (npm run build records the one it built).
    const version = await request(api.url, 'GET', '/api/scan/version');
    const pkg = JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string };
    expect(version.json).toEqual({ version: pkg.version, commit_ts: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/) });
    const commitTimes = execFileSync('git', ['log', '--format=%cI'], { cwd: projectRoot, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((t) => Date.parse(t));
    expect(commitTimes).toContain(Date.parse((version.json as { commit_ts: string }).commit_ts));
    expectBody(await request(api.url, 'GET', '/api/scan/v0/backfilling/status'), { complete: true });
    await sql`update migrations set complete = false where migration_id = 0`.execute(t.db);
    try {
      expectBody(await request(api.url, 'GET', '/api/scan/v0/backfilling/status'), { complete: false });
    } finally {
      await sql`update migrations set complete = true where migration_id = 0`.execute(t.db);
    }
  });

  it('S14 serves the scheduled upgrade of the current DsoRules', async () => {
    const rules = ofTemplate(replay(items), 'Splice.DsoRules:DsoRules').at(-1)!;
    const schedule = arg(rules, 'config', 'nextScheduledSynchronizerUpgrade') as { time: string; migrationId: string };
    expect(schedule).not.toBeNull();
    const expected = { time: dateTime(schedule.time), migration_id: Number(schedule.migrationId) };
    expect(expected).toEqual({ time: '2025-06-01T12:00:00.5Z', migration_id: 2 });
    expectBody(await request(api.url, 'GET', '/api/scan/v0/migrations/schedule'), expected);
  });

  it('S15 and S16 serve the current migration and the DSO party', async () => {
    expectBody(await request(api.url, 'GET', '/api/scan/v0/migrations/last'), { migration_id: 1 });
    expectBody(await request(api.url, 'GET', '/api/scan/v0/dso-party-id'), { dso_party_id: dso });
  });

  it('S11 serves {"lsu": null} until a source records an announcement', async () => {
    expectBody(await request(api.url, 'GET', '/api/scan/v0/lsu'), { lsu: null });
    await sql`insert into network_facts (key, value) values ('lsu', ${JSON.stringify({
      topologyFreezeTime: '2026-03-01T10:00:00.120000Z',
      upgradeTime: '2026-03-01T12:00:00Z',
      successorPhysicalSynchronizerId: 'global-domain::1220cc::35-1',
    })})`.execute(t.db);
    expectBody(await request(api.url, 'GET', '/api/scan/v0/lsu'), {
      lsu: {
        topologyFreezeTime: '2026-03-01T10:00:00.12Z',
        upgradeTime: '2026-03-01T12:00:00Z',
        successorPhysicalSynchronizerId: 'global-domain::1220cc::35-1',
      },
    });
  });

  it('S12 serves {"rollForwardLsu": null} without configuration or fact, the configuration first otherwise', async () => {
    expectBody(await request(api.url, 'GET', '/api/scan/v0/roll-forward-lsu'), { rollForwardLsu: null });
    await sql`insert into network_facts (key, value) values ('roll_forward_lsu', ${JSON.stringify({
      upgradeTime: '2026-02-01T00:00:00.000100Z',
      currentPhysicalSynchronizerId: 'global-domain::1220cc::34-0',
      successorPhysicalSynchronizerId: 'global-domain::1220cc::35-0',
    })})`.execute(t.db);
    expectBody(await request(api.url, 'GET', '/api/scan/v0/roll-forward-lsu'), {
      rollForwardLsu: {
        upgradeTime: '2026-02-01T00:00:00.0001Z',
        currentPhysicalSynchronizerId: 'global-domain::1220cc::34-0',
        successorPhysicalSynchronizerId: 'global-domain::1220cc::35-0',
      },
    });
    const configured = await startTestApi(t, {
      env: {
        ROLL_FORWARD_LSU_UPGRADE_TIME: '2026-04-01T14:00:00.250+02:00',
        ROLL_FORWARD_LSU_CURRENT_SYNCHRONIZER_ID: 'global-domain::1220cc::35-1',
        ROLL_FORWARD_LSU_SUCCESSOR_SYNCHRONIZER_ID: 'global-domain::1220cc::36-0',
      },
    });
    try {
      expectBody(await request(configured.url, 'GET', '/api/scan/v0/roll-forward-lsu'), {
        rollForwardLsu: {
          upgradeTime: '2026-04-01T12:00:00.25Z',
          currentPhysicalSynchronizerId: 'global-domain::1220cc::35-1',
          successorPhysicalSynchronizerId: 'global-domain::1220cc::36-0',
        },
      });
    } finally {
      await configured.close();
    }
  });

  it('S11 serves a configured LSU announcement before any recorded one', async () => {
    const configured = await startTestApi(t, {
      env: {
        LSU_TOPOLOGY_FREEZE_TIME: '2026-05-01T09:30:00+02:00',
        LSU_UPGRADE_TIME: '2026-05-01T10:00:00.000500Z',
        LSU_SUCCESSOR_SYNCHRONIZER_ID: 'global-domain::1220cc::36-1',
      },
    });
    try {
      expectBody(await request(configured.url, 'GET', '/api/scan/v0/lsu'), {
        lsu: {
          topologyFreezeTime: '2026-05-01T07:30:00Z',
          upgradeTime: '2026-05-01T10:00:00.0005Z',
          successorPhysicalSynchronizerId: 'global-domain::1220cc::36-1',
        },
      });
    } finally {
      await configured.close();
    }
    expect(() => loadConfig({ LSU_UPGRADE_TIME: '2026-05-01T10:00:00Z' })).toThrow(
      'Invalid configuration: LSU_TOPOLOGY_FREEZE_TIME and LSU_SUCCESSOR_SYNCHRONIZER_ID must be set too: set all three LSU_* variables or none.',
    );
  });

  it('S12 configuration takes all three ROLL_FORWARD_LSU_* variables or none', () => {
    expect(() => loadConfig({ ROLL_FORWARD_LSU_UPGRADE_TIME: '2026-04-01T12:00:00Z' })).toThrow(
      'Invalid configuration: ROLL_FORWARD_LSU_CURRENT_SYNCHRONIZER_ID and ROLL_FORWARD_LSU_SUCCESSOR_SYNCHRONIZER_ID ' +
        'must be set too: set all three ROLL_FORWARD_LSU_* variables or none.',
    );
    expect(() => loadConfig({ ROLL_FORWARD_LSU_UPGRADE_TIME: 'next tuesday' })).toThrow(
      'Invalid configuration: ROLL_FORWARD_LSU_UPGRADE_TIME="next tuesday": expected an ISO 8601 date-time such as 2026-03-01T12:00:00Z, or unset.',
    );
  });

  it('S14 answers 404 with an empty body once DsoRules schedules nothing', async () => {
    const rules = ofTemplate(replay(items), 'Splice.DsoRules:DsoRules').at(-1)!;
    const args = rules.event.create_arguments as Record<string, Json>;
    const unscheduled = { ...args, config: { ...(args.config as Record<string, Json>), nextScheduledSynchronizerUpgrade: null } };
    const when = after(last, 4);
    const more = [
      tx('hand-dso-rules', when, base.currentMigration, global, [
        archiveEvent('hand-dso-rules', 0, rules, dso),
        createEvent('hand-dso-rules', 1, rules, '00hand-dso-rules', unscheduled, when, [dso]),
      ]),
    ];
    await load(t.db, more, 'more');
    items.push(...more);
    const res = await request(api.url, 'GET', '/api/scan/v0/migrations/schedule');
    expect(res.status).toBe(404);
    expect(res.text).toBe('');
    // The other answers from DsoRules still hold.
    expectBody(await request(api.url, 'GET', '/api/scan/v0/scans'), expectedScans(items));
  });
});

describe('Scan network state on an empty database', () => {
  const t = useTestDatabase();
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(t);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('answers empty lists, null LSUs and 404s where nothing is known', async () => {
    expectBody(await request(api.url, 'GET', '/api/scan/v0/closed-rounds'), { rounds: [] });
    expectBody(await request(api.url, 'GET', '/api/scan/v0/admin/sv/voterequests'), { dso_rules_vote_requests: [] });
    expectBody(await request(api.url, 'GET', '/api/scan/v0/amulet-price/votes'), { amulet_price_votes: [] });
    expectBody(await request(api.url, 'POST', '/api/scan/v0/admin/sv/voteresults', { limit: 10 }), { dso_rules_vote_results: [] });
    expectBody(await request(api.url, 'GET', '/api/scan/v0/lsu'), { lsu: null });
    expectBody(await request(api.url, 'GET', '/api/scan/v0/roll-forward-lsu'), { rollForwardLsu: null });
    expectBody(await request(api.url, 'GET', '/api/scan/v0/scans'), { scans: [] });
    const schedule = await request(api.url, 'GET', '/api/scan/v0/migrations/schedule');
    expect({ status: schedule.status, text: schedule.text }).toEqual({ status: 404, text: '' });
  });
});
