/**
 * Canton's own generated client, `@canton-network/core-ledger-client`, works
 * against the server: it accepts the version (it refuses servers that are not
 * 3.4 or 3.5), reads the participant id, reads a transaction by id with a
 * reader's token (the whole body as computed independently), and hands over
 * the LedgerError of an unknown update.
 */
import { LedgerClient } from '@canton-network/core-ledger-client';
import pino from 'pino';
import { sql } from 'kysely';
import type { TransactionUpdate } from '../../../src/domain/items';
import { ingestItems } from '../../support/ingest';
import { useTestDatabase } from '../../support/database/database';
import { startTestApi, type TestApi } from '../../support/http/http';
import { DSO, reassignment } from '../../support/items/hand-items';
import { simulatedItems } from '../../support/items/simulated-network';
import { createsOf, expectedTransaction, wildcard, witnessesOf } from './expected';
import { hs256Token, PARTICIPANT_ID, SECRET } from './support';

const items = simulatedItems({ seed: 7, updates: 400 });
const creates = createsOf(items);
const nonDsoWitness = (u: TransactionUpdate) =>
  [...new Set([...witnessesOf(u, creates).values()].flat())].sort().find((p) => !p.startsWith('DSO::'));
const TX = items
  .flatMap((i) => (i.update && 'events_by_id' in i.update ? [i.update] : []))
  .find((u) => Object.keys(u.events_by_id).length > 3 && nonDsoWitness(u) !== undefined)!;
const READER = nonDsoWitness(TX)!;
/** An assignment of a contract whose only stakeholder is the hand items' DSO. */
const ASSIGNMENT_ID = `1220${'ab'.repeat(32)}`;
const ASSIGN = reassignment(ASSIGNMENT_ID, '2030-01-01T00:00:00.000000Z', 'assign', 'c-reassigned', 1);

describe('the Canton ledger client against the server', () => {
  const t = useTestDatabase();
  let api: TestApi;
  let client: LedgerClient;
  let offset = 0;
  beforeAll(async () => {
    await ingestItems(
      t.db,
      'sim',
      [...items, ASSIGN].map((item, i) => ({ item, position: String(i + 1), origin: `item ${i + 1}` })),
    );
    offset = (await sql<{ ingest_seq: number }>`select ingest_seq from updates where update_id = ${TX.update_id}`.execute(t.db)).rows[0]!
      .ingest_seq;
    api = await startTestApi(t, {
      env: {
        LEDGER_AUTH_HS256_SECRET: SECRET,
        LEDGER_PARTICIPANT_ID: PARTICIPANT_ID,
        LEDGER_USER_RIGHTS: JSON.stringify({ reader: [READER, DSO] }),
      },
    });
    const token = await hs256Token('reader');
    client = new LedgerClient({
      baseUrl: new URL(api.url),
      logger: pino({ level: 'silent' }),
      accessTokenProvider: { getAccessToken: async () => token, getAuthContext: async () => ({}) as never },
    });
  });
  afterAll(async () => {
    await api.close();
  });

  it('accepts the server version and reads the participant id', async () => {
    await client.init();
    expect(client.getCurrentClientVersion()).toBe('3.4');
    expect(await client.get('/v2/parties/participant-id')).toEqual({ participantId: PARTICIPANT_ID });
  });

  it('reads a transaction by id as one of its witnesses sees it', async () => {
    const reading = { shape: 'LEDGER_EFFECTS' as const, byParty: { [READER]: wildcard() } };
    const body = {
      updateId: TX.update_id,
      transactionFormat: {
        eventFormat: { filtersByParty: { [READER]: { cumulative: [] } }, verbose: true },
        transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' as const,
      },
    };
    const response = await client.post('/v2/updates/transaction-by-id', body);
    expect(response).toEqual({ transaction: expectedTransaction(TX, reading, { creates, offset }) });
  });

  it('reads the same transaction through update-by-id, its replacement', async () => {
    const reading = { shape: 'LEDGER_EFFECTS' as const, byParty: { [READER]: wildcard() } };
    const body = {
      updateId: TX.update_id,
      updateFormat: {
        includeTransactions: {
          eventFormat: { filtersByParty: { [READER]: { cumulative: [] } }, verbose: true },
          transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' as const,
        },
      },
    };
    const response = await client.post('/v2/updates/update-by-id', body);
    expect(response).toEqual({ update: { Transaction: { value: expectedTransaction(TX, reading, { creates, offset }) } } });
  });

  it('reads a reassignment through update-by-id, as a stakeholder of the contract sees it', async () => {
    const assignOffset = (
      await sql<{ ingest_seq: number }>`select ingest_seq from updates where update_id = ${ASSIGNMENT_ID}`.execute(t.db)
    ).rows[0]!.ingest_seq;
    const event = (ASSIGN.update as { event: { created_event: { template_id: string; package_name: string; create_arguments: unknown } } })
      .event;
    const response = await client.post('/v2/updates/update-by-id', {
      updateId: ASSIGNMENT_ID,
      updateFormat: { includeReassignments: { filtersByParty: { [DSO]: { cumulative: [] } }, verbose: true } },
    });
    expect(response).toEqual({
      update: {
        Reassignment: {
          value: {
            updateId: ASSIGNMENT_ID,
            commandId: '',
            workflowId: '',
            offset: assignOffset,
            events: [
              {
                JsAssignmentEvent: {
                  source: 'other::1220',
                  target: 'global-domain::1220aaaa',
                  reassignmentId: 'un-c-reassigned-1',
                  submitter: DSO,
                  reassignmentCounter: 1,
                  createdEvent: {
                    offset: assignOffset,
                    nodeId: 0,
                    contractId: 'c-reassigned',
                    templateId: event.created_event.template_id,
                    contractKey: null,
                    contractKeyHash: '',
                    createArgument: event.created_event.create_arguments,
                    createdEventBlob: '',
                    interfaceViews: [],
                    witnessParties: [DSO],
                    signatories: [DSO],
                    observers: [],
                    createdAt: '2025-01-01T00:00:00Z',
                    packageName: event.created_event.package_name,
                    representativePackageId: event.created_event.template_id.split(':')[0],
                    acsDelta: true,
                  },
                },
              },
            ],
            traceContext: null,
            recordTime: '2030-01-01T00:00:00Z',
            synchronizerId: 'global-domain::1220aaaa',
            paidTrafficCost: null,
          },
        },
      },
    });
  });

  it('receives the UPDATE_NOT_FOUND LedgerError for an unknown update', async () => {
    const unknown = { updateId: `1220${'cd'.repeat(32)}`, requestingParties: [READER] };
    const error = await client.post('/v2/updates/transaction-by-id', unknown).then(
      () => undefined,
      (err: unknown) => err,
    );
    // The client hands over the LedgerError body as Canton sends it.
    expect(error).toMatchObject({
      code: 'UPDATE_NOT_FOUND',
      errorCategory: 11,
      grpcCodeValue: 5,
      resources: [['ErrorResource(UPDATE_ID)', unknown.updateId]],
    });
  });
});
