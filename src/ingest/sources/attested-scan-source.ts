/**
 * The attested `scan` source (SCAN_SOURCE_THRESHOLD > 1): mirrors N upstream
 * Scans and yields only what `threshold` of them attest, element by element.
 *
 * Each round asks every upstream for the page after the same position (the
 * key of the last element yielded), as the failover source does, and decides
 * the elements of the answers in key order (attestation.ts). Import updates
 * of a migration are decided the same way, by update id, once `threshold`
 * upstreams report them complete.
 *
 * Upstreams at different speeds: a round waits for every upstream that is
 * asked, but no longer than a short grace once `threshold` have answered; a
 * slower one keeps its request running and is asked again once it answers.
 * A failing upstream (the HTTP client has already retried) sits out until
 * the next poll and is then asked again. A page with an element out of key
 * order counts up to that element.
 *
 * Answers are compared as received (event-page.ts): an answer in
 * JSON.stringify's form is hashed element by element from its text, an
 * element identical to one another upstream served for the same page is not
 * read again, and only the copy that is stored is parsed, its texts going to
 * the writer as they are.
 *
 * Undecidable keys: when two versions of an element both have the
 * threshold, or no version can reach it any more, the source yields nothing
 * past that key, reports it (status, metric, an error log once per key) and
 * asks again every poll interval, resuming by itself when a quorum forms.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Update } from '../../domain/items';
import { IMPORT_RECORD_TIME } from '../../domain/time';
import type { Logger } from '../../internal/logger';
import { createHttpClient, type HttpClientOptions } from '../http-client';
import type { Source, SourceItem } from '../source';
import { decide, itemHashes, partHashes, type Answer, type Decision, type Element, type Part } from './attestation';
import { compare, createUpstreamReader, parsePosition, positionOf, type Cursor, type ReceivedElement } from './scan-upstream';

/** What the source tells the rest of the process: per-upstream outcomes and whether it is stalled. */
export interface AttestationObserver {
  /** Per upstream and round: keys it agreed on, keys it contradicted, or that it could not be asked. */
  counted(upstream: string, outcome: 'agreed' | 'disagreed' | 'unavailable', n: number): void;
  /** The last disagreement of an upstream. */
  disagreed(upstream: string, position: string, hash: string | null, expected: string | null): void;
  /** Ingestion cannot pass `position` (undefined: it can again). */
  stalled(stall: { position: string; reason: string } | undefined): void;
}

export interface AttestedScanSourceOptions {
  urls: readonly string[];
  threshold: number;
  pageSize?: number;
  encodings?: readonly ('compact_json' | 'protobuf_json')[];
  pollIntervalMs?: number;
  stopAtEnd?: boolean;
  /** How long a round waits for the other upstreams once `threshold` have answered (default 250 ms). */
  graceMs?: number;
  logger: Logger;
  http?: HttpClientOptions;
  observer?: AttestationObserver;
}

interface Asked<A> {
  /** What it was asked for (a position), to tell a stale answer. */
  at: string;
  answer?: A;
  done: Promise<void>;
}

/** The source item of an element, made when it is stored (only then is a received element parsed). */
type Take = () => SourceItem;

const short = (hash: string | null) => (hash === null ? 'none' : hash.slice(0, 16));

/**
 * Logs and counts each upstream's part in the keys a decision settled (agreed, disagreed) and the
 * upstreams that could not be asked: shared with the bulk source, which attests object listings.
 */
export function reportOutcomes<K, T>(
  decision: Decision<K, T>,
  answers: readonly ({ ok: boolean } | undefined)[],
  urls: readonly string[],
  position: (key: K) => string,
  logger: Logger,
  observer: AttestationObserver | undefined,
): void {
  const counts = urls.map(() => ({ agreed: 0, disagreed: 0 }));
  for (const { key, byUpstream } of decision.outcomes) {
    byUpstream.forEach((o, i) => {
      if (o.kind === 'agreed') counts[i]!.agreed += 1;
      if (o.kind === 'disagreed') {
        counts[i]!.disagreed += 1;
        const at = position(key);
        logger.warn(
          { upstream: urls[i], position: at, hash: short(o.hash), expected: short(o.expected) },
          'an upstream disagrees with the quorum',
        );
        observer?.disagreed(urls[i]!, at, o.hash, o.expected);
      }
    });
  }
  counts.forEach((c, i) => {
    if (c.agreed) observer?.counted(urls[i]!, 'agreed', c.agreed);
    if (c.disagreed) observer?.counted(urls[i]!, 'disagreed', c.disagreed);
    const a = answers[i];
    if (a && !a.ok) observer?.counted(urls[i]!, 'unavailable', 1);
  });
}

/** The attested source, and its attested import updates for the bulk source, which reads the rest from bulk objects. */
export interface AttestedScanSource extends Source {
  /** The import updates of a migration after an update id that `threshold` upstreams attest, once they hold all of them. */
  importsOf: (migrationId: number, afterUpdateId: string, signal: AbortSignal) => AsyncGenerator<SourceItem>;
}

export function createAttestedScanSource(options: AttestedScanSourceOptions): AttestedScanSource {
  const urls = options.urls.map((u) => u.replace(/\/+$/, ''));
  const { threshold } = options;
  if (!Number.isInteger(threshold) || threshold < 1 || threshold > urls.length) {
    throw new Error(`The attested scan source needs a threshold from 1 to ${urls.length} (the number of URLs); got ${threshold}`);
  }
  const pageSize = options.pageSize ?? 1000;
  const pollIntervalMs = options.pollIntervalMs ?? 5000;
  const graceMs = options.graceMs ?? 250;
  const wantProtobuf = (options.encodings ?? ['compact_json', 'protobuf_json']).includes('protobuf_json');
  const logger = options.logger.child({ source: 'scan', threshold });
  // A 503 (still backfilling) is a failure of that upstream, not something to wait out: others can answer.
  const http = createHttpClient(logger, { ...options.http, waitWhileUnavailable: false });
  const reader = createUpstreamReader({ pageSize, wantProtobuf, http, logger });
  const observer = options.observer;
  let reportedStall: string | undefined;

  /**
   * Asks every upstream that has no request running, nor an answer not yet collected for the page at `at`
   * (one read ahead while the previous page was written). `asked` carries requests across rounds.
   */
  function ask<A>(asked: (Asked<A> | undefined)[], at: string, start: (url: string) => Promise<A>, failed: (err: Error) => A): void {
    urls.forEach((url, i) => {
      const previous = asked[i];
      if (previous && previous.answer === undefined) return; // still running (for this or an older position)
      if (previous?.at === at) return; // answered ahead, not yet collected
      const entry: Asked<A> = { at, done: Promise.resolve() };
      entry.done = start(url).then(
        (answer) => void (entry.answer = answer),
        (err: unknown) => void (entry.answer = failed(err as Error)),
      );
      asked[i] = entry;
    });
  }

  /**
   * The answers at `at` of the upstreams asked (failures included), once all have answered or
   * `threshold` have and the grace has passed; undefined for the others.
   */
  async function collect<A>(asked: (Asked<A> | undefined)[], at: string): Promise<(A | undefined)[]> {
    const current = () => asked.filter((a) => a?.at === at);
    const answered = () => current().filter((a) => a!.answer !== undefined).length;
    const all = Promise.all(current().map((a) => a!.done));
    const grace = new AbortController();
    await Promise.race([
      all,
      (async () => {
        for (;;) {
          const running = current().filter((a) => a!.answer === undefined);
          if (answered() >= threshold || running.length === 0) break;
          await Promise.race(running.map((a) => a!.done));
        }
        if (answered() >= threshold) await delay(graceMs, undefined, { signal: grace.signal }).catch(() => undefined);
        else await all;
      })(),
    ]);
    grace.abort();
    return asked.map((a) => (a?.at === at && a.answer !== undefined ? a.answer : undefined));
  }

  /** Clears the answered requests, so that their upstreams are asked again next round. */
  function consume<A>(asked: (Asked<A> | undefined)[]): void {
    asked.forEach((a, i) => {
      if (a?.answer !== undefined) asked[i] = undefined;
    });
  }

  function report<K, T>(decision: Decision<K, T>, answers: (Answer<K, T> | undefined)[], position: (key: K) => string): void {
    reportOutcomes(decision, answers, urls, position, logger, observer);
    if (decision.stalled) {
      const at = position(decision.stalled.key);
      const stall = { position: at, reason: decision.stalled.reason };
      if (reportedStall !== at) {
        logger.error(
          {
            position: at,
            reason: stall.reason,
            versions: Object.fromEntries(Object.entries(decision.stalled.hashes).map(([h, n]) => [short(h), n])),
          },
          'no quorum of upstreams attests the next element: ingestion waits at this position',
        );
        reportedStall = at;
      }
      observer?.stalled(stall);
    } else if (decision.committed.length > 0 && reportedStall !== undefined) {
      logger.info({ after: reportedStall }, 'a quorum formed: ingestion goes on');
      reportedStall = undefined;
      observer?.stalled(undefined);
    }
  }

  const failed = (err: Error) => ({ ok: false as const, reason: err.message });

  function logFailures(answers: ({ ok: boolean; reason?: string } | undefined)[]): void {
    answers.forEach((a, i) => {
      if (a && !a.ok) logger.warn({ upstream: urls[i], err: a.reason }, 'an upstream did not answer; it is asked again next round');
    });
  }

  /** The attested import updates of a migration after an update id. */
  async function* importsOf(migrationId: number, afterUpdateId: string, signal: AbortSignal): AsyncGenerator<SourceItem> {
    // Complete when `threshold` upstreams say so (an upstream without the migration counts as complete).
    for (;;) {
      const complete = await Promise.all(urls.map((url) => reader.importsComplete(url, migrationId, signal).catch(() => false)));
      if (complete.filter(Boolean).length >= threshold) break;
      logger.info({ migrationId }, 'fewer than the threshold of upstreams hold all import updates of the migration: waiting');
      await delay(pollIntervalMs, undefined, { signal });
    }
    const asked: (Asked<Answer<string, Take>> | undefined)[] = urls.map(() => undefined);
    let after = afterUpdateId;
    for (;;) {
      const from = after;
      ask(
        asked,
        from,
        async (url) => {
          const page = await reader.importPageFrom(url, migrationId, from, signal);
          const elements = page.items.map((it) => element(String(it.item.update?.update_id), it));
          return { ok: true as const, elements };
        },
        failed,
      );
      const answers = await collect(asked, from);
      logFailures(answers);
      consume(asked);
      const usable = answers.map((a) => a ?? { ok: false as const, reason: 'no answer yet' });
      const decision = decide(usable, threshold, (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0));
      report(decision, answers, (id) => `import update ${id} of migration ${migrationId}`);
      for (const { value } of decision.committed) yield value();
      const lastDecided = decision.outcomes.at(-1)?.key;
      if (lastDecided !== undefined) after = lastDecided;
      // Done when a quorum has nothing more.
      const ended = answers.filter((a) => a?.ok && a.elements.length === 0).length;
      if (decision.committed.length === 0 && ended >= threshold) return;
      if (decision.committed.length === 0) await delay(pollIntervalMs, undefined, { signal });
    }
  }

  /** An import update (parsed) as an element to decide on. */
  function element<K>(key: K, item: SourceItem): Element<K, Take> {
    const { hash, updateHash } = itemHashes(item.item);
    return { key, hash, value: () => item, ...(item.item.update && { updateHash, hasVerdict: item.item.verdict !== null }) };
  }

  /**
   * The hashes of elements read, by their parts: an element identical to one another upstream served
   * has the same parts object (event-page.ts), and with the same protobuf part, the same hashes.
   */
  const hashed = new WeakMap<object, { protobuf: Part | undefined; hash: string; updateHash: string }>();

  /** An element of a /v0/events page, hashed as received; parsed only if it is the copy stored. */
  function receivedElement(received: ReceivedElement): Element<Cursor, Take> {
    let known = hashed.get(received.parts);
    if (!known || known.protobuf !== received.protobuf) {
      known = { protobuf: received.protobuf, ...partHashes({ ...received.parts, updateProtobuf: received.protobuf ?? { value: null } }) };
      hashed.set(received.parts, known);
    }
    const { hash, updateHash } = known;
    const take = (): SourceItem => {
      const { item, texts } = received.take();
      const protobuf = received.protobuf;
      const source: SourceItem = { item, position: positionOf(received.key), origin: received.origin };
      if (protobuf && 'value' in protobuf) item.update_protobuf_json = protobuf.value as Update;
      const updateProtobuf = protobuf && !('value' in protobuf) ? protobuf.text.slice(protobuf.start, protobuf.end) : undefined;
      if (texts || updateProtobuf !== undefined) source.texts = { ...texts, ...(updateProtobuf !== undefined && { updateProtobuf }) };
      return source;
    };
    return {
      key: received.key,
      hash,
      value: take,
      ...(received.updateId !== undefined && { updateHash, hasVerdict: received.hasVerdict }),
    };
  }

  return {
    stream: 'scan',
    importsOf,
    async *read(from, signal) {
      const stop = new AbortController();
      const inner = AbortSignal.any([signal, stop.signal]);
      let cursor: Cursor | undefined = from === undefined ? undefined : parsePosition(from);
      const asked: (Asked<Answer<Cursor, Take>> | undefined)[] = urls.map(() => undefined);
      const pageAfter = (after: Cursor | undefined) => async (url: string) => {
        const page = await reader.receivedPageFrom(url, after, inner);
        if (page.disorderAt !== undefined) {
          logger.warn({ upstream: url, position: page.disorderAt }, 'an upstream served an element out of key order; its page ends there');
        }
        return { ok: true as const, elements: page.events.map(receivedElement) };
      };
      try {
        if (cursor?.importAfter !== undefined) {
          yield* importsOf(cursor.migrationId, cursor.importAfter, inner);
          cursor = { migrationId: cursor.migrationId, recordTime: IMPORT_RECORD_TIME };
        }
        let entered = cursor?.migrationId;
        for (;;) {
          const at = cursor ? positionOf(cursor) : 'the beginning';
          ask(asked, at, pageAfter(cursor), failed);
          const answers = await collect(asked, at);
          logFailures(answers);
          consume(asked);
          const usable = answers.map((a) => a ?? { ok: false as const, reason: 'no answer yet' });
          const decision = decide(usable, threshold, compare);
          report(decision, answers, positionOf);
          const lastDecided = decision.outcomes.at(-1)?.key;
          if (lastDecided !== undefined) cursor = { migrationId: lastDecided.migrationId, recordTime: lastDecided.recordTime };
          // The next pages are read while these elements are written.
          if (decision.committed.length > 0 && cursor) ask(asked, positionOf(cursor), pageAfter(cursor), failed);
          for (const { key, value } of decision.committed) {
            if (entered === undefined || key.migrationId > entered) {
              yield* importsOf(key.migrationId, '', inner);
              entered = key.migrationId;
            }
            yield value();
          }
          if (decision.committed.length > 0) continue;
          // Nothing decided: at the end when a quorum has nothing after the position.
          const ended = answers.filter((a) => a?.ok && a.elements.length === 0).length;
          if (ended >= threshold && options.stopAtEnd && !decision.stalled) return;
          await delay(pollIntervalMs, undefined, { signal: inner });
        }
      } catch (err) {
        if (signal.aborted) return;
        throw err;
      } finally {
        stop.abort();
      }
    },
  };
}
