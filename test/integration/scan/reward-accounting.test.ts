/**
 * The reward-accounting operations of CIP-0104 (/api/scan/v0/internal/reward-accounting-process/...),
 * through the real HTTP server. This indexer computes no reward accounting: an indexer that is no mirror
 * answers 501 naming what the answer needs (after refusing malformed input with 400), and a mirror
 * (SOURCE=scan) answers as its upstream Scans do. The upstreams are real HTTP servers answering in
 * scan.yaml's shapes; expected bodies are what they were told to answer, or the messages written out here.
 */
import type { CanonicalItem } from '../../../src/domain/items';
import { useTestDatabase } from '../../support/database/database';
import { refusedUrl, startFakeServer, type FakeServer } from '../../support/fakes/fake-server';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { after, createEvent, load, tx } from '../../support/items/network-items';
import { simulatedItems } from '../../support/items/simulated-network';
import { ofTemplate, replay } from '../../support/replays/live-acs';

const BASE = '/v0/internal/reward-accounting-process/rounds';
const ROOT = 'a1'.repeat(32);
const LEAF_1 = 'b2'.repeat(32);
const LEAF_2 = 'c3'.repeat(32);

/** What one small Scan of an SV computed; `weight` tells Scans apart. */
function scanAnswers(weight: number) {
  return {
    earliest: { earliest_round: 3 },
    totals: {
      status: 'Ok',
      round_number: 7,
      total_app_activity_weight: weight,
      active_parties_count: 3,
      activity_records_count: 11,
      total_app_reward_minting_allowance: '12.5000000000',
      total_app_reward_thresholded: '0.2500000000',
      total_app_reward_unclaimed: '0.0000000000',
      rewarded_app_provider_parties_count: 2,
    },
    undetermined: { status: 'Undetermined' },
    cannotProvide: { status: 'CannotProvide' },
    root: { status: 'Ok', round_number: 7, root_hash: ROOT },
    inner: { batch_type: 'BatchOfBatches', child_hashes: [LEAF_1, LEAF_2] },
    leaf: {
      batch_type: 'BatchOfMintingAllowances',
      minting_allowances: [
        { provider: 'app1::1220aaaa', amount: '10.0000000000' },
        { provider: 'app2::1220bbbb', amount: '2.5000000000' },
      ],
    },
  };
}

/** A Scan of an SV: round 7 computed, round 8 not yet, round 2 before its earliest round; 404 for an unknown batch. */
async function startSmallScan(weight: number, shape: 'splice' | 'wrong' = 'splice'): Promise<FakeServer> {
  const a = scanAnswers(weight);
  const p = `/api/scan${BASE}`;
  return startFakeServer(({ path }) => {
    if (shape === 'wrong') return { body: { status: 'Ok', round_number: 'seven' } };
    if (path === `${p}/earliest-available`) return { body: a.earliest };
    if (path === `${p}/7/activity-totals`) return { body: a.totals };
    if (path === `${p}/8/activity-totals`) return { body: a.undetermined };
    if (path === `${p}/2/activity-totals`) return { body: a.cannotProvide };
    if (path === `${p}/7/root-hash`) return { body: a.root };
    if (path === `${p}/8/root-hash`) return { body: a.undetermined };
    if (path === `${p}/7/batches/${ROOT}`) return { body: a.inner };
    if (path === `${p}/7/batches/${LEAF_1}`) return { body: a.leaf };
    return { status: 404, body: { error: `No reward batch ${path.split('/').at(-1)} for round 7` } };
  });
}

const error = (message: string) => ({ error: message });

function expectAnswer(res: { status: number; text: string; json: unknown }, status: number, body: unknown): void {
  expect({ status: res.status, body: res.json }).toEqual({ status, body });
  expect(res.text).toBe(JSON.stringify(body));
}

/**
 * The simulated network (its rounds predate CIP-0104: no trafficPrice, no rewardConfig), and two rounds
 * opened by hand after it: one with both CIP-0104 fields, one with a trafficPrice alone.
 */
function networkItems(): { items: CanonicalItem[]; simulated: string; cip104: string; priceOnly: string } {
  const items = [...simulatedItems({ seed: 11, updates: 800, meanUpdateGapMs: 3000, migrations: 1 })];
  const base = replay(items);
  const openRound = ofTemplate(base, 'Splice.Round:OpenMiningRound').at(-1)!;
  const config = openRound.event.create_arguments as Record<string, unknown>;
  const simulated = (config.round as { number: string }).number;
  const [cip104, priceOnly] = [BigInt(simulated) + 50n, BigInt(simulated) + 51n].map(String) as [string, string];
  const at = after(base.latestRecordTime, 1);
  const round = (n: number, number: string, extra: Record<string, unknown>) =>
    createEvent(
      'hand-rounds',
      n,
      openRound,
      `00hand-round-${number}`,
      { ...config, round: { number }, ...extra },
      at,
      openRound.event.signatories,
    );
  items.push(
    tx('hand-rounds', at, base.currentMigration, openRound.synchronizerId!, [
      round(0, cip104, { trafficPrice: '60.0000000000', rewardConfig: { appRewardCouponThreshold: '0.5000000000', batchSize: '100' } }),
      round(1, priceOnly, { trafficPrice: '60.0000000000' }),
    ]),
  );
  return { items, simulated, cip104, priceOnly };
}

/** What the items say of a round's CIP-0104 inputs, read from its newest OpenMiningRound create. */
function roundFact(items: CanonicalItem[], round: string): string {
  let newest: Record<string, unknown> | undefined;
  for (const item of items) {
    if (!item.update || !('events_by_id' in item.update)) continue;
    for (const e of Object.values(item.update.events_by_id)) {
      const args = e.event_type === 'created_event' ? (e.create_arguments as Record<string, unknown>) : undefined;
      if (args && e.template_id.endsWith(':Splice.Round:OpenMiningRound') && (args.round as { number: string }).number === round)
        newest = args;
    }
  }
  if (!newest) return `; no OpenMiningRound of round ${round} has been ingested`;
  const missing = ['trafficPrice', 'rewardConfig'].filter((f) => newest[f] === undefined || newest[f] === null);
  return missing.length === 0
    ? ''
    : `; round ${round}'s OpenMiningRound carries no ${missing.join(' and no ')}, which the computation reads (rounds before CIP-0104 have neither)`;
}

const NOT_COMPUTED =
  "this indexer does not compute CIP-0104 reward accounting; an SV's Scan computes it from the round's complete app activity records and the reward inputs of the round's OpenMiningRound (issuance, amulet and traffic price, and the CIP-0104 rewardConfig: app reward coupon threshold and batch size)";

describe('CIP-0104 reward-accounting operations', () => {
  const t = useTestDatabase();
  let notMirror: TestApi;
  let scanA: FakeServer;
  let scanB: FakeServer;
  let scanC: FakeServer;
  let wrongShape: FakeServer;
  let refused: string;
  const mirrors: TestApi[] = [];
  const mirror = async (urls: string[], threshold: number) => {
    const api = await startTestApi(t, {
      env: {
        SOURCE: 'scan',
        SCAN_SOURCE_URLS: urls.join(','),
        SCAN_SOURCE_THRESHOLD: String(threshold),
        SCAN_SOURCE_ANSWER_TIMEOUT_MS: '5000',
      },
    });
    mirrors.push(api);
    return (path: string) => request(api.url, 'GET', `/api/scan${path}`);
  };

  const network = networkItems();

  beforeAll(async () => {
    await load(t.db, network.items);
    notMirror = await startTestApi(t);
    scanA = await startSmallScan(4_000_000);
    scanB = await startSmallScan(4_000_000);
    scanC = await startSmallScan(5_000_000);
    wrongShape = await startSmallScan(1, 'wrong');
    refused = await refusedUrl();
  });
  afterAll(async () => {
    for (const api of [...mirrors, notMirror]) await api?.close();
    for (const s of [scanA, scanB, scanC, wrongShape]) await s?.close();
  });

  describe('an indexer that is no mirror', () => {
    const get = (path: string) => request(notMirror.url, 'GET', `/api/scan${path}`);

    it('answers each operation 501, naming what the answer needs and what the history says of the round', async () => {
      expectAnswer(
        await get(`${BASE}/earliest-available`),
        501,
        error(
          `The earliest round available for reward accounting is an SV Scan's own state (the first round whose app activity records it holds completely, from when its verdict ingestion began): ${NOT_COMPUTED}.`,
        ),
      );
      const { items, simulated, cip104, priceOnly } = network;
      // The fact each kind of round gets, written out once so that the reading above cannot fail silently.
      expect([simulated, cip104, priceOnly, '9223372036854775807'].map((r) => roundFact(items, r))).toEqual([
        `; round ${simulated}'s OpenMiningRound carries no trafficPrice and no rewardConfig, which the computation reads (rounds before CIP-0104 have neither)`,
        '',
        `; round ${priceOnly}'s OpenMiningRound carries no rewardConfig, which the computation reads (rounds before CIP-0104 have neither)`,
        '; no OpenMiningRound of round 9223372036854775807 has been ingested',
      ]);
      for (const round of [simulated, cip104, priceOnly, '0', '9223372036854775807']) {
        const fact = roundFact(items, round);
        expectAnswer(
          await get(`${BASE}/${round}/activity-totals`),
          501,
          error(`The reward accounting totals of round ${round} need the round's minting allowances: ${NOT_COMPUTED}${fact}.`),
        );
        expectAnswer(
          await get(`${BASE}/${round}/root-hash`),
          501,
          error(`The root hash of round ${round} is the hash of its tree of minting allowance batches: ${NOT_COMPUTED}${fact}.`),
        );
        expectAnswer(
          await get(`${BASE}/${round}/batches/${ROOT}`),
          501,
          error(
            `The reward batch ${ROOT} of round ${round} is a node of the round's tree of minting allowance batches: ${NOT_COMPUTED}${fact}.`,
          ),
        );
      }
    });

    it('refuses a round that is no int64 and a batch hash that is no hex with 400', async () => {
      const bad = [
        `${BASE}/seven/activity-totals`,
        `${BASE}/1.5/root-hash`,
        `${BASE}/9223372036854775808/root-hash`,
        `${BASE}/7/batches/xyz`,
        `${BASE}/7/batches/abc`,
      ];
      const answers = [];
      for (const path of bad) answers.push({ path, ...(({ status, json }) => ({ status, json }))(await get(path)) });
      const invalid = (field: string, message: string) => ({ status: 400, json: error(`Invalid path field '${field}': ${message}.`) });
      expect(answers).toEqual([
        { path: bad[0], ...invalid('round_number', 'expected an integer round number') },
        { path: bad[1], ...invalid('round_number', 'expected an integer round number') },
        { path: bad[2], ...invalid('round_number', 'integer out of range') },
        { path: bad[3], ...invalid('batch_hash', 'expected a hex-encoded batch hash') },
        { path: bad[4], ...invalid('batch_hash', 'expected a hex-encoded batch hash') },
      ]);
    });
  });

  // 400 and 431 are every operation's (malformed requests, oversized headers); 429 is the rate limit's.
  it('are listed in the OpenAPI document with the statuses they answer', async () => {
    const doc = (await request(notMirror.url, 'GET', '/docs/openapi.json')).json as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const listed = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith(`/api/scan${BASE}`))
      .map(([path, ops]) => Object.entries(ops).map(([method, op]) => `${method} ${path} ${Object.keys(op.responses).sort().join(',')}`))
      .flat()
      .sort();
    const p = `/api/scan${BASE}`;
    expect(listed).toEqual([
      `get ${p}/earliest-available 200,400,404,429,431,500,501,502,503`,
      `get ${p}/{round_number}/activity-totals 200,400,404,429,431,500,501,502,503`,
      `get ${p}/{round_number}/batches/{batch_hash} 200,400,404,429,431,500,501,502,503`,
      `get ${p}/{round_number}/root-hash 200,400,404,429,431,500,501,502,503`,
    ]);
  });

  describe('a mirror', () => {
    it('without attestation: the first upstream that answers, past one that answers 501 and one that is unreachable', async () => {
      const get = await mirror([notMirror.url, refused, scanA.url], 1);
      const a = scanAnswers(4_000_000);
      expectAnswer(await get(`${BASE}/earliest-available`), 200, a.earliest);
      expectAnswer(await get(`${BASE}/7/activity-totals`), 200, a.totals);
      expectAnswer(await get(`${BASE}/8/activity-totals`), 200, a.undetermined);
      expectAnswer(await get(`${BASE}/2/activity-totals`), 200, a.cannotProvide);
      expectAnswer(await get(`${BASE}/7/root-hash`), 200, a.root);
      expectAnswer(await get(`${BASE}/8/root-hash`), 200, a.undetermined);
      expectAnswer(await get(`${BASE}/7/batches/${ROOT}`), 200, a.inner);
      expectAnswer(await get(`${BASE}/7/batches/${LEAF_1}`), 200, a.leaf);
      // The upstream's 404 is an answer too, passed on as it came.
      expectAnswer(await get(`${BASE}/7/batches/${LEAF_2}`), 404, error(`No reward batch ${LEAF_2} for round 7`));
      // Malformed input is refused here first and never reaches an upstream.
      const asked = scanA.requests.length;
      expect((await get(`${BASE}/7/batches/nothex`)).status).toBe(400);
      expect(scanA.requests.length).toBe(asked);
    });

    it('names every failure when no upstream answers, a body not of the shape counting as none (503)', async () => {
      const get = await mirror([notMirror.url, wrongShape.url], 1);
      const path = `${BASE}/7/root-hash`;
      const res = await get(path);
      expect(res.status).toBe(503);
      const { error: message } = res.json as { error: string };
      expect(message).toContain(
        `No upstream Scan answered GET ${path}: ${notMirror.url} answered 501 {"error":"The root hash of round 7 is the hash of its tree`,
      );
      expect(message).toContain(`; ${wrongShape.url} answered 200 with a body not of the operation's shape (`);
    });

    it('with attestation: what 2 upstreams answer byte for byte; 502 naming each answer when they disagree', async () => {
      const agree = await mirror([scanC.url, scanA.url, scanB.url], 2);
      expectAnswer(await agree(`${BASE}/7/activity-totals`), 200, scanAnswers(4_000_000).totals);
      expectAnswer(await agree(`${BASE}/7/root-hash`), 200, scanAnswers(4_000_000).root);
      const disagree = await mirror([scanA.url, scanC.url], 2);
      const path = `${BASE}/7/activity-totals`;
      const [a, c] = [JSON.stringify(scanAnswers(4_000_000).totals), JSON.stringify(scanAnswers(5_000_000).totals)];
      const quote = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);
      expectAnswer(
        await disagree(path),
        502,
        error(
          `2 of the 2 upstream Scans must answer GET ${path} identically, but they disagree: ${scanA.url} answered 200 ${quote(a)}; ${scanC.url} answered 200 ${quote(c)}`,
        ),
      );
    });
  });
});
