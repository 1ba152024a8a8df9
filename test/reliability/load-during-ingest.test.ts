/**
 * Load during ingest: the service as `npm start` runs it (API and worker in one
 * process, the simulator as source, producing as fast as it is written), first
 * idle, then under concurrent API clients (autocannon) asking what wallets and
 * explorers ask: rounds, DSO, update pages, ANS entries, ACS snapshots.
 *
 * Figures: errors (0: no 5xx, no failed connection, no timeout), p50 and p99
 * latency, and the ingest rate under load against the idle rate.
 */
import { useTestDatabase } from '../support/database/database';
import { atScale, recordFigure, recordZero } from './figures';
import { GENEROUS_LIMITS } from '../support/http/http';
import { startServerProcess, type ServerProcess } from './server-process';

// autocannon's programmatic API (the package has no type declarations).
interface AutocannonRequest {
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
}
interface AutocannonResult {
  requests: { total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  '4xx': number;
  '5xx': number;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (opts: Record<string, unknown>) => Promise<AutocannonResult>;

// Full-scale runs take minutes.
jest.setTimeout(600_000);

const PART = 'load during ingest';
const CONNECTIONS = atScale(10, 50);
const SECONDS = atScale(5, 60);
const IDLE_SECONDS = atScale(4, 20);

async function itemsApplied(url: string): Promise<number> {
  const status = (await (await fetch(`${url}/status`)).json()) as { streams: { items_applied: number }[] };
  return status.streams.reduce((sum, s) => sum + Number(s.items_applied), 0);
}

async function rateOver(url: string, seconds: number): Promise<number> {
  const before = await itemsApplied(url);
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  return ((await itemsApplied(url)) - before) / ((performance.now() - started) / 1000);
}

describe('load during ingest', () => {
  const t = useTestDatabase();
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServerProcess('start', {
      // Fifty clients from 127.0.0.1 measure the server, not the limits: theirs are far above the load.
      ...GENEROUS_LIMITS,
      DATABASE_URL: t.url,
      SOURCE: 'simulator',
      SIMULATOR_MODE: 'backfill',
      SIMULATOR_RATE: '5',
      SIMULATOR_SEED: '7',
      LEDGER_AUTH_DISABLED: 'true',
      API_CLOCK: 'ledger',
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it(`serves ${CONNECTIONS} concurrent clients for ${SECONDS} s without an error while ingesting`, async () => {
    // Let ingestion pass the genesis and the first snapshot, so that every request has something to read.
    for (let i = 0; i < 100 && (await itemsApplied(server.url)) < 500; i++) await new Promise((r) => setTimeout(r, 200));
    const idleRate = await rateOver(server.url, IDLE_SECONDS);

    const json = { 'content-type': 'application/json' };
    const requests: AutocannonRequest[] = [
      {
        method: 'POST',
        path: '/api/scan/v0/open-and-issuing-mining-rounds',
        headers: json,
        body: '{"cached_open_mining_round_contract_ids":[],"cached_issuing_round_contract_ids":[]}',
      },
      { method: 'GET', path: '/api/scan/v0/dso' },
      { method: 'POST', path: '/api/scan/v2/updates', headers: json, body: '{"page_size":50}' },
      { method: 'POST', path: '/api/scan/v0/events', headers: json, body: '{"page_size":50}' },
      { method: 'GET', path: '/api/scan/v0/ans-entries?page_size=50' },
      { method: 'POST', path: '/api/scan/v0/amulet-rules', headers: json, body: '{}' },
      { method: 'GET', path: '/api/scan/v0/state/acs/snapshot-timestamp?before=2100-01-01T00:00:00Z&migration_id=0' },
      { method: 'GET', path: '/api/validator/v0/scan-proxy/open-and-issuing-mining-rounds' },
    ];
    const before = await itemsApplied(server.url);
    const started = performance.now();
    const result = await autocannon({ url: server.url, connections: CONNECTIONS, duration: SECONDS, requests, timeout: 30 });
    const loadRate = ((await itemsApplied(server.url)) - before) / ((performance.now() - started) / 1000);

    const serverErrors = result['5xx'];
    const failures = result.errors + result.timeouts;
    // 404 answers are allowed (a DSO without three open rounds yet); anything else non-2xx is an error here.
    const unexpected = result.non2xx - result['4xx'] - serverErrors;
    recordFigure({
      part: PART,
      figure: `requests (${CONNECTIONS} clients, ${SECONDS} s)`,
      value: result.requests.total,
      target: '',
      ok: true,
    });
    recordZero(PART, 'errors (5xx, failed connections, timeouts)', serverErrors + failures + unexpected);
    recordFigure({
      part: PART,
      figure: 'p50 / p99 latency (ms)',
      value: `${result.latency.p50} / ${result.latency.p99}`,
      target: '',
      ok: true,
    });
    recordFigure({
      part: PART,
      figure: 'ingest rate under load / idle (items/s)',
      value: `${Math.round(loadRate)} / ${Math.round(idleRate)} (${(loadRate / idleRate).toFixed(2)}×)`,
      target: 'ingestion continues',
      ok: loadRate > 0,
    });
    recordZero(PART, 'process exits', server.exits.length);
    expect({ serverErrors, failures, unexpected }).toEqual({ serverErrors: 0, failures: 0, unexpected: 0 });
    expect(loadRate).toBeGreaterThan(0);
    expect(server.exits).toEqual([]);
  });
});
