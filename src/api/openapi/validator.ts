/** The validator scan-proxy (/api/validator) part of the OpenAPI document. */
import { array, int32, int64, json, jsonBody, nullable, object, pathParam, queryParam, ref, str } from './builders';
import { holdingsSummaryV0, holdingsSummaryV1 } from './scan';

const failure = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), json(ref('ErrorResponse'), s === 400 ? 'A client mistake.' : 'Not found.')]));

export const unauthorized = {
  description: 'Missing or invalid token, when a verifier is configured (plain text, with a WWW-Authenticate: Bearer challenge).',
  content: { 'text/plain': { schema: { type: 'string' } } },
};

export const validatorPaths = {
  '/v0/scan-proxy/open-and-issuing-mining-rounds': {
    get: {
      summary: 'V1: open and issuing mining rounds, by round number.',
      security: [{ bearerAuth: [] }],
      responses: {
        '200': json(
          object({ open_mining_rounds: array(ref('ContractWithState')), issuing_mining_rounds: array(ref('ContractWithState')) }),
        ),
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
  '/v0/scan-proxy/dso-party-id': {
    get: {
      summary: 'The DSO party.',
      security: [{ bearerAuth: [] }],
      responses: { '200': json(object({ dso_party_id: str() })), '401': unauthorized, ...failure(404) },
    },
  },
  '/v0/scan-proxy/dso': {
    get: {
      summary: "The Scan app's GET /v0/dso.",
      security: [{ bearerAuth: [] }],
      responses: { '200': json(ref('GetDsoInfoResponse')), '401': unauthorized, ...failure(404) },
    },
  },
  '/v0/scan-proxy/featured-apps/{provider_party_id}': {
    get: {
      summary: "A provider's FeaturedAppRight, or null.",
      security: [{ bearerAuth: [] }],
      parameters: [pathParam('provider_party_id')],
      responses: { '200': json(object({ featured_app_right: nullable(ref('Contract')) })), '401': unauthorized, ...failure(400) },
    },
  },
  '/v0/scan-proxy/amulet-rules': {
    get: {
      summary: 'The live AmuletRules, always whole.',
      security: [{ bearerAuth: [] }],
      responses: { '200': json(object({ amulet_rules: ref('ContractWithState') })), '401': unauthorized },
    },
  },
  '/v0/scan-proxy/ans-rules': {
    post: {
      summary: 'The live AnsRules, always whole (the cached id is ignored).',
      security: [{ bearerAuth: [] }],
      requestBody: jsonBody({ type: 'object' }),
      responses: { '200': json(object({ ans_rules_update: ref('MaybeCachedContractWithState') })), '401': unauthorized },
    },
  },
  '/v0/scan-proxy/ans-entries/by-party/{party}': {
    get: {
      summary: 'The first ANS entry of a party.',
      security: [{ bearerAuth: [] }],
      parameters: [pathParam('party')],
      responses: { '200': json(object({ entry: ref('AnsEntry') })), '401': unauthorized, ...failure(400, 404) },
    },
  },
  '/v0/scan-proxy/ans-entries/by-name/{name}': {
    get: {
      summary: 'The ANS entry of a name.',
      security: [{ bearerAuth: [] }],
      parameters: [pathParam('name')],
      responses: { '200': json(object({ entry: ref('AnsEntry') })), '401': unauthorized, ...failure(404) },
    },
  },
  '/v0/scan-proxy/transfer-preapprovals/by-party/{party}': {
    get: {
      summary: "The receiver's live TransferPreapproval.",
      security: [{ bearerAuth: [] }],
      parameters: [pathParam('party')],
      responses: { '200': json(object({ transfer_preapproval: ref('ContractWithState') })), '401': unauthorized, ...failure(400, 404) },
    },
  },
  '/v0/scan-proxy/transfer-command/status': {
    get: {
      summary: "The status of the sender's TransferCommands with this nonce, as Scan answers it.",
      security: [{ bearerAuth: [] }],
      parameters: [queryParam('sender', str(), true), queryParam('nonce', int64(), true)],
      responses: { '200': json(ref('LookupTransferCommandStatusResponse')), '401': unauthorized, ...failure(400, 404) },
    },
  },
  '/v0/scan-proxy/transfer-command-counter/{party}': {
    get: {
      summary: "The sender's live TransferCommandCounter (404: use 0 for the nonce).",
      security: [{ bearerAuth: [] }],
      parameters: [pathParam('party')],
      responses: { '200': json(object({ transfer_command_counter: ref('ContractWithState') })), '401': unauthorized, ...failure(400, 404) },
    },
  },
  '/v0/scan-proxy/unclaimed-development-fund-coupons': {
    get: {
      summary: 'The live UnclaimedDevelopmentFundCoupons.',
      security: [{ bearerAuth: [] }],
      responses: { '200': json(object({ 'unclaimed-development-fund-coupons': array(ref('ContractWithState')) })), '401': unauthorized },
    },
  },
  '/v0/scan-proxy/holdings/summary': {
    post: {
      ...holdingsSummaryV0,
      summary: "The Scan's /v0/holdings/summary, forwarded.",
      security: [{ bearerAuth: [] }],
      responses: { ...holdingsSummaryV0.responses, '401': unauthorized },
    },
  },
  '/v1/scan-proxy/holdings/summary': {
    post: {
      ...holdingsSummaryV1,
      summary: "The Scan's /v1/holdings/summary, forwarded.",
      security: [{ bearerAuth: [] }],
      responses: { ...holdingsSummaryV1.responses, '401': unauthorized },
    },
  },
};
