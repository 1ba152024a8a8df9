/** The JSON Ledger API v2 part (/v2) of the OpenAPI document. */
import { array, bool, int32, int64, json, jsonBody, nullable, object, str, ref, type Schema } from './builders';

const ledgerError = (description: string) => json(ref('JsCantonError'), description);
const auth = [{ bearerAuth: [] }];

const cumulativeFilter = object({
  identifierFilter: {
    oneOf: [
      object({ Empty: object({}) }),
      object({ WildcardFilter: object({ value: object({ includeCreatedEventBlob: bool() }, ['includeCreatedEventBlob']) }) }),
      object({
        TemplateFilter: object({ value: object({ templateId: str(), includeCreatedEventBlob: bool() }, ['includeCreatedEventBlob']) }),
      }),
      object({
        InterfaceFilter: object({
          value: object({ interfaceId: str(), includeInterfaceView: bool(), includeCreatedEventBlob: bool() }, [
            'includeInterfaceView',
            'includeCreatedEventBlob',
          ]),
        }),
      }),
    ],
  },
});

export const ledgerSchemas: Record<string, Schema> = {
  JsCantonError: object(
    {
      code: str(),
      cause: str(),
      correlationId: nullable(str()),
      traceId: nullable(str()),
      context: { type: 'object', additionalProperties: { type: 'string' } },
      resources: array(array(str(), { minItems: 2, maxItems: 2 })),
      errorCategory: int32(),
      grpcCodeValue: nullable(int32()),
      retryInfo: nullable(str()),
      definiteAnswer: nullable(bool()),
    },
    ['correlationId', 'traceId', 'resources', 'grpcCodeValue', 'retryInfo', 'definiteAnswer'],
  ),
  Filters: object({ cumulative: array(cumulativeFilter) }, ['cumulative']),
  EventFormat: object(
    { filtersByParty: { type: 'object', additionalProperties: ref('Filters') }, filtersForAnyParty: ref('Filters'), verbose: bool() },
    ['filtersByParty', 'filtersForAnyParty', 'verbose'],
  ),
  TransactionFormat: object({
    eventFormat: ref('EventFormat'),
    transactionShape: {
      type: 'string',
      enum: ['TRANSACTION_SHAPE_UNSPECIFIED', 'TRANSACTION_SHAPE_ACS_DELTA', 'TRANSACTION_SHAPE_LEDGER_EFFECTS'],
      description: 'Missing or TRANSACTION_SHAPE_UNSPECIFIED is a 400 MISSING_FIELD, as in Canton.',
    },
  }),
  JsTransaction: object(
    {
      updateId: str(),
      commandId: str(),
      workflowId: str(),
      effectiveAt: str(),
      events: array({ type: 'object', description: 'One of {"CreatedEvent": …}, {"ArchivedEvent": …}, {"ExercisedEvent": …}.' }),
      offset: int64(),
      synchronizerId: str(),
      traceContext: nullable(object({ traceparent: str(), tracestate: str() }, ['traceparent', 'tracestate'])),
      recordTime: str(),
      externalTransactionHash: nullable(str()),
      paidTrafficCost: nullable(int64()),
    },
    ['traceContext', 'externalTransactionHash', 'paidTrafficCost'],
  ),
};

export const ledgerPaths = {
  '/v2/updates/transaction-by-id': {
    post: {
      summary: 'L1: a transaction by update id, filtered to what the requesting parties may see (deprecated in Canton 3.4).',
      deprecated: true,
      security: auth,
      requestBody: jsonBody(
        object({ updateId: str(), requestingParties: array(str()), transactionFormat: ref('TransactionFormat') }, [
          'requestingParties',
          'transactionFormat',
        ]),
      ),
      responses: {
        '200': json(object({ transaction: ref('JsTransaction') })),
        '400': {
          description:
            'text/plain when the body does not decode (bad JSON, wrong types); a LedgerError (MISSING_FIELD, INVALID_FIELD, INVALID_ARGUMENT) when it decodes but is invalid.',
          content: { 'text/plain': { schema: { type: 'string' } }, 'application/json': { schema: ref('JsCantonError') } },
        },
        default: ledgerError('A LedgerError: 401 unauthenticated, 403 permission denied, 404 UPDATE_NOT_FOUND.'),
      },
    },
  },
  '/v2/parties/participant-id': {
    get: {
      summary: 'L2: the participant id (LEDGER_PARTICIPANT_ID).',
      security: auth,
      responses: {
        '200': json(object({ participantId: str() })),
        default: ledgerError('A LedgerError: 401 unauthenticated, 403 permission denied.'),
      },
    },
  },
  '/v2/version': {
    get: {
      summary: 'The ledger API version and features, as Canton clients expect before other calls.',
      responses: { '200': json(object({ version: str(), features: { type: 'object' } })), default: ledgerError('A LedgerError.') },
    },
  },
};
