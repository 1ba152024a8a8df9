/**
 * The token-standard registry (/registry) part of the OpenAPI document, as token-metadata-v1.yaml,
 * transfer-instruction-v1.yaml, allocation-instruction-v1.yaml and allocation-v1.yaml have it.
 */
import { array, bool, dateTime, int32, json, jsonBody, object, pathParam, queryParam, ref, str, type Schema } from './builders';

const supportedApis = { type: 'object', additionalProperties: int32() };

export const registrySchemas = {
  Instrument: object(
    {
      id: str(),
      name: str(),
      symbol: str(),
      totalSupply: str('Decimal: unlocked plus locked amulet at the latest ACS snapshot.'),
      totalSupplyAsOf: dateTime('The record time of that snapshot.'),
      decimals: { type: 'integer', format: 'int8' },
      supportedApis,
    },
    ['totalSupply', 'totalSupplyAsOf'],
  ),
  GetFactoryRequest: object(
    {
      choiceArguments: {
        type: 'object',
        description: "The factory choice's arguments in Daml JSON, with empty extraArgs.context and extraArgs.meta.",
      },
      excludeDebugFields: bool('Leave the debug fields out of the disclosed contracts (default false).'),
    },
    ['excludeDebugFields'],
  ),
  GetChoiceContextRequest: object({ meta: { type: 'object', additionalProperties: str() }, excludeDebugFields: bool('Default false.') }, [
    'meta',
    'excludeDebugFields',
  ]),
  ChoiceContext: object({
    choiceContextData: {
      type: 'object',
      description: 'Daml JSON of a MetadataV1.ChoiceContext: {"values": {key: {"tag": "AV_ContractId" | "AV_Bool", "value": …}}}.',
    },
    disclosedContracts: array(ref('DisclosedContract')),
  }),
  DisclosedContract: object(
    {
      templateId: str(),
      contractId: str(),
      createdEventBlob: str('Base64; "" when the source gave none.'),
      synchronizerId: str('The synchronizer AmuletRules names as active.'),
      debugPackageName: str(),
      debugPayload: { type: 'object' },
      debugCreatedAt: dateTime(),
    },
    ['debugPackageName', 'debugPayload', 'debugCreatedAt'],
  ),
  TransferFactoryWithChoiceContext: object({
    factoryId: str('The ExternalPartyAmuletRules contract.'),
    transferKind: { type: 'string', enum: ['self', 'direct', 'offer'] },
    choiceContext: ref('ChoiceContext'),
  }),
  FactoryWithChoiceContext: object({ factoryId: str('The ExternalPartyAmuletRules contract.'), choiceContext: ref('ChoiceContext') }),
};

const badRequest = json(ref('ErrorResponse'), 'Bad request.');

const notFound = json(ref('ErrorResponse'), 'Not found.');

const registryMetadataPaths = {
  '/info': {
    get: {
      summary: 'The registry admin (the DSO party) and the registry-wide APIs.',
      responses: { '200': json(object({ adminId: str(), supportedApis })), '404': notFound },
    },
  },
  '/instruments': {
    get: {
      summary: 'The instruments: Amulet alone (pageSize and pageToken change nothing).',
      parameters: [queryParam('pageSize', int32(), false), queryParam('pageToken', str(), false)],
      responses: { '200': json(object({ instruments: { type: 'array', items: ref('Instrument') } })) },
    },
  },
  '/instruments/{instrumentId}': {
    get: {
      summary: 'One instrument: Amulet, or 404.',
      parameters: [pathParam('instrumentId')],
      responses: { '200': json(ref('Instrument')), '404': notFound },
    },
  },
};

const post = (summary: string, request: string, response: string, parameters: Schema[] = []) => ({
  post: {
    summary,
    ...(parameters.length > 0 ? { parameters } : {}),
    requestBody: jsonBody(ref(request)),
    responses: { '200': json(ref(response)), '400': badRequest, '404': notFound },
  },
});

const choiceContext = (what: string, param: string, choice: string) =>
  post(`The choice context to ${choice} ${what}.`, 'GetChoiceContextRequest', 'ChoiceContext', [pathParam(param)]);

const registryTransferPaths = {
  '/transfer-instruction/v1/transfer-factory': post(
    'The transfer factory (ExternalPartyAmuletRules), the kind of transfer, and the choice context for TransferFactory_Transfer.',
    'GetFactoryRequest',
    'TransferFactoryWithChoiceContext',
  ),
  ...Object.fromEntries(
    ['accept', 'reject', 'withdraw'].map((c) => [
      `/transfer-instruction/v1/{transferInstructionId}/choice-contexts/${c}`,
      choiceContext('an AmuletTransferInstruction', 'transferInstructionId', c),
    ]),
  ),
  '/allocation-instruction/v1/allocation-factory': post(
    'The allocation factory (ExternalPartyAmuletRules) and the choice context for AllocationFactory_Allocate.',
    'GetFactoryRequest',
    'FactoryWithChoiceContext',
  ),
  ...Object.fromEntries(
    ['execute-transfer', 'withdraw', 'cancel'].map((c) => [
      `/allocations/v1/{allocationId}/choice-contexts/${c}`,
      choiceContext('an AmuletAllocation', 'allocationId', c),
    ]),
  ),
};

/** Everything under /registry. */
export const registryPaths: Record<string, Record<string, unknown>> = {
  ...Object.fromEntries(Object.entries(registryMetadataPaths).map(([p, v]) => [`/metadata/v1${p}`, v])),
  ...registryTransferPaths,
};
