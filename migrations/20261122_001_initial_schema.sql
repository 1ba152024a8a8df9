-- Initial storage model (see design.md, "Storage model").
-- Times are timestamptz (microsecond precision, exact); the service reads them as text
-- in UTC and never through a JS Date. Import updates have record time 0001-01-01T00:00:00Z.
-- Served JSON is stored as text, verbatim: jsonb would reorder keys and cost a parse.

-- One row per synchronizer generation (hard migration) the indexer knows of.
create table migrations (
  migration_id            bigint primary key check (migration_id >= 0),
  -- Update id of the last import update, import updates sorted ascending by update id.
  last_import_update_id   text,
  -- True when this indexer holds every non-import update of the migration.
  complete                boolean not null default false,
  -- True when this indexer holds every import update of the migration.
  import_updates_complete boolean not null default false,
  first_seen_at           timestamptz not null default now()
);

-- Record-time range of the non-import updates per migration and synchronizer,
-- maintained by the writer so migration-info needs no scan of the updates.
create table migration_synchronizers (
  migration_id    bigint not null references migrations (migration_id),
  synchronizer_id text   not null,
  min_record_time timestamptz not null,
  max_record_time timestamptz not null,
  update_count    bigint not null default 0,
  primary key (migration_id, synchronizer_id)
);

-- Transactions and reassignments, keyed in the network's order.
create table updates (
  update_id                 text        primary key,
  migration_id              bigint      not null,
  record_time               timestamptz not null,
  synchronizer_id           text        not null,
  kind                      text        not null check (kind in ('transaction', 'assignment', 'unassignment')),
  workflow_id               text,
  command_id                text,
  effective_at              timestamptz,
  -- Lowercase hex of the externally signed transaction hash; kept out of the stored JSON
  -- because Scan includes it only on some endpoints.
  external_transaction_hash text,
  -- Offset at the source participant, when the source is a ledger.
  ledger_offset             bigint,
  event_count               integer     not null default 0,
  -- The v2 update item as served with daml_value_encoding=compact_json (no external_transaction_hash).
  json_compact              text        not null,
  -- The same item with protobuf_json values, when the source provided it.
  json_protobuf             text,
  ingested_at               timestamptz not null default now()
);
create index updates_by_position on updates (migration_id, record_time, synchronizer_id, update_id);
create index updates_by_hash on updates (external_transaction_hash) where external_transaction_hash is not null;

-- The temporal active contract set: one row per contract per migration. A contract is
-- active at (m, t) when migration_id = m, created_record_time <= t < archived_record_time.
-- "Not archived" is the sentinel 'infinity', so "active at t" is one index range.
create table contracts (
  migration_id            bigint      not null,
  contract_id             text        not null,
  template_id             text        not null, -- "<package id>:<Module>:<Entity>"
  package_name            text        not null,
  qualified_name          text        not null, -- "<Module>:<Entity>", with package_name the stable template key
  create_arguments        text        not null, -- compact_json, verbatim
  create_arguments_protobuf text,               -- protobuf_json, when the source provided it
  created_event_blob      text        not null default '',
  created_at              timestamptz not null, -- ledger effective time of the create
  signatories             text[]      not null,
  observers               text[]      not null,
  -- Null for contracts imported into this migration by import updates.
  created_in_update_id    text,
  created_event_id        text,
  created_record_time     timestamptz not null,
  archived_record_time    timestamptz not null default 'infinity',
  archived_in_update_id   text,
  -- Synchronizer the contract is assigned to; null while in flight between synchronizers.
  synchronizer_id         text,
  reassignment_counter    bigint      not null default 0,
  -- Ingestion order, for answers the Scan app orders by its store's event number.
  ingest_seq              bigint      generated always as identity,

  -- Typed columns extracted at ingest for what the API filters and sums.
  dso_party               text,
  amulet_owner            text,        -- Amulet.owner, LockedAmulet.amulet.owner
  amulet_initial_amount   numeric(38, 10),
  amulet_created_round    bigint,
  amulet_rate_per_round   numeric(38, 10),
  amulet_locked           boolean,
  lock_holders            text[],
  lock_expires_at         timestamptz,
  round_number            bigint,      -- mining rounds
  ans_name                text,
  ans_user                text,
  ans_expires_at          timestamptz,

  primary key (migration_id, contract_id),
  -- Equal for transient contracts, created and consumed by one transaction.
  check (archived_record_time >= created_record_time)
);
-- Holdings: owner-filtered, history-heavy; "active at t" = archived_record_time > t.
create index contracts_amulets_by_owner
  on contracts (migration_id, amulet_owner, archived_record_time)
  include (created_record_time)
  where amulet_owner is not null;
-- Holdings pages in creation order.
create index contracts_amulets_by_owner_creation
  on contracts (migration_id, amulet_owner, created_at, contract_id)
  where amulet_owner is not null;
-- Current-ACS lookups by template (rounds, rules, votes, SV node states).
create index contracts_active_by_template
  on contracts (package_name, qualified_name, migration_id, round_number, ingest_seq)
  where archived_record_time = 'infinity';
create index contracts_active_ans_by_name
  on contracts (ans_name text_pattern_ops)
  where archived_record_time = 'infinity' and ans_name is not null;
-- Snapshot figures and replays: all contracts of a migration by creation time.
create index contracts_by_creation on contracts (migration_id, created_record_time);
create index contracts_by_archive on contracts (migration_id, archived_record_time);

-- Mediator verdicts, with the verdict item JSON as served.
create table verdicts (
  update_id                  text        primary key,
  migration_id               bigint      not null,
  record_time                timestamptz not null,
  domain_id                  text        not null,
  finalization_time          timestamptz not null,
  submitting_parties         text[]      not null,
  submitting_participant_uid text        not null,
  verdict_result             text        not null check (verdict_result in
                               ('VERDICT_RESULT_UNSPECIFIED', 'VERDICT_RESULT_ACCEPTED', 'VERDICT_RESULT_REJECTED')),
  mediator_group             integer     not null,
  round_number               bigint,
  root_views                 integer[]   not null,
  json                       text        not null,
  ingested_at                timestamptz not null default now()
);
create index verdicts_by_position on verdicts (migration_id, record_time, domain_id);

-- Transaction views of each verdict, queryable by informee.
create table verdict_views (
  update_id          text    not null references verdicts (update_id) on delete cascade,
  view_id            integer not null,
  informees          text[]  not null,
  confirming_parties text    not null, -- JSON array of {parties, threshold}
  sub_views          integer[] not null,
  view_hash          text    not null default '',
  primary key (update_id, view_id)
);

-- Sequencer traffic of each event, keyed like the event it belongs to.
create table traffic_summaries (
  migration_id       bigint      not null,
  record_time        timestamptz not null,
  synchronizer_id    text        not null,
  update_id          text,
  total_traffic_cost bigint      not null,
  json               text        not null,
  primary key (migration_id, record_time, synchronizer_id)
);
create index traffic_summaries_by_update on traffic_summaries (update_id) where update_id is not null;

-- App activity records of each event.
create table app_activity_records (
  migration_id    bigint      not null,
  record_time     timestamptz not null,
  synchronizer_id text        not null,
  update_id       text,
  round_number    bigint      not null,
  json            text        not null,
  primary key (migration_id, record_time, synchronizer_id)
);
create index app_activity_records_by_update on app_activity_records (update_id) where update_id is not null;
create index app_activity_records_by_round on app_activity_records (round_number);

-- Announced ACS snapshots. The ACS is temporal, so a snapshot copies no contract rows:
-- it records the time and summary figures.
create table acs_snapshots (
  migration_id     bigint         not null,
  record_time      timestamptz    not null,
  contract_count   bigint         not null,
  unlocked_amulet  numeric(38, 10) not null,
  locked_amulet    numeric(38, 10) not null,
  taken_at         timestamptz    not null default now(),
  primary key (migration_id, record_time)
);
create index acs_snapshots_by_time on acs_snapshots (record_time);

-- Position of each source stream, written in the same transaction as the data it covers.
create table ingest_checkpoints (
  stream          text        primary key,
  position        text        not null, -- opaque to the writer: a cursor, offset or line number
  migration_id    bigint,
  record_time     timestamptz,
  items_applied   bigint      not null default 0,
  updated_at      timestamptz not null default now()
);

-- Facts about the network that no contract carries (LSU announcements, roll-forward LSU,
-- the DSO party when learnt from a source). Values are JSON text.
create table network_facts (
  key        text        primary key,
  value      text        not null,
  updated_at timestamptz not null default now()
);

-- HMAC key shared by all API replicas for pagination tokens.
create table api_secrets (
  name       text        primary key,
  secret     bytea       not null,
  created_at timestamptz not null default now()
);
