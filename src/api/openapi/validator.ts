/** The validator scan-proxy (/api/validator) part of the OpenAPI document. */
import { array, int32, json, object, queryParam, ref, str } from './builders';

const unauthorized = {
  description: 'Missing or invalid token, when a verifier is configured (plain text, with a WWW-Authenticate: Bearer challenge).',
  content: { 'text/plain': { schema: { type: 'string' } } },
};

export const validatorPaths = {
  '/v0/scan-proxy/open-and-issuing-mining-rounds': {
    get: {
      summary: 'V1: open and issuing mining rounds, by round number.',
      security: [{ bearerAuth: [] }],
      responses: {
        '200': json(object({ open_mining_rounds: array(ref('ContractWithState')), issuing_mining_rounds: array(ref('ContractWithState')) })),
        '401': unauthorized,
      },
    },
  },
  '/v0/scan-proxy/ans-entries': {
    get: {
      summary: 'V2: ANS entries by name (expired ones excluded), then the DSO-provided entries when the page is not full.',
      security: [{ bearerAuth: [] }],
      parameters: [queryParam('name_prefix', str(), false), queryParam('page_size', int32(), true)],
      responses: {
        '200': json(object({ entries: array(ref('AnsEntry')) })),
        '400': json(ref('ErrorResponse'), 'A client mistake.'),
        '401': unauthorized,
      },
    },
  },
};
