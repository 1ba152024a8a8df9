/**
 * A mirror (SOURCE=scan) asks its upstream Scans for what the indexer cannot know (src/api/scan/upstream-answers.ts):
 * traffic status, participant ids, BFT sequencers, the active synchronizer serial. The upstreams are real HTTP servers:
 * small Scans answering in Splice's shapes (scan.yaml), and an indexer that is no mirror, which answers 501. Expected
 * bodies are what the upstreams were told to answer, byte for byte.
 */
import { useTestDatabase } from '../../support/database/database';
import { refusedUrl, startFakeServer, type FakeServer } from '../../support/fakes/fake-server';
import { request, startTestApi, type TestApi } from '../../support/http/http';

const SYNC = 'global-domain::1220aaaa';
const MEMBER = 'PAR::participant1::1220bbbb';
const PARTY = 'alice::1220cccc';
const PARTICIPANT = 'PAR::participant1::1220bbbb';

/** What one small Scan knows; `consumed` tells Scans apart. */
function scanAnswers(consumed: number) {
  return {
    traffic: { traffic_status: { actual: { total_consumed: consumed, total_limit: 500_000 }, target: { total_purchased: 600_000 } } },
    participant: { participant_id: PARTICIPANT },
    participants: { participant_ids: [PARTICIPANT, 'PAR::participant2::1220dddd'] },
    sequencers: { bftSequencers: [{ serialId: 1, id: 'SEQ::sv1::1220eeee', p2pUrl: 'https://sequencer-p2p.sv1.example' }] },
    serial: { serial: 1 },
  };
}

/** A Scan of an SV: its answers, 404 for a party or member it does not know, as Splice's handler does. */
async function startSmallScan(consumed: number, shape: 'splice' | 'wrong' = 'splice'): Promise<FakeServer> {
  const a = scanAnswers(consumed);
  const base = `/api/scan/v0/domains/${SYNC}`;
  return startFakeServer(({ path: encoded }) => {
    const path = decodeURIComponent(encoded);
    if (shape === 'wrong') return { body: { traffic_status: { actual: { total_consumed: 'lots' } } } };
    if (path === `${base}/members/${MEMBER}/traffic-status`) return { body: a.traffic };
    if (path === `${base}/parties/${PARTY}/participant-id`) return { body: a.participant };
    if (path === `/api/scan/v1/domains/${SYNC}/parties/${PARTY}/participant-id`) return { body: a.participants };
    if (path === '/api/scan/v0/sv-bft-sequencers') return { body: a.sequencers };
    if (path === '/api/scan/v0/active-synchronizer-serial') return { body: a.serial };
    if (path.endsWith('/participant-id'))
      return { status: 404, body: { error: `No participant found hosting party ${path.split('/')[7]}` } };
    return { status: 404, body: { error: `unknown path ${path}` } };
  });
}

const enc = encodeURIComponent;
const PATHS = {
  traffic: `/v0/domains/${enc(SYNC)}/members/${enc(MEMBER)}/traffic-status`,
  participant: `/v0/domains/${enc(SYNC)}/parties/${enc(PARTY)}/participant-id`,
  participants: `/v1/domains/${enc(SYNC)}/parties/${enc(PARTY)}/participant-id`,
  sequencers: '/v0/sv-bft-sequencers',
  serial: '/v0/active-synchronizer-serial',
} as const;

function expectAnswer(res: { status: number; text: string; json: unknown }, status: number, body: unknown): void {
  expect({ status: res.status, body: res.json }).toEqual({ status, body });
  expect(res.text).toBe(JSON.stringify(body));
}

describe('a mirror asks its upstream Scans for what the indexer cannot know', () => {
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

  beforeAll(async () => {
    // An upstream that is itself an indexer and no mirror: it answers these operations 501.
    notMirror = await startTestApi(t);
    scanA = await startSmallScan(1000);
    scanB = await startSmallScan(1000);
    scanC = await startSmallScan(2000);
    wrongShape = await startSmallScan(1000, 'wrong');
    refused = await refusedUrl();
  });
  afterAll(async () => {
    for (const api of [...mirrors, notMirror]) await api?.close();
    for (const s of [scanA, scanB, scanC, wrongShape]) await s?.close();
  });

  it('without attestation: the first upstream that answers, past one that answers 501 and one that is unreachable', async () => {
    const get = await mirror([notMirror.url, refused, scanA.url], 1);
    const a = scanAnswers(1000);
    expectAnswer(await get(PATHS.traffic), 200, a.traffic);
    expectAnswer(await get(PATHS.participant), 200, a.participant);
    expectAnswer(await get(PATHS.participants), 200, a.participants);
    expectAnswer(await get(PATHS.sequencers), 200, a.sequencers);
    // The upstream's 404 is an answer too, passed on as it came.
    const stranger = 'bob::1220ffff';
    expectAnswer(await get(`/v0/domains/${enc(SYNC)}/parties/${enc(stranger)}/participant-id`), 404, {
      error: `No participant found hosting party ${stranger}`,
    });
    // The party is checked here first, as the 501 did: a bad one never reaches an upstream.
    const asked = scanA.requests.length;
    expectAnswer(await get(`/v0/domains/${enc(SYNC)}/parties/${enc('::1220ab')}/participant-id`), 400, {
      error: 'Invalid unique identifier `::1220ab` with empty identifier.',
    });
    expect(scanA.requests.length).toBe(asked);
  });

  it('names every failure when no upstream answers, a body not of the shape counting as none (503)', async () => {
    const get = await mirror([notMirror.url, wrongShape.url], 1);
    const res = await get(PATHS.traffic);
    expect(res.status).toBe(503);
    const { error } = res.json as { error: string };
    expect(error).toContain(
      `No upstream Scan answered GET ${PATHS.traffic}: ${notMirror.url} answered 501 {"error":"The traffic status of ${MEMBER}`,
    );
    expect(error).toContain(`; ${wrongShape.url} answered 200 with a body not of the operation's shape (`);
    expect(error).toContain('at traffic_status.actual.total_consumed)');
  });

  it('with attestation: the answer that `threshold` upstreams give byte for byte', async () => {
    const get = await mirror([scanC.url, scanA.url, scanB.url], 2);
    const a = scanAnswers(1000);
    expectAnswer(await get(PATHS.traffic), 200, a.traffic);
    // Where the odd one agrees (it differs only in the traffic it counts), all three do.
    expectAnswer(await get(PATHS.sequencers), 200, a.sequencers);
    expectAnswer(await get(PATHS.serial), 200, a.serial);
    expect(scanC.requests.some((r) => r.path.endsWith('/traffic-status'))).toBe(true);
  });

  it('with attestation: 502 naming each answer when they disagree, 503 when too few answer', async () => {
    const disagree = await mirror([scanA.url, scanC.url], 2);
    const res = await disagree(PATHS.traffic);
    const [a, c] = [JSON.stringify(scanAnswers(1000).traffic), JSON.stringify(scanAnswers(2000).traffic)];
    expectAnswer(res, 502, {
      error: `2 of the 2 upstream Scans must answer GET ${PATHS.traffic} identically, but they disagree: ${scanA.url} answered 200 ${a}; ${scanC.url} answered 200 ${c}`,
    });
    const tooFew = await mirror([scanA.url, notMirror.url, refused], 2);
    const few = await tooFew(PATHS.sequencers);
    expect(few.status).toBe(503);
    const { error } = few.json as { error: string };
    expect(error).toMatch(
      new RegExp(
        `^2 of the 3 upstream Scans must answer GET /v0/sv-bft-sequencers identically, but only 1 answered: ${notMirror.url} answered 501 .*; ${refused} unreachable \\(`,
      ),
    );
  });

  it('an indexer that is no mirror answers 501 as before; its 404 (no AmuletRules) is an answer a mirror passes on', async () => {
    const res = await request(notMirror.url, 'GET', `/api/scan${PATHS.sequencers}`);
    expect(res.status).toBe(501);
    const get = await mirror([refused, notMirror.url, scanA.url], 1);
    expectAnswer(await get(PATHS.serial), 404, { error: 'No amulet rules' });
  });
});
