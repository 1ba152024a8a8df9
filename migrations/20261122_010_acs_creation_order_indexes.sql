-- Creation-order paging of the temporal ACS (POST /v0/state/acs, /v2/holdings/state).
-- Pages are keyset ranges over (created_at, contract_id). The record-time columns are
-- INCLUDEd so that "active at t" (created_record_time <= t < archived_record_time) is
-- checked on the index entries (index-only scan) and contracts archived before t cost
-- an index entry, not a heap visit, when a page skips them.

-- The whole ACS of a migration in creation order.
create index contracts_by_created_at
  on contracts (migration_id, created_at, contract_id)
  include (created_record_time, archived_record_time);

-- Amulets and locked amulets of one owner in creation order. Replaces
-- contracts_amulets_by_owner_creation, which lacked the record times.
create index contracts_holdings_by_owner_created_at
  on contracts (migration_id, amulet_owner, created_at, contract_id)
  include (created_record_time, archived_record_time)
  where amulet_owner is not null;
drop index contracts_amulets_by_owner_creation;
