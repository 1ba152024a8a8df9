/**
 * The `scan` source: mirrors one or more upstream Scan instances (or other
 * scan-indexers) through `POST /api/scan/v0/events` (docs/interfaces.md,
 * "Scan: events"), whose elements already are canonical items.
 *
 * Paging and why nothing is skipped or repeated. Scan returns the events
 * strictly after `after = (M, T)`: those of migration M with record time
 * > T, then every later migration from its beginning, ordered by
 * (migration_id, record_time). /v0/events merges updates and verdicts into
 * one map keyed by (migration_id, record_time), so no two elements share a
 * key. The cursor is the key of the last element received; the next page
 * therefore starts at exactly the first element after it, and an element
 * that shares its record time with another exists only in another
 * migration, which orders by migration first. Every key is checked to be
 * strictly greater than the one before (across pages too), so an upstream
 * that broke this would stop ingestion rather than lose data silently.
 * (`/v2/updates` could not be paged this way: there two updates on different
 * synchronizers may share a key, and a page boundary between them would
 * skip the second.)
 *
 * The protobuf_json rendering of the same updates comes from a second
 * `/v0/events` call with the same cursor, made after the compact one on the
 * same URL. What Scan has served never changes and its cap only moves
 * forward, so that answer begins with the same elements; they are matched by
 * update id. An upstream that refuses protobuf_json (a 4xx) leaves
 * `update_protobuf_json` absent.
 *
 * A full page means more may follow, so the next page is fetched while this
 * one is consumed (one page of read-ahead, bounded). A short page means the
 * upstream has nothing more for now: the live source polls, `stopAtEnd` ends.
 *
 * Several URLs are mirrors of the same network, so the cursor is valid on
 * each: when one keeps failing (the client gave up), the page is asked of
 * the next, round-robin, indefinitely. With one URL a 503 (still
 * backfilling) is waited out; with several it counts as a failure, because
 * Scan's own message says to "connect to a different scan instance".
 *
 * Import updates. After a hard migration, the ACS of migration M-1 is
 * carried into M by import updates (record time 0001-01-01), which Scan
 * leaves out of /v0/events and /v2/updates. They are read from
 * `POST /v0/backfilling/import-updates` (Scan's own peer backfilling
 * endpoint: `{migration_id, after_update_id, limit}`, pages by update id)
 * when the stream first reaches migration M, and yielded before M's first
 * event, which is where their record time puts them. Scan answers that
 * endpoint in protobuf_json only; the compact_json rendering is asked for
 * with a `daml_value_encoding` field (honoured by scan-indexer), and when an
 * upstream ignores it (both answers equal) each import update is fetched in
 * compact_json by id from `GET /v2/updates/{update_id}`, which serves import
 * updates. A Scan backfills import updates apart from the rest, so they are
 * read only once migration-info reports `import_updates_complete` for the
 * migration (waited for, polling). Import items are converted from Scan's v1 item (`offset` removed,
 * `events_by_id` sorted by id) to the canonical v2 item. A page that enters a
 * migration is not read ahead, so the import pages follow it in order.
 *
 * Position: `{"migration_id":M,"record_time":"…six digits…Z"}`; within the
 * import updates of M, `{"migration_id":M,"record_time":"0001-01-01T00:00:00.000000Z",
 * "after_import_update_id":"<last import update id>"}`.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { DamlValueEncoding } from '../../domain/value-encoding';
import { IMPORT_RECORD_TIME } from '../../domain/time';
import type { Logger } from '../../internal/logger';
import { createHttpClient, UpstreamError, type HttpClientOptions } from '../http-client';
import type { Source, SourceItem } from '../source';
import { createUpstreamReader, parsePosition, type Cursor, type Page } from './scan-upstream';

export interface ScanSourceOptions {
  /** Base URLs of Scan instances of one network, e.g. https://scan.sv-1.example.com (without /api/scan). */
  urls: readonly string[];
  /** Elements per request; Scan allows at most 1000 (default 1000). */
  pageSize?: number;
  /** Renderings to fetch; compact_json is always fetched (default both). */
  encodings?: readonly DamlValueEncoding[];
  /** Wait after a short page before asking again (default 5000 ms). */
  pollIntervalMs?: number;
  /** End at the first short page instead of polling (backfills, tests). */
  stopAtEnd?: boolean;
  logger: Logger;
  http?: HttpClientOptions;
}

export function createScanSource(options: ScanSourceOptions): Source {
  const urls = options.urls.map((u) => u.replace(/\/+$/, ''));
  if (urls.length === 0) throw new Error('The scan source needs at least one URL');
  const pageSize = options.pageSize ?? 1000;
  const pollIntervalMs = options.pollIntervalMs ?? 5000;
  const wantProtobuf = (options.encodings ?? ['compact_json', 'protobuf_json']).includes('protobuf_json');
  const logger = options.logger.child({ source: 'scan' });
  const http = createHttpClient(logger, { waitWhileUnavailable: urls.length === 1, ...options.http });
  const { pageFrom, importPageFrom, importsComplete } = createUpstreamReader({ pageSize, wantProtobuf, http, logger });
  let urlIndex = 0;

  /** Runs a request against the current URL, moving round-robin to the next one while they keep failing. */
  async function withFailover<T>(run: (url: string) => Promise<T>): Promise<T> {
    for (;;) {
      const url = urls[urlIndex] as string;
      try {
        return await run(url);
      } catch (err) {
        if (!(err instanceof UpstreamError)) throw err;
        urlIndex = (urlIndex + 1) % urls.length;
        logger.warn({ url, next: urls[urlIndex], err: err.message }, 'scan keeps failing, moving to the next URL');
      }
    }
  }

  const page = (after: Cursor | undefined, signal: AbortSignal) => withFailover((url) => pageFrom(url, after, signal));

  /**
   * Waits until the upstream holds all import updates of the migration: a
   * Scan backfills them separately and may serve the migration's events
   * first (migration-info's `import_updates_complete`). An upstream without
   * data for it (404) has nothing to wait for.
   */
  async function awaitImportsComplete(migrationId: number, signal: AbortSignal): Promise<void> {
    for (;;) {
      if (await withFailover((url) => importsComplete(url, migrationId, signal))) return;
      logger.info({ migrationId }, 'the upstream does not hold all import updates of the migration yet: waiting');
      await delay(pollIntervalMs, undefined, { signal });
    }
  }

  /** The import updates of a migration after an update id, page by page. */
  async function* importsOf(migrationId: number, afterUpdateId: string, signal: AbortSignal): AsyncGenerator<SourceItem> {
    await awaitImportsComplete(migrationId, signal);
    let after = afterUpdateId;
    for (;;) {
      const got = await withFailover((url) => importPageFrom(url, migrationId, after, signal));
      yield* got.items;
      if (!got.full) return;
      after = got.lastId;
    }
  }

  return {
    stream: 'scan',
    async *read(from, signal) {
      // Aborted when the consumer stops early, so a read-ahead request does not outlive the read.
      const stop = new AbortController();
      const inner = AbortSignal.any([signal, stop.signal]);
      let cursor = from === undefined ? undefined : parsePosition(from);
      let next: Promise<Page> | undefined;
      try {
        if (cursor?.importAfter !== undefined) {
          // Stopped within the import updates of a migration: finish them first.
          yield* importsOf(cursor.migrationId, cursor.importAfter, inner);
          cursor = { migrationId: cursor.migrationId, recordTime: IMPORT_RECORD_TIME };
        }
        for (;;) {
          const got = await (next ?? page(cursor, inner));
          next = undefined;
          /** The migration the stream is in; its import updates are behind us. */
          let entered = cursor?.migrationId;
          const entersMigration = got.migrations.some((m) => entered === undefined || m > entered);
          cursor = got.last;
          if (got.full && !entersMigration) {
            next = page(cursor, inner);
            // Its failure surfaces when it is awaited; this only keeps an abandoned one from being reported as unhandled.
            next.catch(() => undefined);
          }
          for (let i = 0; i < got.items.length; i++) {
            const migrationId = got.migrations[i] as number;
            if (entered === undefined || migrationId > entered) {
              yield* importsOf(migrationId, '', inner);
              entered = migrationId;
            }
            yield got.items[i] as SourceItem;
          }
          if (!got.full) {
            if (options.stopAtEnd) return;
            await delay(pollIntervalMs, undefined, { signal: inner });
          }
        }
      } catch (err) {
        // Aborting is how a live source is stopped, not a failure.
        if (signal.aborted) return;
        throw err;
      } finally {
        stop.abort();
      }
    },
  };
}
