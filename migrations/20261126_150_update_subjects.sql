-- What the live stream's party and template filters read (docs/api.md, "Live stream of events";
-- docs/ingestion.md, "The stream's filter index"): per live update, the parties and templates of its
-- events, as the planner finds them, so that a filtered stream never parses payloads.
--
-- One row per update with two arrays and a GIN index on each, rather than one row per (update, party)
-- and (update, template): a typical update names a few parties and templates (eight or more terms),
-- so the writer COPYs one small row instead of eight, and a GIN index keeps each term once per page with
-- a compressed list of rows (its pending list takes the writer's inserts, merged later by vacuum),
-- where a B-tree would take one entry of the whole term (80 to 100 bytes) per row.
--
-- Partitioned like the other history tables, by (migration_id, record_time) and UTC month, so that a
-- write touches the current month only and retention drops a month of it with its updates. The primary
-- key is /v0/events' order of updates: a filtered page is either a walk of it from the cursor (checking the
-- arrays of each row) or a GIN lookup sorted, whichever the planner finds cheaper for the terms asked.
-- Import updates, which the stream never sends, and updates that name nothing have no row.
create table update_subjects (
  migration_id    bigint      not null,
  record_time     timestamptz not null,
  synchronizer_id text        not null,
  update_id       text        not null,
  -- Signatories and observers of created events (an assignment's too), acting parties of exercised events,
  -- the submitter of a reassignment; distinct, sorted.
  parties         text[]      not null,
  -- Template ids of created and exercised events (an assignment's created event); distinct, sorted.
  templates       text[]      not null,
  primary key (migration_id, record_time, synchronizer_id, update_id)
) partition by range (migration_id, record_time);

create index update_subjects_parties on update_subjects using gin (parties);
create index update_subjects_templates on update_subjects using gin (templates);

-- The same function as in 20261126_080, with update_subjects among the tables partitioned by migration and month.
create or replace function ensure_history_partitions(p_migration bigint, p_time timestamptz) returns integer
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
  perform pg_advisory_xact_lock(7231004131);
  foreach parent in array array['updates', 'verdicts', 'traffic_summaries', 'app_activity_records', 'activities', 'update_subjects'] loop
    part := format('%s_m%s_p%s', parent, p_migration, suffix);
    if to_regclass(part) is null then
      execute format('create table %I (like %I including defaults including constraints including storage including generated)', part, parent);
      if parent = 'updates' then
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

-- The months the updates already have partitions for. Their updates get rows from
-- `scan-indexer backfill-stream-index` (payloads are compressed: SQL cannot read them).
select ensure_history_partitions(
  substring(c.relname from '^updates_m(\d+)_p')::bigint,
  to_timestamp(substring(c.relname from '_p(\d{6})$'), 'YYYYMM')::timestamp at time zone 'UTC')
from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
where p.relname = 'updates' and p.relnamespace = current_schema()::regnamespace and c.relname ~ '^updates_m\d+_p\d{6}$';

-- Where `scan-indexer backfill-stream-index` is in the history stored before this migration: the key of
-- the last update it indexed (none yet: migration -1), and the end it walks to, the newest live update
-- now (the writer indexes everything after it). No row: nothing was stored, nothing to backfill.
create table update_subjects_backfill (
  id                  boolean     primary key default true check (id),
  migration_id        bigint      not null,
  record_time         timestamptz not null,
  synchronizer_id     text        not null,
  update_id           text        not null,
  end_migration_id    bigint      not null,
  end_record_time     timestamptz not null,
  end_synchronizer_id text        not null,
  end_update_id       text        not null,
  updates_done        bigint      not null default 0,
  finished_at         timestamptz,
  updated_at          timestamptz not null default now()
);

insert into update_subjects_backfill (migration_id, record_time, synchronizer_id, update_id,
  end_migration_id, end_record_time, end_synchronizer_id, end_update_id)
select -1, '0001-01-01 00:00:00+00', '', '', migration_id, record_time, synchronizer_id, update_id
from updates where record_time > '0001-01-01 00:00:00+00'
order by migration_id desc, record_time desc, synchronizer_id desc, update_id desc limit 1;
