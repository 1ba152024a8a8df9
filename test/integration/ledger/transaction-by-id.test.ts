/**
 * L1 POST /v2/updates/transaction-by-id through the real server on simulator
 * data. Expected bodies come from test/integration/ledger/expected.ts, which
 * reads the simulator items directly.
 */
import { sql } from 'kysely';
import type { TransactionUpdate } from '../../../src/domain/items';
import { ingestItems } from '../../support/ingest';
import { useTestDatabase } from '../../support/database/database';
import { reassignment } from '../../support/items/hand-items';
import { startTestApi, type TestApi } from '../../support/http/http';
import { simulatedItems } from '../../support/items/simulated-network';
import {
  anyOf,
  createsOf,
  expectedTransaction,
  HOLDING_PACKAGE_ID,
  holding,
  templateNamed,
  templateWithId,
  wildcard,
  witnessesOf,
  type Reading,
} from './expected';
import { AUDIENCE, expectedErrors, hs256Token, ledgerRequest, SECRET } from './support';

const PATH = '/v2/updates/transaction-by-id';
const items = simulatedItems({ seed: 7, updates: 400 });
const creates = createsOf(items);
const transactions = items.flatMap((i) => (i.update && 'events_by_id' in i.update ? [i.update] : []));
const REASSIGNMENT_ID = `1220${'ab'.repeat(32)}`;
const UNKNOWN_ID = `1220${'cd'.repeat(32)}`;

/**
 * A transaction and a party that sees only part of it in both shapes, with an
 * archive of an earlier contract and an Amulet create among what it sees.
 */
function partialView(): { tx: TransactionUpdate; party: string } {
  for (const tx of transactions) {
    const events = Object.values(tx.events_by_id);
    const witnesses = witnessesOf(tx, creates);
    const parties = new Set([...witnesses.values()].flat());
    for (const party of [...parties].sort()) {
      const le = events.filter((e) => witnesses.get(e.event_id)!.includes(party));
      const acs = expectedTransaction(tx, { shape: 'ACS_DELTA', byParty: { [party]: wildcard() } }, { creates, offset: 0 }) as
        { events: object[] } | undefined;
      const archivesOlder = events.some(
        (e) =>
          e.event_type === 'exercised_event' &&
          e.consuming &&
          witnesses.get(e.event_id)!.includes(party) &&
          !Object.values(tx.events_by_id).some((c) => c.event_type === 'created_event' && c.contract_id === e.contract_id),
      );
      const amulet = le.some(
        (e) => e.event_type === 'created_event' && e.template_id.endsWith(':Splice.Amulet:Amulet') && e.signatories.includes(party),
      );
      if (acs && le.length < events.length && acs.events.length < le.length && archivesOlder && amulet) return { tx, party };
    }
  }
  throw new Error('the simulated network has no transaction with a partial view');
}

const { tx: TX, party: P } = partialView();
/** Another party of the same transaction, not a witness of everything either. */
const Q = [...new Set([...witnessesOf(TX, creates).values()].flat())].sort().find((p) => p !== P && !p.startsWith('DSO::'))!;
const EXTERNAL = transactions.find((u) => u.external_transaction_hash !== undefined)!;
const format = (shape: Reading['shape'] | 'UNSPECIFIED', eventFormat: object) => ({
  eventFormat,
  transactionShape: `TRANSACTION_SHAPE_${shape}`,
});
const byParty = (party: string, ...cumulative: object[]) => ({ filtersByParty: { [party]: { cumulative } } });
const W = { identifierFilter: { WildcardFilter: { value: {} } } };
const T = (templateId: string, includeCreatedEventBlob = false) => ({
  identifierFilter: { TemplateFilter: { value: { templateId, includeCreatedEventBlob } } },
});
const I = (interfaceId: string, includeInterfaceView: boolean, includeCreatedEventBlob = false) => ({
  identifierFilter: { InterfaceFilter: { value: { interfaceId, includeInterfaceView, includeCreatedEventBlob } } },
});

describe('POST /v2/updates/transaction-by-id', () => {
  const t = useTestDatabase();
  let api: TestApi;
  let admin: string;
  let reader: string;
  const offsets = new Map<string, number>();
  const blobs = new Map<string, string>();
  const post = (body: unknown, token = admin) => ledgerRequest(api.url, 'POST', PATH, token, body);
  const expected = (tx: TransactionUpdate, reading: Reading) => {
    const transaction = expectedTransaction(tx, reading, { creates, offset: offsets.get(tx.update_id)!, blobs });
    if (!transaction) throw new Error('the test expects a visible transaction');
    return { transaction };
  };

  beforeAll(async () => {
    const all = [...items, reassignment(REASSIGNMENT_ID, '2030-01-01T00:00:00.000000Z', 'assign', 'c-reassigned', 1)];
    await ingestItems(
      t.db,
      'sim',
      all.map((item, i) => ({ item, position: String(i + 1), origin: `item ${i + 1}` })),
    );
    const rows = await sql<{ update_id: string; ingest_seq: number }>`select update_id, ingest_seq from updates`.execute(t.db);
    for (const r of rows.rows) offsets.set(r.update_id, r.ingest_seq);
    // The simulator gives blobs to the contracts wallets disclose (rules, rounds, ...), not to amulets: give the
    // Amulet P sees one, to show when it is served.
    for (const item of all) for (const [cid, blob] of Object.entries(item.created_event_blobs ?? {})) blobs.set(cid, blob);
    const amulet = Object.values(TX.events_by_id).find(
      (e) => e.event_type === 'created_event' && e.template_id.endsWith(':Splice.Amulet:Amulet') && e.signatories.includes(P),
    )!;
    blobs.set(amulet.contract_id, 'CgMyLjES');
    await sql`insert into contract_blobs (contract_id, blob) values (${amulet.contract_id}, 'CgMyLjES')`.execute(t.db);
    api = await startTestApi(t, {
      env: {
        LEDGER_AUTH_HS256_SECRET: SECRET,
        LEDGER_AUTH_AUDIENCE: AUDIENCE,
        LEDGER_ADMIN_USERS: 'admin',
        LEDGER_USER_RIGHTS: JSON.stringify({ reader: [P, Q] }),
      },
    });
    admin = await hs256Token('admin');
    reader = await hs256Token('reader');
  });
  afterAll(async () => {
    await api.close();
  });

  describe('a party that sees part of a transaction', () => {
    it('ACS_DELTA: creates and archives of the contracts it is a stakeholder of', async () => {
      const res = await post({ updateId: TX.update_id, transactionFormat: format('ACS_DELTA', byParty(P, W)) }, reader);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.json).toEqual(expected(TX, { shape: 'ACS_DELTA', byParty: { [P]: wildcard() } }));
      const events = (res.json as { transaction: { events: object[] } }).transaction.events;
      expect(events.length).toBeLessThan(Object.keys(TX.events_by_id).length);
      expect(events.some((e) => 'ArchivedEvent' in e)).toBe(true);
    });

    it('LEDGER_EFFECTS: creates and exercises it witnesses', async () => {
      const res = await post({ updateId: TX.update_id, transactionFormat: format('LEDGER_EFFECTS', byParty(P, W)) }, reader);
      expect(res.status).toBe(200);
      expect(res.json).toEqual(expected(TX, { shape: 'LEDGER_EFFECTS', byParty: { [P]: wildcard() } }));
      const events = (res.json as { transaction: { events: object[] } }).transaction.events;
      expect(events.length).toBeLessThan(Object.keys(TX.events_by_id).length);
      expect(events.some((e) => 'ExercisedEvent' in e)).toBe(true);
    });

    it('the legacy requestingParties form is a wildcard per party in the ACS_DELTA shape', async () => {
      const res = await post({ updateId: TX.update_id, requestingParties: [P] }, reader);
      expect(res.status).toBe(200);
      expect(res.json).toEqual(expected(TX, { shape: 'ACS_DELTA', byParty: { [P]: wildcard() } }));
    });

    it('two parties see the union, each event naming the readers among its parties', async () => {
      const eventFormat = { filtersByParty: { [P]: { cumulative: [] }, [Q]: { cumulative: [W] } } };
      for (const shape of ['ACS_DELTA', 'LEDGER_EFFECTS'] as const) {
        const res = await post({ updateId: TX.update_id, transactionFormat: format(shape, eventFormat) }, reader);
        expect(res.status).toBe(200);
        expect(res.json).toEqual(expected(TX, { shape, byParty: { [P]: wildcard(), [Q]: wildcard() } }));
      }
    });
  });

  describe('filters', () => {
    it('an empty cumulative list, or only Empty entries, is a wildcard', async () => {
      for (const filters of [{ cumulative: [] }, { cumulative: [{ identifierFilter: { Empty: {} } }] }, {}]) {
        const res = await post(
          { updateId: TX.update_id, transactionFormat: format('ACS_DELTA', { filtersByParty: { [P]: filters } }) },
          reader,
        );
        expect(res.json).toEqual(expected(TX, { shape: 'ACS_DELTA', byParty: { [P]: wildcard() } }));
      }
    });

    it('a wildcard filter with includeCreatedEventBlob serves the stored blob', async () => {
      const cumulative = { identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: true } } } };
      const res = await post({ updateId: TX.update_id, transactionFormat: format('LEDGER_EFFECTS', byParty(P, cumulative)) }, reader);
      expect(res.json).toEqual(expected(TX, { shape: 'LEDGER_EFFECTS', byParty: { [P]: wildcard(true) } }));
      expect(JSON.stringify(res.json)).toContain('"createdEventBlob":"CgMyLjES"');
    });

    it('a template filter by package name matches every version of the template', async () => {
      for (const shape of ['ACS_DELTA', 'LEDGER_EFFECTS'] as const) {
        const res = await post(
          { updateId: TX.update_id, transactionFormat: format(shape, byParty(P, T('#splice-amulet:Splice.Amulet:Amulet', true))) },
          reader,
        );
        expect(res.status).toBe(200);
        expect(res.json).toEqual(expected(TX, { shape, byParty: { [P]: templateNamed('splice-amulet', 'Splice.Amulet:Amulet', true) } }));
      }
    });

    it('a template filter by package id matches that package', async () => {
      const amuletId = Object.values(TX.events_by_id).find((e) => e.template_id.endsWith(':Splice.Amulet:Amulet'))!.template_id;
      const res = await post({ updateId: TX.update_id, transactionFormat: format('ACS_DELTA', byParty(P, T(amuletId))) }, reader);
      expect(res.json).toEqual(expected(TX, { shape: 'ACS_DELTA', byParty: { [P]: templateWithId(amuletId) } }));
      const otherVersion = `${'0'.repeat(64)}:Splice.Amulet:Amulet`;
      expect(
        await post({ updateId: TX.update_id, transactionFormat: format('ACS_DELTA', byParty(P, T(otherVersion))) }, reader),
      ).toMatchObject({
        status: 404,
        json: expectedErrors.notFound(TX.update_id),
      });
    });

    it('the Holding interface filter matches Amulet and LockedAmulet, with the view status when a view is asked for', async () => {
      for (const [shape, view] of [
        ['LEDGER_EFFECTS', true],
        ['ACS_DELTA', true],
        ['ACS_DELTA', false],
      ] as const) {
        const res = await post(
          {
            updateId: TX.update_id,
            transactionFormat: format(shape, byParty(P, I('#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding', view))),
          },
          reader,
        );
        expect(res.status).toBe(200);
        expect(res.json).toEqual(expected(TX, { shape, byParty: { [P]: holding(view) } }));
      }
    });

    it('an interface filter by package id, cumulative with a template filter', async () => {
      const res = await post(
        {
          updateId: TX.update_id,
          transactionFormat: format(
            'LEDGER_EFFECTS',
            byParty(
              P,
              I(`${HOLDING_PACKAGE_ID}:Splice.Api.Token.HoldingV1:Holding`, false, true),
              T('#splice-amulet:Splice.AmuletRules:AmuletRules'),
            ),
          ),
        },
        reader,
      );
      expect(res.status).toBe(200);
      expect(res.json).toEqual(
        expected(TX, {
          shape: 'LEDGER_EFFECTS',
          byParty: { [P]: anyOf(holding(false, true), templateNamed('splice-amulet', 'Splice.AmuletRules:AmuletRules')) },
        }),
      );
    });

    it('an interface without known implementations matches nothing', async () => {
      const res = await post(
        { updateId: TX.update_id, transactionFormat: format('LEDGER_EFFECTS', byParty(P, I('#some-package:Some.Module:Iface', true))) },
        reader,
      );
      expect(res).toMatchObject({ status: 404, json: expectedErrors.notFound(TX.update_id) });
    });

    it('filtersForAnyParty shows every event with all its parties; ACS_DELTA leaves out contracts created and archived here', async () => {
      for (const tx of [TX, EXTERNAL]) {
        for (const shape of ['ACS_DELTA', 'LEDGER_EFFECTS'] as const) {
          const res = await post({ updateId: tx.update_id, transactionFormat: format(shape, { filtersForAnyParty: { cumulative: [W] } }) });
          expect(res.status).toBe(200);
          expect(res.json).toEqual(expected(tx, { shape, byParty: {}, anyParty: wildcard() }));
        }
      }
      const acs = await post({
        updateId: TX.update_id,
        transactionFormat: format('ACS_DELTA', { filtersForAnyParty: { cumulative: [W] } }),
      });
      const nodes = (acs.json as { transaction: { events: Record<string, { nodeId: number }>[] } }).transaction.events.map(
        (e) => Object.values(e)[0]!.nodeId,
      );
      expect(nodes.length).toBeLessThan(Object.keys(TX.events_by_id).length - 4);
      const external = await post({
        updateId: EXTERNAL.update_id,
        requestingParties: [Object.values(EXTERNAL.events_by_id).find((e) => e.event_type === 'created_event')!.signatories[0]!],
      });
      expect((external.json as { transaction: { externalTransactionHash: string } }).transaction.externalTransactionHash).toBe(
        EXTERNAL.external_transaction_hash,
      );
    });

    it('filtersForAnyParty and filtersByParty together', async () => {
      const eventFormat = { ...byParty(P, W), filtersForAnyParty: { cumulative: [T('#splice-amulet:Splice.Amulet:LockedAmulet')] } };
      const res = await post({ updateId: TX.update_id, transactionFormat: format('LEDGER_EFFECTS', eventFormat) });
      expect(res.json).toEqual(
        expected(TX, {
          shape: 'LEDGER_EFFECTS',
          byParty: { [P]: wildcard() },
          anyParty: templateNamed('splice-amulet', 'Splice.Amulet:LockedAmulet'),
        }),
      );
    });
  });

  describe('not found', () => {
    it('an unknown update id', async () => {
      const res = await post({ updateId: UNKNOWN_ID, requestingParties: [P] });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.json).toEqual(expectedErrors.notFound(UNKNOWN_ID));
    });

    it('a transaction the party does not see, in either shape', async () => {
      const involved = new Set([...witnessesOf(TX, creates).values()].flat());
      const outsider = [...creates.values()].flatMap((c) => c.signatories).find((p) => !involved.has(p))!;
      expect(outsider).toBeDefined();
      for (const shape of ['ACS_DELTA', 'LEDGER_EFFECTS'] as const) {
        const res = await post({ updateId: TX.update_id, transactionFormat: format(shape, byParty(outsider, W)) });
        expect(res).toMatchObject({ status: 404, json: expectedErrors.notFound(TX.update_id) });
      }
    });

    it('a witness that is no stakeholder sees nothing in the ACS_DELTA shape', async () => {
      // The first transaction (TX if it has one) with a party that witnesses events but is a stakeholder of none it changes.
      const found = [TX, ...transactions]
        .map((tx) => {
          const witnesses = [...new Set([...witnessesOf(tx, creates).values()].flat())].sort();
          return {
            tx,
            party: witnesses.find(
              (p) => expectedTransaction(tx, { shape: 'ACS_DELTA', byParty: { [p]: wildcard() } }, { creates, offset: 0 }) === undefined,
            ),
          };
        })
        .find((c) => c.party !== undefined);
      expect(found).toBeDefined();
      const { tx, party } = found as { tx: TransactionUpdate; party: string };
      expect(await post({ updateId: tx.update_id, requestingParties: [party] })).toMatchObject({
        status: 404,
        json: expectedErrors.notFound(tx.update_id),
      });
      expect(await post({ updateId: tx.update_id, transactionFormat: format('ACS_DELTA', byParty(party, W)) })).toMatchObject({
        status: 404,
        json: expectedErrors.notFound(tx.update_id),
      });
      const le = await post({ updateId: tx.update_id, transactionFormat: format('LEDGER_EFFECTS', byParty(party, W)) });
      expect(le.status).toBe(200);
      expect(le.json).toEqual(expected(tx, { shape: 'LEDGER_EFFECTS', byParty: { [party]: wildcard() } }));
    });

    it('a reassignment is no transaction', async () => {
      const res = await post({ updateId: REASSIGNMENT_ID, transactionFormat: format('LEDGER_EFFECTS', { filtersForAnyParty: {} }) });
      expect(res).toMatchObject({ status: 404, json: expectedErrors.notFound(REASSIGNMENT_ID) });
    });
  });

  describe('malformed requests', () => {
    const plain = async (body: unknown, text: string | RegExp) => {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      if (typeof text === 'string') expect(res.text).toBe(text);
      else expect(res.text).toMatch(text);
    };

    it('undecodable JSON and wrong types are 400 text/plain', async () => {
      await plain('{"updateId": ', /^Invalid value for: body \(malformed JSON: .+\)$/);
      await plain('', 'Invalid value for: body (exhausted input)');
      await plain('[1]', "Invalid value for: body (Got value '[1]' with wrong type, expecting json object)");
      await plain(
        { updateId: 123, requestingParties: [P] },
        "Invalid value for: body (Got value '123' with wrong type, expecting string at 'updateId')",
      );
      await plain(
        { updateId: TX.update_id, requestingParties: P },
        `Invalid value for: body (Got value '"${P}"' with wrong type, expecting json array at 'requestingParties')`,
      );
      await plain(
        { updateId: TX.update_id, transactionFormat: { eventFormat: byParty(P, W), transactionShape: 'FLAT' } },
        "Invalid value for: body (Unrecognized enum value FLAT. Supported values: [TRANSACTION_SHAPE_UNSPECIFIED, TRANSACTION_SHAPE_ACS_DELTA, TRANSACTION_SHAPE_LEDGER_EFFECTS] at 'transactionFormat.transactionShape')",
      );
      await plain(
        {
          updateId: TX.update_id,
          transactionFormat: format('ACS_DELTA', byParty(P, { identifierFilter: { WildcardFilter: { value: {} }, Empty: {} } })),
        },
        `Invalid value for: body (expected exactly one of Empty, WildcardFilter, TemplateFilter, InterfaceFilter at 'transactionFormat.eventFormat.filtersByParty.${P}.cumulative[0].identifierFilter')`,
      );
      await plain(
        {
          updateId: TX.update_id,
          transactionFormat: format('ACS_DELTA', byParty(P, { identifierFilter: { TemplateFilter: { value: { templateId: 7 } } } })),
        },
        `Invalid value for: body (Got value '7' with wrong type, expecting string at 'transactionFormat.eventFormat.filtersByParty.${P}.cumulative[0].identifierFilter.TemplateFilter.value.templateId')`,
      );
    });

    it('missing fields and conflicting forms are LedgerErrors', async () => {
      const cases: [unknown, object][] = [
        [{ requestingParties: [P] }, expectedErrors.missingField('update_id')],
        [{ updateId: '', requestingParties: [P] }, expectedErrors.missingField('update_id')],
        [
          { updateId: TX.update_id },
          expectedErrors.invalidArgument(
            'Either transaction_format or requesting_parties is required. Please use either backwards compatible arguments (requesting_parties) or transaction_format.',
          ),
        ],
        [
          { updateId: TX.update_id, requestingParties: [], transactionFormat: null },
          expectedErrors.invalidArgument(
            'Either transaction_format or requesting_parties is required. Please use either backwards compatible arguments (requesting_parties) or transaction_format.',
          ),
        ],
        [
          { updateId: TX.update_id, requestingParties: [P], transactionFormat: format('ACS_DELTA', byParty(P, W)) },
          expectedErrors.invalidArgument(
            'Both transaction_format and requesting_parties are set. Please use either backwards compatible arguments (requesting_parties) or transaction_format, but not both.',
          ),
        ],
        [
          { updateId: TX.update_id, transactionFormat: { transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' } },
          expectedErrors.missingField('event_format'),
        ],
        [{ updateId: TX.update_id, transactionFormat: { eventFormat: byParty(P, W) } }, expectedErrors.missingField('transaction_shape')],
        [
          { updateId: TX.update_id, transactionFormat: format('UNSPECIFIED', byParty(P, W)) },
          expectedErrors.missingField('transaction_shape'),
        ],
        [
          { updateId: TX.update_id, transactionFormat: format('ACS_DELTA', { filtersByParty: {} }) },
          expectedErrors.invalidArgument('filtersByParty and filtersForAnyParty cannot be empty simultaneously'),
        ],
        [{ updateId: TX.update_id, transactionFormat: format('ACS_DELTA', byParty(P, T(''))) }, expectedErrors.missingField('template_id')],
        [
          { updateId: TX.update_id, transactionFormat: format('ACS_DELTA', byParty(P, T('#splice-amulet:Amulet'))) },
          expectedErrors.invalidField(
            'template_id',
            `'#splice-amulet:Amulet' is not an identifier of the form #<package-name>:<Module>:<Entity> or <package-id>:<Module>:<Entity> (in the filters of party ${P})`,
          ),
        ],
        [{ updateId: 'not-hex', requestingParties: [P] }, expectedErrors.invalidArgument('Failed to parse hex string: not-hex')],
        [{ updateId: 'abc', requestingParties: [P] }, expectedErrors.invalidArgument('Failed to parse hex string: abc')],
        // Hex, but no SHA-256 multihash ("1220" + 64 hex digits, UpdateServiceRequestValidator): Canton cannot parse it either.
        ...['ab', `1220${'ab'.repeat(31)}`, `1220${'ab'.repeat(33)}`, `1221${'ab'.repeat(32)}`].map((id): [unknown, object] => [
          { updateId: id, requestingParties: [P] },
          expectedErrors.invalidArgument(`Invalid update id ${id}: expected a SHA-256 multihash, 1220 followed by 64 hex digits`),
        ]),
      ];
      for (const [body, error] of cases) {
        const res = await post(body);
        expect({ body, status: res.status, json: res.json }).toEqual({ body, status: 400, json: error });
      }
    });

    it('an update id in upper case is the same id', async () => {
      const res = await post({ updateId: TX.update_id.toUpperCase(), requestingParties: [P] }, reader);
      expect(res.status).toBe(200);
      expect(res.json).toEqual(expected(TX, { shape: 'ACS_DELTA', byParty: { [P]: wildcard() } }));
    });

    it('cuts a cause at 512 characters and marks the cut with "...", as Canton does', async () => {
      const id = 'z'.repeat(5000);
      const cause = `The submitted request has invalid arguments: Failed to parse hex string: ${id}`;
      const res = await post({ updateId: id, requestingParties: [P] });
      expect(res).toMatchObject({ status: 400, json: { ...expectedErrors.invalidArgument(''), cause: `${cause.slice(0, 512)}...` } });
      expect((res.json as { cause: string }).cause).toHaveLength(515);
    });

    it('a body nested too deeply to print is still a 400 text/plain, and long wrong values are cut', async () => {
      await plain(
        `{"updateId":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
        "Invalid value for: body (Got value '[…]' with wrong type, expecting string at 'updateId')",
      );
      await plain(
        `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
        "Invalid value for: body (Got value '[…]' with wrong type, expecting json object)",
      );
      const long = 'p'.repeat(1000);
      await plain(
        { updateId: TX.update_id, requestingParties: long },
        `Invalid value for: body (Got value '"${'p'.repeat(199)}…' with wrong type, expecting json array at 'requestingParties')`,
      );
      await plain(
        { updateId: TX.update_id, transactionFormat: { eventFormat: byParty(P, W), transactionShape: long } },
        `Invalid value for: body (Unrecognized enum value ${'p'.repeat(200)}…. Supported values: [TRANSACTION_SHAPE_UNSPECIFIED, TRANSACTION_SHAPE_ACS_DELTA, TRANSACTION_SHAPE_LEDGER_EFFECTS] at 'transactionFormat.transactionShape')`,
      );
    });

    it('a body that does not inflate (bad gzip) or has an unknown encoding is a 400 text/plain', async () => {
      for (const encoding of ['gzip', 'deflate', 'br', 'compress']) {
        const res = await ledgerRequest(api.url, 'POST', PATH, admin, 'xx', { 'content-encoding': encoding });
        expect({ encoding, status: res.status, type: res.headers.get('content-type'), text: res.text }).toEqual({
          encoding,
          status: 400,
          type: 'text/plain; charset=utf-8',
          text: 'Invalid value for: body',
        });
      }
    });

    it('a malformed percent-escape in a /v2 path is a client error, not a 500', async () => {
      for (const path of ['/v2/updates/%E0%A4%A', '/v2/%', '/v2/parties/%ZZ']) {
        const res = await ledgerRequest(api.url, 'GET', path, admin);
        expect({ path, status: res.status < 500 && res.status >= 400, type: res.headers.get('content-type') }).toEqual({
          path,
          status: true,
          type: 'text/plain; charset=utf-8',
        });
      }
    });

    it('ignores unknown fields, as Canton does', async () => {
      const res = await post({ updateId: TX.update_id, requestingParties: [P], verbose: true, somethingElse: 1 }, reader);
      expect(res.json).toEqual(expected(TX, { shape: 'ACS_DELTA', byParty: { [P]: wildcard() } }));
    });
  });
});
