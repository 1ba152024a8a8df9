-- Updates per migration and UTC hour of record time (import updates left out), kept by the writer in
-- the same transaction as the updates, so that activity over a window reads one row per hour
-- whatever the network's rate. History ingested before this table existed is counted here once.
create table update_counts_by_hour (
  migration_id  bigint      not null,
  hour          timestamptz not null,
  update_count  bigint      not null,
  primary key (migration_id, hour)
);

insert into update_counts_by_hour (migration_id, hour, update_count)
select migration_id, date_trunc('hour', record_time, 'UTC'), count(*)
from updates
where record_time > '0001-01-01 00:00:00+00'
group by 1, 2;
