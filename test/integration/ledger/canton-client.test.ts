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

describe('the Canton ledger client against the server', () => {
  const t = useTestDatabase();
  let api: TestApi;
  let client: LedgerClient;
  let offset = 0;
  beforeAll(async () => {
    await ingestItems(
      t.db,
      'sim',
      items.map((item, i) => ({ item, position: String(i + 1), origin: `item ${i + 1}` })),
    );
    offset = (await sql<{ ingest_seq: number }>`select ingest_seq from updates where update_id = ${TX.update_id}`.execute(t.db)).rows[0]!
      .ingest_seq;
    api = await startTestApi(t, {
      env: {
        LEDGER_AUTH_HS256_SECRET: SECRET,
        LEDGER_PARTICIPANT_ID: PARTICIPANT_ID,
        LEDGER_USER_RIGHTS: JSON.stringify({ reader: [READER] }),
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
