/**
 * The `ledger` source: a Canton participant's JSON Ledger API v2 (docs/interfaces.md,
 * "Ledger API: reading updates"). It reads the ledger-effects update stream of one party
 * by offset and converts each transaction and reassignment into the
 * canonical item (ledger-conversion.ts). The participant has no verdicts,
 * traffic summaries or app-activity records, so those are null.
 *
 * Paging: learn the ledger end, then ask for (offset, end] at most
 * `pageSize` elements at a time. With `endInclusive` set and no idle timeout
 * the server answers only once the range is complete or the limit is
 * reached, so a short answer means the range is exhausted, even if the
 * party saw nothing in its tail. Then poll the ledger end again.
 *
 * Position: the offset of the item, as a decimal string. Offsets are
 * participant-local, so the stream name includes the participant URL.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { isTransaction, type Update } from '../../domain/items';
import type { Logger } from '../../internal/logger';
import { createHttpClient, UpstreamError, type HttpClientOptions, type JsonRequest } from '../http-client';
import { SourceItemError, type Source, type SourceItem } from '../source';
import { convertUpdatesResponse, LedgerConversionError } from './ledger-conversion';
import { integer, object, ShapeError } from './shape';

export interface LedgerSourceOptions {
  /** Base URL of the JSON Ledger API, e.g. http://participant:7575 (no /v2). */
  url: string;
  /** Bearer token, or a provider called before every request so it can refresh; absent for an unauthenticated participant. */
  token?: string | (() => Promise<string>);
  /** The party whose updates are read (wildcard filter). */
  party: string;
  /** The migration id written into every item. */
  migrationId: number;
  /** Keep only updates on this synchronizer (transactions on it, reassignments into or out of it). */
  synchronizer?: string;
  /** Elements per `POST /v2/updates` call; the server's default list limit is 200 (default 200). */
  pageSize?: number;
  /** Wait between ledger-end polls once caught up (default 1000 ms). */
  pollIntervalMs?: number;
  /** End at the ledger end instead of polling (backfills, tests). */
  stopAtEnd?: boolean;
  logger: Logger;
  http?: HttpClientOptions;
}

function wildcardFilter(party: string) {
  return {
    filtersByParty: {
      [party]: { cumulative: [{ identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: true } } } }] },
    },
    verbose: false,
  };
}

function parseOffset(position: string): number {
  if (!/^\d+$/.test(position) || !Number.isSafeInteger(Number(position))) {
    throw new Error(`Invalid ledger checkpoint '${position}': expected a ledger offset (a non-negative integer)`);
  }
  return Number(position);
}

function onSynchronizer(update: Update, synchronizer: string): boolean {
  if (isTransaction(update)) return update.synchronizer_id === synchronizer;
  return update.event.source_synchronizer === synchronizer || update.event.target_synchronizer === synchronizer;
}

export function createLedgerSource(options: LedgerSourceOptions): Source {
  const base = options.url.replace(/\/+$/, '');
  const pageSize = options.pageSize ?? 200;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const logger = options.logger.child({ source: 'ledger', url: base });
  // 409 and 503 are what the ledger API answers for contention and overload; a provider's token may have just expired.
  const retryStatuses = [409, ...(typeof options.token === 'function' ? [401] : [])];
  const http = createHttpClient(logger, { ...options.http, retryStatuses: [...(options.http?.retryStatuses ?? []), ...retryStatuses] });
  const token = options.token;
  const headers = async (): Promise<Record<string, string>> =>
    token === undefined ? {} : { authorization: `Bearer ${typeof token === 'string' ? token : await token()}` };
  const updateFormat = {
    includeTransactions: { eventFormat: wildcardFilter(options.party), transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' },
    includeReassignments: wildcardFilter(options.party),
  };

  // A live source rides out outages: when the client gives up, log it and start another round of attempts.
  async function request(req: JsonRequest, signal: AbortSignal): Promise<unknown> {
    for (;;) {
      try {
        return await http.json(req, signal);
      } catch (err) {
        // Fresh tokens that are still refused are a misconfiguration, not an outage.
        if (!(err instanceof UpstreamError) || err.status === 401) throw err;
        logger.warn({ err: err.message }, 'participant still failing, trying again');
      }
    }
  }

  async function ledgerEnd(signal: AbortSignal): Promise<number> {
    const url = `${base}/v2/state/ledger-end`;
    const body = await request({ method: 'GET', url, headers }, signal);
    try {
      return integer(object(body, 'response'), 'offset', 'response');
    } catch (err) {
      if (err instanceof ShapeError) throw new Error(`GET ${url}: unexpected answer: ${err.message}`, { cause: err });
      throw err;
    }
  }

  async function updatesPage(after: number, end: number, signal: AbortSignal): Promise<unknown[]> {
    const url = `${base}/v2/updates?limit=${pageSize}`;
    const body = { beginExclusive: after, endInclusive: end, updateFormat };
    const page = await request({ method: 'POST', url, body, headers }, signal);
    if (!Array.isArray(page)) throw new SourceItemError(`${url} after offset ${after}`, undefined, 'expected a JSON array of updates');
    return page as unknown[];
  }

  async function* readFrom(from: string | undefined, signal: AbortSignal): AsyncGenerator<SourceItem> {
    let offset = from === undefined ? 0 : parseOffset(from);
    for (;;) {
      const end = await ledgerEnd(signal);
      if (end < offset) {
        throw new Error(
          `Checkpoint offset ${offset} is after the ledger end ${end} of ${base}: is this the participant the checkpoint came from?`,
        );
      }
      while (offset < end) {
        const page = await updatesPage(offset, end, signal);
        for (const response of page) {
          let converted;
          try {
            converted = convertUpdatesResponse(response, options.migrationId);
          } catch (err) {
            if (err instanceof LedgerConversionError)
              throw new SourceItemError(`${base}/v2/updates after offset ${offset}`, err.updateId, err.message);
            throw err;
          }
          const origin = `${base}/v2/updates offset ${converted.offset}`;
          if (converted.offset <= offset || converted.offset > end) {
            const updateId = converted.kind === 'update' ? converted.update.update_id : undefined;
            throw new SourceItemError(origin, updateId, `offset outside the requested range (${offset}, ${end}]`);
          }
          offset = converted.offset;
          if (converted.kind === 'offset') continue;
          if (options.synchronizer !== undefined && !onSynchronizer(converted.update, options.synchronizer)) continue;
          yield {
            item: {
              update: converted.update,
              verdict: null,
              traffic_summary: null,
              app_activity_records: null,
              ...(converted.blobs ? { created_event_blobs: converted.blobs } : {}),
            },
            position: String(converted.offset),
            origin,
          };
        }
        // A short page: the range is exhausted, whatever the party saw of its tail.
        if (page.length < pageSize) offset = end;
      }
      if (options.stopAtEnd) return;
      await delay(pollIntervalMs, undefined, { signal });
    }
  }

  return {
    stream: `ledger:${base}#${options.party}`,
    async *read(from, signal) {
      try {
        yield* readFrom(from, signal);
      } catch (err) {
        // Aborting is how a live source is stopped, not a failure.
        if (signal.aborted) return;
        throw err;
      }
    },
  };
}
