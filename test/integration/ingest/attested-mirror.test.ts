/**
 * The attested scan source (SCAN_SOURCE_THRESHOLD): four fake upstream Scans serve the same
 * simulated history, one of them byzantine in a different way per run (an amount changed, an
 * element dropped, one invented, two swapped, a verdict rewritten, an import update changed) or
 * down for a while. At threshold 2 the mirror's tables end identical, dump for dump, to an import of
 * the honest history, and the byzantine upstream's disagreements are counted at the positions it
 * lied at. Two upstreams colluding on one wrong element stop the mirror before it, with the
 * position on /status and in the metrics, and it goes on by itself once a quorum forms again.
 */
import type { CanonicalItem, TransactionUpdate } from '../../../src/domain/items';
import type { Source, SourceItem } from '../../../src/ingest/source';
import { createAttestedScanSource, type AttestationObserver } from '../../../src/ingest/sources/attested-scan-source';
import { runWorker } from '../../../src/ingest/worker';
import { createLogger } from '../../../src/internal/logger';
import { createMetrics } from '../../../src/internal/metrics';
import { createTestDatabase, destroyTestDatabase, type TestDatabase } from '../../support/database/database';
import { dumpTables } from '../../support/database/dump';
import { startFakeScan, type FakeScan } from '../../support/fakes/fake-scan';
import { request, startTestApi } from '../../support/http/http';
import { simulatedItems } from '../../support/items/simulated-network';

const items = simulatedItems({ seed: 'attested-mirror', updates: 700, migrations: 2, meanUpdateGapMs: 20_000 });
const logger = createLogger(process.env.TEST_LOG === '1' ? 'info' : 'silent');
const IMPORT_TIME = '0001-01-01T00:00:00.000000Z';

const isImport = (i: CanonicalItem) => i.update?.record_time === IMPORT_TIME;
const isTx = (i: CanonicalItem) => i.update !== null && 'events_by_id' in i.update;
const migrationOf = (i: CanonicalItem) =>
  i.update ? ('events_by_id' in i.update ? i.update.migration_id : i.update.event.migration_id) : i.verdict!.migration_id;
/** The source's position of an element: its /v0/events key. */
const position = (i: CanonicalItem) =>
  JSON.stringify({ migration_id: migrationOf(i), record_time: i.update?.record_time ?? i.verdict!.record_time });
const copy = (list: readonly CanonicalItem[]) => JSON.parse(JSON.stringify(list)) as CanonicalItem[];
/** Index of the n-th element (not an import update) of migration m that satisfies `test`. */
function nth(list: CanonicalItem[], m: number, n: number, test: (i: CanonicalItem) => boolean = () => true): number {
  const found = list.map((item, index) => ({ item, index })).filter(({ item }) => !isImport(item) && migrationOf(item) === m && test(item));
  return found[n]!.index;
}

function arraySource(list: CanonicalItem[]): Source {
  return {
    stream: 'array',
    async *read(from) {
      for (let i = from === undefined ? 0 : Number(from); i < list.length; i++) {
        yield { item: list[i]!, position: String(i + 1), origin: `item ${i}` } satisfies SourceItem;
      }
    },
  };
}

function recorder() {
  const seen = {
    disagreements: [] as { upstream: string; position: string }[],
    unavailable: new Map<string, number>(),
    stalls: [] as string[],
  };
  const observer: AttestationObserver = {
    counted: (upstream, outcome, n) => {
      if (outcome === 'unavailable') seen.unavailable.set(upstream, (seen.unavailable.get(upstream) ?? 0) + n);
    },
    disagreed: (upstream, at) => seen.disagreements.push({ upstream, position: at }),
    stalled: (stall) => stall && seen.stalls.push(stall.position),
  };
  return { seen, observer };
}

async function mirror(t: TestDatabase, scans: FakeScan[], observer: AttestationObserver, signal = new AbortController().signal) {
  const source = createAttestedScanSource({
    urls: scans.map((s) => s.url),
    threshold: 2,
    pageSize: 120,
    pollIntervalMs: 20,
    // Long enough that every upstream's answer counts in every round (all answer in milliseconds), so that each
    // lie is seen where it is told; an upstream that is slower than this is simply not heard in that round.
    graceMs: 5_000,
    stopAtEnd: true,
    logger,
    http: { maxAttempts: 2, baseDelayMs: 5, timeoutMs: 5_000 },
    observer,
  });
  await runWorker({ db: t.db, pool: t.pool, source, logger, batchSize: 200, batchMaxWaitMs: 20 }, signal);
}

const dumpWithoutBlobs = async (t: TestDatabase) => {
  const dump = await dumpTables(t.db);
  delete dump.contract_blobs;
  return dump;
};

describe('the attested scan source (4 upstreams, threshold 2)', () => {
  let honest: TestDatabase;
  let expected: Record<string, string>;
  const databases: TestDatabase[] = [];
  const scans: FakeScan[] = [];

  beforeAll(async () => {
    honest = await createTestDatabase();
    await runWorker(
      { db: honest.db, pool: honest.pool, source: arraySource(items), logger, batchSize: 200, batchMaxWaitMs: 20 },
      new AbortController().signal,
    );
    expected = await dumpWithoutBlobs(honest);
  });
  afterAll(async () => {
    await Promise.all(scans.map((s) => s.close()));
    for (const d of [honest, ...databases]) if (d) await destroyTestDatabase(d);
  });

  /** Three honest upstreams and the given fourth, in the second place. */
  async function upstreams(fourth: CanonicalItem[]): Promise<FakeScan[]> {
    const started = await Promise.all([startFakeScan(items), startFakeScan(fourth), startFakeScan(items), startFakeScan(items)]);
    scans.push(...started);
    return started;
  }

  async function fresh(): Promise<TestDatabase> {
    const d = await createTestDatabase();
    databases.push(d);
    return d;
  }

  it('has the elements the byzantine runs change', () => {
    expect(items.filter(isImport).length).toBeGreaterThan(0);
    expect(new Set(items.map(migrationOf))).toEqual(new Set([0, 1]));
    expect(items.filter((i) => i.verdict && i.update).length).toBeGreaterThan(10);
  });

  const byzantine: [string, (list: CanonicalItem[]) => string][] = [
    [
      'changes an amount',
      (list) => {
        const i = nth(list, 0, 40, (x) => isTx(x) && JSON.stringify(x.update).includes('"initialAmount"'));
        const text = JSON.stringify(list[i]!.update).replace(
          /"initialAmount":"(\d+)\./,
          (_m, d: string) => `"initialAmount":"${Number(d) + 1}.`,
        );
        list[i]!.update = JSON.parse(text) as TransactionUpdate;
        return position(list[i]!);
      },
    ],
    [
      'drops an element',
      (list) => {
        const i = nth(list, 1, 25);
        const at = position(list[i]!);
        list.splice(i, 1);
        return at;
      },
    ],
    [
      'invents an element',
      (list) => {
        const i = nth(list, 0, 100, (x) => isTx(x));
        const invented = JSON.parse(JSON.stringify(list[i]!)) as CanonicalItem;
        const u = invented.update as TransactionUpdate;
        u.update_id = `1220${'ab'.repeat(32)}`;
        u.record_time = u.record_time.replace(/(\d{6})Z$/, (_m, us: string) => `${String(Number(us) + 1).padStart(6, '0')}Z`);
        invented.verdict = null;
        invented.traffic_summary = null;
        invented.app_activity_records = null;
        delete invented.update_protobuf_json;
        list.splice(i + 1, 0, invented);
        return position(invented);
      },
    ],
    [
      'swaps two elements',
      (list) => {
        const i = nth(list, 0, 150);
        const [a, b] = [list[i]!, list[i + 1]!];
        list[i] = b;
        list[i + 1] = a;
        return position(a);
      },
    ],
    [
      'rewrites a verdict',
      (list) => {
        const i = nth(list, 1, 30, (x) => x.verdict !== null && x.update !== null);
        list[i]!.verdict = { ...list[i]!.verdict!, mediator_group: list[i]!.verdict!.mediator_group + 7 };
        return position(list[i]!);
      },
    ],
    [
      'serves a different import update',
      (list) => {
        const i = list.findIndex((x) => isImport(x) && JSON.stringify(x.update).includes('"initialAmount"'));
        const text = JSON.stringify(list[i]!.update).replace(
          /"initialAmount":"(\d+)\./,
          (_m, d: string) => `"initialAmount":"${Number(d) + 5}.`,
        );
        list[i]!.update = JSON.parse(text) as TransactionUpdate;
        delete list[i]!.update_protobuf_json;
        return `import update ${list[i]!.update.update_id} of migration ${migrationOf(list[i]!)}`;
      },
    ],
  ];

  it.each(byzantine)('one upstream %s: the honest history is stored, the lie counted where it was told', async (_name, lie) => {
    const list = copy(items);
    const at = lie(list);
    const scansOfRun = await upstreams(list);
    const { seen, observer } = recorder();
    const t = await fresh();
    await mirror(t, scansOfRun, observer);
    expect(await dumpWithoutBlobs(t)).toEqual(expected);
    expect(seen.disagreements).toEqual([{ upstream: scansOfRun[1]!.url, position: at }]);
    expect(seen.stalls).toEqual([]);
  });

  it('one upstream down for a while: nothing waits for it, nothing is lost', async () => {
    const scansOfRun = await upstreams(items);
    scansOfRun[1]!.faults = Array.from({ length: 12 }, () => ({ status: 500 }));
    const { seen, observer } = recorder();
    const t = await fresh();
    await mirror(t, scansOfRun, observer);
    expect(await dumpWithoutBlobs(t)).toEqual(expected);
    expect(seen.unavailable.get(scansOfRun[1]!.url)).toBeGreaterThan(0);
    expect(seen.disagreements).toEqual([]);
  });

  it('two upstreams colluding: stops before the element, reports it, never stores it, and resumes once a quorum forms', async () => {
    const forged = copy(items);
    const i = nth(forged, 0, 60, (x) => isTx(x) && JSON.stringify(x.update).includes('"initialAmount"'));
    const honestText = JSON.stringify(forged[i]!.update);
    forged[i]!.update = JSON.parse(
      honestText.replace(/"initialAmount":"(\d+)\./, (_m, d: string) => `"initialAmount":"${Number(d) + 1}.`),
    ) as TransactionUpdate;
    const at = position(forged[i]!);
    const colluding = [await startFakeScan(forged), await startFakeScan(forged)];
    const honestOnes = [await startFakeScan(items), await startFakeScan(items)];
    scans.push(...colluding, ...honestOnes);
    const all = [honestOnes[0]!, colluding[0]!, honestOnes[1]!, colluding[1]!];

    const metrics = createMetrics();
    const t = await fresh();
    const api = await startTestApi(t, { metrics });
    const worker = mirror(t, all, metrics.attestationObserver);
    try {
      // It stops at the forged element and says so.
      const deadline = Date.now() + 20_000;
      while (metrics.attestation.stalled === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const status = (await request(api.url, 'GET', '/status')).json as { attestation: { stalled: { position: string; reason: string } } };
      expect(status.attestation.stalled).toMatchObject({ position: at, reason: 'conflict' });
      const metricsText = (await request(api.url, 'GET', '/metrics')).text;
      expect(metricsText).toMatch(/scan_indexer_source_quorum_stalled 1/);
      // Nothing at or after the forged element's key was stored, and the forged element never.
      const forgedId = forged[i]!.update.update_id;
      const { rows } = await t.pool.query<{ n: string }>(
        `select count(*) as n from updates where migration_id > 0 or record_time >= $1::timestamptz or update_id = $2`,
        [forged[i]!.update.record_time, forgedId],
      );
      expect(Number(rows[0]!.n)).toBe(0);

      // The colluders serve the honest element again: a quorum forms and the mirror finishes on its own.
      forged[i]!.update = JSON.parse(honestText) as TransactionUpdate;
    } finally {
      await worker;
      await api.close();
    }
    expect(metrics.attestation.stalled).toBeNull();
    expect(await dumpWithoutBlobs(t)).toEqual(expected);
  });
});
