/**
 * Answers every validator polls (rules, rounds, the DSO, the transfer factory), kept in memory and
 * served again while the contracts they were made from are unchanged (ANSWER_CACHE_ENABLED).
 *
 * - The writer sets the version of an answer family in the transaction that creates, archives or
 *   reassigns a contract of it (src/store/answer-versions-repository.ts).
 * - A kept answer is served only after a reading of the versions that began after the request
 *   arrived shows its families unchanged: a change is seen by the first request after its commit,
 *   in every API process, whichever process wrote it. All requests waiting at one moment share one
 *   reading (one small query per round trip to the database, not one per request).
 * - An answer is made in one read-only REPEATABLE READ transaction that reads the versions first,
 *   so the versions it is kept under are those of the rows it was made from; requests for the same
 *   answer made at once share one making.
 * - Versions and answers are read from the database the request is answered from (`db`), and kept
 *   per database.
 *
 * A kept value carries the bytes of each form of its answer (`bytes`), made on first use: a request
 * that names the contracts it has cached gets another form of the same answer.
 */
import type { Response } from 'express';
import { sameVersions, type AnswerFamily, type AnswerVersions } from '../domain/answer-families';
import { toJsonText, type JsonBody } from '../domain/raw-json';
import { nowMicros, type Micros } from '../domain/time';
import type { Metrics } from '../internal/metrics';
import { readAnswerVersions } from '../store/answer-versions-repository';
import type { Db } from '../store/pool';

/** What making an answer gives. */
export interface Made<T> {
  value: T;
  /** Wall-clock time (µs) from which the answer may differ though no contract changed (a round opens). */
  validUntil?: Micros;
  /** false: serve it to this request only (an answer that depends on the newest record time). */
  keep?: boolean;
}

/** At most this many forms of one answer are kept; others are made per request. */
const MAX_FORMS = 64;

/** A kept value and the forms of its answer, as bytes ready to send. */
export class KeptAnswer<T> {
  private readonly forms = new Map<string, Buffer>();
  /** Bytes held by the forms. */
  size = 0;

  constructor(
    readonly value: T,
    readonly versions: AnswerVersions | undefined,
    readonly validUntil: Micros | undefined,
    private readonly grew: (bytes: number) => void = () => undefined,
  ) {}

  /** The bytes of the form `form` of the answer, made by `render` on first use. */
  bytes(form: string, render: (value: T) => JsonBody): Buffer {
    let bytes = this.forms.get(form);
    if (bytes === undefined) {
      bytes = Buffer.from(toJsonText(render(this.value)), 'utf8');
      if (this.forms.size < MAX_FORMS) {
        this.forms.set(form, bytes);
        this.size += bytes.length;
        this.grew(bytes.length);
      }
    }
    return bytes;
  }
}

/** Sends JSON bytes as sendJson sends their text (the same headers, byte for byte). */
export function sendJsonBytes(res: Response, bytes: Buffer): void {
  res.status(200).type('application/json; charset=utf-8').send(bytes);
}

/**
 * One reading of the versions at a time per database. A request joins the next reading to begin: the
 * one in flight began before it arrived and may miss a commit it must see.
 */
class VersionReadings {
  private inFlight: Promise<AnswerVersions> | undefined;
  private next: Promise<AnswerVersions> | undefined;

  constructor(
    private readonly db: Db,
    private readonly counted: () => void,
  ) {}

  /** Versions read by a statement that begins after this call. */
  fresh(): Promise<AnswerVersions> {
    if (this.inFlight === undefined) return this.begin();
    if (this.next === undefined) {
      const settled = this.inFlight.then(
        () => undefined,
        () => undefined,
      );
      this.next = settled.then(() => {
        this.next = undefined;
        return this.begin();
      });
    }
    return this.next;
  }

  private begin(): Promise<AnswerVersions> {
    this.counted();
    const reading: Promise<AnswerVersions> = readAnswerVersions(this.db).finally(() => {
      if (this.inFlight === reading) this.inFlight = undefined;
    });
    this.inFlight = reading;
    return reading;
  }
}

interface Making {
  promise: Promise<KeptAnswer<unknown>>;
}

/** What is kept for one database. */
class Kept {
  readonly readings: VersionReadings;
  /** In least recently used order. */
  readonly answers = new Map<string, KeptAnswer<unknown>>();
  readonly making = new Map<string, Making>();
  bytes = 0;

  constructor(db: Db, counted: () => void) {
    this.readings = new VersionReadings(db, counted);
  }
}

export interface AnswerCacheOptions {
  enabled: boolean;
  /** Bound on the bytes of kept answers per database; the least recently used go first. */
  maxBytes: number;
  metrics?: Pick<Metrics, 'answerCacheRequests' | 'answerVersionReads'>;
}

export class AnswerCache {
  private readonly kept = new WeakMap<Db, Kept>();

  constructor(private readonly options: AnswerCacheOptions) {}

  get enabled(): boolean {
    return this.options.enabled;
  }

  /**
   * The answer `key` (named `answer` in metrics, made from `families`), kept or made by `make` on
   * `db`. Errors of `make` (a missing contract) are not kept: the next request makes it again.
   */
  async get<T>(
    db: Db,
    answer: string,
    key: string,
    families: readonly AnswerFamily[],
    make: (db: Db) => Promise<Made<T>>,
  ): Promise<KeptAnswer<T>> {
    if (!this.options.enabled) {
      const made = await make(db);
      return new KeptAnswer(made.value, undefined, made.validUntil);
    }
    const kept = this.keptFor(db);
    const versions = await kept.readings.fresh();
    const found = kept.answers.get(key) as KeptAnswer<T> | undefined;
    if (found && this.current(found, versions, families)) {
      // Least recently used last out.
      kept.answers.delete(key);
      kept.answers.set(key, found);
      this.options.metrics?.answerCacheRequests.inc({ answer, outcome: 'hit' });
      return found;
    }
    this.options.metrics?.answerCacheRequests.inc({ answer, outcome: 'miss' });
    const making = kept.making.get(key);
    if (making) {
      // Made at the same versions as this request read: as good as making it anew.
      const shared = (await making.promise.catch(() => undefined)) as KeptAnswer<T> | undefined;
      if (shared && this.current(shared, versions, families)) return shared;
    }
    return this.make(db, kept, key, make);
  }

  private current(found: KeptAnswer<unknown>, versions: AnswerVersions, families: readonly AnswerFamily[]): boolean {
    return (
      found.versions !== undefined &&
      sameVersions(found.versions, versions, families) &&
      (found.validUntil === undefined || nowMicros() < found.validUntil)
    );
  }

  private keptFor(db: Db): Kept {
    let kept = this.kept.get(db);
    if (!kept) {
      kept = new Kept(db, () => this.options.metrics?.answerVersionReads.inc());
      this.kept.set(db, kept);
    }
    return kept;
  }

  private make<T>(db: Db, kept: Kept, key: string, make: (db: Db) => Promise<Made<T>>): Promise<KeptAnswer<T>> {
    const promise = db
      .transaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute(async (trx) => {
        const versions = await readAnswerVersions(trx);
        return { versions, made: await make(trx) };
      })
      .then(({ versions, made }) => {
        if (made.keep === false) return new KeptAnswer(made.value, undefined, made.validUntil);
        const answer: KeptAnswer<T> = new KeptAnswer(made.value, versions, made.validUntil, (bytes) => this.grew(kept, key, answer, bytes));
        const previous = kept.answers.get(key);
        if (previous) {
          kept.bytes -= previous.size;
          kept.answers.delete(key);
        }
        kept.answers.set(key, answer);
        return answer;
      });
    const making: Making = { promise };
    kept.making.set(key, making);
    const done = () => {
      if (kept.making.get(key) === making) kept.making.delete(key);
    };
    promise.then(done, done);
    return promise;
  }

  /** Counts the bytes of a new form, and lets the least recently used answers go past the bound. */
  private grew(kept: Kept, key: string, answer: KeptAnswer<unknown>, bytes: number): void {
    if (kept.answers.get(key) !== answer) return;
    kept.bytes += bytes;
    for (const [key, oldest] of kept.answers) {
      if (kept.bytes <= this.options.maxBytes || oldest === answer) break;
      kept.answers.delete(key);
      kept.bytes -= oldest.size;
    }
  }

  /** Answers kept, and their bytes, for a database (for tests and metrics). */
  stats(db: Db): { answers: number; bytes: number } {
    const kept = this.kept.get(db);
    return { answers: kept?.answers.size ?? 0, bytes: kept?.bytes ?? 0 };
  }
}
