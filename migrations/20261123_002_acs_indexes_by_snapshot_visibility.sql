-- The temporal ACS indexed for what its readers can see, so that neither the
-- writer nor the readers pay for history they never read.
--
-- Every ACS read (holdings, /v0/state/acs) is at an announced snapshot, and
-- snapshots are on 3-hour UTC boundaries. A contract created and archived
-- between two boundaries is in no snapshot: most contracts of a network are
-- such (reward coupons, transferred amulets). Only a contract archived after
-- the first boundary at or after its creation (its created_slot) is ever
-- visible; the ACS indexes below hold only those, and the writer writes no
-- stakeholder rows for the others. Readers add the same condition
-- (archived_record_time > created_slot, always true at a boundary) so that
-- PostgreSQL uses the partial indexes.
--
-- The indexes are also split into the currently active contracts and the
-- history, so that a page at a recent snapshot reads the active ones, plus
-- those archived since the snapshot, and never walks the archived history.

alter table contracts add column created_slot timestamptz generated always as (acs_slot(created_record_time)) stored;

-- Stakeholder rows of contracts that are in no snapshot are never read.
delete from contract_stakeholders s using contracts c
where c.migration_id = s.migration_id and c.contract_id = s.contract_id
  and c.archived_record_time <= c.created_slot;

-- Creation order of the whole ACS: the active contracts (the name is kept from 20261122_010,
-- whose index held every contract), and the visible history.
drop index contracts_by_created_at;
create index contracts_by_created_at
  on contracts (migration_id, created_at, contract_id)
  include (created_record_time)
  where archived_record_time = 'infinity';
create index contracts_history_by_created_at
  on contracts (migration_id, created_at, contract_id)
  include (created_record_time, archived_record_time)
  where archived_record_time < 'infinity' and archived_record_time > created_slot;

-- The visible contracts archived since a time, for merging into pages of the active ones.
create index contracts_history_by_archive
  on contracts (migration_id, archived_record_time)
  include (created_record_time, created_at, contract_id, package_name, qualified_name)
  where archived_record_time < 'infinity' and archived_record_time > created_slot;

-- Creation order per template, likewise. The active one also serves the current-ACS lists of a
-- template (rules, rounds, votes, SV states: few contracts each, sorted after the range), so
-- contracts_active_by_template, one more entry per active contract, goes.
drop index contracts_active_by_template;
drop index contracts_by_template_created_at;
create index contracts_by_template_created_at
  on contracts (migration_id, package_name, qualified_name, created_at, contract_id)
  include (created_record_time)
  where archived_record_time = 'infinity';
create index contracts_history_by_template_created_at
  on contracts (migration_id, package_name, qualified_name, created_at, contract_id)
  include (created_record_time, archived_record_time)
  where archived_record_time < 'infinity' and archived_record_time > created_slot;

-- Holdings per owner in creation order, likewise.
drop index contracts_holdings_by_owner_created_at;
create index contracts_holdings_by_owner_created_at
  on contracts (migration_id, amulet_owner, created_at, contract_id)
  include (created_record_time)
  where amulet_owner is not null and archived_record_time = 'infinity';
create index contracts_history_holdings_by_owner_created_at
  on contracts (migration_id, amulet_owner, created_at, contract_id)
  include (created_record_time, archived_record_time)
  where amulet_owner is not null and archived_record_time < 'infinity' and archived_record_time > created_slot;

-- Holdings per owner active at a time (archived after it), with every column the totals sum:
-- the summaries read only index entries, the owner's active holdings and those archived since;
-- holdings pages at a recent snapshot read the owner's archived-since part from it too.
drop index contracts_amulets_by_owner;
create index contracts_holdings_totals
  on contracts (migration_id, amulet_owner, archived_record_time)
  include (created_record_time, created_at, contract_id, amulet_initial_amount, amulet_created_round, amulet_rate_per_round, amulet_locked)
  where amulet_owner is not null and archived_record_time > created_slot;
