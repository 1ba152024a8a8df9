/** The token-standard registry (/registry/metadata/v1) part of the OpenAPI document, as token-metadata-v1.yaml has it. */
import { dateTime, int32, json, object, pathParam, queryParam, ref, str } from './builders';

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
};

const notFound = json(ref('ErrorResponse'), 'Not found.');

export const registryMetadataPaths = {
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
