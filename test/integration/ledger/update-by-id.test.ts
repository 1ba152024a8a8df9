/**
 * POST /v2/updates/update-by-id (Canton 3.4's replacement of transaction-by-id) through the real
 * server on simulator data. Expected bodies come from ./expected.ts, which reads the simulator items
 * directly; the transaction is the same JsTransaction transaction-by-id answers, under
 * `update.Transaction.value`.
 */
import { sql } from 'kysely';
import type { TransactionUpdate } from '../../../src/domain/items';
import { ingestItems } from '../../support/ingest';
import { useTestDatabase } from '../../support/database/database';
import type { CreatedEvent } from '../../../src/domain/items';
import { DSO, reassignment } from '../../support/items/hand-items';
import { startTestApi, type TestApi } from '../../support/http/http';
import { simulatedItems } from '../../support/items/simulated-network';
import { createsOf, expectedTransaction, templateNamed, wildcard, witnessesOf, type Reading } from './expected';
import { AUDIENCE, expectedErrors, hs256Token, ledgerRequest, SECRET } from './support';

const PATH = '/v2/updates/update-by-id';
const items = simulatedItems({ seed: 7, updates: 300 });
const creates = createsOf(items);
const transactions = items.flatMap((i) => (i.update && 'events_by_id' in i.update ? [i.update] : []));
const REASSIGNMENT_ID = `1220${'ab'.repeat(32)}`;
const UNASSIGNMENT_ID = `1220${'ef'.repeat(32)}`;
const UNKNOWN_ID = `1220${'cd'.repeat(32)}`;
const ASSIGN = reassignment(REASSIGNMENT_ID, '2030-01-01T00:00:00.000000Z', 'assign', 'c-reassigned', 1);
const UNASSIGN = reassignment(UNASSIGNMENT_ID, '2030-01-02T00:00:00.000000Z', 'unassign', 'c-reassigned', 2);

const partiesOf = (u: TransactionUpdate) => [...new Set([...witnessesOf(u, creates).values()].flat())].sort();
/** A party other than the DSO that is a stakeholder of something the transaction changes (so it sees it in both shapes). */
const stakeholderOf = (u: TransactionUpdate) =>
  partiesOf(u).find(
    (p) => !p.startsWith('DSO::') && expectedTransaction(u, { shape: 'ACS_DELTA', byParty: { [p]: wildcard() } }, { creates, offset: 0 }),
  );
/** A transaction with several events, an Amulet among them, and such a party. */
const TX = transactions.find(
  (u) =>
    Object.keys(u.events_by_id).length > 3 &&
    Object.values(u.events_by_id).some((e) => e.template_id.endsWith(':Splice.Amulet:Amulet')) &&
    stakeholderOf(u) !== undefined,
)!;
const P = stakeholderOf(TX)!;
/** A party that witnesses nothing of TX. */
const OUTSIDER = [...creates.values()].flatMap((c) => c.signatories).find((p) => !partiesOf(TX).includes(p))!;

const W = { identifierFilter: { WildcardFilter: { value: {} } } };
const eventFormat = (party: string, ...cumulative: object[]) => ({ filtersByParty: { [party]: { cumulative } }, verbose: false });
const transactionsOf = (shape: Reading['shape'], ef: object) => ({ eventFormat: ef, transactionShape: `TRANSACTION_SHAPE_${shape}` });

describe('POST /v2/updates/update-by-id', () => {
  const t = useTestDatabase();
  let api: TestApi;
  let admin: string;
  let reader: string;
  const offsets = new Map<string, number>();
  const post = (body: unknown, token = admin) => ledgerRequest(api.url, 'POST', PATH, token, body);
  const expected = (tx: TransactionUpdate, reading: Reading) => {
    const value = expectedTransaction(tx, reading, { creates, offset: offsets.get(tx.update_id)! });
    if (!value) throw new Error('the test expects a visible transaction');
    return { update: { Transaction: { value } } };
  };

  beforeAll(async () => {
    const all = [...items, ASSIGN, UNASSIGN];
    await ingestItems(
      t.db,
      'sim',
      all.map((item, i) => ({ item, position: String(i + 1), origin: `item ${i + 1}` })),
    );
    const rows = await sql<{ update_id: string; ingest_seq: number }>`select update_id, ingest_seq from updates`.execute(t.db);
    for (const r of rows.rows) offsets.set(r.update_id, r.ingest_seq);
    api = await startTestApi(t, {
      env: {
        LEDGER_AUTH_HS256_SECRET: SECRET,
        LEDGER_AUTH_AUDIENCE: AUDIENCE,
        LEDGER_ADMIN_USERS: 'admin',
        LEDGER_USER_RIGHTS: JSON.stringify({ reader: [P] }),
      },
    });
    admin = await hs256Token('admin');
    reader = await hs256Token('reader');
  });
  afterAll(async () => {
    await api.close();
  });

  it('answers the transaction, in both shapes, as a witness sees it', async () => {
    for (const shape of ['ACS_DELTA', 'LEDGER_EFFECTS'] as const) {
      const reading: Reading = { shape, byParty: { [P]: wildcard() } };
      const res = await post(
        { updateId: TX.update_id, updateFormat: { includeTransactions: transactionsOf(shape, eventFormat(P, W)) } },
        reader,
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.json).toEqual(expected(TX, reading));
    }
  });

  it('filtersForAnyParty and a template filter, with reassignments and topology events also asked for', async () => {
    const res = await post({
      updateId: TX.update_id.toUpperCase(),
      updateFormat: {
        includeTransactions: transactionsOf('LEDGER_EFFECTS', { filtersForAnyParty: { cumulative: [] } }),
        includeReassignments: { filtersForAnyParty: {} },
        includeTopologyEvents: { includeParticipantAuthorizationEvents: { parties: [] } },
      },
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual(expected(TX, { shape: 'LEDGER_EFFECTS', byParty: {}, anyParty: wildcard() }));
    const amulets = await post({
      updateId: TX.update_id,
      updateFormat: {
        includeTransactions: transactionsOf('LEDGER_EFFECTS', {
          filtersForAnyParty: {
            cumulative: [{ identifierFilter: { TemplateFilter: { value: { templateId: '#splice-amulet:Splice.Amulet:Amulet' } } } }],
          },
        }),
      },
    });
    const reading: Reading = { shape: 'LEDGER_EFFECTS', byParty: {}, anyParty: templateNamed('splice-amulet', 'Splice.Amulet:Amulet') };
    expect(amulets.status).toBe(200);
    expect(amulets.json).toEqual(expected(TX, reading));
  });

  it('UPDATE_NOT_FOUND: an unknown id, an invisible transaction, a format without transactions, a reassignment not asked for', async () => {
    const cases: [string, object, string | undefined][] = [
      [UNKNOWN_ID, { includeTransactions: transactionsOf('ACS_DELTA', eventFormat(P, W)) }, reader],
      [TX.update_id, { includeTransactions: transactionsOf('LEDGER_EFFECTS', eventFormat(OUTSIDER, W)) }, admin],
      [TX.update_id, {}, reader],
      [TX.update_id, { includeReassignments: eventFormat(P) }, reader],
      [TX.update_id, { includeTopologyEvents: { includeParticipantAuthorizationEvents: { parties: [P] } } }, reader],
      [REASSIGNMENT_ID, { includeTransactions: transactionsOf('ACS_DELTA', { filtersForAnyParty: {} }) }, admin],
    ];
    for (const [updateId, updateFormat, token] of cases) {
      const res = await post({ updateId, updateFormat }, token);
      expect({ updateFormat, status: res.status, json: res.json }).toEqual({
        updateFormat,
        status: 404,
        json: expectedErrors.notFound(updateId),
      });
    }
  });

  describe('reassignments, asked for with includeReassignments', () => {
    /** The item's assignment and unassignment, read independently of the server: the hand items' fields. */
    const assign = ASSIGN.update as unknown as { update_id: string; record_time: string; event: Record<string, unknown> };
    const unassign = UNASSIGN.update as unknown as { update_id: string; record_time: string; event: Record<string, unknown> };
    const created = assign.event.created_event as CreatedEvent;
    const templateFilter = (templateId: string) => ({ identifierFilter: { TemplateFilter: { value: { templateId } } } });

    const expectedAssignment = (witnessParties: string[]) => ({
      update: {
        Reassignment: {
          value: {
            updateId: REASSIGNMENT_ID,
            commandId: '',
            workflowId: '',
            offset: offsets.get(REASSIGNMENT_ID)!,
            events: [
              {
                JsAssignmentEvent: {
                  source: assign.event.source_synchronizer,
                  target: assign.event.target_synchronizer,
                  reassignmentId: assign.event.unassign_id,
                  submitter: assign.event.submitter,
                  reassignmentCounter: 1,
                  createdEvent: {
                    offset: offsets.get(REASSIGNMENT_ID)!,
                    nodeId: 0,
                    contractId: 'c-reassigned',
                    templateId: created.template_id,
                    contractKey: null,
                    contractKeyHash: '',
                    createArgument: created.create_arguments,
                    createdEventBlob: '',
                    interfaceViews: [],
                    witnessParties,
                    signatories: [DSO],
                    observers: [],
                    createdAt: '2025-01-01T00:00:00Z',
                    packageName: created.package_name,
                    representativePackageId: created.template_id.split(':')[0],
                    acsDelta: true,
                  },
                },
              },
            ],
            traceContext: null,
            recordTime: '2030-01-01T00:00:00Z',
            synchronizerId: assign.event.target_synchronizer,
            paidTrafficCost: null,
          },
        },
      },
    });

    it('an assignment: a JsReassignment with its JsAssignmentEvent, as a stakeholder or any party sees it', async () => {
      for (const updateFormat of [
        { includeReassignments: { filtersForAnyParty: {} } },
        { includeReassignments: eventFormat(DSO, templateFilter(created.template_id)) },
        // A transaction format too: the id is a reassignment, so the reassignment part answers.
        { includeTransactions: transactionsOf('ACS_DELTA', { filtersForAnyParty: {} }), includeReassignments: eventFormat(DSO) },
      ]) {
        const res = await post({ updateId: REASSIGNMENT_ID, updateFormat });
        expect({ updateFormat, status: res.status, json: res.json }).toEqual({
          updateFormat,
          status: 200,
          json: expectedAssignment([DSO]),
        });
      }
    });

    it('an unassignment: a JsUnassignedEvent naming the template and stakeholders of the contract it moves', async () => {
      const res = await post({ updateId: UNASSIGNMENT_ID.toUpperCase(), updateFormat: { includeReassignments: eventFormat(DSO) } });
      expect({ status: res.status, json: res.json }).toEqual({
        status: 200,
        json: {
          update: {
            Reassignment: {
              value: {
                updateId: UNASSIGNMENT_ID,
                commandId: '',
                workflowId: '',
                offset: offsets.get(UNASSIGNMENT_ID)!,
                events: [
                  {
                    JsUnassignedEvent: {
                      value: {
                        reassignmentId: unassign.event.unassign_id,
                        contractId: 'c-reassigned',
                        templateId: created.template_id,
                        source: unassign.event.source_synchronizer,
                        target: unassign.event.target_synchronizer,
                        submitter: unassign.event.submitter,
                        reassignmentCounter: 2,
                        assignmentExclusivity: null,
                        witnessParties: [DSO],
                        packageName: created.package_name,
                        offset: offsets.get(UNASSIGNMENT_ID)!,
                        nodeId: 0,
                      },
                    },
                  },
                ],
                traceContext: null,
                recordTime: '2030-01-02T00:00:00Z',
                synchronizerId: unassign.event.source_synchronizer,
                paidTrafficCost: null,
              },
            },
          },
        },
      });
    });

    it('UPDATE_NOT_FOUND for a reader who is no stakeholder, or a filter the template does not match', async () => {
      const cases: [string, object, string][] = [
        [REASSIGNMENT_ID, { includeReassignments: eventFormat(P) }, reader],
        [UNASSIGNMENT_ID, { includeReassignments: eventFormat(P) }, reader],
        [REASSIGNMENT_ID, { includeReassignments: eventFormat(DSO, templateFilter('#splice-amulet:Splice.Amulet:Amulet')) }, admin],
        [
          UNASSIGNMENT_ID,
          { includeReassignments: { filtersForAnyParty: { cumulative: [templateFilter('#example:Splice.Amulet:Amulet')] } } },
          admin,
        ],
      ];
      for (const [updateId, updateFormat, token] of cases) {
        const res = await post({ updateId, updateFormat }, token);
        expect({ updateFormat, status: res.status, json: res.json }).toEqual({
          updateFormat,
          status: 404,
          json: expectedErrors.notFound(updateId),
        });
      }
    });
  });

  it('authentication and read rights, checked before the body’s fields', async () => {
    const noToken = await ledgerRequest(api.url, 'POST', PATH, undefined, { updateId: TX.update_id, updateFormat: {} });
    expect(noToken).toMatchObject({ status: 401, json: expectedErrors.unauthenticated });
    const forbidden: object[] = [
      { includeTransactions: transactionsOf('ACS_DELTA', eventFormat(OUTSIDER, W)) },
      { includeTransactions: transactionsOf('ACS_DELTA', { filtersForAnyParty: {} }) },
      { includeReassignments: eventFormat(OUTSIDER) },
      { includeTopologyEvents: { includeParticipantAuthorizationEvents: { parties: [] } } },
      { includeTopologyEvents: { includeParticipantAuthorizationEvents: { parties: [OUTSIDER] } } },
    ];
    for (const updateFormat of forbidden) {
      // An id that is not even hex: the rights come first.
      const res = await post({ updateId: 'not-hex', updateFormat }, reader);
      expect({ updateFormat, status: res.status, json: res.json }).toEqual({ updateFormat, status: 403, json: expectedErrors.forbidden });
    }
  });

  it('LedgerErrors for a body that decodes but is invalid, in Canton’s order', async () => {
    const ok = { includeTransactions: transactionsOf('ACS_DELTA', eventFormat(P, W)) };
    const cases: [unknown, object][] = [
      [{ updateFormat: ok }, expectedErrors.missingField('update_id')],
      [{ updateId: 'not-hex' }, expectedErrors.invalidArgument('Failed to parse hex string: not-hex')],
      [{ updateId: TX.update_id }, expectedErrors.missingField('update_format')],
      [{ updateId: TX.update_id, updateFormat: null }, expectedErrors.missingField('update_format')],
      [
        { updateId: TX.update_id, updateFormat: { includeTransactions: { eventFormat: eventFormat(P, W) } } },
        expectedErrors.missingField('transaction_shape'),
      ],
      [
        { updateId: TX.update_id, updateFormat: { includeTransactions: { transactionShape: 'TRANSACTION_SHAPE_UNSPECIFIED' } } },
        expectedErrors.missingField('transaction_shape'),
      ],
      [
        { updateId: TX.update_id, updateFormat: { includeTransactions: { transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' } } },
        expectedErrors.missingField('event_format'),
      ],
      [
        { updateId: TX.update_id, updateFormat: { includeTransactions: transactionsOf('ACS_DELTA', { filtersByParty: {} }) } },
        expectedErrors.invalidArgument('filtersByParty and filtersForAnyParty cannot be empty simultaneously'),
      ],
      [
        { updateId: TX.update_id, updateFormat: { ...ok, includeReassignments: { verbose: true } } },
        expectedErrors.invalidArgument('filtersByParty and filtersForAnyParty cannot be empty simultaneously'),
      ],
      [
        {
          updateId: TX.update_id,
          updateFormat: {
            includeTransactions: transactionsOf(
              'ACS_DELTA',
              eventFormat(P, { identifierFilter: { TemplateFilter: { value: { templateId: '#splice-amulet:Amulet' } } } }),
            ),
          },
        },
        expectedErrors.invalidField(
          'template_id',
          `'#splice-amulet:Amulet' is not an identifier of the form #<package-name>:<Module>:<Entity> or <package-id>:<Module>:<Entity> (in the filters of party ${P})`,
        ),
      ],
    ];
    for (const [body, error] of cases) {
      const res = await post(body);
      expect({ body, status: res.status, json: res.json }).toEqual({ body, status: 400, json: error });
    }
  });

  it('a body that does not decode is a 400 text/plain', async () => {
    const cases: [unknown, string][] = [
      ['', 'Invalid value for: body (exhausted input)'],
      [{ updateId: 7 }, "Invalid value for: body (Got value '7' with wrong type, expecting string at 'updateId')"],
      [
        { updateId: TX.update_id, updateFormat: { includeTransactions: transactionsOf('FLAT' as never, eventFormat(P, W)) } },
        "Invalid value for: body (Unrecognized enum value TRANSACTION_SHAPE_FLAT. Supported values: [TRANSACTION_SHAPE_UNSPECIFIED, TRANSACTION_SHAPE_ACS_DELTA, TRANSACTION_SHAPE_LEDGER_EFFECTS] at 'updateFormat.includeTransactions.transactionShape')",
      ],
      [
        { updateId: TX.update_id, updateFormat: { includeTopologyEvents: { includeParticipantAuthorizationEvents: { parties: P } } } },
        `Invalid value for: body (Got value '"${P}"' with wrong type, expecting json array at 'updateFormat.includeTopologyEvents.includeParticipantAuthorizationEvents.parties')`,
      ],
    ];
    for (const [body, text] of cases) {
      const res = await post(body);
      expect({ status: res.status, type: res.headers.get('content-type'), text: res.text }).toEqual({
        status: 400,
        type: 'text/plain; charset=utf-8',
        text,
      });
    }
  });
});
