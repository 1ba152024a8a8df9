/** The Scan API (/api/scan) part of the OpenAPI document. */
import { array, dateTime, decimal, int32, int64, json, jsonBody, nullable, object, ref, str, type Schema } from './builders';

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
};
