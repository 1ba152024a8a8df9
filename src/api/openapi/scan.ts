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

const encodingParam = queryParam(
  'daml_value_encoding',
  ref('DamlValueEncoding'),
  false,
  'Encoding of create_arguments, choice_argument and exercise_result.',
);

const snapshotSelection = {
  migration_id: int64(),
  record_time: dateTime('With record_time_match exact, a snapshot time; with at_or_before, any time.'),
  record_time_match: ref('RecordTimeMatch'),
};

const cursor = object({ after_migration_id: int64(), after_record_time: str('Record time of the last item of the previous page.') });

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
  '/v2/updates': {
    post: {
      summary: 'Update history in (migration_id, record_time) order.',
      requestBody: jsonBody(
        object({ page_size: int32(), after: cursor, daml_value_encoding: ref('DamlValueEncoding') }, ['after', 'daml_value_encoding']),
      ),
      responses: { '200': json(object({ transactions: array(ref('UpdateHistoryItem')) })), ...errors(400, 410, 500, 501, 503) },
    },
  },
  '/v2/updates/{update_id}': {
    get: {
      summary: 'One update by id.',
      parameters: [pathParam('update_id'), encodingParam],
      responses: { '200': json(ref('UpdateHistoryItem')), ...errors(400, 404, 500, 501) },
    },
  },
  '/v2/updates/hash/{hash}': {
    get: {
      summary: 'S4: the transaction of an externally signed, prepared transaction hash.',
      parameters: [pathParam('hash'), encodingParam],
      responses: { '200': json(ref('UpdateHistoryItem')), ...errors(400, 404, 500, 501) },
    },
  },
  '/v0/events': {
    post: {
      summary: 'Events (update, verdict, traffic summary, app activity) in (migration_id, record_time) order.',
      requestBody: jsonBody(
        object({ page_size: int32(), after: cursor, daml_value_encoding: ref('DamlValueEncoding') }, ['after', 'daml_value_encoding']),
      ),
      responses: { '200': json(object({ events: array(ref('EventHistoryItem')) })), ...errors(400, 410, 500, 501, 503) },
    },
  },
  '/v0/events/latest-record-time': {
    get: {
      summary:
        'The record time up to which /v0/events has every event of the newest migration (where it holds updates and verdicts, the older of their newest record times). 404 "No events found" when it has none.',
      responses: { '200': json(object({ record_time: dateTime('The record_time of the latest event.') })), ...errors(404, 500) },
    },
  },
  '/v0/events/{update_id}': {
    get: {
      summary: 'S5: one event by update id.',
      parameters: [pathParam('update_id'), encodingParam],
      responses: { '200': json(ref('EventHistoryItem')), ...errors(400, 404, 500, 501) },
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
  '/v0/backfilling/import-updates': {
    post: {
      summary: 'Import updates of a migration (the ACS carried over a hard migration), by update id; for mirrors.',
      requestBody: jsonBody(
        object(
          {
            migration_id: int64(),
            after_update_id: str(),
            limit: int32(),
            daml_value_encoding: {
              type: 'string',
              enum: ['compact_json', 'protobuf_json'],
              default: 'protobuf_json',
              description: 'As the Scan app: protobuf_json unless asked.',
            },
          },
          ['daml_value_encoding'],
        ),
      ),
      responses: { '200': json(object({ transactions: array(ref('UpdateHistoryItem')) })), ...errors(400, 500, 501) },
    },
  },
  '/v0/backfilling/updates-before': {
    post: {
      summary:
        'Updates of one migration and synchronizer with a record time before `before` (and at or after `at_or_after`, which without it leaves out import updates), newest first; how a peer Scan backfills.',
      requestBody: jsonBody(
        object(
          {
            migration_id: int64(),
            synchronizer_id: str(),
            before: dateTime(),
            at_or_after: dateTime(),
            count: int32(),
            daml_value_encoding: {
              type: 'string',
              enum: ['compact_json', 'protobuf_json'],
              default: 'protobuf_json',
              description: 'Extension, as for import updates: the Scan app answers protobuf_json.',
            },
          },
          ['at_or_after', 'daml_value_encoding'],
        ),
      ),
      responses: { '200': json(object({ transactions: array(ref('UpdateHistoryItem')) })), ...errors(400, 410, 500, 501) },
    },
  },
  '/v0/history/bulk/checksums': {
    post: {
      summary: 'S7: bulk storage checksums. Bulk storage is not implemented: always 501.',
      requestBody: jsonBody(object({ object_keys: array(str()) })),
      responses: errors(501),
    },
  },
  '/v0/closed-rounds': {
    get: {
      summary: 'S9: closed mining rounds still in post-close processing, by round number.',
      responses: { '200': json(object({ rounds: array(ref('Contract')) })) },
    },
  },
  '/v0/admin/sv/voterequests': {
    get: {
      summary: 'S10: all active vote requests.',
      responses: { '200': json(object({ dso_rules_vote_requests: array(ref('Contract')) })) },
    },
  },
  '/v0/amulet-price/votes': {
    get: {
      summary: "The SVs' current amulet price votes.",
      responses: { '200': json(object({ amulet_price_votes: array(ref('Contract')) })) },
    },
  },
  '/v0/admin/sv/voteresults': {
    post: {
      summary:
        'Results of closed votes (DsoRules_CloseVoteRequest), newest first by effective time (completion time when not accepted); actionName and requester match as substrings; effectiveFrom and effectiveTo bound the effective time (both: inclusive; one: exclusive). No authentication, as on Scan.',
      requestBody: jsonBody(
        object(
          {
            actionName: str(),
            accepted: bool(),
            requester: str(),
            effectiveFrom: dateTime(),
            effectiveTo: dateTime(),
            limit: int32(),
          },
          ['actionName', 'accepted', 'requester', 'effectiveFrom', 'effectiveTo'],
        ),
      ),
      responses: { '200': json(object({ dso_rules_vote_results: array({ type: 'object' }) })), ...errors(400, 500) },
    },
  },
  '/v0/voterequests/{vote_request_contract_id}': {
    get: {
      summary: "An active vote request by tracking id: the request's first contract id (votes re-create it under new ids).",
      parameters: [pathParam('vote_request_contract_id')],
      responses: { '200': json(object({ dso_rules_vote_request: ref('Contract') })), ...errors(404) },
    },
  },
  '/v0/voterequest': {
    post: {
      summary: 'The active vote requests whose tracking ids are listed (at most 1,000).',
      requestBody: jsonBody(object({ vote_request_contract_ids: array(str()) })),
      responses: { '200': json(object({ vote_requests: array(ref('Contract')) })), ...errors(400) },
    },
  },
  '/v0/lsu': {
    get: {
      summary: 'S11: the next logical synchronizer upgrade, or null.',
      responses: {
        '200': json(
          object(
            { lsu: nullable(object({ topologyFreezeTime: dateTime(), upgradeTime: dateTime(), successorPhysicalSynchronizerId: str() })) },
            ['lsu'],
          ),
        ),
      },
    },
  },
  '/v0/roll-forward-lsu': {
    get: {
      summary: 'S12: the roll-forward LSU, or null.',
      responses: {
        '200': json(
          object(
            {
              rollForwardLsu: nullable(
                object({ upgradeTime: dateTime(), currentPhysicalSynchronizerId: str(), successorPhysicalSynchronizerId: str() }),
              ),
            },
            ['rollForwardLsu'],
          ),
        ),
      },
    },
  },
  '/v0/scans': {
    get: {
      summary: 'S13: the scans the SVs publish, grouped by synchronizer.',
      responses: {
        '200': json(object({ scans: array(object({ domainId: str(), scans: array(object({ publicUrl: str(), svName: str() })) })) })),
      },
    },
  },
  '/v0/dso-sequencers': {
    get: {
      summary: 'The sequencers the SVs publish in their SvNodeState contracts, grouped by synchronizer.',
      responses: {
        '200': json(
          object({
            domainSequencers: array(
              object({
                domainId: str(),
                sequencers: array(
                  object({
                    migrationId: int64(),
                    synchronizerSerial: nullable(int64()),
                    id: str(),
                    url: str(),
                    svName: str(),
                    availableAfter: {
                      anyOf: [dateTime(), { const: '-999999999-01-01T00:00:00+18:00' }],
                      description:
                        "A date-time, or Java's OffsetDateTime.MIN as the Scan app prints it for a legacy sequencer available since always.",
                    },
                  }),
                ),
              }),
            ),
          }),
        ),
        ...errors(500),
      },
    },
  },
  '/v0/splice-instance-names': {
    get: {
      summary: 'What this network calls itself, its amulet and its name service (from configuration).',
      responses: {
        '200': json(
          object({
            network_name: str(),
            network_favicon_url: str(),
            amulet_name: str(),
            amulet_name_acronym: str(),
            name_service_name: str(),
            name_service_name_acronym: str(),
          }),
        ),
      },
    },
  },
  '/version': {
    get: {
      summary: 'The release of this service and the time of the commit it was built from (the build time when unknown).',
      responses: { '200': json(object({ version: str(), commit_ts: dateTime() })) },
    },
  },
  '/v0/feature-support': {
    get: {
      summary: 'Optional features this Scan supports: none at present, as in the Scan app.',
      responses: { '200': json(object({ dummy: nullable(bool()) }, ['dummy'])) },
    },
  },
  '/v0/backfilling/status': {
    get: {
      summary: 'Whether every migration this instance serves is held in full.',
      responses: { '200': json(object({ complete: bool() })), ...errors(500) },
    },
  },
  '/v0/migrations/schedule': {
    get: {
      summary: 'S14: the scheduled synchronizer upgrade.',
      responses: {
        '200': json(object({ time: dateTime(), migration_id: int64() })),
        '404': { description: 'No migration is scheduled (empty body).' },
      },
    },
  },
  '/v0/migrations/last': {
    get: { summary: 'S15: the current migration id.', responses: { '200': json(object({ migration_id: int64() })) } },
  },
  '/v0/dso-party-id': {
    get: { summary: 'S16: the DSO party.', responses: { '200': json(object({ dso_party_id: str() })), ...errors(404) } },
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
