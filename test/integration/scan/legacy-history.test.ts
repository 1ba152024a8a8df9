/**
 * The deprecated update-history operations (POST /v1/updates, GET /v1/updates/{update_id},
 * POST /v0/updates, GET /v0/updates/{update_id}) through the real HTTP server on the simulated
 * two-migration network of ./history-fixture.ts. Expected v1 bodies are computed from the simulator
 * items (expectedV1: the v2 item with the constant offset after effective_at) and compared byte for byte.
 */
import type { TransactionUpdate } from '../../../src/domain/items';
import { formatRecordTime } from '../../../src/domain/time';
import { useTestDatabase } from '../../support/database/database';
import { request, startTestApi, type TestApi } from '../../support/http/http';
import { after, expectedV1, historyItems, isImport, isTx, loadItems, orderedUpdates, type Encoding } from './history-fixture';

const items = historyItems();
const ENCODINGS: Encoding[] = ['compact_json', 'protobuf_json'];
const error = (message: string) => JSON.stringify({ error: message });
const V0_REASON =
  "this indexer ingests the Scan app's cross-SV consistent history, which does not carry the SV participant's local offsets and event ids that v0 items are made of";

describe('deprecated update history operations', () => {
  const t = useTestDatabase();
  let api: TestApi;
  beforeAll(async () => {
    await loadItems(t.db, items);
    api = await startTestApi(t);
  });
  afterAll(async () => api?.close());

  const get = (path: string) => request(api.url, 'GET', `/api/scan${path}`);
  const post = (path: string, body: unknown) => request(api.url, 'POST', `/api/scan${path}`, body);

  const transactions = items.filter((i) => i.update && isTx(i.update) && !isImport(i));
  const hashed = transactions.find((i) => (i.update as TransactionUpdate).external_transaction_hash)!;
  const reassignment = items.find((i) => i.update && !isTx(i.update))!;
  const importUpdate = items.find(isImport)!;

  describe('POST /v1/updates', () => {
    it.each([undefined, ...ENCODINGS])('pages through every non-import update in order as v1 items (%s)', async (encoding) => {
      const ordered = orderedUpdates(items);
      expect(ordered.some((k) => !isTx(k.item.update!))).toBe(true);
      let cursor: { m: number; t: bigint } | undefined;
      let seen = 0;
      for (let pages = 0; pages < 1000; pages++) {
        const body = {
          page_size: 113,
          ...(cursor && { after: { after_migration_id: cursor.m, after_record_time: formatRecordTime(cursor.t) } }),
          ...(encoding && { daml_value_encoding: encoding }),
        };
        const res = await post('/v1/updates', body);
        const expected = ordered.filter((k) => !cursor || after(k, cursor.m, cursor.t)).slice(0, 113);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(res.text).toBe(JSON.stringify({ transactions: expected.map((k) => expectedV1(k.item, encoding ?? 'compact_json')) }));
        seen += expected.length;
        if (expected.length < 113) break;
        const last = expected.at(-1)!;
        cursor = { m: last.migrationId, t: last.recordTime };
      }
      expect(seen).toBe(ordered.length);
    });

    it('refuses bad page sizes and encodings with 400', async () => {
      expect(await post('/v1/updates', { page_size: 0 })).toMatchObject({ status: 400, text: error('Limit must be at least 1.') });
      expect(await post('/v1/updates', { page_size: 10, daml_value_encoding: 'json' })).toMatchObject({ status: 400 });
      expect(await post('/v1/updates', {})).toMatchObject({ status: 400, text: error("Missing required body field 'page_size'.") });
    });
  });

  describe('GET /v1/updates/{update_id}', () => {
    it.each(ENCODINGS)('returns a transaction as a v1 item, with its external hash (%s)', async (encoding) => {
      for (const item of [transactions[5]!, hashed, importUpdate]) {
        const res = await get(`/v1/updates/${item.update!.update_id}?daml_value_encoding=${encoding}`);
        expect(res.status).toBe(200);
        expect(res.text).toBe(JSON.stringify(expectedV1(item, encoding)));
      }
    });

    it('defaults to compact_json; 404 for unknown ids and reassignments', async () => {
      const item = transactions[9]!;
      expect((await get(`/v1/updates/${item.update!.update_id}`)).text).toBe(JSON.stringify(expectedV1(item, 'compact_json')));
      expect(await get('/v1/updates/1220nope')).toMatchObject({ status: 404, text: error('Transaction with id 1220nope not found') });
      const rid = reassignment.update!.update_id;
      expect(await get(`/v1/updates/${rid}`)).toMatchObject({ status: 404, text: error(`Transaction with id ${rid} not found`) });
      expect(await get(`/v1/updates/${item.update!.update_id}?daml_value_encoding=json`)).toMatchObject({
        status: 400,
        text: error("Invalid query field 'daml_value_encoding': expected one of compact_json, protobuf_json."),
      });
    });
  });

  describe('v0', () => {
    it('POST /v0/updates validates its body, then answers 501 naming what it lacks', async () => {
      for (const body of [
        { page_size: 10 },
        { page_size: 10, lossless: true, after: { after_migration_id: 0, after_record_time: formatRecordTime(0n) } },
      ]) {
        expect(await post('/v0/updates', body)).toMatchObject({
          status: 501,
          text: error(`POST /v0/updates is not available: ${V0_REASON}. Use POST /v2/updates.`),
        });
      }
      expect(await post('/v0/updates', { page_size: 0 })).toMatchObject({ status: 400, text: error('Limit must be at least 1.') });
      expect(await post('/v0/updates', { page_size: 10, lossless: 'yes' })).toMatchObject({ status: 400 });
    });

    it('GET /v0/updates/{update_id}: 404 for what is not in the history, 501 for what is', async () => {
      const id = transactions[3]!.update!.update_id;
      for (const query of ['', '?lossless=true', '?lossless=false']) {
        expect(await get(`/v0/updates/${id}${query}`)).toMatchObject({
          status: 501,
          text: error(`The v0 rendering of transaction ${id} is not available: ${V0_REASON}. Use /v2/updates/${id}.`),
        });
      }
      expect(await get('/v0/updates/1220nope')).toMatchObject({ status: 404, text: error('Transaction with id 1220nope not found') });
      expect(await get(`/v0/updates/${id}?lossless=maybe`)).toMatchObject({ status: 400 });
    });
  });

  describe('GET /v0/acs/{party}', () => {
    it('validates the party and time, then answers 501 naming what it would need', async () => {
      const someParty = `alice::1220${'ab'.repeat(32)}`;
      for (const query of ['', `?record_time=${formatRecordTime(0n)}`]) {
        expect(await get(`/v0/acs/${encodeURIComponent(someParty)}${query}`)).toMatchObject({
          status: 501,
          text: error(
            `The ACS snapshot of ${someParty} is not available: it is an export of the SV participant's ACS (Canton's ActiveContract protobuf, from the participant's admin API), which this indexer does not have.`,
          ),
        });
      }
      expect((await get('/v0/acs/not-a-party')).status).toBe(400);
      expect((await get(`/v0/acs/${encodeURIComponent(someParty)}?record_time=yesterday`)).status).toBe(400);
    });
  });
});
