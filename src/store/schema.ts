/**
 * Table types for Kysely, matching migrations/. Timestamps and numeric
 * columns are strings, int8 are numbers (see pool.ts); `Generated` marks
 * columns with defaults.
 */
import type { ColumnType, Generated } from 'kysely';

type Timestamp = string;
type Int8 = number;
type Numeric = ColumnType<string, string, string>;
type WithDefault<T> = ColumnType<T, T | undefined, T>;

interface MigrationsTable {
  migration_id: Int8;
  last_import_update_id: string | null;
  complete: WithDefault<boolean>;
  import_updates_complete: WithDefault<boolean>;
  first_seen_at: Generated<Timestamp>;
}

interface MigrationSynchronizersTable {
  migration_id: Int8;
  synchronizer_id: string;
  min_record_time: Timestamp;
  max_record_time: Timestamp;
  update_count: WithDefault<Int8>;
}

/** Updates per migration and UTC hour of record time, import updates left out (the writer keeps it). */
interface UpdateCountsByHourTable {
  migration_id: Int8;
  hour: Timestamp;
  update_count: Int8;
}

type UpdateKind = 'transaction' | 'assignment' | 'unassignment';

export interface UpdatesTable {
  update_id: string;
  migration_id: Int8;
  record_time: Timestamp;
  synchronizer_id: string;
  kind: UpdateKind;
  workflow_id: string | null;
  command_id: string | null;
  effective_at: Timestamp | null;
  external_transaction_hash: string | null;
  ledger_offset: Int8 | null;
  event_count: WithDefault<number>;
  /** Text of rows written before payload existed (migration 20261123_001). */
  json_compact: string | null;
  json_protobuf: string | null;
  /** Both renderings, compressed (store/update-payload.ts). */
  payload: Buffer | null;
  payload_compact_length: number | null;
  ingested_at: Generated<Timestamp>;
  ingest_seq: Generated<Int8>;
}

export interface ContractsTable {
  migration_id: Int8;
  contract_id: string;
  template_id: string;
  package_name: string;
  qualified_name: string;
  create_arguments: string;
  created_at: Timestamp;
  signatories: string[];
  observers: string[];
  created_in_update_id: string | null;
  created_event_id: string | null;
  created_record_time: Timestamp;
  archived_record_time: WithDefault<Timestamp>;
  archived_in_update_id: string | null;
  /** The snapshot slot of created_record_time (generated). */
  created_slot: Generated<Timestamp>;
  synchronizer_id: string | null;
  reassignment_counter: WithDefault<Int8>;
  ingest_seq: Generated<Int8>;
  dso_party: string | null;
  amulet_owner: string | null;
  amulet_initial_amount: Numeric | null;
  amulet_created_round: Int8 | null;
  amulet_rate_per_round: Numeric | null;
  amulet_locked: boolean | null;
  lock_holders: string[] | null;
  lock_expires_at: Timestamp | null;
  round_number: Int8 | null;
  ans_name: string | null;
  ans_user: string | null;
  ans_expires_at: Timestamp | null;
}

/** Derived from contracts by the writer: one row per stakeholder of each contract. */
interface ContractStakeholdersTable {
  migration_id: Int8;
  party: string;
  created_at: Timestamp;
  contract_id: string;
  package_name: string;
  qualified_name: string;
  created_record_time: Timestamp;
  archived_record_time: Timestamp;
}

type VerdictResult = 'VERDICT_RESULT_UNSPECIFIED' | 'VERDICT_RESULT_ACCEPTED' | 'VERDICT_RESULT_REJECTED';

interface VerdictsTable {
  update_id: string;
  migration_id: Int8;
  record_time: Timestamp;
  domain_id: string;
  finalization_time: Timestamp;
  submitting_parties: string[];
  submitting_participant_uid: string;
  verdict_result: VerdictResult;
  mediator_group: number;
  round_number: Int8 | null;
  root_views: number[];
  json: string;
  ingested_at: Generated<Timestamp>;
}

interface TrafficSummariesTable {
  migration_id: Int8;
  record_time: Timestamp;
  synchronizer_id: string;
  update_id: string | null;
  total_traffic_cost: Int8;
  json: string;
}

interface AppActivityRecordsTable {
  migration_id: Int8;
  record_time: Timestamp;
  synchronizer_id: string;
  update_id: string | null;
  round_number: Int8;
  json: string;
}

interface AcsSnapshotsTable {
  migration_id: Int8;
  record_time: Timestamp;
  contract_count: Int8;
  unlocked_amulet: Numeric;
  locked_amulet: Numeric;
  max_created_at: Timestamp | null;
  taken_at: Generated<Timestamp>;
}

/** The snapshots at which holding_totals holds the owners' totals. */
interface HoldingTotalsSnapshotsTable {
  migration_id: Int8;
  record_time: Timestamp;
  /** The round K of the rows written at this snapshot (migration 20261126_120); null: none. */
  clamped_by: Numeric | null;
}

/** Per-owner holdings totals at a snapshot; an owner's totals at S are its newest row at or before S. */
interface HoldingTotalsTable {
  migration_id: Int8;
  owner: string;
  record_time: Timestamp;
  holdings: Int8;
  first_created_at: Timestamp | null;
  unlocked: Numeric;
  locked: Numeric;
  unlocked_rate: Numeric;
  locked_rate: Numeric;
  unlocked_round_rate: Numeric;
  locked_round_rate: Numeric;
  /** A round K; the sums below are over the holdings whose clamp round is finite and at most K. */
  clamped_by: Generated<Numeric>;
  unlocked_clamped: Generated<Numeric>;
  locked_clamped: Generated<Numeric>;
  unlocked_clamped_rate: Generated<Numeric>;
  locked_clamped_rate: Generated<Numeric>;
  unlocked_clamped_round_rate: Generated<Numeric>;
  locked_clamped_round_rate: Generated<Numeric>;
}

/** Per owner, its newest holding_totals row's K and whether it has holdings (migration 20261127_030). */
interface HoldingTotalsNewestTable {
  migration_id: Int8;
  owner: string;
  clamped_by: Numeric;
  active: boolean;
}

/** What the writer added to the ACS figures per migration and snapshot slot. */
interface AcsDeltasTable {
  migration_id: Int8;
  slot: Timestamp;
  contract_count: Int8;
  unlocked_amulet: Numeric;
  locked_amulet: Numeric;
  max_created_at: Timestamp | null;
  archived_count: Int8;
}

interface IngestCheckpointsTable {
  stream: string;
  position: string;
  migration_id: Int8 | null;
  record_time: Timestamp | null;
  items_applied: WithDefault<Int8>;
  updated_at: Generated<Timestamp>;
}

interface NetworkFactsTable {
  key: string;
  value: string;
  updated_at: Generated<Timestamp>;
}

interface ApiSecretsTable {
  name: string;
  secret: Buffer;
  created_at: Generated<Timestamp>;
}

/** Positions behind numeric page tokens (migration 20261124_004). */
interface PagePositionsTable {
  id: Generated<Int8>;
  operation: string;
  request_digest: string;
  /** jsonb, written and read as JSON text (page-position-repository.ts). */
  position: unknown;
  issued_at: Generated<Timestamp>;
}

/** The version of each answer family, set by the writer (migration 20261126_020). */
interface AnswerVersionsTable {
  family: string;
  version: string;
}

/** Created-event blobs, by contract id (migration 20261124_003). */
interface ContractBlobsTable {
  contract_id: string;
  /** Base64, as the source gave it. */
  blob: string;
}

interface VoteResultsTable {
  migration_id: Int8;
  record_time: Timestamp;
  update_id: string;
  event_id: string;
  action_name: string;
  accepted: boolean;
  requester: string;
  effective_at: Timestamp | null;
  completed_at: Timestamp;
  /** The DsoRules_CloseVoteRequest result as served (compact JSON). */
  result: string;
  ingest_seq: Generated<Int8>;
}

/** One activity of a transaction, for one party (20261126_080_activities.sql). Numerics are read as text. */
interface ActivitiesTable {
  migration_id: Int8;
  record_time: Timestamp;
  update_id: string;
  node: number;
  kind: string;
  leg: number;
  party: string;
  round: Int8 | null;
  amount: string;
  fees: string;
  holding_fees: string | null;
  burned: string | null;
  counterparties: string[];
  provider: string | null;
  featured: boolean | null;
  via: string | null;
  traffic: Int8 | null;
  // A transfer's details for /v0/transactions.
  balance_change: string | null;
  holding_rate_change: string | null;
  input_amulet: string | null;
  change_amount: string | null;
  change_fee: string | null;
  sender_fee: string | null;
  self_amount: string | null;
  self_fee: string | null;
  self_rank: number | null;
  // The kinds beyond Amulet's own (20261126_130_activity_subjects.sql).
  subject: string | null;
  detail: string | null;
  outcome: string | null;
  expires_at: Timestamp | null;
}

/** Where the activity backfill is (one row). */
interface ActivityBackfillTable {
  id: Generated<boolean>;
  migration_id: Int8;
  record_time: Timestamp;
  synchronizer_id: string;
  update_id: string;
  end_migration_id: Int8;
  end_record_time: Timestamp;
  end_synchronizer_id: string;
  end_update_id: string;
  updates_done: Int8;
  finished_at: Timestamp | null;
  updated_at: Generated<Timestamp>;
}

/** The parties and templates of a live update's events, for the stream's filters (20261126_150_update_subjects.sql). */
interface UpdateSubjectsTable {
  migration_id: Int8;
  record_time: Timestamp;
  synchronizer_id: string;
  update_id: string;
  parties: string[];
  templates: string[];
}

/** Where the backfill of update_subjects is (one row). */
interface UpdateSubjectsBackfillTable {
  id: Generated<boolean>;
  migration_id: Int8;
  record_time: Timestamp;
  synchronizer_id: string;
  update_id: string;
  end_migration_id: Int8;
  end_record_time: Timestamp;
  end_synchronizer_id: string;
  end_update_id: string;
  updates_done: Int8;
  finished_at: Timestamp | null;
  updated_at: Generated<Timestamp>;
}

interface TransferCommandEventsTable {
  migration_id: Int8;
  record_time: Timestamp;
  update_id: string;
  event_id: string;
  contract_id: string;
  sender: string;
  nonce: Int8;
  /** created, sent, failed, withdrawn or expired */
  state: string;
  reason: string | null;
  ingest_seq: Generated<Int8>;
}

/** Token buckets shared by API replicas (RATE_LIMIT_STORE=postgres); written by SQL in rate-limit-repository.ts. */
interface RateLimitBucketsTable {
  bucket: string;
  tokens: number;
  granted: number;
  refilled_at: Timestamp;
  full_at: Timestamp;
}

interface SchemaMigrationsTable {
  name: string;
  checksum: string;
  applied_at: Generated<Timestamp>;
}

export interface Database {
  migrations: MigrationsTable;
  migration_synchronizers: MigrationSynchronizersTable;
  update_counts_by_hour: UpdateCountsByHourTable;
  updates: UpdatesTable;
  contracts: ContractsTable;
  contract_stakeholders: ContractStakeholdersTable;
  verdicts: VerdictsTable;
  traffic_summaries: TrafficSummariesTable;
  app_activity_records: AppActivityRecordsTable;
  acs_snapshots: AcsSnapshotsTable;
  holding_totals: HoldingTotalsTable;
  holding_totals_snapshots: HoldingTotalsSnapshotsTable;
  holding_totals_newest: HoldingTotalsNewestTable;
  acs_deltas: AcsDeltasTable;
  ingest_checkpoints: IngestCheckpointsTable;
  network_facts: NetworkFactsTable;
  api_secrets: ApiSecretsTable;
  vote_results: VoteResultsTable;
  contract_blobs: ContractBlobsTable;
  answer_versions: AnswerVersionsTable;
  page_positions: PagePositionsTable;
  transfer_command_events: TransferCommandEventsTable;
  activities: ActivitiesTable;
  activity_backfill: ActivityBackfillTable;
  update_subjects: UpdateSubjectsTable;
  update_subjects_backfill: UpdateSubjectsBackfillTable;
  rate_limit_buckets: RateLimitBucketsTable;
  schema_migrations: SchemaMigrationsTable;
}
