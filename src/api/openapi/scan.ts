/** The Scan API (/api/scan) part of the OpenAPI document. */
import {
  array,
  bool,
  dateTime,
  decimal,
  int32,
  int64,
  json,
  jsonBody,
  nullable,
  object,
  pathParam,
  queryParam,
  ref,
  str,
  type Schema,
} from './builders';

const scanError = (description: string) => json(ref('ErrorResponse'), description);
const errors = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((s) => [
      String(s),
      scanError(
        s === 400
          ? 'A client mistake: the message says what is wrong.'
          : s === 404
            ? 'Not found.'
            : s === 410
              ? 'The history asked for was dropped by retention (HISTORY_RETENTION, off by default): the message says where the history starts.'
              : s === 501
                ? 'Not implemented (bulk storage), or protobuf_json asked for an update ingested without it.'
                : s === 503
                  ? 'Not ready.'
                  : 'An unexpected error occurred.',
      ),
    ]),
  );

const snapshotSelection = {
  migration_id: int64(),
  record_time: dateTime('With record_time_match exact, a snapshot time; with at_or_before, any time.'),
  record_time_match: ref('RecordTimeMatch'),
};

/** The page token of the current operations, and the int64 one of the older /v1 operations (numbered-page-token.ts). */
const stringToken = str('next_page_token of the previous page.');
const numberToken = int64('next_page_token of the previous page (valid for 24 hours).');

/** The ACS at a snapshot (served at /v0/state/acs, /v2/state/acs and, with an int64 token, /v1/state/acs). */
const acsState = (after: Schema, response: string) => ({
  summary: 'The ACS at a snapshot, filtered by stakeholder and template, paged in creation order.',
  requestBody: jsonBody(
    object(
      {
        ...snapshotSelection,
        after,
        page_size: int32(),
        party_ids: array(str()),
        templates: array(str('package_name:Module:Entity')),
      },
      ['record_time_match', 'after', 'party_ids', 'templates'],
    ),
  ),
  responses: { '200': json(ref(response)), ...errors(400, 404, 410, 500) },
});

const holdingsState = (summary: string, after: Schema, response: string) => ({
  summary,
  requestBody: jsonBody(
    object({ ...snapshotSelection, after, page_size: int32(), owner_party_ids: array(str(), { minItems: 1 }) }, [
      'record_time_match',
      'after',
    ]),
  ),
  responses: { '200': json(ref(response)), ...errors(400, 404, 410, 500) },
});

/** S2; the validator's scan-proxy forwards it unchanged (its /v1 path). */
export const holdingsSummaryV1 = {
  summary: 'S2: holdings per owner at a snapshot. Any number of contracts.',
  requestBody: jsonBody(object({ ...snapshotSelection, owner_party_ids: array(str(), { minItems: 1 }) }, ['record_time_match'])),
  responses: {
    '200': json(object({ record_time: dateTime(), migration_id: int64(), summaries: array(ref('HoldingsSummaryV1')) })),
    ...errors(400, 404, 410, 500),
  },
};

/** S1; the validator's scan-proxy forwards it unchanged (its /v0 path). */
export const holdingsSummaryV0 = {
  summary: 'S1: holdings per owner at a snapshot, with holding fees (deprecated: use /v1/holdings/summary).',
  deprecated: true,
  requestBody: jsonBody(
    object({ ...snapshotSelection, owner_party_ids: array(str(), { minItems: 1 }), as_of_round: int64() }, [
      'record_time_match',
      'as_of_round',
    ]),
  ),
  responses: {
    '200': json(
      object({
        record_time: dateTime(),
        migration_id: int64(),
        computed_as_of_round: int64(),
        summaries: array(ref('HoldingsSummary')),
      }),
    ),
    ...errors(400, 404, 410, 500),
  },
};

export const scanSchemas: Record<string, Schema> = {
  ErrorResponse: object({ error: str() }),
  RecordTimeMatch: { type: 'string', enum: ['exact', 'at_or_before'], default: 'exact' },
  DamlValueEncoding: { type: 'string', enum: ['compact_json', 'protobuf_json'], default: 'compact_json' },
  HoldingsSummary: object({
    party_id: str(),
    total_unlocked_coin: decimal(),
    total_locked_coin: decimal(),
    total_coin_holdings: decimal(),
    accumulated_holding_fees_unlocked: decimal(),
    accumulated_holding_fees_locked: decimal(),
    accumulated_holding_fees_total: decimal(),
    total_available_coin: decimal(),
  }),
  HoldingsSummaryV1: object({
    party_id: str(),
    total_unlocked_coin: decimal(),
    total_locked_coin: decimal(),
    total_coin_holdings: decimal(),
  }),
  ActiveContract: object(
    {
      created_in_update_id: nullable(str('Null for contracts imported from a prior migration.')),
      contract_id: str(),
      template_id: str(),
      package_name: str(),
      create_arguments: { type: 'object', description: 'Always compact_json.' },
      created_at: dateTime(),
      signatories: array(str()),
      observers: array(str()),
    },
    ['created_in_update_id'],
  ),
  AcsResponse: object(
    {
      record_time: dateTime(),
      migration_id: int64(),
      created_events: array(ref('ActiveContract')),
      next_page_token: nullable(str('Opaque; pass as `after` for the next page. Null on the last page.')),
    },
    ['next_page_token'],
  ),
  AcsResponseV1: object(
    {
      record_time: dateTime(),
      migration_id: int64(),
      created_events: array(ref('ActiveContract')),
      next_page_token: nullable(int64('Pass as `after` for the next page, within 24 hours. Null on the last page.')),
    },
    ['next_page_token'],
  ),
  Contract: object({ template_id: str(), contract_id: str(), payload: { type: 'object' }, created_event_blob: str(), created_at: str() }),
  LookupTransferCommandStatusResponse: object({
    transfer_commands_by_contract_id: {
      type: 'object',
      additionalProperties: object({
        contract: ref('Contract'),
        status: object(
          {
            status: { type: 'string', enum: ['created', 'sent', 'failed'] },
            failure_kind: { type: 'string', enum: ['failed', 'expired', 'withdrawn'] },
            reason: str(),
          },
          ['failure_kind', 'reason'],
        ),
      }),
    },
  }),
  MaybeCachedContractWithState: object({ contract: nullable(ref('Contract')), domain_id: nullable(str()) }),
  GetDsoInfoResponse: object({
    sv_user: str(),
    sv_party_id: str(),
    dso_party_id: str(),
    voting_threshold: int32(),
    latest_mining_round: ref('ContractWithState'),
    amulet_rules: ref('ContractWithState'),
    dso_rules: ref('ContractWithState'),
    sv_node_states: array(ref('ContractWithState')),
    initial_round: str(),
  }),
  ContractWithState: object({ contract: ref('Contract'), domain_id: nullable(str()) }, ['domain_id']),
  UpdateHistoryItem: {
    type: 'object',
    description:
      'A transaction (update_id, migration_id, workflow_id, record_time, synchronizer_id, effective_at, root_event_ids, events_by_id, optional external_transaction_hash) or a reassignment (update_id, offset, record_time, event).',
  },
  EventHistoryItem: object({
    update: nullable(ref('UpdateHistoryItem')),
    verdict: nullable({ type: 'object' }),
    traffic_summary: nullable({ type: 'object' }),
    app_activity_records: nullable({ type: 'object' }),
  }),
  RecordTimeRange: object({ synchronizer_id: str(), min: dateTime(), max: dateTime() }),
  AnsEntry: object(
    { contract_id: nullable(str()), user: str(), name: str(), url: str(), description: str(), expires_at: nullable(dateTime()) },
    ['contract_id', 'expires_at'],
  ),
};

export const scanPaths = {
  '/v0/holdings/summary': { post: holdingsSummaryV0 },
  '/v1/holdings/summary': { post: holdingsSummaryV1 },
  '/v2/holdings/state': {
    post: holdingsState(
      'S3: the amulets and locked amulets owned by the parties at a snapshot, paged in creation order.',
      stringToken,
      'AcsResponse',
    ),
  },
  '/v0/holdings/state': {
    post: {
      ...holdingsState(
        'The older path of /v2/holdings/state, answered in the v2 shape (ActiveContract items, string page token).',
        stringToken,
        'AcsResponse',
      ),
      deprecated: true,
    },
  },
  '/v1/holdings/state': {
    post: {
      ...holdingsState(
        'The older /v2/holdings/state with an int64 page token (removed from the newest Splice). Tokens are valid for 24 hours.',
        numberToken,
        'AcsResponseV1',
      ),
      deprecated: true,
    },
  },
  '/v0/state/acs': { post: acsState(stringToken, 'AcsResponse') },
  '/v2/state/acs': {
    post: {
      ...acsState(stringToken, 'AcsResponse'),
      summary: 'The newest path of /v0/state/acs, in creation order, filtered by stakeholder and template.',
    },
  },
  '/v1/state/acs': {
    post: {
      ...acsState(numberToken, 'AcsResponseV1'),
      summary: 'The older /v2/state/acs with an int64 page token (removed from the newest Splice). Tokens are valid for 24 hours.',
      deprecated: true,
    },
  },
  '/v0/state/acs/snapshot-timestamp': {
    get: {
      summary: 'The newest snapshot of the migration at or before a time.',
      parameters: [queryParam('before', dateTime(), true), queryParam('migration_id', int64(), true)],
      responses: { '200': json(object({ record_time: dateTime() })), ...errors(400, 404, 410, 500) },
    },
  },
  '/v0/state/acs/snapshot-timestamp-after': {
    get: {
      summary: 'S8: the first snapshot after a time, in this migration or a later one.',
      parameters: [queryParam('after', dateTime(), true), queryParam('migration_id', int64(), true)],
      responses: { '200': json(object({ record_time: dateTime() })), ...errors(400, 404, 500) },
    },
  },
  '/v0/backfilling/migration-info': {
    post: {
      summary: 'S6: what this instance holds of a migration.',
      requestBody: jsonBody(object({ migration_id: int64() })),
      responses: {
        '200': json(
          object(
            {
              previous_migration_id: nullable(int64()),
              record_time_range: array(ref('RecordTimeRange')),
              last_import_update_id: nullable(str()),
              complete: bool(),
              import_updates_complete: nullable(bool()),
            },
            ['previous_migration_id', 'last_import_update_id', 'import_updates_complete'],
          ),
        ),
        ...errors(400, 404),
      },
    },
  },
  '/v0/amulet-rules': {
    post: {
      summary: 'The live AmuletRules; contract is null when it is the one the client has cached.',
      requestBody: jsonBody(
        object({ cached_amulet_rules_contract_id: nullable(str()), cached_amulet_rules_domain_id: nullable(str()) }, [
          'cached_amulet_rules_contract_id',
          'cached_amulet_rules_domain_id',
        ]),
      ),
      responses: { '200': json(object({ amulet_rules_update: ref('MaybeCachedContractWithState') })), ...errors(400, 500) },
    },
  },
  '/v0/external-party-amulet-rules': {
    post: {
      summary: 'The live ExternalPartyAmuletRules; contract is null when cached.',
      requestBody: jsonBody(
        object(
          {
            cached_external_party_amulet_rules_contract_id: nullable(str()),
            cached_external_party_amulet_rules_domain_id: nullable(str()),
          },
          ['cached_external_party_amulet_rules_contract_id', 'cached_external_party_amulet_rules_domain_id'],
        ),
      ),
      responses: {
        '200': json(object({ external_party_amulet_rules_update: ref('MaybeCachedContractWithState') })),
        ...errors(400, 404, 500),
      },
    },
  },
  '/v0/ans-rules': {
    post: {
      summary: 'The live AnsRules; contract is null when cached.',
      requestBody: jsonBody(
        object({ cached_ans_rules_contract_id: nullable(str()), cached_ans_rules_domain_id: nullable(str()) }, [
          'cached_ans_rules_contract_id',
          'cached_ans_rules_domain_id',
        ]),
      ),
      responses: { '200': json(object({ ans_rules_update: ref('MaybeCachedContractWithState') })), ...errors(400, 500) },
    },
  },
  '/v0/open-and-issuing-mining-rounds': {
    post: {
      summary:
        'The live open and issuing mining rounds keyed by contract id, in round order (contract null for cached ones), and how long to cache them.',
      requestBody: jsonBody(
        object({ cached_open_mining_round_contract_ids: array(str()), cached_issuing_round_contract_ids: array(str()) }),
      ),
      responses: {
        '200': json(
          object({
            time_to_live_in_microseconds: int64(),
            open_mining_rounds: { type: 'object', additionalProperties: ref('MaybeCachedContractWithState') },
            issuing_mining_rounds: { type: 'object', additionalProperties: ref('MaybeCachedContractWithState') },
          }),
        ),
        ...errors(400, 500),
      },
    },
  },
  '/v0/dso': {
    get: {
      summary: 'The DSO: rules, the newest of three consecutive open rounds, SV node states, voting threshold.',
      responses: { '200': json(ref('GetDsoInfoResponse')), ...errors(404, 500) },
    },
  },
  '/v0/ans-entries': {
    get: {
      summary: 'Unexpired ANS entries by name with the prefix, then the DSO-provided ones when the page is not full.',
      parameters: [queryParam('name_prefix', str(), false), queryParam('page_size', int32(), true)],
      responses: { '200': json(object({ entries: array(ref('AnsEntry')) })), ...errors(400, 500) },
    },
  },
  '/v0/ans-entries/by-party/{party}': {
    get: {
      summary: 'The first ANS entry of a party by name (the DSO and SVs have their own).',
      parameters: [pathParam('party')],
      responses: { '200': json(object({ entry: ref('AnsEntry') })), ...errors(400, 404, 500) },
    },
  },
  '/v0/ans-entries/by-name/{name}': {
    get: {
      summary: 'The ANS entry of a name.',
      parameters: [pathParam('name')],
      responses: { '200': json(object({ entry: ref('AnsEntry') })), ...errors(404, 500) },
    },
  },
  '/v0/featured-apps': {
    get: {
      summary: 'The live FeaturedAppRight contracts.',
      responses: { '200': json(object({ featured_apps: array(ref('Contract')) })), ...errors(500) },
    },
  },
  '/v0/featured-apps/{provider_party_id}': {
    get: {
      summary: "A provider's FeaturedAppRight, or null.",
      parameters: [pathParam('provider_party_id')],
      responses: { '200': json(object({ featured_app_right: nullable(ref('Contract')) })), ...errors(400, 500) },
    },
  },
  '/v0/transfer-preapprovals/by-party/{party}': {
    get: {
      summary: "The receiver's live TransferPreapproval.",
      parameters: [pathParam('party')],
      responses: { '200': json(object({ transfer_preapproval: ref('ContractWithState') })), ...errors(400, 404, 500) },
    },
  },
  '/v0/transfer-command/status': {
    get: {
      summary:
        "The sender's TransferCommands with this nonce (at most 100), each with its contract and the status of its latest event (created, sent, or failed: failed, withdrawn or expired), from the history.",
      parameters: [queryParam('sender', str(), true), queryParam('nonce', int64(), true)],
      responses: { '200': json(ref('LookupTransferCommandStatusResponse')), ...errors(400, 404, 500) },
    },
  },
  '/v0/transfer-command-counter/{party}': {
    get: {
      summary: "The sender's live TransferCommandCounter (404: use 0 for the nonce).",
      parameters: [pathParam('party')],
      responses: { '200': json(object({ transfer_command_counter: ref('ContractWithState') })), ...errors(400, 404, 500) },
    },
  },
  '/v0/unclaimed-development-fund-coupons': {
    get: {
      summary: 'The live UnclaimedDevelopmentFundCoupons, in ingestion order (at most 1000).',
      responses: { '200': json(object({ 'unclaimed-development-fund-coupons': array(ref('ContractWithState')) })), ...errors(500) },
    },
  },
  '/v0/validators/validator-faucets': {
    get: {
      summary:
        "Faucet rounds collected by each named validator with a live ValidatorLicense (unknown parties are ignored), in the licenses' ingestion order.",
      parameters: [queryParam('validator_ids', array(str()), true, 'A validator party id; repeat the parameter for several.')],
      responses: {
        '200': json(
          object({
            validatorsReceivedFaucets: array(
              object({
                validator: str(),
                numRoundsCollected: int64(),
                numRoundsMissed: int64(),
                firstCollectedInRound: int64(),
                lastCollectedInRound: int64(),
              }),
            ),
          }),
        ),
        ...errors(400, 500),
      },
    },
  },
  '/v0/admin/validator/licenses': {
    get: {
      summary: 'The live ValidatorLicenses in ingestion order, paged; no authentication (as on Scan).',
      parameters: [
        queryParam('after', int64(), false, 'next_page_token of the previous page.'),
        queryParam('limit', int32(), false, 'At most this many licenses (1..1000, default 1000).'),
      ],
      responses: {
        '200': json(object({ validator_licenses: array(ref('Contract')), next_page_token: nullable(int64()) })),
        ...errors(400, 500),
      },
    },
  },
};
