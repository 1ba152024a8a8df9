/**
 * Bulk storage (docs/bulk-history.md) over a simulated two-migration network spread over several
 * days, in a directory (BULK_STORAGE_DIR) and in an S3-compatible bucket (BULK_STORAGE_S3_*, s3rver):
 * the writer's objects, and the five operations serving them through the real HTTP server. Expected values are computed here, independently of the writer: the objects are
 * decompressed with the zstd command-line tool, their lines compared with the items /v2/updates
 * serves, and checksums computed from the downloaded bytes.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatRecordTime, parseTimestamp } from '../../../src/domain/time';
import { createFileSource } from '../../../src/ingest/sources/file-source';
import { runWorker } from '../../../src/ingest/worker';
import { catchUpSnapshots } from '../../../src/jobs/acs-snapshots';
import { writeCompletedSegments } from '../../../src/jobs/bulk-history';
import { createLogger } from '../../../src/internal/logger';
import { directoryStore, s3Store, type BulkObjectStore } from '../../../src/store/bulk-object-store';
import { useTestDatabase } from '../../support/database/database';
import { startS3Server } from '../../support/fakes/s3-server';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { simulatedItems, writeItems } from '../../support/items/simulated-network';
import { loadItems } from './history-fixture';

const DAY_MS = 24 * 3600 * 1000;
const error = (message: string) => JSON.stringify({ error: message });

/** Ten minutes between updates: 400 updates span about three days, so several daily segments. */
const items = simulatedItems({
  seed: 'bulk-history',
  updates: 400,
  migrations: 2,
  startTime: parseTimestamp('2025-03-01T18:00:00Z'),
  meanUpdateGapMs: 10 * 60 * 1000,
});

/** Java's Instant.toString of a whole-second UTC time, as Splice names folders. */
const instant = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const folderEnd = (folder: string) => Date.parse(folder.split('~')[1]!);
const folderStart = (folder: string) => Date.parse(folder.split('~')[0]!);

/** The test's own rendering of a bulk line: top-level nulls dropped, keys sorted at every level, no spaces. */
function expectedLine(item: Record<string, unknown>): string {
  const sorted = (v: unknown): string => {
    if (Array.isArray(v)) return `[${v.map(sorted).join(',')}]`;
    if (v === null || typeof v !== 'object') return JSON.stringify(v);
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sorted(o[k])}`)
      .join(',')}}`;
  };
  return sorted(Object.fromEntries(Object.entries(item).filter(([, v]) => v !== null)));
}

/** zstd's own decoder, not the writer's library. */
const unzstd = (bytes: Buffer): string => execFileSync('zstd', ['-dc'], { input: bytes, maxBuffer: 1 << 30 }).toString('utf8');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('base64');

interface ObjectRef {
  url: string;
  digest: string;
}

/** Where the objects go: the server's variables, the writer's store, and what an interrupted writer left. */
interface StoreUnderTest {
  env: Record<string, string>;
  store: BulkObjectStore;
  /** Names of half-written objects still held (the directory's temporary files); undefined where the store cannot list them. */
  leftovers(): string[] | undefined;
  close(): Promise<void>;
}

const STORES: [string, () => Promise<StoreUnderTest>][] = [
  [
    'BULK_STORAGE_DIR',
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulk-'));
      return {
        env: { BULK_STORAGE_DIR: dir },
        store: directoryStore(dir),
        leftovers: () => fs.readdirSync(path.join(dir, '.partial')),
        close: async () => fs.rmSync(dir, { recursive: true, force: true }),
      };
    },
  ],
  [
    'BULK_STORAGE_S3_BUCKET, an S3-compatible server',
    async () => {
      const s3 = await startS3Server();
      // Parts of 3 KB: objects of 8 KB and more go as multipart uploads of several parts, smaller ones as one PutObject (a real S3 would want 5 MiB).
      return { env: s3.env, store: s3Store(s3.config, 3_000), leftovers: () => undefined, close: () => s3.close() };
    },
  ],
];

describe.each(STORES)('bulk history (%s)', (_name, makeStore) => {
  const t = useTestDatabase();
  const logger = createLogger('silent');
  let target: StoreUnderTest;
  // Small objects: several per segment, each of several frames.
  const sizes = { logger, frameBytes: 8_000, maxObjectBytes: 8_000 };
  const writer = () => ({ ...sizes, store: target.store, db: t.db });
  const exists = async (key: string) => {
    const stream = await target.store.read(key);
    stream?.destroy();
    return stream !== undefined;
  };
  /** The object's bytes as the store holds them, read without the API. */
  const stored = async (key: string) => {
    const chunks: Buffer[] = [];
    for await (const chunk of (await target.store.read(key))!) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };
  let api: TestApi;
  const served: Record<string, unknown>[] = [];

  const post = (p: string, body: unknown) => request(api.url, 'POST', `/api/scan${p}`, body);
  const get = (p: string) => request(api.url, 'GET', `/api/scan${p}`);
  const keyOf = (ref: ObjectRef) => decodeURIComponent(ref.url.split('/v0/history/bulk/download/')[1]!);
  async function download(ref: ObjectRef): Promise<Buffer> {
    const res = await fetch(ref.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    return Buffer.from(await res.arrayBuffer());
  }
  /** Every object of the history written, paging with the given page size. */
  async function listAll(pageSize: number): Promise<ObjectRef[]> {
    const refs: ObjectRef[] = [];
    let token: string | undefined;
    for (let pages = 0; pages < 100; pages++) {
      const res = await post('/v0/history/bulk/updates', {
        start_record_time: '2000-01-01T00:00:00Z',
        end_record_time: '2100-01-01T00:00:00Z',
        page_size: pageSize,
        ...(token && { next_page_token: token }),
      });
      expect(res.status).toBe(200);
      const page = res.json as { object_refs: ObjectRef[]; next_page_token?: string };
      refs.push(...page.object_refs);
      // The history written ends before 2100: the last page hands back its token, to be tried again later.
      if (page.object_refs.length === 0) return refs;
      token = page.next_page_token;
    }
    throw new Error('too many pages');
  }

  beforeAll(async () => {
    target = await makeStore();
    await loadItems(t.db, items);
    await catchUpSnapshots(t.db);
    api = await startTestApi(t, { env: target.env });
    // Everything /v2/updates serves, in order, through the API.
    let after: { after_migration_id: number; after_record_time: string } | undefined;
    for (;;) {
      const res = await post('/v2/updates', { page_size: 500, ...(after && { after }) });
      const page = (res.json as { transactions: Record<string, unknown>[] }).transactions;
      if (page.length === 0) break;
      served.push(...page);
      const last = page[page.length - 1]!;
      after = { after_migration_id: last.migration_id as number, after_record_time: last.record_time as string };
    }
  });
  afterAll(async () => {
    await api?.close();
    await target?.close();
  });

  it('has updates over several days in two migrations', () => {
    expect(served.length).toBeGreaterThanOrEqual(400);
    expect(new Set(served.map((u) => u.migration_id))).toEqual(new Set([0, 1]));
    const span = Date.parse(served[served.length - 1]!.record_time as string) - Date.parse(served[0]!.record_time as string);
    expect(span).toBeGreaterThan(2 * DAY_MS);
  });

  it('leaves no partial object visible when a write is interrupted before an object is finished, and resumes', async () => {
    const crash = new Error('simulated crash between writing an object and making it visible');
    const first = `0001-01-01T00:00:00Z~${instant(Date.UTC(2025, 2, 2))}`;
    await expect(
      writeCompletedSegments({
        ...writer(),
        beforeFinish: (key) => {
          if (key === `${first}/updates_1.zstd`) throw crash;
        },
      }),
    ).rejects.toBe(crash);
    // The first object was finished, the second was not; neither is served, since the segment was not recorded.
    expect(await exists(`${first}/updates_0.zstd`)).toBe(true);
    expect(await exists(`${first}/updates_1.zstd`)).toBe(false);
    expect(await post('/v0/history/bulk/checksums', { object_keys: [`${first}/updates_0.zstd`] })).toMatchObject({
      status: 404,
      text: error(`No bulk storage object with key ${first}/updates_0.zstd`),
    });
    expect((await get(`/v0/history/bulk/download/${encodeURIComponent(`${first}/updates_0.zstd`)}`)).status).toBe(404);
    expect(await listAll(1000)).toEqual([]);

    // Resumed: the interrupted segment is written again, and the temporary files are gone.
    const written = await writeCompletedSegments(writer());
    expect(written).toBeGreaterThanOrEqual(3);
    expect(target.leftovers() ?? []).toEqual([]);
    expect(await exists(`${first}/updates_1.zstd`)).toBe(true);
    expect(await writeCompletedSegments(writer())).toBe(0);
  });

  it('writes the completed daily segments under Splice-style keys', async () => {
    const keys = (await listAll(1000)).map(keyOf);
    const folders = [...new Set(keys.map((k) => k.split('/')[0]!))];
    // The first segment starts at CantonTimestamp.MinValue and ends at the first midnight after the first update.
    const firstUpdate = Date.parse(served[0]!.record_time as string);
    const firstEnd = Math.floor(firstUpdate / DAY_MS) * DAY_MS + DAY_MS;
    expect(folders[0]).toBe(`0001-01-01T00:00:00Z~${instant(firstEnd)}`);
    // Then one segment per day, each starting where the previous ended, up to the last day an update follows.
    const lastUpdate = Date.parse(served[served.length - 1]!.record_time as string);
    const expected = [folders[0]];
    for (let end = firstEnd + DAY_MS; end < lastUpdate; end += DAY_MS) expected.push(`${instant(end - DAY_MS)}~${instant(end)}`);
    expect(folders).toEqual(expected);
    for (const folder of folders) {
      const own = keys.filter((k) => k.startsWith(`${folder}/`));
      expect(own).toEqual(own.map((_, i) => `${folder}/updates_${i}.zstd`));
    }
    expect(keys.length).toBeGreaterThan(folders.length);
  });

  it('objects decompress to NDJSON whose lines are the updates /v2/updates serves, in order', async () => {
    const refs = await listAll(1000);
    const lines: string[] = [];
    for (const ref of refs) {
      const text = unzstd(await download(ref));
      expect(text.endsWith('\n')).toBe(true);
      const own = text.slice(0, -1).split('\n');
      const folder = keyOf(ref).split('/')[0]!;
      for (const line of own) {
        const recordTime = Date.parse((JSON.parse(line) as { record_time: string }).record_time);
        expect(recordTime).toBeGreaterThan(folderStart(folder));
        expect(recordTime).toBeLessThanOrEqual(folderEnd(folder));
      }
      lines.push(...own);
    }
    // A prefix of the history: everything up to the last segment's end, nothing after it.
    expect(lines).toEqual(served.slice(0, lines.length).map(expectedLine));
    const lastEnd = folderEnd(keyOf(refs[refs.length - 1]!).split('/')[0]!);
    expect(Date.parse(served[lines.length]!.record_time as string)).toBeGreaterThan(lastEnd);
  });

  it('checksums are the SHA-256 of the bytes downloaded, which are the bytes written', async () => {
    const refs = await listAll(1000);
    const bytes = await Promise.all(refs.map(download));
    for (const [i, ref] of refs.entries()) {
      expect(bytes[i]!.equals(await stored(keyOf(ref)))).toBe(true);
      expect(ref.digest).toBe(sha256(bytes[i]!));
    }
    const keys = refs.map(keyOf).reverse();
    const res = await post('/v0/history/bulk/checksums', { object_keys: keys });
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      JSON.stringify({
        checksums: bytes
          .map(sha256)
          .reverse()
          .map((value) => ({ value })),
      }),
    );
  });

  it('pages whole segments, and refuses a page size below one segment', async () => {
    const all = await listAll(1000);
    const counts = new Map<string, number>();
    for (const k of all.map(keyOf)) counts.set(k.split('/')[0]!, (counts.get(k.split('/')[0]!) ?? 0) + 1);
    const largest = Math.max(...counts.values());
    expect(await listAll(largest)).toEqual(all);
    const [firstFolder, firstCount] = [...counts.entries()][0]!;
    const body = { start_record_time: '2000-01-01T00:00:00Z', end_record_time: '2100-01-01T00:00:00Z' };
    expect(await post('/v0/history/bulk/updates', { ...body, page_size: firstCount - 1 })).toMatchObject({
      status: 400,
      text: error(`Limit of ${firstCount - 1} is too low to return any objects, even from a single folder of objects`),
    });
    // One segment's range: only its objects, and no next page once the range is covered.
    const res = await post('/v0/history/bulk/updates', {
      start_record_time: instant(Date.UTC(2025, 2, 1, 20)),
      end_record_time: instant(folderEnd(firstFolder)),
      page_size: 1000,
    });
    expect(res.json).toEqual({ object_refs: all.slice(0, firstCount) });
  });

  it('writes the ACS snapshots taken at 00:00 UTC, whose lines are the /v2/state/acs items of the snapshot', async () => {
    const cases = [
      { asked: '2025-03-03T05:00:00Z', at: '2025-03-03T00:00:00Z', migration: 0 },
      { asked: '2025-03-02T00:00:00Z', at: '2025-03-02T00:00:00Z', migration: 0 },
      // After the newest snapshot written: that one.
      { asked: '2100-01-01T00:00:00Z', at: '2025-03-04T00:00:00Z', migration: 1 },
    ];
    for (const { asked, at, migration } of cases) {
      const res = await get(`/v0/history/bulk/acs?at_or_before_record_time=${encodeURIComponent(asked)}`);
      expect(res.status).toBe(200);
      const body = res.json as { record_time: string; object_refs: ObjectRef[] };
      expect(body.record_time).toBe(at);
      const folder = `${at}~${instant(Date.parse(at) + DAY_MS)}`;
      expect(body.object_refs.map(keyOf)).toEqual(body.object_refs.map((_, i) => `${folder}/ACS_${i}.zstd`));
      const lines: string[] = [];
      for (const ref of body.object_refs) {
        const bytes = await download(ref);
        expect(ref.digest).toBe(sha256(bytes));
        lines.push(...unzstd(bytes).slice(0, -1).split('\n'));
      }
      const contracts: Record<string, unknown>[] = [];
      let after: string | undefined;
      for (let pages = 0; pages < 100; pages++) {
        const page = (await post('/v2/state/acs', { migration_id: migration, record_time: at, page_size: 1000, ...(after && { after }) }))
          .json as { created_events: Record<string, unknown>[]; next_page_token: string | null };
        contracts.push(...page.created_events);
        if (!page.next_page_token) break;
        after = page.next_page_token;
      }
      expect(contracts.length).toBeGreaterThan(0);
      expect(lines).toEqual(contracts.map(expectedLine));
    }
    expect(await get('/v0/history/bulk/acs?at_or_before_record_time=2025-03-01T12:00:00Z')).toMatchObject({
      status: 404,
      text: error(
        'No snapshot objects found in bulk storage at expected timestamp 2025-03-01T00:00:00Z, this may be because the timestamp is before network genesis',
      ),
    });
  });

  it('progress: beyond a time once both an ACS snapshot and the update history are written up to it', async () => {
    for (const [time, beyond] of [
      ['2025-03-01T00:00:00Z', true],
      ['2025-03-04T00:00:00Z', true],
      ['2025-03-04T00:00:00.000001Z', false],
      ['2100-01-01T00:00:00Z', false],
    ] as const) {
      const res = await get(`/v0/history/bulk/progress?record_time=${encodeURIComponent(time)}`);
      expect({ time, status: res.status, text: res.text }).toEqual({
        time,
        status: 200,
        text: JSON.stringify({ beyond_requested_record_time: beyond }),
      });
    }
  });

  it('answers 400 to bad input and 404 to unknown keys', async () => {
    const range = { start_record_time: '2025-03-01T00:00:00Z', end_record_time: '2025-03-04T00:00:00Z' };
    for (const body of [
      { ...range, page_size: 0 },
      { ...range, page_size: 1001 },
      { end_record_time: range.end_record_time, page_size: 10 },
      { ...range, start_record_time: 'yesterday', page_size: 10 },
      { ...range, page_size: 10, next_page_token: 'not-a-folder' },
    ]) {
      expect((await post('/v0/history/bulk/updates', body)).status).toBe(400);
    }
    expect((await post('/v0/history/bulk/checksums', { object_keys: 'a' })).status).toBe(400);
    expect((await get('/v0/history/bulk/progress')).status).toBe(400);
    expect((await get('/v0/history/bulk/acs?at_or_before_record_time=soon')).status).toBe(400);
    const unknown = `${formatRecordTime(0n)}~x/updates_0.zstd`;
    expect(await get(`/v0/history/bulk/download/${encodeURIComponent(unknown)}`)).toMatchObject({
      status: 404,
      text: error(`No bulk storage object with key ${unknown}`),
    });
    expect(await get(`/v0/history/bulk/download/${encodeURIComponent('../../etc/passwd')}`)).toMatchObject({ status: 404 });
    expect(await post('/v0/history/bulk/checksums', { object_keys: ['nope'] })).toMatchObject({
      status: 404,
      text: error('No bulk storage object with key nope'),
    });
  });
});

describe('the ingestion worker with a bulk storage directory', () => {
  const t = useTestDatabase();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulk-worker-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes every completed segment and 00:00 snapshot by the end of the source, one object each at the default sizes', async () => {
    await runWorker(
      {
        db: t.db,
        pool: t.pool,
        source: createFileSource(writeItems(items)),
        logger: createLogger('silent'),
        batchSize: 100,
        batchMaxWaitMs: 100,
        bulkStore: directoryStore(dir),
      },
      new AbortController().signal,
    );
    const files = fs
      .readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.zstd'))
      .sort();
    // Update segments, and the snapshots of 00:00 UTC in the folders of the same days.
    expect(files).toEqual([
      '0001-01-01T00:00:00Z~2025-03-02T00:00:00Z/updates_0.zstd',
      '2025-03-02T00:00:00Z~2025-03-03T00:00:00Z/ACS_0.zstd',
      '2025-03-02T00:00:00Z~2025-03-03T00:00:00Z/updates_0.zstd',
      '2025-03-03T00:00:00Z~2025-03-04T00:00:00Z/ACS_0.zstd',
      '2025-03-03T00:00:00Z~2025-03-04T00:00:00Z/updates_0.zstd',
      '2025-03-04T00:00:00Z~2025-03-05T00:00:00Z/ACS_0.zstd',
    ]);
    const api = await startTestApi(t, { env: { BULK_STORAGE_DIR: dir } });
    try {
      const keys = files;
      const res = await request(api.url, 'POST', '/api/scan/v0/history/bulk/checksums', { object_keys: keys });
      expect(res.json).toEqual({ checksums: keys.map((k) => ({ value: sha256(fs.readFileSync(path.join(dir, k))) })) });
    } finally {
      await api.close();
    }
  });
});

describe('bulk history disabled (the default)', () => {
  const t = useTestDatabase();
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(t);
  });
  afterAll(async () => api?.close());

  it('answers 501 on all five operations, whatever the input', async () => {
    const calls: [string, string, unknown?][] = [
      ['GET', '/v0/history/bulk/acs?at_or_before_record_time=2025-01-01T00:00:00Z'],
      ['GET', '/v0/history/bulk/acs'],
      [
        'POST',
        '/v0/history/bulk/updates',
        { start_record_time: '2025-01-01T00:00:00Z', end_record_time: '2025-01-02T00:00:00Z', page_size: 10 },
      ],
      ['POST', '/v0/history/bulk/updates', {}],
      ['POST', '/v0/history/bulk/checksums', { object_keys: ['a'] }],
      ['GET', '/v0/history/bulk/progress?record_time=2025-01-01T00:00:00Z'],
      ['GET', `/v0/history/bulk/download/${encodeURIComponent('2025-01-01T00:00:00Z~2025-01-02T00:00:00Z/updates_0.zstd')}`],
    ];
    for (const [method, p, body] of calls) {
      const res = await request(api.url, method, `/api/scan${p}`, body);
      expect({ call: `${method} ${p}`, status: res.status, text: res.text }).toEqual({
        call: `${method} ${p}`,
        status: 501,
        text: error('Bulk storage is not configured'),
      });
    }
  });
});
