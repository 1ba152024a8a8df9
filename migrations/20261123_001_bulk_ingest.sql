-- Ingestion at network scale: store less per update, index only what is read,
-- and keep the ACS snapshot figures as running deltas so that neither the writer
-- nor the snapshot job reads ranges whose size grows with history.

-- 1. Each update's JSON is stored once, compressed by the writer: `payload` is
--    raw DEFLATE (RFC 1951) of the compact_json text followed by the protobuf_json
--    text, and `payload_compact_length` the byte length of the first. One stream
--    for both lets the second cost only what differs (the two renderings share
--    every id, party and template). The bytes are already compressed: EXTERNAL
--    storage keeps PostgreSQL from trying again. Rows written before this
--    migration keep their text columns, which readers still serve.
alter table updates
  add column payload bytea,
  add column payload_compact_length integer,
  alter column json_compact drop not null;
alter table updates alter column payload set storage external;
-- Keep rows of up to 8 KB inline: a payload of a few KB then costs no TOAST rows.
alter table updates set (toast_tuple_target = 8160);
alter table updates
  add constraint updates_json_present check (payload is not null or json_compact is not null);

-- 2. What nothing reads. updates_live_by_position serves the update lists; the
--    verdict lists use verdicts_by_position_id, of which verdicts_by_position is a prefix.
drop index updates_by_position;
drop index verdicts_by_position;
-- The views of a verdict are served inside its JSON (verdicts.json); no query reads them apart.
drop table verdict_views;
-- Traffic summaries and activity records are read by their event's key (their primary key),
-- which every reader knows: an index by update id, a random key, costs the writer for nothing.
drop index traffic_summaries_by_update;
drop index app_activity_records_by_update;
-- The protobuf_json arguments of each create are part of the update's stored JSON already.
alter table contracts drop column create_arguments_protobuf;

-- 3. ACS snapshot figures as running deltas. The writer adds, per migration and
--    snapshot slot, what its batch created minus what it archived; a snapshot is
--    the previous one plus the slots in between, so it costs the same at any ACS
--    size. A slot is the first 3-hour UTC boundary at or after a record time
--    (snapshots are taken on those boundaries; the import updates' 0001-01-01 is one).
create table acs_deltas (
  migration_id    bigint          not null,
  slot            timestamptz     not null,
  contract_count  bigint          not null,
  unlocked_amulet numeric(38, 10) not null,
  locked_amulet   numeric(38, 10) not null,
  -- Highest created_at (ledger effective time) of the contracts created in the slot.
  max_created_at  timestamptz,
  -- Contracts archived in the slot: how many a merge of "archived since a snapshot" may read.
  archived_count  bigint          not null,
  primary key (migration_id, slot)
);

-- The rule of src/domain/snapshot-schedule.ts (snapshotSlot), for SQL.
create function acs_slot(t timestamptz) returns timestamptz
  language sql immutable parallel safe
  return case when date_bin('3 hours', t, timestamptz '2000-01-01 00:00:00+00') = t then t
              else date_bin('3 hours', t, timestamptz '2000-01-01 00:00:00+00') + interval '3 hours' end;

insert into acs_deltas (migration_id, slot, contract_count, unlocked_amulet, locked_amulet, max_created_at, archived_count)
select migration_id, slot, sum(n), sum(unlocked), sum(locked), max(max_created_at), sum(archived)
from (
  select migration_id, acs_slot(created_record_time) as slot, count(*) as n,
         coalesce(sum(amulet_initial_amount) filter (where amulet_locked = false), 0) as unlocked,
         coalesce(sum(amulet_initial_amount) filter (where amulet_locked), 0) as locked,
         max(created_at) as max_created_at, 0 as archived
  from contracts group by 1, 2
  union all
  select migration_id, acs_slot(archived_record_time), -count(*),
         -coalesce(sum(amulet_initial_amount) filter (where amulet_locked = false), 0),
         -coalesce(sum(amulet_initial_amount) filter (where amulet_locked), 0),
         null, count(*)
  from contracts where archived_record_time < 'infinity' group by 1, 2
) d
group by migration_id, slot;

-- The highest created_at among a snapshot's contracts bounds its creation-order pages.
alter table acs_snapshots add column max_created_at timestamptz;
update acs_snapshots s set max_created_at = (
  select max(d.max_created_at) from acs_deltas d where d.migration_id = s.migration_id and d.slot <= s.record_time);

-- The snapshot figures no longer scan contracts by creation or archive time.
drop index contracts_by_creation;
drop index contracts_by_archive;
