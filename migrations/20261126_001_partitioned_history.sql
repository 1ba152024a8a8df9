-- History partitioned by time (docs/architecture.md, "Partitions and retention").
--
-- Every write used to touch indexes as large as the whole history: contracts, updates and verdicts
-- were keyed by random hashes (contract and update ids), so each create, archive and insert landed
-- on a random page of an index holding every row ever written. Now:
-- - updates, verdicts, traffic_summaries and app_activity_records are range-partitioned by
--   (migration_id, record_time), one partition per migration and UTC month: a write touches only the
--   indexes of the current month, and a page by position reads only the partitions it needs;
-- - contracts and contract_stakeholders are range-partitioned by archived_record_time: the active
--   contracts ('infinity') are one hot partition, as large as the ACS, which every archive looks up;
--   an archive moves the row into the partition of its archive month, which is append-mostly;
-- - old partitions can be detached and dropped whole (HISTORY_RETENTION, off by default).
-- Partitions are made by ensure_history_partitions, which the worker calls ahead of ingestion.
-- Unique keys now include the partition key: a contract id is unique among the active contracts
-- of a migration (what archives rely on); an update id per partition.
-- ingest_seq becomes a column with a sequence default (identity columns on partitioned tables
-- need PostgreSQL 17); the values already given are kept: the ledger API serves them as offsets.

-- The partitions of one migration and UTC month of every history table (the contracts' archive
-- partitions are by month only). Made as plain tables and attached: ATTACH takes a lock that
-- readers and writers do not wait for, where CREATE TABLE ... PARTITION OF would block them.
-- Returns how many partitions it made.
create function ensure_history_partitions(p_migration bigint, p_time timestamptz) returns integer
language plpgsql as $$
declare
  month_start timestamp := date_trunc('month', p_time at time zone 'UTC');
  month_end   timestamp := date_trunc('month', p_time at time zone 'UTC') + interval '1 month';
  lower_bound text := quote_literal(to_char(month_start, 'YYYY-MM-DD HH24:MI:SS') || '+00');
  upper_bound text := quote_literal(to_char(month_end, 'YYYY-MM-DD HH24:MI:SS') || '+00');
  suffix      text := to_char(month_start, 'YYYYMM');
  made        integer := 0;
  parent      text;
  part        text;
begin
  if p_migration < 0 or p_time = 'infinity' or p_time = '-infinity' then
    raise exception 'no history partition for migration %, time %', p_migration, p_time;
  end if;
  -- Two callers at once (the worker, a generator) must not both make a partition.
  perform pg_advisory_xact_lock(7231004131); -- not the writer's (…119) or the migrator's (…117) key
  foreach parent in array array['updates', 'verdicts', 'traffic_summaries', 'app_activity_records'] loop
    part := format('%s_m%s_p%s', parent, p_migration, suffix);
    if to_regclass(part) is null then
      execute format('create table %I (like %I including defaults including constraints including storage including generated)', part, parent);
      if parent = 'updates' then
        -- The payload stays in the row up to a whole page (see 20261123_001_bulk_ingest.sql).
        execute format('alter table %I set (toast_tuple_target = 8160)', part);
      end if;
      execute format('alter table %I attach partition %I for values from (%s, %s) to (%s, %s)',
                     parent, part, p_migration, lower_bound, p_migration, upper_bound);
      made := made + 1;
    end if;
  end loop;
  foreach parent in array array['contracts', 'contract_stakeholders'] loop
    part := format('%s_archived_p%s', parent, suffix);
    if to_regclass(part) is null then
      execute format('create table %I (like %I including defaults including constraints including storage including generated)', part, parent);
      execute format('alter table %I attach partition %I for values from (%s) to (%s)', parent, part, lower_bound, upper_bound);
      made := made + 1;
    end if;
  end loop;
  return made;
end $$;

-- The tables as they were, emptied into the new ones below and then dropped. Their indexes go
-- first: the new tables take their names.
alter table updates rename to updates_unpartitioned;
alter table verdicts rename to verdicts_unpartitioned;
alter table traffic_summaries rename to traffic_summaries_unpartitioned;
alter table app_activity_records rename to app_activity_records_unpartitioned;
alter table contracts rename to contracts_unpartitioned;
alter table contract_stakeholders rename to contract_stakeholders_unpartitioned;

alter table updates_unpartitioned drop constraint updates_pkey;
drop index updates_by_hash, updates_imports_by_id, updates_live_by_position;
alter table verdicts_unpartitioned drop constraint verdicts_pkey;
drop index verdicts_by_position_id;
alter table traffic_summaries_unpartitioned drop constraint traffic_summaries_pkey;
alter table app_activity_records_unpartitioned drop constraint app_activity_records_pkey;
drop index app_activity_records_by_round;
alter table contracts_unpartitioned drop constraint contracts_pkey;
drop index contracts_active_ans_by_migration_name, contracts_active_ans_by_user, contracts_by_created_at,
  contracts_by_template_created_at, contracts_history_by_archive, contracts_history_by_created_at,
  contracts_history_by_template_created_at, contracts_history_holdings_by_owner_created_at,
  contracts_holdings_by_owner_created_at, contracts_holdings_totals;
alter table contract_stakeholders_unpartitioned drop constraint contract_stakeholders_pkey;
drop index contract_stakeholders_by_template;

create sequence updates_ingest_seq;
create sequence contracts_ingest_seq;

-- Columns in the same order as before.
create table updates (
  update_id                 text        not null,
  migration_id              bigint      not null,
  record_time               timestamptz not null,
  synchronizer_id           text        not null,
  kind                      text        not null check (kind in ('transaction', 'assignment', 'unassignment')),
  workflow_id               text,
  command_id                text,
  effective_at              timestamptz,
  external_transaction_hash text,
  ledger_offset             bigint,
  event_count               integer     not null default 0,
  json_compact              text,
  json_protobuf             text,
  ingested_at               timestamptz not null default now(),
  ingest_seq                bigint      not null default nextval('updates_ingest_seq'),
  payload                   bytea,
  payload_compact_length    integer,
  constraint updates_json_present check (payload is not null or json_compact is not null)
) partition by range (migration_id, record_time);
alter table updates alter column payload set storage external;
alter sequence updates_ingest_seq owned by updates.ingest_seq;

create table verdicts (
  update_id                  text        not null,
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
) partition by range (migration_id, record_time);

create table traffic_summaries (
  migration_id       bigint      not null,
  record_time        timestamptz not null,
  synchronizer_id    text        not null,
  update_id          text,
  total_traffic_cost bigint      not null,
  json               text        not null
) partition by range (migration_id, record_time);

create table app_activity_records (
  migration_id    bigint      not null,
  record_time     timestamptz not null,
  synchronizer_id text        not null,
  update_id       text,
  round_number    bigint      not null,
  json            text        not null
) partition by range (migration_id, record_time);

create table contracts (
  migration_id          bigint      not null,
  contract_id           text        not null,
  template_id           text        not null,
  package_name          text        not null,
  qualified_name        text        not null,
  create_arguments      text        not null,
  created_at            timestamptz not null,
  signatories           text[]      not null,
  observers             text[]      not null,
  created_in_update_id  text,
  created_event_id      text,
  created_record_time   timestamptz not null,
  archived_record_time  timestamptz not null default 'infinity',
  archived_in_update_id text,
  synchronizer_id       text,
  reassignment_counter  bigint      not null default 0,
  ingest_seq            bigint      not null default nextval('contracts_ingest_seq'),
  dso_party             text,
  amulet_owner          text,
  amulet_initial_amount numeric(38, 10),
  amulet_created_round  bigint,
  amulet_rate_per_round numeric(38, 10),
  amulet_locked         boolean,
  lock_holders          text[],
  lock_expires_at       timestamptz,
  round_number          bigint,
  ans_name              text,
  ans_user              text,
  ans_expires_at        timestamptz,
  created_slot          timestamptz generated always as (acs_slot(created_record_time)) stored,
  constraint contracts_check check (archived_record_time >= created_record_time)
) partition by range (archived_record_time);
alter sequence contracts_ingest_seq owned by contracts.ingest_seq;

create table contract_stakeholders (
  migration_id         bigint      not null,
  party                text        not null,
  created_at           timestamptz not null,
  contract_id          text        not null,
  package_name         text        not null,
  qualified_name       text        not null,
  created_record_time  timestamptz not null,
  archived_record_time timestamptz not null
) partition by range (archived_record_time);

-- The hot partitions: what is active now.
create table contracts_active partition of contracts for values from ('infinity') to (maxvalue);
create table contract_stakeholders_active partition of contract_stakeholders for values from ('infinity') to (maxvalue);

-- Partitions for the history already stored.
select ensure_history_partitions(migration_id, month)
from (
  select distinct migration_id, date_trunc('month', record_time, 'UTC') as month from updates_unpartitioned
  union
  select distinct migration_id, date_trunc('month', record_time, 'UTC') from verdicts_unpartitioned
  union
  select distinct migration_id, date_trunc('month', record_time, 'UTC') from traffic_summaries_unpartitioned
  union
  select distinct migration_id, date_trunc('month', record_time, 'UTC') from app_activity_records_unpartitioned
  union
  select distinct migration_id, date_trunc('month', archived_record_time, 'UTC') from contracts_unpartitioned
  where archived_record_time < 'infinity'
) months
order by migration_id, month;

insert into updates select * from updates_unpartitioned;
insert into verdicts select * from verdicts_unpartitioned;
insert into traffic_summaries select * from traffic_summaries_unpartitioned;
insert into app_activity_records select * from app_activity_records_unpartitioned;
insert into contracts (migration_id, contract_id, template_id, package_name, qualified_name, create_arguments, created_at,
  signatories, observers, created_in_update_id, created_event_id, created_record_time, archived_record_time,
  archived_in_update_id, synchronizer_id, reassignment_counter, ingest_seq, dso_party, amulet_owner, amulet_initial_amount,
  amulet_created_round, amulet_rate_per_round, amulet_locked, lock_holders, lock_expires_at, round_number, ans_name,
  ans_user, ans_expires_at)
select migration_id, contract_id, template_id, package_name, qualified_name, create_arguments, created_at,
  signatories, observers, created_in_update_id, created_event_id, created_record_time, archived_record_time,
  archived_in_update_id, synchronizer_id, reassignment_counter, ingest_seq, dso_party, amulet_owner, amulet_initial_amount,
  amulet_created_round, amulet_rate_per_round, amulet_locked, lock_holders, lock_expires_at, round_number, ans_name,
  ans_user, ans_expires_at
from contracts_unpartitioned;
insert into contract_stakeholders select * from contract_stakeholders_unpartitioned;

select setval('updates_ingest_seq', coalesce((select max(ingest_seq) from updates_unpartitioned), 0) + 1, false);
select setval('contracts_ingest_seq', coalesce((select max(ingest_seq) from contracts_unpartitioned), 0) + 1, false);

drop table updates_unpartitioned, verdicts_unpartitioned, traffic_summaries_unpartitioned,
  app_activity_records_unpartitioned, contracts_unpartitioned, contract_stakeholders_unpartitioned;

-- Keys and indexes, as before but for the partition key, built once the rows are in.
alter table updates add constraint updates_pkey primary key (update_id, migration_id, record_time);
create index updates_by_hash on updates (external_transaction_hash) where external_transaction_hash is not null;
create index updates_imports_by_id on updates (migration_id, update_id) where record_time = '0001-01-01 00:00:00+00';
create index updates_live_by_position on updates (migration_id, record_time, synchronizer_id, update_id)
  where record_time > '0001-01-01 00:00:00+00';

alter table verdicts add constraint verdicts_pkey primary key (update_id, migration_id, record_time);
create index verdicts_by_position_id on verdicts (migration_id, record_time, domain_id, update_id);

alter table traffic_summaries add constraint traffic_summaries_pkey primary key (migration_id, record_time, synchronizer_id);
alter table app_activity_records add constraint app_activity_records_pkey primary key (migration_id, record_time, synchronizer_id);
create index app_activity_records_by_round on app_activity_records (round_number);

-- Within the active partition, (migration_id, contract_id) alone is unique.
alter table contracts add constraint contracts_pkey primary key (migration_id, contract_id, archived_record_time);
create index contracts_active_ans_by_migration_name on contracts (migration_id, (ans_name collate "C"))
  include (ans_expires_at) where archived_record_time = 'infinity' and ans_name is not null;
create index contracts_active_ans_by_user on contracts (migration_id, ans_user, (ans_name collate "C"))
  include (ans_expires_at) where archived_record_time = 'infinity' and ans_name is not null;
create index contracts_by_created_at on contracts (migration_id, created_at, contract_id)
  include (created_record_time) where archived_record_time = 'infinity';
create index contracts_by_template_created_at on contracts (migration_id, package_name, qualified_name, created_at, contract_id)
  include (created_record_time) where archived_record_time = 'infinity';
create index contracts_holdings_by_owner_created_at on contracts (migration_id, amulet_owner, created_at, contract_id)
  include (created_record_time) where amulet_owner is not null and archived_record_time = 'infinity';
create index contracts_history_by_archive on contracts (migration_id, archived_record_time)
  include (created_record_time, created_at, contract_id, package_name, qualified_name)
  where archived_record_time < 'infinity' and archived_record_time > created_slot;
create index contracts_history_by_created_at on contracts (migration_id, created_at, contract_id)
  include (created_record_time, archived_record_time)
  where archived_record_time < 'infinity' and archived_record_time > created_slot;
create index contracts_history_by_template_created_at on contracts (migration_id, package_name, qualified_name, created_at, contract_id)
  include (created_record_time, archived_record_time)
  where archived_record_time < 'infinity' and archived_record_time > created_slot;
create index contracts_history_holdings_by_owner_created_at on contracts (migration_id, amulet_owner, created_at, contract_id)
  include (created_record_time, archived_record_time)
  where amulet_owner is not null and archived_record_time < 'infinity' and archived_record_time > created_slot;
create index contracts_holdings_totals on contracts (migration_id, amulet_owner, archived_record_time)
  include (created_record_time, created_at, contract_id, amulet_initial_amount, amulet_created_round, amulet_rate_per_round, amulet_locked)
  where amulet_owner is not null and archived_record_time > created_slot;

alter table contract_stakeholders add constraint contract_stakeholders_pkey
  primary key (migration_id, party, created_at, contract_id, archived_record_time) include (created_record_time);
create index contract_stakeholders_by_template
  on contract_stakeholders (migration_id, party, package_name, qualified_name, created_at, contract_id)
  include (created_record_time, archived_record_time);

analyze updates, verdicts, traffic_summaries, app_activity_records, contracts, contract_stakeholders;
