-- Amulet expiry in the activity projection (docs/ingestion.md, "Activities"): the DSO's Amulet_Expire,
-- LockedAmulet_ExpireAmulet and their V2 forms are rows of kind 'expire', each a burn of the expired
-- amulet's initial amount (supply counts initial amounts). activities.kind is not constrained, so the
-- kind needs no change to the table; the supply totals get the burn's part of their own.
alter table supply_totals add column burned_expired numeric not null default 0;

-- History derived before this migration lacks the expiry rows: forgetting where the activity backfill is
-- makes `scan-indexer backfill-activities` walk the stored history once more, adding them and keeping
-- the rows already there (and clearing the round aggregates, which it sums again once done).
delete from activity_backfill;

-- The totals kept per snapshot left those burns out: they are dropped and computed again by
-- `scan-indexer backfill-supply-totals` once the activity backfill has finished (until then a snapshot
-- has no totals, served as null, as for any snapshot without a row). A database empty now needs neither.
delete from supply_totals;
insert into supply_totals_backfill (id)
select true where exists (select 1 from acs_snapshots) or exists (select 1 from migration_synchronizers)
on conflict (id) do update set snapshots_done = 0, finished_at = null, updated_at = now();
