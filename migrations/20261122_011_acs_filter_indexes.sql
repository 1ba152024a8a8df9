-- Filtered pages of POST /v0/state/acs (party_ids, templates) as index ranges in
-- creation order, merged one range per requested party, template or pair of both
-- (like holdings pages per owner), so that a page for a rare party or template
-- reads its entries rather than the whole ACS from the token's position.
-- The record times are INCLUDEd as in 20261122_010: "active at t" is checked on
-- the index entries.

-- The contracts of one template (package name, qualified name) in creation order.
create index contracts_by_template_created_at
  on contracts (migration_id, package_name, qualified_name, created_at, contract_id)
  include (created_record_time, archived_record_time);

-- One row per stakeholder (signatory or observer, each party once) of each contract,
-- written by the ingestion writer together with the contract row and kept in step
-- with its archived_record_time; the other columns never change once written.
-- An array column cannot be btree-indexed per element, hence a side table.
create table contract_stakeholders (
  migration_id         bigint      not null,
  party                text        not null,
  created_at           timestamptz not null,
  contract_id          text        not null,
  package_name         text        not null,
  qualified_name       text        not null,
  created_record_time  timestamptz not null,
  archived_record_time timestamptz not null,
  -- A party's contracts in creation order (party_ids alone).
  primary key (migration_id, party, created_at, contract_id) include (created_record_time, archived_record_time)
);
-- A party's contracts of one template in creation order (party_ids and templates).
create index contract_stakeholders_by_template
  on contract_stakeholders (migration_id, party, package_name, qualified_name, created_at, contract_id)
  include (created_record_time, archived_record_time);

insert into contract_stakeholders (migration_id, party, created_at, contract_id, package_name, qualified_name,
                                   created_record_time, archived_record_time)
select distinct c.migration_id, p.party, c.created_at, c.contract_id, c.package_name, c.qualified_name,
       c.created_record_time, c.archived_record_time
from contracts c cross join lateral unnest(c.signatories || c.observers) as p(party);
