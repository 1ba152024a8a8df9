/**
 * Upstream faults: a mirror (the scan source, as SOURCE=scan runs it) reads a
 * local upstream Scan through a proxy that turns one answer in ten into a
 * fault, drawn from a fixed seed: a 500, an answer that hangs past the
 * client's timeout, a body cut off in the middle, a 429 with Retry-After, a
 * 503 saying the Scan is still backfilling, or a connection reset.
 *
 * Figures: faults injected, of each kind; retries seen in the source's
 * metrics; items lost (0) and tables differing from the upstream's (0).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createScanSource } from '../../src/ingest/sources/scan-source';
import { runWorker } from '../../src/ingest/worker';
import { createLogger } from '../../src/internal/logger';
import { createMetrics } from '../../src/internal/metrics';
import { Prng } from '../../src/simulator/prng';
import { createTestDatabase, destroyTestDatabase, type TestDatabase } from '../support/database/database';
import { dumpTables } from '../support/database/dump';
import { startTestApi, type TestApi } from '../support/http/http';
import { ingestThroughWorker, simulatedItems } from '../support/items/simulated-network';
import { atScale, recordFigure, recordZero } from './figures';

// Full-scale runs take minutes.
jest.setTimeout(1_800_000);

const PART = 'upstream faults';
const UPDATES = atScale(1_200, 10_000);
const FAULT_SHARE = 0.1;
const KINDS = ['500', 'hang', 'cut-off body', '429 Retry-After', '503 backfilling', 'connection reset'] as const;
type Kind = (typeof KINDS)[number];

/** Forwards to `upstream`, turning a share of the answers into faults. */
function faultyProxy(upstream: string, hangMs: number): { server: http.Server; injected: Map<Kind, number>; answered: () => number } {
  const rng = new Prng('upstream faults');
  const injected = new Map<Kind, number>(KINDS.map((k) => [k, 0]));
  let answered = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const fault = rng.float() < FAULT_SHARE ? KINDS[rng.int(0, KINDS.length - 1)]! : undefined;
      if (fault) injected.set(fault, injected.get(fault)! + 1);
      switch (fault) {
        case '500':
          res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"injected fault"}');
          return;
        case '429 Retry-After':
          res.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' }).end('{"error":"too many requests"}');
          return;
        case '503 backfilling':
          res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"This scan instance has not yet finished backfilling"}');
          return;
        case 'connection reset':
          req.socket.destroy();
          return;
        case 'hang':
          setTimeout(() => req.socket.destroy(), hangMs);
          return;
        default:
      }
      void fetch(`${upstream}${req.url}`, {
        method: req.method,
        headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      }).then(async (answer) => {
        const body = Buffer.from(await answer.arrayBuffer());
        answered += 1;
        res.writeHead(answer.status, {
          'content-type': answer.headers.get('content-type') ?? 'application/json',
          'content-length': String(body.length),
        });
        if (fault === 'cut-off body') {
          res.write(body.subarray(0, Math.floor(body.length / 2)));
          setTimeout(() => req.socket.destroy(), 10);
        } else {
          res.end(body);
        }
      });
    });
  });
  return { server, injected, answered: () => answered };
}

describe('upstream faults', () => {
  let upstream: TestDatabase;
  let mirror: TestDatabase;
  let api: TestApi;
  let proxy: ReturnType<typeof faultyProxy>;
  beforeAll(async () => {
    upstream = await createTestDatabase();
    mirror = await createTestDatabase();
    await ingestThroughWorker(
      upstream,
      simulatedItems({ seed: 'upstream-faults', updates: UPDATES, migrations: 2, meanUpdateGapMs: 20_000 }),
    );
    api = await startTestApi(upstream);
    proxy = faultyProxy(api.url, 1_500);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    proxy?.server.closeAllConnections();
    await new Promise((resolve) => proxy?.server.close(resolve));
    await api?.close();
    if (upstream) await destroyTestDatabase(upstream);
    if (mirror) await destroyTestDatabase(mirror);
  });

  it('mirrors the upstream through one fault in ten and ends with its tables', async () => {
    const metrics = createMetrics();
    const proxyUrl = `http://127.0.0.1:${(proxy.server.address() as AddressInfo).port}`;
    const source = createScanSource({
      urls: [proxyUrl],
      // Small pages: more requests, so more faults.
      pageSize: 20,
      stopAtEnd: true,
      logger: createLogger('silent'),
      http: {
        timeoutMs: 1_000,
        baseDelayMs: 5,
        maxDelayMs: 50,
        observe: (origin, outcome) => metrics.sourceRequest('scan', origin, outcome),
      },
    });
    await runWorker(
      { db: mirror.db, pool: mirror.pool, source, logger: createLogger('silent'), metrics, batchSize: 200, batchMaxWaitMs: 20 },
      new AbortController().signal,
    );

    const [expected, got] = await Promise.all([dumpTables(upstream.db), dumpTables(mirror.db)]);
    // Blobs are copied by a separate job (src/ingest/blob-mirror.ts), not by the stream this test faults.
    const tables = Object.keys(expected).filter((table) => table !== 'contract_blobs');
    const differing = tables.filter((table) => expected[table] !== got[table]);
    const upstreamUpdates = expected.updates!.split('\n').filter(Boolean).length;
    const mirroredUpdates = got.updates!.split('\n').filter(Boolean).length;
    const exposition = await metrics.registry.metrics();
    const retried = [...exposition.matchAll(/^scan_indexer_source_requests_total\{[^}]*outcome="retried"[^}]*\} (\d+)/gm)].reduce(
      (sum, m) => sum + Number(m[1]),
      0,
    );
    const injected = [...proxy.injected.values()].reduce((a, b) => a + b, 0);

    recordFigure({
      part: PART,
      figure: `faults injected (${KINDS.map((k) => `${k} ${proxy.injected.get(k)}`).join(', ')})`,
      value: injected,
      target: `every kind, ~${FAULT_SHARE * 100}% of requests`,
      ok: KINDS.every((k) => proxy.injected.get(k)! > 0),
    });
    recordFigure({ part: PART, figure: 'retries in the source metrics', value: retried, target: '> 0', ok: retried > 0 });
    recordZero(PART, 'items lost', upstreamUpdates - mirroredUpdates);
    recordZero(PART, 'tables differing from the upstream', differing.length);
    expect(KINDS.filter((k) => proxy.injected.get(k) === 0)).toEqual([]);
    expect(retried).toBeGreaterThan(0);
    expect(differing).toEqual([]);
  });
});
