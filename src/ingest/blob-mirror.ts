/**
 * A mirror's created-event blobs. Scan's update streams carry none, so a
 * scan-indexer that mirrors another Scan (SOURCE=scan) copies them from the
 * upstream's contract endpoints, the same ones it serves itself: whatever
 * `Contract` those answers hold (an object with `contract_id` and a non-empty
 * `created_event_blob`) is stored for that contract id. The endpoints that
 * list every contract they serve are asked as they are; those that answer per
 * party (preapprovals, command counters, command status) are asked for the
 * parties of the live contracts here that still lack a blob. An upstream that
 * gives "" stores nothing, and the contract is served with "" as there.
 *
 * It runs on a timer while the worker runs (SCAN_SOURCE_BLOB_INTERVAL_MS) and
 * once more when the worker ends at the upstream's end (runtime.ts), so a
 * contract created upstream has its blob one round after it is ingested.
 * A failing request is logged and skipped: blobs never hold ingestion up.
 * With several upstreams and an attestation threshold above 1
 * (SCAN_SOURCE_THRESHOLD), every upstream is asked and only a blob that the
 * threshold of them give identically is stored, as for the history.
 */
import { SPLICE, type TemplateKey } from '../domain/splice-contracts';
import type { Logger } from '../internal/logger';
import { listLiveContractsWithoutBlob } from '../store/contract-repository';
import { storeContractBlobs } from '../store/ingest-repository';
import type { ContractBlobRow } from '../store/ingest-rows';
import type { Db } from '../store/pool';
import { createHttpClient, HttpStatusError, type HttpClientOptions, type JsonRequest } from './http-client';

export interface BlobMirrorOptions {
  /** Base URLs of the upstream Scans (without /api/scan); with threshold 1, the first that answers is used. */
  urls: readonly string[];
  /** How many upstreams must give the same blob for a contract before it is stored (default 1). */
  threshold?: number;
  db: Db;
  logger: Logger;
  http?: HttpClientOptions;
  /** Per-party requests per round, at most (default 200). */
  maxPartyRequests?: number;
}

export interface BlobMirrorRound {
  /** Requests answered, and blobs added or changed. */
  requests: number;
  stored: number;
  /** Requests that failed (logged). */
  failed: number;
}

/** A request to an upstream, relative to its /api/scan. */
type UpstreamRequest = Pick<JsonRequest, 'method' | 'body'> & { path: string };

/** Endpoints that answer with every contract of their kind. */
const LISTING_REQUESTS: readonly UpstreamRequest[] = [
  { method: 'GET', path: '/v0/dso' },
  { method: 'POST', path: '/v0/amulet-rules', body: {} },
  { method: 'POST', path: '/v0/external-party-amulet-rules', body: {} },
  { method: 'POST', path: '/v0/ans-rules', body: {} },
  {
    method: 'POST',
    path: '/v0/open-and-issuing-mining-rounds',
    body: { cached_open_mining_round_contract_ids: [], cached_issuing_round_contract_ids: [] },
  },
  { method: 'GET', path: '/v0/closed-rounds' },
  { method: 'GET', path: '/v0/featured-apps' },
  { method: 'GET', path: '/v0/unclaimed-development-fund-coupons' },
  { method: 'GET', path: '/v0/admin/sv/voterequests' },
];

/** Endpoints that answer per party, with the live contracts whose payload names the party. */
const PER_PARTY: readonly { template: TemplateKey; path: (payload: Record<string, unknown>) => string | undefined }[] = [
  {
    template: SPLICE.transferPreapproval,
    path: (p) => (typeof p.receiver === 'string' ? `/v0/transfer-preapprovals/by-party/${encodeURIComponent(p.receiver)}` : undefined),
  },
  {
    template: SPLICE.transferCommandCounter,
    path: (p) => (typeof p.sender === 'string' ? `/v0/transfer-command-counter/${encodeURIComponent(p.sender)}` : undefined),
  },
  {
    template: SPLICE.transferCommand,
    path: (p) =>
      typeof p.sender === 'string' && (typeof p.nonce === 'string' || typeof p.nonce === 'number')
        ? `/v0/transfer-command/status?sender=${encodeURIComponent(p.sender)}&nonce=${encodeURIComponent(String(p.nonce))}`
        : undefined,
  },
];

/** Every `{contract_id, created_event_blob}` with a non-empty blob anywhere in a JSON answer. */
function blobsIn(body: unknown, into: Map<string, string> = new Map()): Map<string, string> {
  if (Array.isArray(body)) {
    for (const element of body) blobsIn(element, into);
  } else if (typeof body === 'object' && body !== null) {
    const o = body as Record<string, unknown>;
    if (typeof o.contract_id === 'string' && typeof o.created_event_blob === 'string' && o.created_event_blob !== '') {
      into.set(o.contract_id, o.created_event_blob);
    }
    for (const value of Object.values(o)) if (typeof value === 'object') blobsIn(value, into);
  }
  return into;
}

export function createBlobMirror(options: BlobMirrorOptions) {
  const { db, logger } = options;
  const http = createHttpClient(logger, { maxAttempts: 3, ...options.http });
  const maxPartyRequests = options.maxPartyRequests ?? 200;

  /** The answer of the first of `urls` that gives one; undefined for a 404 (nothing of that kind). */
  async function ask(urls: readonly string[], request: UpstreamRequest, signal: AbortSignal): Promise<unknown> {
    let failure: unknown;
    for (const url of urls) {
      try {
        return await http.json({ method: request.method, url: `${url}/api/scan${request.path}`, body: request.body }, signal);
      } catch (err) {
        if (signal.aborted) throw err;
        if (err instanceof HttpStatusError && err.status === 404) return undefined;
        failure = err;
      }
    }
    throw failure;
  }

  /** Asks every endpoint once of the first of `urls` that answers; the blobs found. */
  async function collect(urls: readonly string[], result: BlobMirrorRound, signal: AbortSignal): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    const requests: UpstreamRequest[] = [...LISTING_REQUESTS];
    for (const { template, path } of PER_PARTY) {
      const lacking = await listLiveContractsWithoutBlob(db, template, maxPartyRequests);
      const paths = new Set<string>();
      for (const c of lacking) {
        const p = path(JSON.parse(c.payload) as Record<string, unknown>);
        if (p !== undefined) paths.add(p);
      }
      for (const p of paths) requests.push({ method: 'GET', path: p });
    }
    for (const request of requests) {
      try {
        blobsIn(await ask(urls, request, signal), found);
        result.requests += 1;
      } catch (err) {
        if (signal.aborted) throw err;
        result.failed += 1;
        logger.warn({ path: request.path, err: (err as Error).message }, 'could not read created-event blobs from the upstream');
      }
    }
    // Validator licenses come in pages (of 1,000; at most 100 pages a round).
    let after: string | undefined;
    for (let page = 0; page < 100; page++) {
      const path = `/v0/admin/validator/licenses?limit=1000${after === undefined ? '' : `&after=${after}`}`;
      try {
        const body = (await ask(urls, { method: 'GET', path }, signal)) as { next_page_token?: unknown } | undefined;
        result.requests += 1;
        blobsIn(body, found);
        const next = body?.next_page_token;
        if (typeof next !== 'number' && typeof next !== 'string') break;
        after = String(next);
      } catch (err) {
        if (signal.aborted) throw err;
        result.failed += 1;
        logger.warn({ path, err: (err as Error).message }, 'could not read created-event blobs from the upstream');
        break;
      }
    }
    return found;
  }

  /**
   * One round: the blobs of every endpoint, stored. With a threshold above 1 every upstream is asked
   * and a blob is stored only when that many upstreams gave the same one for the contract.
   */
  async function round(signal: AbortSignal): Promise<BlobMirrorRound> {
    const result: BlobMirrorRound = { requests: 0, stored: 0, failed: 0 };
    const threshold = options.threshold ?? 1;
    let found: Map<string, string>;
    if (threshold <= 1) {
      found = await collect(options.urls, result, signal);
    } else {
      const votes = new Map<string, number>();
      for (const url of options.urls) {
        for (const [cid, blob] of await collect([url], result, signal)) {
          const key = JSON.stringify([cid, blob]);
          votes.set(key, (votes.get(key) ?? 0) + 1);
        }
      }
      found = new Map([...votes].filter(([, n]) => n >= threshold).map(([key]) => JSON.parse(key) as [string, string]));
    }
    const rows: ContractBlobRow[] = [...found].map(([contract_id, blob]) => ({ contract_id, blob }));
    result.stored = await storeContractBlobs(db, rows);
    if (result.stored > 0) logger.info({ stored: result.stored }, 'created-event blobs copied from the upstream');
    return result;
  }

  return { round };
}
