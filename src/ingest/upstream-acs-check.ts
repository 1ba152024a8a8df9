/**
 * A mirror's check of the ACS snapshots its bulk writer writes against its upstreams' (docs/bulk-history.md,
 * "Checking ACS snapshots against the upstreams"). A mirror (SOURCE=scan or bulk) with bulk storage
 * computes each 00:00 UTC snapshot from the history it ingested and writes it as objects; an upstream
 * that writes bulk storage too serves the objects of the same snapshot at
 * `GET /v0/history/bulk/acs?at_or_before_record_time=<time>`. Instances of this indexer write the same
 * bytes, so the same keys and digests mean the same active contracts, at no cost beyond one request.
 *
 * Outcomes, per upstream and snapshot: `matched` (the same object keys and digests, in order),
 * `differed` (a snapshot at the same time with other objects: logged as an error naming both lists),
 * `absent` (no snapshot at that time: 404 or 501, or its newest at or before it is older), `failed`
 * (no answer, or not a bulk ACS answer). Nothing stops ingestion: a difference is for an operator to
 * look into (a Splice Scan's objects always differ in bytes: another compressor build).
 */
import { objectKeyOfUrl } from '../domain/bulk-layout';
import { formatInstant, tryParseTimestamp, type Micros } from '../domain/time';
import type { Logger } from '../internal/logger';
import type { WrittenAcsSnapshot } from '../jobs/bulk-history';
import { createHttpClient, HttpStatusError, type HttpClientOptions } from './http-client';
import { array, object, ShapeError, string } from './sources/shape';

export type AcsCheckOutcome = 'matched' | 'differed' | 'absent' | 'failed';

interface AcsCheckObserver {
  checked(upstream: string, outcome: AcsCheckOutcome): void;
}

export interface AcsSnapshotCheckOptions {
  /** The mirror's upstreams (SCAN_SOURCE_URLS), without /api/scan. */
  urls: readonly string[];
  logger: Logger;
  observer?: AcsCheckObserver;
  http?: HttpClientOptions;
}

/** Checks a written snapshot against every upstream side by side; the outcomes in the order of the URLs. */
export type AcsSnapshotCheck = (snapshot: WrittenAcsSnapshot, signal: AbortSignal) => Promise<AcsCheckOutcome[]>;

export function createAcsSnapshotCheck(options: AcsSnapshotCheckOptions): AcsSnapshotCheck {
  const urls = options.urls.map((u) => u.replace(/\/+$/, ''));
  const logger = options.logger.child({ check: 'bulk ACS snapshot' });
  // 404 and 501 are answers here (no snapshot yet, no bulk storage), not faults to retry.
  const http = createHttpClient(logger, { waitWhileUnavailable: false, maxAttempts: 3, ...options.http, finalStatuses: [501] });

  async function checkOne(url: string, snapshot: WrittenAcsSnapshot, signal: AbortSignal): Promise<AcsCheckOutcome> {
    const at = formatInstant(snapshot.recordTime);
    const request = `${url}/api/scan/v0/history/bulk/acs?at_or_before_record_time=${encodeURIComponent(at)}`;
    const context = { upstream: url, snapshot: at, migrationId: snapshot.migrationId };
    let body: unknown;
    try {
      body = await http.json({ method: 'GET', url: request }, signal);
    } catch (err) {
      if (err instanceof HttpStatusError && (err.status === 404 || err.status === 501)) {
        logger.info({ ...context, status: err.status, answer: err.bodyText }, 'the upstream has no bulk ACS snapshot at this time');
        return 'absent';
      }
      if (signal.aborted) throw err;
      logger.warn({ ...context, err: (err as Error).message }, 'could not ask the upstream for its bulk ACS snapshot');
      return 'failed';
    }
    let theirs: { recordTime: Micros; objects: string[] };
    try {
      const answer = object(body, 'response');
      const recordTime = tryParseTimestamp(string(answer, 'record_time', 'response'));
      if (recordTime === undefined) throw new ShapeError('response.record_time', 'a timestamp', answer.record_time);
      const objects = array(answer, 'object_refs', 'response').map((raw, i) => {
        const ref = object(raw, `response.object_refs[${i}]`);
        const refUrl = string(ref, 'url', `response.object_refs[${i}]`);
        return `${objectKeyOfUrl(refUrl, 'ACS') ?? refUrl} ${string(ref, 'digest', `response.object_refs[${i}]`)}`;
      });
      theirs = { recordTime, objects };
    } catch (err) {
      if (!(err instanceof ShapeError)) throw err;
      logger.warn({ ...context, err: err.message }, 'the upstream did not answer with a bulk ACS snapshot');
      return 'failed';
    }
    if (theirs.recordTime !== snapshot.recordTime) {
      logger.info({ ...context, upstreamSnapshot: formatInstant(theirs.recordTime) }, 'the upstream has no bulk ACS snapshot at this time');
      return 'absent';
    }
    const ours = snapshot.objects.map((o) => `${o.key} ${o.sha256}`);
    if (ours.length === theirs.objects.length && ours.every((o, i) => o === theirs.objects[i])) {
      logger.info({ ...context, objects: ours.length }, "the bulk ACS snapshot is the upstream's, object for object");
      return 'matched';
    }
    logger.error(
      { ...context, ours, theirs: theirs.objects },
      "the bulk ACS snapshot differs from the upstream's: the active contracts this mirror computed at that time may not be the upstream's",
    );
    return 'differed';
  }

  return async (snapshot, signal) => {
    const outcomes = await Promise.all(urls.map((url) => checkOne(url, snapshot, signal)));
    outcomes.forEach((outcome, i) => options.observer?.checked(urls[i]!, outcome));
    return outcomes;
  };
}
