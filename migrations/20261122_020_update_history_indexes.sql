-- Indexes for the update-history endpoints (/v2/updates, /v0/events, import updates).

-- Keyset pages over non-import updates in the network's order. Import updates (record time
-- 0001-01-01) open each migration after a hard migration and can be as many as the ACS had
-- contracts; the list endpoints exclude them, so a page that crosses into the next migration
-- must not walk over them.
create index updates_live_by_position
  on updates (migration_id, record_time, synchronizer_id, update_id)
  where record_time > '0001-01-01 00:00:00+00';

-- Import updates of a migration in update id order (/v0/backfilling/import-updates).
create index updates_imports_by_id
  on updates (migration_id, update_id)
  where record_time = '0001-01-01 00:00:00+00';

-- Verdicts in the same order as updates, for the verdict-only events of /v0/events.
create index verdicts_by_position_id on verdicts (migration_id, record_time, domain_id, update_id);
