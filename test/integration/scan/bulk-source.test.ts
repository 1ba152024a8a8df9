/**
 * SOURCE=bulk (docs/bulk-history.md, "Backfilling from bulk storage"). Instance A holds a simulated
 * two-migration network spread over more than a day and writes its bulk storage objects (small
 * objects of several frames, several per daily segment); B mirrors A over /v0/events (SOURCE=scan);
 * F mirrors A with the bulk source as it runs by default: A's objects over several listing pages, with
 * A's /v0/events read beside them, each update checked against its line, then /v0/events on; C mirrors
 * A from the objects' lines alone (BULK_SOURCE_FILL_FROM_EVENTS=false), then /v0/events.
 *
 * F ends byte-identical to B: every table, every answer compared, the whole of each history list in
 * both encodings, and the bulk objects it writes itself. Reading F's source from any position it gave
 * yields exactly the items after it; an update /v0/events serves otherwise than its line, or not at
 * all, stops ingestion naming the line.
 *
 * What "C ends as B" means here, and is checked:
 * - the bulk objects C writes itself (updates and ACS snapshots) are byte-identical to B's (and A's);
 * - every table is B's, but for what bulk lines do not carry for the updates they hold (the "bulk
 *   range", up to the last update of A's objects): verdicts, traffic summaries, app activity records,
 *   the protobuf_json rendering, and the field order of Daml values (a line's keys are sorted);
 * - every answer compared is B's text once exactly that is taken out of it: Daml values of events of
 *   bulk-range updates with their keys sorted, /v0/events elements of the bulk range without verdict,
 *   traffic and activity (rejections there absent), protobuf_json of bulk-range updates a 501.
 * The bulk range, the rejections and the contracts it holds are computed here from A's objects
 * (decompressed with the zstd tool) and the simulator's items, not by the source.
 *
 * Also: a checksum mismatch is refused naming the object; reading from any position yields exactly
 * the items after it; and the `ingest` command, killed with SIGKILL at random points and restarted,
 * ends with C's tables.
 *
 * Attestation over several upstreams (A, B, proxies in front of them that lie about one object's
 * digest or serve bad bytes for one, and A served again without bulk storage): with a threshold, the
 * objects the threshold agree on are taken and the mirror ends with C's tables (F's, with /v0/events
 * read beside the objects), each lie reported to
 * the observer where it was told; an object too few agree on stops ingestion naming every upstream's
 * digest; and an upstream whose listing answers 501 is asked once, and fails the source at once when
 * it leaves fewer than the threshold.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import type { CanonicalItem, TransactionUpdate, Update } from '../../../src/domain/items';
import { formatInstant, formatRecordTime, parseTimestamp } from '../../../src/domain/time';
import { createBlobMirror } from '../../../src/ingest/blob-mirror';
import { SourceItemError, type Source, type SourceItem } from '../../../src/ingest/source';
import { createAttestedScanSource, type AttestationObserver } from '../../../src/ingest/sources/attested-scan-source';
import { BulkHistoryNotServedError, createBulkSource } from '../../../src/ingest/sources/bulk-source';
import { createScanSource } from '../../../src/ingest/sources/scan-source';
import { runWorker } from '../../../src/ingest/worker';
import { createAcsSnapshotCheck, type AcsCheckOutcome } from '../../../src/ingest/upstream-acs-check';
import { writeCompletedSegments } from '../../../src/jobs/bulk-history';
import { createLogger } from '../../../src/internal/logger';
import { directoryStore } from '../../../src/store/bulk-object-store';
import { runCli } from '../../support/cli-process';
import { createTestDatabase, destroyTestDatabase, type TestDatabase } from '../../support/database/database';
import { dumpTables } from '../../support/database/dump';
import { request, startTestApi, type HttpResult, type TestApi } from '../../support/http/http';
import { simulatedItems } from '../../support/items/simulated-network';
import { byKey, isImport, isTx, keyed, migrationOf, type Keyed } from './history-fixture';

// About 29 hours from 23:00 UTC: two daily segments written (migration 1 starts in the second), and a
// few hours after the last one that only /v0/events holds. With rejections, external hashes,
// reassignments and app activity in both parts.
const items = simulatedItems({
  seed: 'bulk-2',
  updates: 700,
  migrations: 2,
  startTime: parseTimestamp('2025-03-01T23:00:00Z'),
  meanUpdateGapMs: 150_000,
  tickSeconds: 7200,
});
const logger = createLogger('silent');
/** Several objects per segment, each of several frames. */
const SIZES = { frameBytes: 20_000, maxObjectBytes: 60_000 };
/**
 * Object refs per listing page: the objects of the largest segment (a page holds whole segments only),
 * so that each segment comes on its own page. Set once A's objects are written.
 */
let pageSize = 0;

interface ObjectRef {
  url: string;
  digest: string;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('base64');
/** zstd's own decoder, not the source's. */
const unzstd = (bytes: Buffer): string => execFileSync('zstd', ['-dc'], { input: bytes, maxBuffer: 1 << 30 }).toString('utf8');
/** zstd frames in a stream, as the zstd tool counts them. */
const frameCount = (file: string): number =>
  Number(
    /# Zstandard Frames: (\d+)/.exec(execFileSync('zstd', ['-lv', file], { stdio: ['ignore', 'pipe', 'ignore'] }).toString())?.[1] ?? 'NaN',
  );
const keyOfRef = (ref: ObjectRef) => decodeURIComponent(ref.url.split('/v0/history/bulk/download/')[1]!);
const error = (message: string) => JSON.stringify({ error: message });

function arraySource(list: CanonicalItem[]): Source {
  return {
    stream: 'array',
    async *read(from) {
      for (let i = from === undefined ? 0 : Number(from); i < list.length; i++) {
        const item: SourceItem = { item: list[i]!, position: String(i + 1), origin: `item ${i}` };
        yield item;
      }
    },
  };
}

const ingest = (t: TestDatabase, source: Source, batchSize = 200) =>
  runWorker({ db: t.db, pool: t.pool, source, logger, batchSize, batchMaxWaitMs: 20 }, new AbortController().signal);

/** The bulk source over one upstream: with its /v0/events beside the objects (the default), or the lines alone. */
const bulkSource = (url: string, fillFromEvents: boolean) =>
  createBulkSource({
    urls: [url],
    pageSize,
    logger,
    fillFromEvents,
    events: createScanSource({ urls: [url], pageSize: 100, stopAtEnd: true, logger }),
  });

/** What the attestation observer was told: each disagreement, and the counts by upstream and outcome. */
function recorder() {
  const disagreed: string[] = [];
  const counted = new Map<string, number>();
  const observer: AttestationObserver = {
    counted: (upstream, outcome, n) => void counted.set(`${upstream} ${outcome}`, (counted.get(`${upstream} ${outcome}`) ?? 0) + n),
    disagreed: (upstream, position, hash, expected) => void disagreed.push(`${upstream} at ${position}: ${hash} instead of ${expected}`),
    stalled: () => undefined,
  };
  return { observer, disagreed, counted };
}

/** The bulk source over several upstreams with a threshold, attested throughout (as src/runtime.ts makes it). */
function attestedBulkSource(urls: string[], threshold: number, observer?: AttestationObserver, fillFromEvents = false) {
  const events = createAttestedScanSource({ urls, threshold, pageSize: 100, stopAtEnd: true, pollIntervalMs: 50, logger, observer });
  return createBulkSource({
    urls,
    threshold,
    pageSize,
    logger,
    events,
    imports: events.importsOf,
    observer,
    pollIntervalMs: 50,
    fillFromEvents,
  });
}

async function collect(source: Source, from?: string): Promise<SourceItem[]> {
  const out: SourceItem[] = [];
  for await (const i of source.read(from, new AbortController().signal)) out.push(i);
  return out;
}

/** A test's own JSON with every object's keys sorted (what a bulk line does to a Daml value). */
function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, sortKeys(o[k])]),
  );
}

interface Instance {
  t: TestDatabase;
  dir: string;
  api: TestApi;
}

describe('SOURCE=bulk: a mirror backfilled from bulk storage objects, then /v0/events', () => {
  const instances: Instance[] = [];
  const extraDatabases: TestDatabase[] = [];
  const extraApis: TestApi[] = [];
  let a: Instance;
  let b: Instance;
  let c: Instance;
  let f: Instance;
  /** A's objects in listing order, with their lines as the zstd tool reads them. */
  const objects: { key: string; ref: ObjectRef; lines: string[] }[] = [];
  let listingPages = 0;
  /** The last update of A's objects: the end of the bulk range. */
  let lastBulk: Keyed;
  /** Non-import updates in the bulk range (by id), and the contracts they create (by migration and id). */
  const bulkUpdates = new Set<string>();
  const bulkContracts = new Set<string>();
  /** When the votes closed in the bulk range completed: their results (Daml values) are listed without ids. */
  const bulkVoteCompletions = new Set<string>();
  /** How long C's ingestion took, to place kills within a run. */
  let bulkIngestMs = 0;

  async function instance(fill: (t: TestDatabase) => Promise<void>): Promise<Instance> {
    const t = await createTestDatabase();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulk-source-'));
    const made: Instance = { t, dir, api: undefined as unknown as TestApi };
    instances.push(made);
    await fill(t);
    await writeCompletedSegments({ db: t.db, store: directoryStore(dir), logger, ...SIZES });
    made.api = await startTestApi(t, { env: { BULK_STORAGE_DIR: dir } });
    return made;
  }
  const mirrorBlobs = (t: TestDatabase, url: string) =>
    createBlobMirror({ urls: [url], db: t.db, logger }).round(new AbortController().signal);

  async function listAll(api: TestApi, pageSize = 1000): Promise<{ refs: ObjectRef[]; pages: number }> {
    const refs: ObjectRef[] = [];
    let token: string | undefined;
    for (let pages = 1; pages < 100; pages++) {
      const res = await request(api.url, 'POST', '/api/scan/v0/history/bulk/updates', {
        start_record_time: '2000-01-01T00:00:00Z',
        end_record_time: '2100-01-01T00:00:00Z',
        page_size: pageSize,
        ...(token && { next_page_token: token }),
      });
      expect(res.status).toBe(200);
      const page = res.json as { object_refs: ObjectRef[]; next_page_token?: string };
      refs.push(...page.object_refs);
      if (page.object_refs.length === 0) return { refs, pages };
      token = page.next_page_token;
    }
    throw new Error('too many pages');
  }

  beforeAll(async () => {
    a = await instance(async (t) => {
      await ingest(t, arraySource(items));
    });
    const perFolder = new Map<string, number>();
    for (const ref of (await listAll(a.api)).refs) {
      const folder = keyOfRef(ref).split('/')[0]!;
      perFolder.set(folder, (perFolder.get(folder) ?? 0) + 1);
    }
    pageSize = Math.max(...perFolder.values());
    b = await instance(async (t) => {
      await ingest(t, createScanSource({ urls: [a.api.url], pageSize: 100, stopAtEnd: true, logger }));
      await mirrorBlobs(t, a.api.url);
    });
    c = await instance(async (t) => {
      const started = Date.now();
      await ingest(t, bulkSource(a.api.url, false));
      bulkIngestMs = Date.now() - started;
      await mirrorBlobs(t, a.api.url);
    });
    f = await instance(async (t) => {
      await ingest(t, bulkSource(a.api.url, true));
      await mirrorBlobs(t, a.api.url);
    });

    const listed = await listAll(a.api, pageSize);
    listingPages = listed.pages;
    for (const ref of listed.refs) {
      const bytes = Buffer.from(await (await fetch(ref.url)).arrayBuffer());
      objects.push({ key: keyOfRef(ref), ref, lines: unzstd(bytes).slice(0, -1).split('\n') });
    }
    const lastLine = JSON.parse(objects.at(-1)!.lines.at(-1)!) as Update;
    const byId = new Map(items.filter((i) => i.update).map((i) => [i.update!.update_id, i]));
    lastBulk = keyed(byId.get(lastLine.update_id)!);
    // A contract's row is made by its first create, assignment or import update in a migration.
    const seen = new Set<string>();
    for (const k of items
      .filter((i) => i.update)
      .map(keyed)
      .sort(byKey)) {
      const u = k.item.update!;
      const bulk = inBulkRange(k.item);
      if (bulk) bulkUpdates.add(u.update_id);
      if (bulk && isTx(u)) {
        for (const e of Object.values(u.events_by_id)) {
          if (e.event_type === 'exercised_event' && e.choice === 'DsoRules_CloseVoteRequest') {
            bulkVoteCompletions.add(String((e.exercise_result as { completedAt?: unknown }).completedAt));
          }
        }
      }
      const created = isTx(u)
        ? Object.values(u.events_by_id).flatMap((e) => (e.event_type === 'created_event' ? [e.contract_id] : []))
        : 'created_event' in u.event
          ? [u.event.created_event.contract_id]
          : [];
      for (const cid of created) {
        const key = `${migrationOf(u)}:${cid}`;
        if (!seen.has(key) && bulk) bulkContracts.add(key);
        seen.add(key);
      }
    }
  });
  afterAll(async () => {
    for (const api of extraApis) await api.close();
    for (const i of instances) {
      await i.api?.close();
      await destroyTestDatabase(i.t);
      fs.rmSync(i.dir, { recursive: true, force: true });
    }
    for (const t of extraDatabases) await destroyTestDatabase(t);
  });

  /** Whether an item is in the bulk range: not an import update, at or before the last update of A's objects. */
  const inBulkRange = (i: CanonicalItem) => {
    if (isImport(i)) return false;
    const k = keyed(i);
    return k.updateId === lastBulk.updateId || byKey(k, lastBulk) < 0;
  };

  it('reads two daily segments of A over several listing pages, migration 1 starting within them, and more after them', () => {
    const folders = new Set(objects.map((o) => o.key.split('/')[0]));
    expect([...folders]).toEqual(['0001-01-01T00:00:00Z~2025-03-02T00:00:00Z', '2025-03-02T00:00:00Z~2025-03-03T00:00:00Z']);
    // Several objects in the second segment, each of several zstd frames; one page per segment, then an empty one.
    expect(pageSize).toBeGreaterThan(2);
    expect(listingPages).toBe(3);
    expect(objects.filter((o) => frameCount(path.join(a.dir, o.key)) > 1).length).toBeGreaterThanOrEqual(objects.length - 1);
    // Every line is a bulk-range update, in the network's order, and every bulk-range update is a line.
    const lineIds = objects.flatMap((o) => o.lines.map((l) => (JSON.parse(l) as Update).update_id));
    const expected = items
      .filter((i) => i.update && inBulkRange(i))
      .map(keyed)
      .sort(byKey)
      .map((k) => k.updateId);
    expect(lineIds).toEqual(expected);
    expect(lastBulk.migrationId).toBe(1);
    const after = items.filter((i) => !isImport(i) && !inBulkRange(i));
    expect(after.filter((i) => i.update).length).toBeGreaterThan(50);
    // What the bulk range lacks is there to lack: rejections, traffic, app activity, protobuf renderings.
    const inside = items.filter(inBulkRange);
    expect(inside.filter((i) => !i.update).length).toBeGreaterThan(0);
    expect(inside.filter((i) => i.app_activity_records).length).toBeGreaterThan(0);
    expect(inside.filter((i) => i.update && !isTx(i.update)).length).toBeGreaterThan(0);
    expect(inside.filter((i) => i.update && isTx(i.update) && i.update.external_transaction_hash).length).toBeGreaterThan(0);
  });

  it("writes bulk objects byte-identical to the events mirror's (and A's): updates and ACS snapshots", async () => {
    const ofB = await listAll(b.api);
    const ofC = await listAll(c.api);
    const keysAndDigests = (refs: ObjectRef[]) => refs.map((r) => `${keyOfRef(r)} ${r.digest}`);
    expect(keysAndDigests(ofC.refs)).toEqual(keysAndDigests(ofB.refs));
    expect(keysAndDigests(ofC.refs)).toEqual(objects.map((o) => `${o.key} ${o.ref.digest}`));
    let snapshots = 0;
    for (const at of ['2025-03-02T00:00:00Z', '2025-03-03T00:00:00Z']) {
      const path = `/api/scan/v0/history/bulk/acs?at_or_before_record_time=${encodeURIComponent(at)}`;
      const [fromB, fromC] = await Promise.all([request(b.api.url, 'GET', path), request(c.api.url, 'GET', path)]);
      expect(fromB.status).toBe(200);
      const refs = (r: HttpResult) => keysAndDigests((r.json as { object_refs: ObjectRef[] }).object_refs);
      expect(refs(fromC)).toEqual(refs(fromB));
      snapshots += refs(fromB).length;
    }
    expect(snapshots).toBeGreaterThanOrEqual(2);
    // And the digests are those of the bytes C serves.
    for (const ref of ofC.refs.slice(0, 3)) expect(sha256(Buffer.from(await (await fetch(ref.url)).arrayBuffer()))).toBe(ref.digest);
  });

  it("ends with the events mirror's tables, but for what bulk lines do not carry", async () => {
    const [dumpB, dumpC] = await Promise.all([dumpTables(b.t.db), dumpTables(c.t.db)]);
    const rows = (dump: Record<string, string>, table: string) =>
      dump[table] === '' ? [] : dump[table]!.split('\n').map((r) => JSON.parse(r) as Record<string, unknown>);
    const lacking = new Set(['updates', 'contracts', 'verdicts', 'traffic_summaries', 'app_activity_records', 'vote_results']);
    for (const table of Object.keys(dumpB).filter((t) => !lacking.has(t))) {
      expect({ table, rows: dumpC[table] }).toEqual({ table, rows: dumpB[table] });
    }
    // Verdicts, traffic summaries and app activity: only those after the bulk range.
    const afterRange = (r: Record<string, unknown>) => {
      const k = {
        migrationId: Number(r.migration_id),
        recordTime: parseTimestamp(String(r.record_time).replace(' ', 'T').replace(/\+00$/, 'Z')),
      };
      return k.migrationId > lastBulk.migrationId || (k.migrationId === lastBulk.migrationId && k.recordTime > lastBulk.recordTime);
    };
    for (const table of ['verdicts', 'traffic_summaries', 'app_activity_records']) {
      const fromB = rows(dumpB, table);
      const expected = fromB.filter(afterRange);
      expect(expected.length).toBeLessThan(fromB.length);
      expect({ table, rows: rows(dumpC, table) }).toEqual({ table, rows: expected });
    }
    // Updates: the same rows, but for their stored renderings (compared through the API below).
    const withoutPayload = (r: Record<string, unknown>) => {
      const { payload: _p, payload_compact_length: _l, ...rest } = r;
      return rest;
    };
    expect(rows(dumpC, 'updates').map(withoutPayload)).toEqual(rows(dumpB, 'updates').map(withoutPayload));
    // Contracts: the same, the arguments of those created in the bulk range with their keys sorted.
    const contractsB = rows(dumpB, 'contracts');
    let sorted = 0;
    const expectedContracts = contractsB.map((r) => {
      if (!bulkContracts.has(`${String(r.migration_id)}:${String(r.contract_id)}`)) return r;
      sorted++;
      return { ...r, create_arguments: JSON.stringify(sortKeys(JSON.parse(r.create_arguments as string))) };
    });
    expect(sorted).toBeGreaterThan(100);
    expect(rows(dumpC, 'contracts')).toEqual(expectedContracts);
    // Closed votes keep the exercise result (a Daml value): sorted for votes closed in the bulk range.
    const votesB = rows(dumpB, 'vote_results');
    const expectedVotes = votesB.map((r) =>
      bulkUpdates.has(String(r.update_id)) ? { ...r, result: JSON.stringify(sortKeys(JSON.parse(r.result as string))) } : r,
    );
    expect(votesB.filter((r) => bulkUpdates.has(String(r.update_id))).length).toBeGreaterThan(0);
    expect(rows(dumpC, 'vote_results')).toEqual(expectedVotes);
  });

  /**
   * B's answer with what the bulk range lacks taken out: Daml values of events of bulk-range updates,
   * and the payloads of contracts they created (in the newest migration: current-state answers), with
   * keys sorted; /v0/events elements of the bulk range without verdict, traffic and activity, and
   * bulk-range rejections absent.
   */
  function withoutWhatBulkLacks(text: string): string {
    const parsed = JSON.parse(text) as unknown;
    // The transformation below writes with JSON.stringify: B's text must be in that form already.
    expect(JSON.stringify(parsed)).toBe(text);
    const lastMigration = 1;
    const updateIdOf = (eventId: string) => eventId.slice(0, eventId.lastIndexOf(':'));
    const walk = (v: unknown): unknown => {
      if (Array.isArray(v)) {
        return v.filter((e) => !isBulkRejection(e)).map(walk);
      }
      if (v === null || typeof v !== 'object') return v;
      const o = { ...(v as Record<string, unknown>) };
      if ('update' in o && 'verdict' in o && 'traffic_summary' in o && 'app_activity_records' in o) {
        const update = o.update as Update | null;
        if (update && bulkUpdates.has(update.update_id))
          Object.assign(o, { verdict: null, traffic_summary: null, app_activity_records: null });
      }
      // An event of a bulk-range update (by its id), or an ACS item a bulk-range update created.
      const fromBulk =
        (typeof o.event_id === 'string' && bulkUpdates.has(updateIdOf(o.event_id))) ||
        (typeof o.created_in_update_id === 'string' && bulkUpdates.has(o.created_in_update_id));
      // A closed vote's result, listed as the exercise result it is.
      if (typeof o.completedAt === 'string' && 'outcome' in o && bulkVoteCompletions.has(o.completedAt)) return sortKeys(o);
      for (const [k, value] of Object.entries(o)) {
        const damlValue =
          (fromBulk && (k === 'create_arguments' || k === 'choice_argument' || k === 'exercise_result')) ||
          (k === 'payload' &&
            typeof o.contract_id === 'string' &&
            'template_id' in o &&
            bulkContracts.has(`${lastMigration}:${o.contract_id}`));
        o[k] = damlValue ? sortKeys(value) : walk(value);
      }
      return o;
    };
    const isBulkRejection = (e: unknown) => {
      if (e === null || typeof e !== 'object') return false;
      const o = e as Record<string, unknown>;
      if (!('verdict' in o) || o.update !== null || !o.verdict) return false;
      const v = o.verdict as { migration_id: number; record_time: string };
      const k = { migrationId: v.migration_id, recordTime: parseTimestamp(v.record_time) };
      return k.migrationId < lastBulk.migrationId || (k.migrationId === lastBulk.migrationId && k.recordTime <= lastBulk.recordTime);
    };
    return JSON.stringify(walk(parsed));
  }

  // Facts of the network that the requests name.
  const updates = items.filter((i) => i.update && !isImport(i));
  const firstTx = () => updates.find((i) => isTx(i.update!) && inBulkRange(i))!.update!.update_id;
  const tailTx = () => updates.find((i) => isTx(i.update!) && !inBulkRange(i))!.update!.update_id;
  const hashedIn = (bulk: boolean) =>
    (updates.find((i) => inBulkRange(i) === bulk && (i.update as TransactionUpdate).external_transaction_hash)!.update as TransactionUpdate)
      .external_transaction_hash!;
  const importId = () => items.find(isImport)!.update!.update_id;
  const owners = () => {
    const counts = new Map<string, number>();
    for (const i of updates) {
      if (!isTx(i.update!)) continue;
      for (const e of Object.values(i.update.events_by_id)) {
        const owner = e.event_type === 'created_event' ? (e.create_arguments as { owner?: unknown }).owner : undefined;
        if (typeof owner === 'string') counts.set(owner, (counts.get(owner) ?? 0) + 1);
      }
    }
    return [...counts]
      .sort((x, y) => y[1] - x[1])
      .slice(0, 3)
      .map(([o]) => o);
  };

  const requests = (): { method: 'GET' | 'POST'; path: string; body?: unknown }[] => [
    { method: 'GET', path: `/v2/updates/${firstTx()}` },
    { method: 'GET', path: `/v2/updates/${tailTx()}` },
    { method: 'GET', path: `/v2/updates/${tailTx()}?daml_value_encoding=protobuf_json` },
    { method: 'GET', path: `/v2/updates/${importId()}?daml_value_encoding=protobuf_json` },
    { method: 'GET', path: `/v1/updates/${firstTx()}` },
    { method: 'GET', path: `/v2/updates/hash/${hashedIn(true)}` },
    { method: 'GET', path: `/v2/updates/hash/${hashedIn(false)}?daml_value_encoding=protobuf_json` },
    { method: 'GET', path: `/v0/events/${firstTx()}` },
    { method: 'GET', path: `/v0/events/${tailTx()}?daml_value_encoding=protobuf_json` },
    { method: 'GET', path: '/v0/events/latest-record-time' },
    { method: 'POST', path: '/v0/backfilling/migration-info', body: { migration_id: 0 } },
    { method: 'POST', path: '/v0/backfilling/migration-info', body: { migration_id: 1 } },
    { method: 'POST', path: '/v0/backfilling/import-updates', body: { migration_id: 1, after_update_id: '', limit: 100 } },
    { method: 'GET', path: '/v0/migrations/last' },
    { method: 'POST', path: '/v0/state/acs', body: { migration_id: 0, record_time: '2025-03-02T09:00:00Z', page_size: 1000 } },
    { method: 'POST', path: '/v0/state/acs', body: { migration_id: 1, record_time: '2025-03-03T03:00:00Z', page_size: 1000 } },
    { method: 'POST', path: '/v2/state/acs', body: { migration_id: 1, record_time: '2025-03-02T21:00:00Z', page_size: 1000 } },
    ...[0, 1].flatMap((m) => {
      const snapshot = {
        migration_id: m,
        record_time: m === 0 ? '2025-03-02T09:00:00Z' : '2025-03-03T03:00:00Z',
        owner_party_ids: owners(),
      };
      return [
        { method: 'POST' as const, path: '/v0/holdings/summary', body: snapshot },
        { method: 'POST' as const, path: '/v2/holdings/state', body: { ...snapshot, page_size: 100 } },
      ];
    }),
    { method: 'POST', path: '/v0/amulet-rules', body: {} },
    {
      method: 'POST',
      path: '/v0/open-and-issuing-mining-rounds',
      body: { cached_open_mining_round_contract_ids: [], cached_issuing_round_contract_ids: [] },
    },
    { method: 'GET', path: '/v0/dso' },
    { method: 'GET', path: '/v0/ans-entries?page_size=100' },
    { method: 'GET', path: '/v0/featured-apps' },
    { method: 'GET', path: '/v0/closed-rounds' },
    { method: 'GET', path: '/v0/admin/validator/licenses' },
    { method: 'POST', path: '/v0/admin/sv/voteresults', body: { limit: 100 } },
  ];

  it('answers as the events mirror does once what bulk lacks is taken out of its answers', async () => {
    const list = requests();
    let differing = 0;
    for (const r of list) {
      const [fromB, fromC] = await Promise.all([
        request(b.api.url, r.method, `/api/scan${r.path}`, r.body),
        request(c.api.url, r.method, `/api/scan${r.path}`, r.body),
      ]);
      const name = `${r.method} ${r.path}${r.body === undefined ? '' : ` ${JSON.stringify(r.body)}`}`;
      expect({ name, status: fromB.status }).toEqual({ name, status: 200 });
      expect({ name, status: fromC.status, text: fromC.text }).toEqual({ name, status: 200, text: withoutWhatBulkLacks(fromB.text) });
      if (fromC.text !== fromB.text) differing++;
    }
    // Many of these answers hold Daml values of the bulk range, and so differ from B's in key order.
    expect(differing).toBeGreaterThanOrEqual(10);
  });

  it.each([
    ['/v2/updates', 'compact_json'],
    ['/v1/updates', 'compact_json'],
    ['/v0/events', 'compact_json'],
    ['/v2/updates', 'protobuf_json'],
  ])('serves the whole of %s (%s) as the events mirror does once what bulk lacks is taken out', async (path, encoding) => {
    const [fromB, fromC] = await Promise.all([wholeList(b.api, path, encoding), wholeList(c.api, path, encoding)]);
    expect(fromB.status).toBe(200);
    if (encoding === 'protobuf_json') {
      // The first page holds bulk-range updates, which C has no protobuf_json rendering of.
      const firstListed = items
        .filter((i) => i.update && inBulkRange(i))
        .map(keyed)
        .sort(byKey)[0]!.updateId;
      expect({ status: fromC.status, text: fromC.text }).toEqual({
        status: 501,
        text: error(`protobuf_json is not available for update ${firstListed}: it was ingested without that encoding. Use compact_json.`),
      });
      return;
    }
    expect(fromB.elements.length).toBeGreaterThanOrEqual(700);
    expect(JSON.stringify(fromC.elements)).toBe(withoutWhatBulkLacks(JSON.stringify(fromB.elements)));
  });

  /** Every element of a history list (/v2/updates, /v1/updates, /v0/events) in an encoding, page by page. */
  async function wholeList(api: TestApi, path: string, encoding: string): Promise<{ status: number; elements: unknown[]; text?: string }> {
    const elements: unknown[] = [];
    let after: { after_migration_id: number; after_record_time: string } | undefined;
    for (;;) {
      const res = await request(api.url, 'POST', `/api/scan${path}`, {
        page_size: 200,
        ...(after && { after }),
        daml_value_encoding: encoding,
      });
      if (res.status !== 200) return { status: res.status, elements, text: res.text };
      const body = res.json as { transactions?: Record<string, unknown>[]; events?: CanonicalItem[] };
      const page = (body.events ?? body.transactions)!;
      elements.push(...page);
      if (page.length < 200) return { status: 200, elements };
      const last = body.events ? keyed(body.events.at(-1)!) : keyed({ update: page.at(-1) as unknown as Update } as CanonicalItem);
      after = { after_migration_id: last.migrationId, after_record_time: formatRecordTime(last.recordTime) };
    }
  }

  it('by default (/v0/events read beside the objects) ends byte-identical to the events mirror: every table, every answer, each history list whole, its own bulk objects', async () => {
    expect(await dumpTables(f.t.db)).toEqual(await dumpTables(b.t.db));
    for (const r of requests()) {
      const [fromB, fromF] = await Promise.all([
        request(b.api.url, r.method, `/api/scan${r.path}`, r.body),
        request(f.api.url, r.method, `/api/scan${r.path}`, r.body),
      ]);
      const name = `${r.method} ${r.path}${r.body === undefined ? '' : ` ${JSON.stringify(r.body)}`}`;
      expect({ name, status: fromB.status }).toEqual({ name, status: 200 });
      expect({ name, status: fromF.status, text: fromF.text }).toEqual({ name, status: 200, text: fromB.text });
    }
    for (const [path, encoding] of [
      ['/v2/updates', 'compact_json'],
      ['/v2/updates', 'protobuf_json'],
      ['/v1/updates', 'compact_json'],
      ['/v0/events', 'compact_json'],
      ['/v0/events', 'protobuf_json'],
    ] as const) {
      const [fromB, fromF] = await Promise.all([wholeList(b.api, path, encoding), wholeList(f.api, path, encoding)]);
      expect({ path, encoding, status: fromB.status }).toEqual({ path, encoding, status: 200 });
      expect(fromB.elements.length).toBeGreaterThanOrEqual(700);
      expect({ path, encoding, status: fromF.status, elements: JSON.stringify(fromF.elements) }).toEqual({
        path,
        encoding,
        status: 200,
        elements: JSON.stringify(fromB.elements),
      });
    }
    // The rejections of the bulk range, which no line holds, are there.
    const rejection = items.find((i) => !i.update && inBulkRange(i))!.verdict!.update_id;
    const [ofB, ofF] = await Promise.all([b, f].map((x) => request(x.api.url, 'GET', `/api/scan/v0/events/${rejection}`)));
    expect(ofB!.status).toBe(200);
    expect({ status: ofF!.status, text: ofF!.text }).toEqual({ status: 200, text: ofB!.text });
    const keysAndDigests = async (api: TestApi) => (await listAll(api)).refs.map((r) => `${keyOfRef(r)} ${r.digest}`);
    expect(await keysAndDigests(f.api)).toEqual(await keysAndDigests(b.api));
  });

  it("by default yields the events mirror's items, and exactly those after any position it gave, rejections between lines included", async () => {
    const full = await collect(bulkSource(a.api.url, true));
    const scan = await collect(createScanSource({ urls: [a.api.url], pageSize: 100, stopAtEnd: true, logger }));
    expect(full.map((i) => i.item)).toEqual(scan.map((i) => i.item));
    const ids = (list: SourceItem[]) => list.map((i) => i.item.update?.update_id ?? `verdict ${i.item.verdict!.update_id}`);
    const bulkAt = (i: number) => (JSON.parse(full[i]!.position) as { bulk?: { object: string; lines: number } }).bulk;
    const bulkPhase = full.filter((_, i) => bulkAt(i) !== undefined).length;
    // The bulk phase positions every item up to the last line's update; /v0/events's own positions follow.
    expect(full[bulkPhase - 1]!.item.update?.update_id).toBe(lastBulk.updateId);
    expect(full.slice(bulkPhase).every((_, i) => bulkAt(bulkPhase + i) === undefined)).toBe(true);
    const rejectionAt = full.findIndex((x, i) => !x.item.update && bulkAt(i) !== undefined && bulkAt(i)!.lines > 0);
    const beforeFirstLine = full.findIndex((_, i) => i > 0 && bulkAt(i)?.lines === 0);
    const firstImport = full.findIndex((i) => isImport(i.item) && migrationOf(i.item.update!) === 1);
    const lastOfObject = full.findIndex((_, i) => i > 0 && i + 1 < bulkPhase && bulkAt(i + 1)!.object !== bulkAt(i)!.object);
    const samples = [
      0,
      rejectionAt,
      beforeFirstLine,
      lastOfObject,
      firstImport,
      firstImport + 2,
      bulkPhase - 1,
      bulkPhase,
      full.length - 2,
    ];
    expect(rejectionAt).toBeGreaterThan(0);
    expect([lastOfObject, firstImport].every((i) => i > 0)).toBe(true);
    for (const i of samples.filter((x) => x >= 0 && x < full.length - 1)) {
      const rest = await collect(bulkSource(a.api.url, true), full[i]!.position);
      expect({ from: full[i]!.position, ids: ids(rest) }).toEqual({ from: full[i]!.position, ids: ids(full.slice(i + 1)) });
      expect(rest.map((r) => r.position)).toEqual(full.slice(i + 1).map((r) => r.position));
    }
  });

  it('by default refuses a line whose update /v0/events serves otherwise, or not at all, naming it, and ingests nothing of it', async () => {
    const object = objects[2]!;
    const n = object.lines.findIndex((l) => 'events_by_id' in (JSON.parse(l) as Update)) + 1;
    const victim = JSON.parse(object.lines[n - 1]!) as TransactionUpdate;
    const at = `{"migration_id":${victim.migration_id},"record_time":"${formatRecordTime(parseTimestamp(victim.record_time))}"}`;
    for (const [lie, reason] of [
      [
        (e: CanonicalItem) =>
          e.update?.update_id === victim.update_id ? [{ ...e, update: { ...e.update, workflow_id: 'another' } }] : [e],
        /: \/v0\/events serves this update otherwise than the line holds it \(http:\/\/127\.0\.0\.1:\d+\/api\/scan\/v0\/events after .+, element \d+\): refusing the update$/,
      ],
      [
        (e: CanonicalItem) => (e.update?.update_id === victim.update_id ? [] : [e]),
        new RegExp(
          `: /v0/events \\(http://127\\.0\\.0\\.1:\\d+/api/scan/v0/events after .+, element \\d+\\) serves (update|a verdict of) \\S+ at \\{.+\\} where the objects hold this line's update at ${at.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} next: refusing the line$`,
        ),
      ],
    ] as const) {
      const proxy = await proxyTo(a.api.url, undefined, (events) => events.flatMap(lie));
      const d = await createTestDatabase();
      extraDatabases.push(d);
      try {
        const err = await ingest(d, bulkSource(proxy.url, true), 10).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(SourceItemError);
        const message = (err as Error).message;
        const origin = `bulk object ${object.key} of ${proxy.url}, line ${n} (update ${victim.update_id})`;
        expect(message.startsWith(origin)).toBe(true);
        expect(message.slice(origin.length)).toMatch(reason);
      } finally {
        await proxy.close();
      }
      const stored = await sql<{ n: number }>`select count(*)::int as n from updates where update_id = ${victim.update_id}`.execute(d.db);
      expect(stored.rows[0]!.n).toBe(0);
    }
  });

  it('answers what it lacks for the bulk range as an indexer without it does', async () => {
    const rejection = items.find((i) => !i.update && inBulkRange(i))!.verdict!.update_id;
    const res = await request(c.api.url, 'GET', `/api/scan/v0/events/${rejection}`);
    const none = await request(c.api.url, 'GET', '/api/scan/v0/events/no-such-update');
    expect(none.status).toBe(404);
    expect({ status: res.status, text: res.text }).toEqual({ status: 404, text: none.text.replace('no-such-update', rejection) });
    expect((await request(b.api.url, 'GET', `/api/scan/v0/events/${rejection}`)).status).toBe(200);
    const tx = firstTx();
    expect(await request(c.api.url, 'GET', `/api/scan/v2/updates/${tx}?daml_value_encoding=protobuf_json`)).toMatchObject({
      status: 501,
      text: error(`protobuf_json is not available for update ${tx}: it was ingested without that encoding. Use compact_json.`),
    });
  });

  it('yields exactly the items after any position it gave, across objects, pages, import updates and the switch to /v0/events', async () => {
    const full = await collect(bulkSource(a.api.url, false));
    const ids = (list: SourceItem[]) => list.map((i) => i.item.update?.update_id ?? `verdict ${i.item.verdict!.update_id}`);
    // Everything A holds but the bulk range's rejections, each once.
    const expected = items.filter((i) => isImport(i) || i.update || !inBulkRange(i));
    expect(new Set(ids(full)).size).toBe(full.length);
    expect(new Set(ids(full))).toEqual(new Set(expected.map((i) => i.update?.update_id ?? `verdict ${i.verdict!.update_id}`)));
    const bulkPhase = full.filter((i) => (JSON.parse(i.position) as { bulk?: unknown }).bulk !== undefined);
    const firstImport = full.findIndex((i) => isImport(i.item) && migrationOf(i.item.update!) === 1);
    const positionsOf = (i: number) => JSON.parse(full[i]!.position) as { bulk?: { lines: number } };
    // Object ends (the next line is another object's first), a page's end, within and right after the
    // import updates, the last bulk item and the first of /v0/events, and some others.
    const inBulk = (i: number) => i + 1 < bulkPhase.length;
    const lastOfObject = full.findIndex((_, i) => i > 0 && inBulk(i) && positionsOf(i + 1).bulk?.lines === 1);
    const pageOf = (i: number) => (JSON.parse(full[i]!.position) as { bulk: { page: string | null } }).bulk.page;
    const lastOfPage = full.findIndex((_, i) => inBulk(i) && pageOf(i) !== pageOf(i + 1));
    const samples = [0, 7, lastOfObject, lastOfPage, firstImport, firstImport + 3, bulkPhase.length - 1, bulkPhase.length, full.length - 2];
    const resumedAt = samples.filter((i) => i >= 0 && i < full.length - 1);
    expect(resumedAt.length).toBe(samples.length);
    for (const i of resumedAt) {
      const rest = await collect(bulkSource(a.api.url, false), full[i]!.position);
      expect({ from: full[i]!.position, ids: ids(rest) }).toEqual({ from: full[i]!.position, ids: ids(full.slice(i + 1)) });
      expect(rest.map((r) => r.position)).toEqual(full.slice(i + 1).map((r) => r.position));
    }
  });

  it('refuses an object whose bytes or checksum do not match, naming it, and ingests nothing of it', async () => {
    const victim = objects[3]!;
    const file = path.join(a.dir, victim.key);
    const original = fs.readFileSync(file);
    const corrupt = Buffer.from(original);
    corrupt.writeUInt8(corrupt.readUInt8(corrupt.length >> 1) ^ 0x01, corrupt.length >> 1);
    const d = await createTestDatabase();
    extraDatabases.push(d);
    fs.writeFileSync(file, corrupt);
    try {
      const err = await ingest(d, bulkSource(a.api.url, false)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(SourceItemError);
      expect((err as Error).message).toBe(
        `bulk object ${victim.key} of ${a.api.url}: the SHA-256 of the ${corrupt.length} bytes downloaded from ${victim.ref.url} is ${sha256(corrupt)}, not the upstream's checksum ${victim.ref.digest}: refusing the object`,
      );
    } finally {
      fs.writeFileSync(file, original);
    }
    const ofVictim = victim.lines.map((l) => (JSON.parse(l) as Update).update_id);
    const stored = await sql<{ n: number }>`select count(*)::int as n from updates where update_id = any(${ofVictim})`.execute(d.db);
    expect(stored.rows[0]!.n).toBe(0);

    // An upstream whose checksums answer disagrees with its listing: refused before the download.
    const wrong = sha256(Buffer.from('not the object'));
    const proxy = await proxyTo(a.api.url, { key: victim.key, checksum: wrong });
    try {
      const e = await createTestDatabase();
      extraDatabases.push(e);
      const err = await ingest(e, bulkSource(proxy.url, false)).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect((err as Error).message).toBe(
        `bulk object ${victim.key} of ${proxy.url}: the upstream's checksum (${wrong}) differs from the digest its listing gives (${victim.ref.digest}): refusing the object`,
      );
    } finally {
      await proxy.close();
    }
  });

  /** A's database and directory served again without bulk storage: its listing answers 501, its /v0/events as A's. */
  async function withoutBulk(): Promise<TestApi> {
    const api = await startTestApi(a.t);
    extraApis.push(api);
    return api;
  }
  const NOT_SERVED = error('Bulk storage is not configured');

  it.each([
    ['the lines alone', false],
    ['/v0/events beside the objects', true],
  ])(
    'attests each object across upstreams (%s): takes what the threshold agree on, reports one lying about a checksum and one serving bad bytes, leaves out one without bulk storage, and ends with the tables of one upstream read alone',
    async (_mode, fillFromEvents) => {
      const lied = objects[1]!;
      const spoiled = objects.at(-2)!;
      expect(lied.key).not.toBe(spoiled.key);
      const wrong = sha256(Buffer.from('not the object'));
      const flip = (b: Buffer) => {
        const c = Buffer.from(b);
        c.writeUInt8(c.readUInt8(c.length >> 1) ^ 0x01, c.length >> 1);
        return c;
      };
      const spoiledBytes = flip(fs.readFileSync(path.join(a.dir, spoiled.key)));
      // Listed alike by all; its bytes from this one do not match. First, so that it is asked first.
      const badBytes = await proxyTo(a.api.url, { key: spoiled.key, bytes: flip });
      // Lies about one object, in its listing and its checksums alike.
      const liar = await proxyTo(b.api.url, { key: lied.key, digest: wrong, checksum: wrong });
      const none = await withoutBulk();
      const d = await createTestDatabase();
      extraDatabases.push(d);
      const { observer, disagreed, counted } = recorder();
      try {
        await ingest(d, attestedBulkSource([badBytes.url, liar.url, b.api.url, none.url], 2, observer, fillFromEvents));
      } finally {
        await Promise.all([badBytes.close(), liar.close()]);
      }
      await mirrorBlobs(d, a.api.url);
      expect(await dumpTables(d.db)).toEqual(await dumpTables((fillFromEvents ? f : c).t.db));
      expect(disagreed.sort()).toEqual(
        [
          `${liar.url} at bulk object ${lied.key}: ${wrong} instead of ${lied.ref.digest}`,
          `${badBytes.url} at bulk object ${spoiled.key}: ${sha256(spoiledBytes)} instead of ${spoiled.ref.digest}`,
        ].sort(),
      );
      expect(counted.get(`${liar.url} disagreed`)).toBe(1);
      expect(counted.get(`${badBytes.url} disagreed`)).toBe(1);
      // Each listing round counts the upstream without bulk storage as unavailable: one per page.
      expect(counted.get(`${none.url} unavailable`)).toBe(listingPages);
      // The spoiled object was downloaded from the first upstream, then from the next that lists it alike.
      const download = (key: string) => `GET /api/scan/v0/history/bulk/download/${encodeURIComponent(key)}`;
      expect(badBytes.requests.filter((r) => r === download(spoiled.key))).toHaveLength(1);
      expect(liar.requests.filter((r) => r === download(spoiled.key))).toHaveLength(1);
    },
  );

  it('refuses an object too few upstreams list with the same checksum, naming each, after ingesting the objects before it', async () => {
    const victim = objects[2]!;
    const wrong = sha256(Buffer.from('another object'));
    const liar = await proxyTo(b.api.url, { key: victim.key, digest: wrong, checksum: wrong });
    const before = objects.slice(0, 2).flatMap((o) => o.lines.map((l) => (JSON.parse(l) as Update).update_id));
    const ofVictim = victim.lines.map((l) => (JSON.parse(l) as Update).update_id);
    const BATCH = 10;
    expect(before.length).toBeGreaterThan(BATCH);
    try {
      for (const [urls, threshold] of [
        [[a.api.url, liar.url], 2],
        [[a.api.url, b.api.url, liar.url], 3],
      ] as const) {
        const d = await createTestDatabase();
        extraDatabases.push(d);
        const { observer, disagreed } = recorder();
        const err = await ingest(d, attestedBulkSource([...urls], threshold, observer), BATCH).then(
          () => undefined,
          (e: unknown) => e,
        );
        const each = urls.map((u) => `${u} lists digest ${u === liar.url ? wrong : victim.ref.digest}`).join('; ');
        expect(err).toBeInstanceOf(SourceItemError);
        expect((err as Error).message).toBe(
          `bulk object ${victim.key}: no digest is listed by ${threshold} upstreams, nor can be (${each}): refusing the object`,
        );
        expect(disagreed).toEqual([]);
        const { rows } = await sql<{
          update_id: string;
        }>`select update_id from updates where record_time > '0001-01-02'`.execute(d.db);
        // What was committed of the objects before it (all but the batch that was being read), and nothing of it.
        const stored = rows.map((r) => r.update_id);
        expect(stored.length).toBeGreaterThan(before.length - BATCH);
        expect(new Set(stored)).toEqual(new Set(before.slice(0, stored.length)));
        expect(ofVictim.some((id) => before.includes(id))).toBe(false);
      }
    } finally {
      await liar.close();
    }
  });

  it('fails at once, naming the upstream and its answer, when too few upstreams serve bulk history (their listing answers 501)', async () => {
    const none = await proxyTo((await withoutBulk()).url);
    try {
      const listing = `${none.url}/api/scan/v0/history/bulk/updates answered HTTP 501 (${NOT_SERVED})`;
      const alone = await collect(bulkSource(none.url, true)).catch((e: unknown) => e);
      expect(alone).toBeInstanceOf(BulkHistoryNotServedError);
      expect((alone as Error).message).toBe(
        `${listing}: that upstream does not serve bulk history. SOURCE=scan backfills from /v0/events instead.`,
      );
      // Asked once: a 501 is not retried.
      expect(none.requests).toEqual(['POST /api/scan/v0/history/bulk/updates']);
      const d = await createTestDatabase();
      extraDatabases.push(d);
      const withA = await ingest(d, attestedBulkSource([a.api.url, none.url], 2)).catch((e: unknown) => e);
      expect(withA).toBeInstanceOf(BulkHistoryNotServedError);
      expect((withA as Error).message).toBe(
        `${listing}: 1 of the 2 upstreams do not serve bulk history, which leaves fewer than the threshold (2) to attest objects. SOURCE=scan backfills from /v0/events instead.`,
      );
      expect(none.requests).toHaveLength(2);
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from updates`.execute(d.db);
      expect(rows[0]!.n).toBe(0);
    } finally {
      await none.close();
    }
  });

  describe("a mirror's ACS snapshots held against its upstreams'", () => {
    const SNAPSHOTS = ['2025-03-02T00:00:00Z', '2025-03-03T00:00:00Z'];
    /** A's ACS snapshot objects at a time, as `key digest`. */
    async function acsOf(api: TestApi, at: string): Promise<string[]> {
      const res = await request(api.url, 'GET', `/api/scan/v0/history/bulk/acs?at_or_before_record_time=${encodeURIComponent(at)}`);
      expect(res.status).toBe(200);
      return (res.json as { object_refs: ObjectRef[] }).object_refs.map((r) => `${keyOfRef(r)} ${r.digest}`);
    }

    it('matches where the upstream wrote the same objects, differs where one lies about a digest, and is absent without bulk storage', async () => {
      const lied = (await acsOf(a.api, SNAPSHOTS[1]!))[0]!.split(' ')[0]!;
      const wrong = sha256(Buffer.from('another snapshot'));
      const liar = await proxyTo(a.api.url, { key: lied, digest: wrong });
      const none = await withoutBulk();
      const d = await createTestDatabase();
      extraDatabases.push(d);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulk-acs-check-'));
      const seen: string[] = [];
      const check = createAcsSnapshotCheck({
        urls: [a.api.url, liar.url, none.url],
        logger,
        observer: { checked: (upstream, outcome) => void seen.push(`${upstream} ${outcome}`) },
      });
      const checked: { at: string; outcomes: AcsCheckOutcome[] }[] = [];
      try {
        await ingest(d, createScanSource({ urls: [a.api.url], pageSize: 100, stopAtEnd: true, logger }));
        await writeCompletedSegments({
          db: d.db,
          store: directoryStore(dir),
          logger,
          ...SIZES,
          afterAcsSnapshot: async (snapshot) => {
            const outcomes = await check(snapshot, new AbortController().signal);
            checked.push({ at: formatInstant(snapshot.recordTime), outcomes });
          },
        });
      } finally {
        await liar.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
      expect(checked).toEqual([
        { at: SNAPSHOTS[0], outcomes: ['matched', 'matched', 'absent'] },
        { at: SNAPSHOTS[1], outcomes: ['matched', 'differed', 'absent'] },
      ]);
      expect(seen).toEqual(checked.flatMap((c) => c.outcomes.map((o, i) => `${[a.api.url, liar.url, none.url][i]} ${o}`)));
      // And an upstream whose newest snapshot is older than the one written: absent, not differed.
      const older = await proxyTo(a.api.url, undefined, undefined, (url) =>
        url.startsWith('/api/scan/v0/history/bulk/acs')
          ? url.replace(encodeURIComponent(SNAPSHOTS[1]!), encodeURIComponent('2025-03-02T12:00:00Z'))
          : url,
      );
      try {
        const rows = await sql<{
          key: string;
          sha256: string;
        }>`select key, sha256 from bulk_objects where key like ${`${SNAPSHOTS[1]}%ACS%`} order by object_index`.execute(b.t.db);
        expect(rows.rows.length).toBeGreaterThan(0);
        const outcomes = await createAcsSnapshotCheck({ urls: [older.url], logger })(
          { migrationId: 1, recordTime: parseTimestamp(SNAPSHOTS[1]!), objects: rows.rows },
          new AbortController().signal,
        );
        expect(outcomes).toEqual(['absent']);
      } finally {
        await older.close();
      }
    });

    it("runs in a mirror that writes bulk storage unless SCAN_SOURCE_ACS_CHECK=false: the ingest command checks each snapshot it writes (its objects, of another size, differ from A's)", async () => {
      /** The check's "differs" log lines of an ingest run, with the knob as given. */
      async function differed(acsCheck: string | undefined) {
        const d = await createTestDatabase();
        extraDatabases.push(d);
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulk-acs-check-'));
        try {
          const result = await runCli(['ingest'], {
            DATABASE_URL: d.url,
            SOURCE: 'scan',
            SCAN_SOURCE_URLS: a.api.url,
            INGEST_STOP_AT_END: 'true',
            BULK_STORAGE_DIR: dir,
            ...(acsCheck !== undefined && { SCAN_SOURCE_ACS_CHECK: acsCheck }),
          });
          expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
          expect(fs.readdirSync(dir).filter((f) => f.startsWith(SNAPSHOTS[1]!))).toHaveLength(1);
          return result.stdout
            .split('\n')
            .filter((l) => l.includes("the bulk ACS snapshot differs from the upstream's"))
            .map((l) => JSON.parse(l) as { upstream: string; snapshot: string; theirs: string[] });
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      }
      const checked = await differed(undefined);
      expect(checked.map((l) => `${l.upstream} ${l.snapshot}`)).toEqual(SNAPSHOTS.map((at) => `${a.api.url} ${at}`));
      for (const [i, at] of SNAPSHOTS.entries()) expect(checked[i]!.theirs).toEqual(await acsOf(a.api, at));
      expect(await differed('false')).toEqual([]);
    });
  });

  it("resumes exactly after SIGKILL: the ingest command (its defaults) killed at random points ends with the events mirror's tables", async () => {
    const env = (t: TestDatabase) => ({
      DATABASE_URL: t.url,
      SOURCE: 'bulk',
      SCAN_SOURCE_URLS: a.api.url,
      BULK_SOURCE_PAGE_SIZE: String(pageSize),
      INGEST_STOP_AT_END: 'true',
      INGEST_BATCH_SIZE: '25',
      INGEST_BATCH_MAX_WAIT_MS: '20',
    });
    const expected = await dumpTables(b.t.db);
    let killed = await createTestDatabase();
    extraDatabases.push(killed);
    const bulkCheckpoint = async () => {
      const { rows } = await sql<{ position: string }>`select position from ingest_checkpoints where stream = 'bulk'`.execute(killed.db);
      const position = rows[0] && (JSON.parse(rows[0].position) as { bulk?: { lines: number } });
      return position?.bulk;
    };
    const KILLS = 6;
    let kills = 0;
    let killedInsideAnObject = 0;
    // Kills land between the command's start-up and about the time the in-process run took.
    const spanMs = 500 + bulkIngestMs;
    for (let attempt = 0; attempt < 60; attempt++) {
      const killAfterMs = kills < KILLS ? 800 + Math.floor(Math.random() * spanMs) : undefined;
      const result = await runCli(['ingest'], env(killed), killAfterMs);
      if (result.signal === 'SIGKILL') {
        kills++;
        const at = await bulkCheckpoint();
        if (at && at.lines > 1) killedInsideAnObject++;
        continue;
      }
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
      if (kills >= KILLS) break;
      // It finished before its kill was due: nothing was interrupted, so start over.
      killed = await createTestDatabase();
      extraDatabases.push(killed);
    }
    expect(kills).toBe(KILLS);
    expect(killedInsideAnObject).toBeGreaterThan(0);
    expect(await dumpTables(killed.db)).toEqual(expected);
  });
});

interface Proxy {
  url: string;
  /** Method and path of each request, in order. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * An HTTP proxy to `upstream` whose listings point downloads at itself, and which lies about the object
 * `lie.key` as told: its checksum (checksums answer), its digest (listing), or its bytes (download);
 * about /v0/events pages, whose elements `events` rewrites; and asks the upstream for `rewriteUrl` of
 * each request's URL.
 */
async function proxyTo(
  upstream: string,
  lie?: { key: string; checksum?: string; digest?: string; bytes?: (b: Buffer) => Buffer },
  events?: (elements: CanonicalItem[]) => CanonicalItem[],
  rewriteUrl: (url: string) => string = (url) => url,
): Promise<Proxy> {
  const requests: string[] = [];
  let self = '';
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = chunks.length ? Buffer.concat(chunks) : undefined;
        const answer = await fetch(`${upstream}${rewriteUrl(req.url ?? '')}`, {
          method: req.method,
          headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
          body,
        });
        let bytes: Buffer = Buffer.from(await answer.arrayBuffer());
        if (req.url === '/api/scan/v0/history/bulk/checksums' && answer.status === 200 && lie?.checksum) {
          const keys = (JSON.parse(body!.toString()) as { object_keys: string[] }).object_keys;
          const sums = JSON.parse(bytes.toString()) as { checksums: { value: string }[] };
          sums.checksums = sums.checksums.map((c, i) => (keys[i] === lie.key ? { value: lie.checksum! } : c));
          bytes = Buffer.from(JSON.stringify(sums));
        }
        if (
          (req.url === '/api/scan/v0/history/bulk/updates' || req.url?.startsWith('/api/scan/v0/history/bulk/acs?')) &&
          answer.status === 200
        ) {
          const page = JSON.parse(bytes.toString()) as { object_refs: ObjectRef[] };
          for (const ref of page.object_refs) {
            if (keyOfRef(ref) === lie?.key && lie.digest) ref.digest = lie.digest;
            ref.url = ref.url.replace(upstream, self);
          }
          bytes = Buffer.from(JSON.stringify(page));
        }
        if (events && req.url === '/api/scan/v0/events' && answer.status === 200) {
          const page = JSON.parse(bytes.toString()) as { events: CanonicalItem[] };
          bytes = Buffer.from(JSON.stringify({ ...page, events: events(page.events) }));
        }
        if (lie?.bytes && req.url === `/api/scan/v0/history/bulk/download/${encodeURIComponent(lie.key)}` && answer.status === 200) {
          bytes = lie.bytes(bytes);
        }
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/octet-stream' });
        res.end(bytes);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  self = `http://127.0.0.1:${port}`;
  return {
    url: self,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
