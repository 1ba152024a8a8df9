/**
 * Mirroring: instance A holds a simulated two-migration network and serves it
 * over HTTP; instance B is filled only by running the `scan` source against A
 * (the same worker as `SOURCE=scan`, stopping at the end). B must end with
 * the same tables and answer every request in MIRRORED_REQUESTS byte for byte
 * as A does.
 */
import type { CanonicalItem, TransactionUpdate } from '../../../src/domain/items';
import { formatRecordTime } from '../../../src/domain/time';
import type { Source, SourceItem } from '../../../src/ingest/source';
import { sql } from 'kysely';
import { createBlobMirror, type BlobMirrorRound } from '../../../src/ingest/blob-mirror';
import { createScanSource } from '../../../src/ingest/sources/scan-source';
import { runWorker } from '../../../src/ingest/worker';
import { createLogger } from '../../../src/internal/logger';
import { createTestDatabase, destroyTestDatabase, type TestDatabase } from '../../support/database/database';
import { dumpTables } from '../../support/database/dump';
import { request, startTestApi, type HttpResult, type TestApi } from '../../support/http/http';
import { simulatedItems } from '../../support/items/simulated-network';
import { isImport, isTx, keyed, orderedUpdates } from './history-fixture';

// About four simulated hours per migration, so that each has an ACS snapshot; with reassignments,
// rejections, external hashes and app activity.
const items = simulatedItems({ seed: 'mirror-1', updates: 1400, migrations: 2, meanUpdateGapMs: 20_000 });
const logger = createLogger('silent');

// Facts of the simulated network the requests below refer to.
const transactions = items.filter((i) => i.update && isTx(i.update) && !isImport(i));
const hashed = transactions.find((i) => (i.update as TransactionUpdate).external_transaction_hash)!;
const HASH = (hashed.update as TransactionUpdate).external_transaction_hash!;
const TX_ID = transactions[10]!.update!.update_id;
const HASHED_ID = hashed.update!.update_id;
const ACTIVITY_ID = items.find((i) => i.update && i.app_activity_records)!.update!.update_id;
const REJECTION_ID = items.find((i) => !i.update)!.verdict!.update_id;
const REASSIGNMENT_ID = items.find((i) => i.update && !isTx(i.update))!.update!.update_id;
const IMPORT_ID = items.find(isImport)!.update!.update_id;
const LAST_OF_M0 = orderedUpdates(items)
  .filter((k) => k.migrationId === 0)
  .at(-1)!;
/** Owners of amulets, the busiest first. */
const OWNERS = (() => {
  const counts = new Map<string, number>();
  for (const i of items) {
    const u = i.update;
    if (!u || !isTx(u)) continue;
    for (const e of Object.values(u.events_by_id)) {
      const owner =
        e.event_type === 'created_event' && e.template_id.endsWith(':Splice.Amulet:Amulet')
          ? (e.create_arguments as { owner?: string }).owner
          : undefined;
      if (owner) counts.set(owner, (counts.get(owner) ?? 0) + 1);
    }
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([owner]) => owner);
})();
/** The first vote request of the network (its tracking id), and the global synchronizer. */
const FIRST_VOTE_REQUEST = (() => {
  for (const i of transactions) {
    for (const e of Object.values((i.update as TransactionUpdate).events_by_id)) {
      if (e.event_type === 'created_event' && e.template_id.endsWith(':Splice.DsoRules:VoteRequest')) return e.contract_id;
    }
  }
  return 'no-vote-request';
})();
/** A receiver of a live preapproval, a sender with a counter, and a command's sender and nonce, as the simulator made them. */
const EXTERNAL = (() => {
  const live = new Map<string, { template: string; args: Record<string, string> }>();
  for (const i of transactions) {
    const u = i.update as TransactionUpdate;
    for (const e of Object.values(u.events_by_id)) {
      if (e.event_type === 'created_event')
        live.set(e.contract_id, { template: e.template_id, args: e.create_arguments as Record<string, string> });
      else if (e.consuming) live.delete(e.contract_id);
    }
  }
  const find = (entity: string) => [...live.values()].find((c) => c.template.endsWith(entity))?.args;
  return {
    receiver: find(':Splice.AmuletRules:TransferPreapproval')?.receiver ?? 'none::1220ab',
    counterSender: find(':Splice.ExternalPartyAmuletRules:TransferCommandCounter')?.sender ?? 'none::1220ab',
    command: find(':Splice.ExternalPartyAmuletRules:TransferCommand') ?? { sender: 'none::1220ab', nonce: '0' },
    featured: find(':Splice.Amulet:FeaturedAppRight')?.provider ?? 'none::1220ab',
  };
})();
const GLOBAL_SYNC = (transactions[0]!.update as TransactionUpdate).synchronizer_id;
const CURSOR_M0 = { after_migration_id: 0, after_record_time: formatRecordTime(LAST_OF_M0.recordTime - 5_000_000n) };

interface MirroredRequest {
  method: 'GET' | 'POST';
  /** Under /api/scan, unless `absolute` (then a path of the app: /api/validator/…, /v2/… of the ledger API). */
  path: string;
  body?: unknown;
  absolute?: boolean;
  headers?: Record<string, string>;
}

// ─────────────────────────────────────────────────────────────────────────────
// MIRRORED_REQUESTS: every request here must get the same status and the same
// bytes from A and from B. Add the S-operations as they land (holdings, ACS
// snapshots, rounds, votes, ANS, scans, LSU, validator proxy, ledger API …).
// Paths are relative to /api/scan; set `absolute: true` for the validator proxy
// (/api/validator/…) and the ledger API (/v2/…), with `headers` for a token.
// ─────────────────────────────────────────────────────────────────────────────
const MIRRORED_REQUESTS: MirroredRequest[] = [
  // S4 by hash
  { method: 'GET', path: `/v2/updates/hash/${HASH}` },
  { method: 'GET', path: `/v2/updates/hash/${HASH}?daml_value_encoding=protobuf_json` },
  { method: 'GET', path: `/v2/updates/hash/${'ab'.repeat(32)}` },
  // S5 events by id
  { method: 'GET', path: `/v0/events/${TX_ID}` },
  { method: 'GET', path: `/v0/events/${ACTIVITY_ID}?daml_value_encoding=protobuf_json` },
  { method: 'GET', path: `/v0/events/${HASHED_ID}` },
  { method: 'GET', path: `/v0/events/${REJECTION_ID}` },
  { method: 'GET', path: `/v0/events/${IMPORT_ID}?daml_value_encoding=protobuf_json` },
  { method: 'GET', path: `/v0/events/${REASSIGNMENT_ID}` },
  { method: 'GET', path: '/v0/events/no-such-update' },
  { method: 'GET', path: '/v0/events/latest-record-time' },
  { method: 'GET', path: `/v0/events/${TX_ID}?daml_value_encoding=yaml` },
  // S6 migration info
  { method: 'POST', path: '/v0/backfilling/migration-info', body: { migration_id: 0 } },
  { method: 'POST', path: '/v0/backfilling/migration-info', body: { migration_id: 1 } },
  { method: 'POST', path: '/v0/backfilling/migration-info', body: { migration_id: 2 } },
  // S7 bulk checksums
  { method: 'POST', path: '/v0/history/bulk/checksums', body: { object_keys: ['a'] } },
  // S15, S16
  { method: 'GET', path: '/v0/migrations/last' },
  { method: 'GET', path: '/v0/dso-party-id' },
  // Update history
  { method: 'GET', path: `/v2/updates/${TX_ID}` },
  { method: 'GET', path: `/v2/updates/${HASHED_ID}?daml_value_encoding=protobuf_json` },
  { method: 'GET', path: `/v2/updates/${IMPORT_ID}` },
  { method: 'GET', path: `/v2/updates/${REASSIGNMENT_ID}` },
  { method: 'POST', path: '/v2/updates', body: { page_size: 50 } },
  { method: 'POST', path: '/v2/updates', body: { page_size: 50, after: CURSOR_M0, daml_value_encoding: 'protobuf_json' } },
  { method: 'POST', path: '/v2/updates', body: { page_size: 0 } },
  { method: 'POST', path: '/v0/events', body: { page_size: 50, after: CURSOR_M0 } },
  { method: 'POST', path: '/v0/events', body: { page_size: 50, daml_value_encoding: 'protobuf_json' } },
  { method: 'POST', path: '/v0/events', body: { page_size: 1001 } },
  { method: 'POST', path: '/v0/backfilling/import-updates', body: { migration_id: 1, after_update_id: '', limit: 100 } },
  {
    method: 'POST',
    path: '/v0/backfilling/import-updates',
    body: { migration_id: 1, after_update_id: IMPORT_ID, limit: 100, daml_value_encoding: 'compact_json' },
  },
  // Operations of the other areas, as routed when this test was written (a route that is
  // not there answers 404 on both sides, which still compares equal).
  { method: 'GET', path: '/v0/closed-rounds' },
  { method: 'GET', path: '/v0/admin/sv/voterequests' },
  { method: 'GET', path: '/v0/lsu' },
  { method: 'GET', path: '/v0/roll-forward-lsu' },
  { method: 'GET', path: '/v0/scans' },
  { method: 'GET', path: '/v0/migrations/schedule' },
  { method: 'GET', path: '/v0/state/acs/snapshot-timestamp?before=2025-01-02T00:00:00Z&migration_id=1' },
  { method: 'GET', path: '/v0/state/acs/snapshot-timestamp-after?after=2025-01-01T00:00:00Z&migration_id=0' },
  { method: 'POST', path: '/v0/state/acs', body: { migration_id: 0, record_time: '2025-01-01T03:00:00Z', page_size: 1000 } },
  { method: 'POST', path: '/v0/state/acs', body: { migration_id: 1, record_time: '2025-01-01T06:00:00Z', page_size: 1000 } },
  // The older int64-token path: one page holds the whole snapshot, so the answer has no token of either instance's.
  { method: 'POST', path: '/v1/state/acs', body: { migration_id: 1, record_time: '2025-01-01T06:00:00Z', page_size: 1000 } },
  { method: 'GET', path: '/api/validator/v0/scan-proxy/open-and-issuing-mining-rounds', absolute: true },
  { method: 'GET', path: '/api/validator/v0/scan-proxy/ans-entries?page_size=100', absolute: true },
  ...[0, 1].flatMap((m): MirroredRequest[] => {
    const snapshot = { migration_id: m, record_time: m === 0 ? '2025-01-01T03:00:00Z' : '2025-01-01T06:00:00Z', owner_party_ids: OWNERS };
    return [
      { method: 'POST', path: '/v0/holdings/summary', body: snapshot },
      { method: 'POST', path: '/v1/holdings/summary', body: snapshot },
      { method: 'POST', path: '/v2/holdings/state', body: { ...snapshot, page_size: 50 } },
      { method: 'POST', path: '/v0/holdings/state', body: { ...snapshot, page_size: 50 } },
    ];
  }),
  // What validators and wallets call first.
  { method: 'POST', path: '/v0/amulet-rules', body: {} },
  { method: 'POST', path: '/v0/external-party-amulet-rules', body: {} },
  { method: 'POST', path: '/v0/ans-rules', body: {} },
  { method: 'POST', path: '/v0/open-and-issuing-mining-rounds', body: {} },
  { method: 'GET', path: '/v0/dso' },
  { method: 'GET', path: '/v0/dso-sequencers' },
  { method: 'GET', path: '/v0/ans-entries?page_size=100' },
  { method: 'GET', path: '/v0/featured-apps' },
  { method: 'GET', path: `/v0/transfer-preapprovals/by-party/${OWNERS[0]}` },
  { method: 'GET', path: `/v0/transfer-command/status?sender=${OWNERS[0]}&nonce=0` },
  { method: 'GET', path: `/v0/transfer-preapprovals/by-party/${EXTERNAL.receiver}` },
  { method: 'GET', path: `/v0/transfer-command-counter/${EXTERNAL.counterSender}` },
  { method: 'GET', path: `/v0/transfer-command/status?sender=${EXTERNAL.command.sender}&nonce=${EXTERNAL.command.nonce}` },
  { method: 'GET', path: `/v0/featured-apps/${EXTERNAL.featured}` },
  { method: 'GET', path: `/api/validator/v0/scan-proxy/transfer-preapprovals/by-party/${EXTERNAL.receiver}`, absolute: true },
  { method: 'GET', path: `/api/validator/v0/scan-proxy/transfer-command-counter/${EXTERNAL.counterSender}`, absolute: true },
  { method: 'GET', path: '/api/validator/v0/scan-proxy/amulet-rules', absolute: true },
  { method: 'GET', path: '/api/validator/v0/scan-proxy/dso', absolute: true },
  { method: 'GET', path: '/v0/unclaimed-development-fund-coupons' },
  { method: 'GET', path: '/v0/admin/validator/licenses' },
  { method: 'GET', path: `/v0/validators/validator-faucets?validator_ids=${OWNERS[0]}` },
  { method: 'GET', path: '/v0/amulet-price/votes' },
  { method: 'GET', path: `/v0/voterequests/${FIRST_VOTE_REQUEST}` },
  { method: 'POST', path: '/v0/voterequest', body: { vote_request_contract_ids: [FIRST_VOTE_REQUEST] } },
  { method: 'POST', path: '/v0/admin/sv/voteresults', body: { limit: 100 } },
  { method: 'POST', path: '/v0/admin/sv/voteresults', body: { accepted: true, limit: 100 } },
  { method: 'GET', path: '/v0/splice-instance-names' },
  { method: 'GET', path: '/v0/feature-support' },
  {
    method: 'POST',
    path: '/v0/backfilling/updates-before',
    body: { migration_id: 0, synchronizer_id: GLOBAL_SYNC, before: '2100-01-01T00:00:00Z', count: 200 },
  },
  { method: 'POST', path: '/v2/state/acs', body: { migration_id: 0, record_time: '2025-01-01T03:00:00Z', page_size: 1000 } },
  // ↑ add further S-operations here.
];

/** A source over a list of items, checkpointed by index, for loading instance A. */
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

async function ingest(t: TestDatabase, source: Source): Promise<void> {
  await runWorker({ db: t.db, pool: t.pool, source, logger, batchSize: 200, batchMaxWaitMs: 20 }, new AbortController().signal);
}

describe('a scan-indexer mirroring another over the scan source', () => {
  let a: TestDatabase;
  let b: TestDatabase;
  let apiA: TestApi;
  let apiB: TestApi;
  let blobRound: BlobMirrorRound;

  beforeAll(async () => {
    a = await createTestDatabase();
    b = await createTestDatabase();
    await ingest(a, arraySource(items));
    apiA = await startTestApi(a);
    await ingest(b, createScanSource({ urls: [apiA.url], pageSize: 150, stopAtEnd: true, logger }));
    // The update streams carry no blobs: B copies them from A's contract endpoints, as its runtime does when the worker ends.
    blobRound = await createBlobMirror({ urls: [apiA.url], db: b.db, logger }).round(new AbortController().signal);
    apiB = await startTestApi(b);
  });
  afterAll(async () => {
    await apiA?.close();
    await apiB?.close();
    if (a) await destroyTestDatabase(a);
    if (b) await destroyTestDatabase(b);
  });

  it('ends with the same tables', async () => {
    const [dumpA, dumpB] = await Promise.all([dumpTables(a.db), dumpTables(b.db)]);
    expect(dumpA.updates!.split('\n')).toHaveLength(items.filter((i) => i.update).length);
    expect(new Set(dumpA.acs_snapshots!.split('\n').map((row) => (JSON.parse(row) as { migration_id: number }).migration_id))).toEqual(
      new Set([0, 1]),
    );
    // Closed votes, which B derives from the history it mirrors, as A did.
    expect(dumpA.vote_results).not.toBe('');
    // Blobs: A has those of every disclosed contract it ingested; B those of the contracts A's endpoints serve.
    for (const table of Object.keys(dumpA).filter((t) => t !== 'contract_blobs')) {
      expect({ table, rows: dumpB[table] }).toEqual({ table, rows: dumpA[table] });
    }
  });

  it("copies the created-event blobs of A's contract endpoints, and only A's", async () => {
    const blobsOf = async (t: TestDatabase) =>
      new Map(
        (await sql<{ contract_id: string; blob: string }>`select contract_id, blob from contract_blobs`.execute(t.db)).rows.map((r) => [
          r.contract_id,
          r.blob,
        ]),
      );
    const [ofA, ofB] = await Promise.all([blobsOf(a), blobsOf(b)]);
    // The rules, the open and issuing rounds, featured apps, preapprovals and counters: every one as A has it.
    expect(EXTERNAL.receiver).not.toBe('none::1220ab');
    expect(ofB.size).toBeGreaterThanOrEqual(10);
    for (const [cid, blob] of ofB) expect({ cid, blob }).toEqual({ cid, blob: ofA.get(cid) });
    expect(blobRound).toEqual({ requests: expect.any(Number), stored: ofB.size, failed: 0 });
    // The per-party contracts were among them: B serves their blobs, which only A's per-party endpoints gave.
    for (const path of [
      `/api/scan/v0/transfer-preapprovals/by-party/${EXTERNAL.receiver}`,
      `/api/scan/v0/transfer-command-counter/${EXTERNAL.counterSender}`,
    ]) {
      const res = await request(apiB.url, 'GET', path);
      expect({ path, status: res.status, blob: JSON.stringify(res.json).includes('"created_event_blob":"CgMyLjE') }).toEqual({
        path,
        status: 200,
        blob: true,
      });
    }
    // A second round finds nothing new.
    expect(await createBlobMirror({ urls: [apiA.url], db: b.db, logger }).round(new AbortController().signal)).toMatchObject({ stored: 0 });
  });

  const send = (api: TestApi, r: MirroredRequest) => {
    return request(api.url, r.method, r.absolute ? r.path : `/api/scan${r.path}`, r.body, r.headers);
  };
  const summary = (r: MirroredRequest, res: HttpResult) => ({
    request: `${r.method} ${r.path}${r.body === undefined ? '' : ` ${JSON.stringify(r.body)}`}`,
    status: res.status,
    contentType: res.headers.get('content-type'),
    text: res.text,
  });

  it.each(MIRRORED_REQUESTS.map((r) => [`${r.method} ${r.path}`, r] as const))('answers %s as A does', async (_name, r) => {
    const [fromA, fromB] = await Promise.all([send(apiA, r), send(apiB, r)]);
    expect(fromA.status).not.toBe(500);
    expect(summary(r, fromB)).toEqual(summary(r, fromA));
  });

  it.each(['/v2/updates', '/v0/events'])('serves all of %s identically, page by page', async (path) => {
    let after: { after_migration_id: number; after_record_time: string } | undefined;
    for (let pages = 0; ; pages++) {
      const body = { page_size: 400, ...(after && { after }), daml_value_encoding: pages % 2 ? 'protobuf_json' : 'compact_json' };
      const [fromA, fromB] = await Promise.all([send(apiA, { method: 'POST', path, body }), send(apiB, { method: 'POST', path, body })]);
      expect(fromA.status).toBe(200);
      expect(fromB.text).toBe(fromA.text);
      const list = fromA.json as { transactions?: CanonicalItem['update'][]; events?: CanonicalItem[] };
      const lastItem: CanonicalItem | undefined = list.events
        ? list.events.at(-1)
        : { update: list.transactions!.at(-1)!, verdict: null, traffic_summary: null, app_activity_records: null };
      if ((list.events ?? list.transactions)!.length < 400) break;
      // The next page starts after the last element's (migration id, record time).
      const k = keyed(lastItem!);
      after = { after_migration_id: k.migrationId, after_record_time: formatRecordTime(k.recordTime) };
    }
  });
});
