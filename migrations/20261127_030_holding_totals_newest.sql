-- Refreshing the round K of owners whose holdings stop changing (issue #27).
--
-- A holding_totals row is written at a snapshot only for the owners whose holdings changed since the
-- previous one, so an owner whose holdings stop changing keeps the K (clamped_by) of its last row, and a
-- summary as of R reads one by one every holding of it whose clamp round lies in (K, R]: a range that
-- grows with time. Each snapshot now also rewrites the rows of a bounded number of owners whose K lags
-- the snapshot's the most (HOLDING_TOTALS_REFRESH_OWNERS). Finding them among the newest rows only,
-- without walking every older row, needs each owner's newest row in one place: this table, kept by
-- every write of holding_totals rows.
create table holding_totals_newest (
  migration_id bigint  not null,
  owner        text    not null,
  -- The clamped_by of the owner's newest holding_totals row.
  clamped_by   numeric not null,
  -- Whether that row has holdings (summaries skip owners without).
  active       boolean not null,
  primary key (migration_id, owner)
);

-- The owners with holdings whose K lags the most first.
create index holding_totals_newest_by_lag on holding_totals_newest (migration_id, clamped_by, owner) where active;

insert into holding_totals_newest (migration_id, owner, clamped_by, active)
select distinct on (migration_id, owner) migration_id, owner, clamped_by, holdings > 0
from holding_totals
order by migration_id, owner, record_time desc;
