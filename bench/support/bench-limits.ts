/**
 * Rate limits for a server under a bench's load. The load generator is one client on 127.0.0.1: limits far
 * above any load it makes, so that a bench measures the server, the limiters' per-request work included
 * (the deployed in-memory limiter stays mounted), and never a refusal.
 */
export const BENCH_LIMITS: Readonly<Record<string, string>> = {
  RATE_LIMIT_SCAN: '1000000000,1000000000',
  RATE_LIMIT_SCAN_PROXY: '1000000000,1000000000',
  RATE_LIMIT_REGISTRY: '1000000000,1000000000',
  RATE_LIMIT_INDEXER: '1000000000,1000000000',
  RATE_LIMIT_LEDGER: '1000000000,1000000000',
  RATE_LIMIT_STREAMING: '1000000000,1000000000',
  HEAVY_REQUEST_CONCURRENCY: '0',
};
