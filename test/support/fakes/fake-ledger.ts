/**
 * A fake participant JSON Ledger API serving `GET /v2/state/ledger-end` and
 * `POST /v2/updates` (docs/interfaces.md, "Ledger API: reading updates") from a list of update-stream
 * elements, with the server's rules: bearer token required, elements in
 * (beginExclusive, endInclusive] cut at `limit`, an end after the ledger end
 * refused. Elements are built by hand in the JSON API's shape.
 */
import { startFakeServer, type FakeServer } from './fake-server';

export const PARTY = 'scan-reader::1220d2b4f6a8c0e1f3a5c7e9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1';
export const SYNC = 'global-domain::1220b1431ef217342db44d516bb9befde802be7d8899637d290895fa58880f19accc';
const OTHER_SYNC = 'private-sync::1220c8d3f0b1a2e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0f1e2d3c4b5a6f7e8d9c0';
const AMULET = '3ca1343ab26b453d38c8adb70dca5f1ead8440c42b59b68f070786955cbf9ec1:Splice.Amulet:Amulet';
const RULES = '3ca1343ab26b453d38c8adb70dca5f1ead8440c42b59b68f070786955cbf9ec1:Splice.AmuletRules:AmuletRules';

const hex = (i: number, width: number) => i.toString(16).padStart(width, '0');
const updateId = (i: number) => `1220${hex(i, 64)}`;
const contractId = (i: number) => `00${hex(i, 64)}ca101220${hex(i, 64)}`;
const time = (i: number, micros = 0) =>
  new Date(Date.UTC(2025, 9, 14, 12, 0, i)).toISOString().replace('.000Z', `.${String(micros).padStart(6, '0')}Z`);

/** The blob the fake participant gives for a contract when the filter asks for blobs (otherwise ""). */
export const createdEventBlobOf = (cid: string): string => Buffer.from(`blob of ${cid}`).toString('base64');

function createdEvent(offset: number, nodeId: number, cid: string, amount: string, createdAt: string) {
  return {
    offset,
    nodeId,
    contractId: cid,
    templateId: AMULET,
    contractKey: null,
    contractKeyHash: '',
    createArgument: {
      dso: PARTY,
      owner: PARTY,
      amount: { initialAmount: amount, createdAt: { number: '7' }, ratePerRound: { rate: '0.0038051800' } },
    },
    createdEventBlob: createdEventBlobOf(cid),
    interfaceViews: [],
    witnessParties: [PARTY],
    signatories: [PARTY],
    observers: [],
    createdAt,
    packageName: 'splice-amulet',
    representativePackageId: AMULET.split(':')[0],
    acsDelta: true,
  };
}

function transaction(i: number, offset: number, synchronizerId: string) {
  const recordTime = time(i, i * 10);
  return {
    update: {
      Transaction: {
        value: {
          updateId: updateId(i),
          commandId: '',
          workflowId: i % 2 === 0 ? '' : `wf-${i}`,
          effectiveAt: time(i),
          offset,
          synchronizerId,
          traceContext: null,
          recordTime,
          externalTransactionHash: null,
          paidTrafficCost: null,
          events: [
            {
              ExercisedEvent: {
                offset,
                nodeId: 0,
                contractId: contractId(0),
                templateId: RULES,
                interfaceId: null,
                choice: 'AmuletRules_DevNet_Tap',
                choiceArgument: { receiver: PARTY, amount: `${i}.0000000000` },
                actingParties: [PARTY],
                consuming: false,
                witnessParties: [PARTY],
                lastDescendantNodeId: 3,
                exerciseResult: { amuletSum: { amulet: contractId(i) } },
                packageName: 'splice-amulet',
                implementedInterfaces: [],
                acsDelta: false,
              },
            },
            // Node 2 is a fetch, which the API does not show.
            { CreatedEvent: createdEvent(offset, 1, contractId(i), `${i}.0000000000`, time(i)) },
            { CreatedEvent: createdEvent(offset, 3, contractId(i + 1_000_000), '1.0000000000', time(i)) },
          ],
        },
      },
    },
  };
}

function reassignment(i: number, offset: number, kind: 'assign' | 'unassign') {
  const event =
    kind === 'assign'
      ? {
          JsAssignmentEvent: {
            source: OTHER_SYNC,
            target: SYNC,
            reassignmentId: `0012${hex(i, 8)}`,
            submitter: PARTY,
            reassignmentCounter: 1,
            createdEvent: createdEvent(offset, 0, contractId(i), '3.0000000000', time(i - 100)),
          },
        }
      : {
          JsUnassignedEvent: {
            value: {
              reassignmentId: `0012${hex(i, 8)}`,
              contractId: contractId(i - 1),
              templateId: AMULET,
              source: SYNC,
              target: OTHER_SYNC,
              submitter: PARTY,
              reassignmentCounter: 0,
              assignmentExclusivity: null,
              witnessParties: [PARTY],
              packageName: 'splice-amulet',
              offset,
              nodeId: 0,
            },
          },
        };
  return {
    update: {
      Reassignment: {
        value: {
          updateId: updateId(i),
          commandId: '',
          workflowId: '',
          offset,
          events: [event],
          traceContext: null,
          recordTime: time(i, 5),
          synchronizerId: SYNC,
          paidTrafficCost: null,
        },
      },
    },
  };
}

/**
 * `count` stream elements at offsets 100, 103, 106, …: transactions (one in
 * six on another synchronizer), assignments, unassignments, offset
 * checkpoints and topology transactions.
 */
export function makeLedgerUpdates(count: number): unknown[] {
  return Array.from({ length: count }, (_, i) => {
    const offset = 100 + 3 * i;
    switch (i % 6) {
      case 0:
        return transaction(i, offset, SYNC);
      case 1:
        return reassignment(i, offset, 'assign');
      case 2:
        return i % 12 === 2
          ? { update: { OffsetCheckpoint: { value: { offset, synchronizerTimes: [{ synchronizerId: SYNC, recordTime: time(i) }] } } } }
          : {
              update: {
                TopologyTransaction: {
                  value: { updateId: updateId(i), offset, synchronizerId: SYNC, recordTime: time(i), events: [], traceContext: null },
                },
              },
            };
      case 3:
        return reassignment(i, offset, 'unassign');
      case 4:
        return transaction(i, offset, OTHER_SYNC);
      default:
        return transaction(i, offset, SYNC);
    }
  });
}

export const offsetOf = (element: unknown): number => {
  const update = (element as { update: Record<string, { value: { offset: number } }> }).update;
  return (Object.values(update)[0] as { value: { offset: number } }).value.offset;
};

export interface FakeLedger extends FakeServer {
  /** The ledger end served; elements past it do not exist yet. */
  end: number;
  /** Whether a bearer token is acceptable. */
  acceptToken: (token: string | undefined) => boolean;
}

interface UpdatesBody {
  beginExclusive: number;
  endInclusive?: number;
  updateFormat: {
    includeTransactions: { eventFormat: { filtersByParty: Record<string, unknown> }; transactionShape: string };
    includeReassignments: { filtersByParty: Record<string, unknown> };
  };
}

const cantonError = (code: string, cause: string, category: number) => ({
  code,
  cause,
  correlationId: null,
  traceId: null,
  context: {},
  resources: [],
  errorCategory: category,
  grpcCodeValue: 3,
  retryInfo: null,
  definiteAnswer: null,
});

export async function startFakeLedger(elements: readonly unknown[], end = offsetOf(elements.at(-1)) + 2): Promise<FakeLedger> {
  // Assigned below; the handler reads the live settings tests change.
  // eslint-disable-next-line prefer-const -- declared before the handler that reads it
  let ledger!: FakeLedger;
  const server = await startFakeServer((request) => {
    const auth = request.headers.authorization;
    if (!ledger.acceptToken(auth?.startsWith('Bearer ') ? auth.slice(7) : undefined)) {
      return { status: 401, body: { ...cantonError('NA', 'A security-sensitive error has been received', -1), grpcCodeValue: 16 } };
    }
    if (request.method === 'GET' && request.path === '/v2/state/ledger-end') return { body: { offset: ledger.end } };
    if (request.method !== 'POST' || request.path !== '/v2/updates')
      return { status: 404, body: 'The requested resource could not be found.' };
    const body = request.body as UpdatesBody;
    const format = body.updateFormat;
    if (
      format.includeTransactions.transactionShape !== 'TRANSACTION_SHAPE_LEDGER_EFFECTS' ||
      !(PARTY in format.includeTransactions.eventFormat.filtersByParty) ||
      !(PARTY in format.includeReassignments.filtersByParty)
    ) {
      return { status: 400, body: cantonError('INVALID_ARGUMENT', 'unexpected update format in the test', 8) };
    }
    const endInclusive = body.endInclusive ?? ledger.end;
    if (endInclusive > ledger.end) {
      return {
        status: 400,
        body: cantonError('OFFSET_AFTER_LEDGER_END', `End offset (${endInclusive}) is after ledger end (${ledger.end})`, 12),
      };
    }
    const limit = Number(request.query.get('limit') ?? 200);
    const page = elements.filter((e) => offsetOf(e) > body.beginExclusive && offsetOf(e) <= endInclusive).slice(0, limit);
    // Like a participant: blobs only for a filter that asks for them.
    const filter = JSON.stringify(format.includeTransactions.eventFormat.filtersByParty[PARTY]);
    if (filter.includes('"includeCreatedEventBlob":true')) return { body: page };
    return { body: JSON.parse(JSON.stringify(page).replace(/"createdEventBlob":"[^"]*"/g, '"createdEventBlob":""')) as unknown };
  });
  ledger = Object.assign(server, { end, acceptToken: (token: string | undefined) => token === 'secret' });
  return ledger;
}
