/**
 * The JSON Ledger API's shapes as the OpenAPI document states them, named as Canton's own document
 * names them (JsCantonError, TransactionFormat, JsTransaction...). The request body of
 * transaction-by-id is stated in Canton's form; the handler decodes it more leniently, as Canton's
 * relaxed codec does (./transaction-request.ts).
 */
import { z } from 'zod';
import { bool, int32, int64, jsonObject, str } from '../schema-kit';

/** Canton's LedgerError, with all ten keys (./errors.ts renders it). */
export const JsCantonError = z
  .object({
    code: str(),
    cause: str(),
    correlationId: str().nullable().optional(),
    traceId: str().nullable().optional(),
    context: z.record(z.string(), z.string()),
    resources: z.array(z.array(str()).min(2).max(2)).optional(),
    errorCategory: int32(),
    grpcCodeValue: int32().nullable().optional(),
    retryInfo: str().nullable().optional(),
    definiteAnswer: bool().nullable().optional(),
  })
  .meta({ id: 'JsCantonError' });

const CumulativeFilter = z.object({
  identifierFilter: z.xor([
    z.object({ Empty: z.object({}) }),
    z.object({ WildcardFilter: z.object({ value: z.object({ includeCreatedEventBlob: bool().optional() }) }) }),
    z.object({
      TemplateFilter: z.object({ value: z.object({ templateId: str(), includeCreatedEventBlob: bool().optional() }) }),
    }),
    z.object({
      InterfaceFilter: z.object({
        value: z.object({ interfaceId: str(), includeInterfaceView: bool().optional(), includeCreatedEventBlob: bool().optional() }),
      }),
    }),
  ]),
});

const Filters = z.object({ cumulative: z.array(CumulativeFilter).optional() }).meta({ id: 'Filters' });

const EventFormat = z
  .object({
    filtersByParty: z.record(z.string(), Filters).optional(),
    filtersForAnyParty: Filters.optional(),
    verbose: bool().optional(),
  })
  .meta({ id: 'EventFormat' });

const TransactionFormat = z
  .object({
    eventFormat: EventFormat,
    transactionShape: z
      .enum(['TRANSACTION_SHAPE_UNSPECIFIED', 'TRANSACTION_SHAPE_ACS_DELTA', 'TRANSACTION_SHAPE_LEDGER_EFFECTS'])
      .describe('Missing or TRANSACTION_SHAPE_UNSPECIFIED is a 400 MISSING_FIELD, as in Canton.'),
  })
  .meta({ id: 'TransactionFormat' });

export const TransactionByIdRequest = z.object({
  updateId: str(),
  requestingParties: z.array(str()).optional(),
  transactionFormat: TransactionFormat.optional(),
});

const JsTransaction = z
  .object({
    updateId: str(),
    commandId: str(),
    workflowId: str(),
    effectiveAt: str(),
    events: z.array(jsonObject('One of {"CreatedEvent": …}, {"ArchivedEvent": …}, {"ExercisedEvent": …}.')),
    offset: int64(),
    synchronizerId: str(),
    traceContext: z.object({ traceparent: str().optional(), tracestate: str().optional() }).nullable().optional(),
    recordTime: str(),
    externalTransactionHash: str().nullable().optional(),
    paidTrafficCost: int64().nullable().optional(),
  })
  .meta({ id: 'JsTransaction' });

export const TransactionByIdResponse = z.object({ transaction: JsTransaction });

export const ParticipantIdResponse = z.object({ participantId: str() });

export const VersionResponse = z.object({ version: str(), features: jsonObject() });

export const UpdateByIdRequest = z.object({
  updateId: str(),
  updateFormat: z
    .object({
      includeTransactions: TransactionFormat.optional(),
      includeReassignments: EventFormat.optional(),
      includeTopologyEvents: z
        .object({ includeParticipantAuthorizationEvents: z.object({ parties: z.array(str()).optional() }).optional() })
        .optional(),
    })
    .describe('Missing is a 400 MISSING_FIELD, as in Canton.')
    .meta({ id: 'UpdateFormat' }),
});

const CreatedEvent = jsonObject('A CreatedEvent, as in JsTransaction.events.');

const JsReassignmentEvent = z
  .xor([
    z.object({
      JsAssignmentEvent: z.object({
        source: str(),
        target: str(),
        reassignmentId: str(),
        submitter: str(),
        reassignmentCounter: int64(),
        createdEvent: CreatedEvent,
      }),
    }),
    z.object({
      JsUnassignedEvent: z.object({
        value: z.object({
          reassignmentId: str(),
          contractId: str(),
          templateId: str(),
          source: str(),
          target: str(),
          submitter: str().optional(),
          reassignmentCounter: int64(),
          assignmentExclusivity: str().nullable().optional(),
          witnessParties: z.array(str()),
          packageName: str(),
          offset: int64(),
          nodeId: int32(),
        }),
      }),
    }),
  ])
  .meta({ id: 'JsReassignmentEvent' });

const JsReassignment = z
  .object({
    updateId: str(),
    commandId: str(),
    workflowId: str(),
    offset: int64(),
    events: z.array(JsReassignmentEvent),
    traceContext: z.object({ traceparent: str().optional(), tracestate: str().optional() }).nullable().optional(),
    recordTime: str(),
    synchronizerId: str(),
    paidTrafficCost: int64().nullable().optional(),
  })
  .meta({ id: 'JsReassignment' });

/** Transactions and reassignments are served; topology transactions are not in Scan history. */
export const UpdateByIdResponse = z.object({
  update: z.xor([
    z.object({ Transaction: z.object({ value: JsTransaction }) }),
    z.object({ Reassignment: z.object({ value: JsReassignment }) }),
  ]),
});
