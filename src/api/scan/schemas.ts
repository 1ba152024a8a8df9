/**
 * The Scan API's shared shapes, named in the OpenAPI document's components as Splice's scan.yaml
 * names them. The operations' declarations (and the web UI's types) are built from these.
 */
import { z } from 'zod';
import { jsonObject, dateTime, decimal, int32, int64, str } from '../schema-kit';

export const RecordTimeMatch = z
  .enum(['exact', 'at_or_before'], { error: 'expected one of exact, at_or_before' })
  .meta({ id: 'RecordTimeMatch', default: 'exact' });
export const DamlValueEncoding = z
  .enum(['compact_json', 'protobuf_json'], { error: 'expected one of compact_json, protobuf_json' })
  .meta({ id: 'DamlValueEncoding', default: 'compact_json' });

export const HoldingsSummary = z
  .object({
    party_id: str(),
    total_unlocked_coin: decimal(),
    total_locked_coin: decimal(),
    total_coin_holdings: decimal(),
    accumulated_holding_fees_unlocked: decimal(),
    accumulated_holding_fees_locked: decimal(),
    accumulated_holding_fees_total: decimal(),
    total_available_coin: decimal(),
  })
  .meta({ id: 'HoldingsSummary' });

export const HoldingsSummaryV1 = z
  .object({ party_id: str(), total_unlocked_coin: decimal(), total_locked_coin: decimal(), total_coin_holdings: decimal() })
  .meta({ id: 'HoldingsSummaryV1' });

export const ActiveContract = z
  .object({
    created_in_update_id: str('Null for contracts imported from a prior migration.').nullable().optional(),
    contract_id: str(),
    template_id: str(),
    package_name: str(),
    create_arguments: jsonObject('Always compact_json.'),
    created_at: dateTime(),
    signatories: z.array(str()),
    observers: z.array(str()),
  })
  .meta({ id: 'ActiveContract' });

export const AcsResponse = z
  .object({
    record_time: dateTime(),
    migration_id: int64(),
    created_events: z.array(ActiveContract),
    next_page_token: str('Opaque; pass as `after` for the next page. Null on the last page.').nullable().optional(),
  })
  .meta({ id: 'AcsResponse' });

export const AcsResponseV1 = z
  .object({
    record_time: dateTime(),
    migration_id: int64(),
    created_events: z.array(ActiveContract),
    next_page_token: int64('Pass as `after` for the next page, within 24 hours. Null on the last page.').nullable().optional(),
  })
  .meta({ id: 'AcsResponseV1' });

export const Contract = z
  .object({ template_id: str(), contract_id: str(), payload: jsonObject(), created_event_blob: str(), created_at: str() })
  .meta({ id: 'Contract' });

export const LookupTransferCommandStatusResponse = z
  .object({
    transfer_commands_by_contract_id: z.record(
      z.string(),
      z.object({
        contract: Contract,
        status: z.object({
          status: z.enum(['created', 'sent', 'failed']),
          failure_kind: z.enum(['failed', 'expired', 'withdrawn']).optional(),
          reason: str().optional(),
        }),
      }),
    ),
  })
  .meta({ id: 'LookupTransferCommandStatusResponse' });

export const MaybeCachedContractWithState = z
  .object({ contract: Contract.nullable(), domain_id: str().nullable() })
  .meta({ id: 'MaybeCachedContractWithState' });

export const ContractWithState = z.object({ contract: Contract, domain_id: str().nullable().optional() }).meta({ id: 'ContractWithState' });

export const GetDsoInfoResponse = z
  .object({
    sv_user: str(),
    sv_party_id: str(),
    dso_party_id: str(),
    voting_threshold: int32(),
    latest_mining_round: ContractWithState,
    amulet_rules: ContractWithState,
    dso_rules: ContractWithState,
    sv_node_states: z.array(ContractWithState),
    initial_round: str(),
  })
  .meta({ id: 'GetDsoInfoResponse' });

export const UpdateHistoryItem = jsonObject(
  'A transaction (update_id, migration_id, workflow_id, record_time, synchronizer_id, effective_at, root_event_ids, events_by_id, optional external_transaction_hash) or a reassignment (update_id, offset, record_time, event).',
).meta({ id: 'UpdateHistoryItem' });

export const EventHistoryItem = z
  .object({
    update: UpdateHistoryItem.nullable(),
    verdict: jsonObject().nullable(),
    traffic_summary: jsonObject().nullable(),
    app_activity_records: jsonObject().nullable(),
  })
  .meta({ id: 'EventHistoryItem' });

export const RecordTimeRange = z.object({ synchronizer_id: str(), min: dateTime(), max: dateTime() }).meta({ id: 'RecordTimeRange' });

export const AnsEntry = z
  .object({
    contract_id: str().nullable().optional(),
    user: str(),
    name: str(),
    url: str(),
    description: str(),
    expires_at: dateTime().nullable().optional(),
  })
  .meta({ id: 'AnsEntry' });

/** GET /v0/migrations/last. */
export const LastMigration = z.object({ migration_id: int64() });

/** GET /v0/scans: the scans the SVs publish, grouped by synchronizer. */
export const ScansResponse = z.object({
  scans: z.array(z.object({ domainId: str(), scans: z.array(z.object({ publicUrl: str(), svName: str() })) })),
});

// Bulk storage (docs/bulk-history.md), as scan.yaml names the shapes.
export const BulkStorageObjectRef = z
  .object({
    url: str('Where the object is downloaded: /v0/history/bulk/download/{object_key} of this server.'),
    digest: str('Base64 of the SHA-256 of the object, for integrity and comparison across SVs.'),
  })
  .meta({ id: 'BulkStorageObjectRef' });
export const ListBulkAcsSnapshotObjectsResponse = z
  .object({ record_time: dateTime('The record time of the ACS snapshot.'), object_refs: z.array(BulkStorageObjectRef) })
  .meta({ id: 'ListBulkAcsSnapshotObjectsResponse' });
export const ListBulkUpdateHistoryObjectsResponse = z
  .object({
    object_refs: z.array(BulkStorageObjectRef),
    next_page_token: str('Pass as next_page_token with the same arguments for the next page; absent when there is none.').optional(),
  })
  .meta({ id: 'ListBulkUpdateHistoryObjectsResponse' });
export const GetBulkObjectChecksumsResponse = z
  .object({ checksums: z.array(z.object({ value: str('Base64 of the SHA-256 of the object.') })) })
  .meta({ id: 'GetBulkObjectChecksumsResponse' });
export const GetBulkObjectsProgressResponse = z
  .object({
    beyond_requested_record_time: z
      .boolean()
      .describe('Whether both an ACS snapshot and the update history have been written up to (at least) the record time asked.'),
  })
  .meta({ id: 'GetBulkObjectsProgressResponse' });
