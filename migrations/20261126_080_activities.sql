-- The activity projection (docs/ingestion.md, "Activities"): the Amulet-level activities of each
-- transaction (transfers, mints and taps, reward claims, locks and unlocks, traffic purchases), one row
-- per activity and party, derived by the batch planner and written in the batch's transaction. Figures
-- are numeric columns and parties keys, so that reads never parse stored JSON.
--
-- Partitioned like the other history tables, by (migration_id, record_time) and UTC month, so that a
-- write touches the current month only and retention drops a month of activities with its updates.
-- The primary key is the network's order: a time range of the whole network is a range of it (leg 0
-- is one row per activity). A party's history is a range of activities_by_party.
create table activities (
  migration_id   bigint      not null,
  record_time    timestamptz not null,
  update_id      text        not null,
  -- The exercise's node: its event id is update_id || ':' || node.
  node           integer     not null,
  kind           text        not null,
  -- 0: the party that acted (sender, owner, claimant, buyer); 1..: the others (receivers).
  leg            smallint    not null,
  party          text        not null,
  round          bigint,
  amount         numeric     not null,
  fees           numeric     not null,
  holding_fees   numeric,
  burned         numeric,
  counterparties text[]      not null,
  provider       text,
  featured       boolean,
  via            text,
  traffic        bigint,
  -- What the Scan's deprecated transaction history (POST /api/scan/v0/transactions) shows of a transfer
  -- beyond the activity's own figures. Every transfer row: the party's normalized balance change from the
  -- transfer summary (null when the summary has none for it). The sender's row (leg 0) only: the summary's
  -- input and change, the change fee, the sender's fee as the Scan summed it, and its outputs to itself
  -- (amount, receiver fee and place among the distinct receivers), which the activity folds into its fees.
  balance_change      numeric,
  holding_rate_change numeric,
  input_amulet        numeric,
  change_amount       numeric,
  change_fee          numeric,
  sender_fee          numeric,
  self_amount         numeric,
  self_fee            numeric,
  self_rank           smallint,
  primary key (migration_id, record_time, update_id, node, kind, leg)
) partition by range (migration_id, record_time);

create index activities_by_party on activities (party, migration_id, record_time, update_id, node, kind, leg);

-- The same function as in 20261126_001, with activities among the tables partitioned by migration and month.
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
  foreach parent in array array['updates', 'verdicts', 'traffic_summaries', 'app_activity_records', 'activities'] loop
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

-- The months the updates already have partitions for (and so may hold history to backfill).
select ensure_history_partitions(
  substring(c.relname from '^updates_m(\d+)_p')::bigint,
  to_timestamp(substring(c.relname from '_p(\d{6})$'), 'YYYYMM')::timestamp at time zone 'UTC')
from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
where p.relname = 'updates' and p.relnamespace = current_schema()::regnamespace and c.relname ~ '^updates_m\d+_p\d{6}$';

-- Where `scan-indexer backfill-activities` is in the history stored before this migration: the key of
-- the last update it derived activities from, and the end it walks to (the newest update when it began).
create table activity_backfill (
  id              boolean     primary key default true check (id),
  migration_id    bigint      not null,
  record_time     timestamptz not null,
  synchronizer_id text        not null,
  update_id       text        not null,
  end_migration_id bigint     not null,
  end_record_time timestamptz not null,
  end_synchronizer_id text    not null,
  end_update_id   text        not null,
  updates_done    bigint      not null,
  finished_at     timestamptz,
  updated_at      timestamptz not null default now()
);
