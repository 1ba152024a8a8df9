-- ANS entries by name prefix within the current migration (/api/validator/v0/scan-proxy/ans-entries).
-- Contracts of earlier migrations stay live in the temporal ACS, so the migration leads the key.
-- The name is indexed in the "C" collation: the API orders names by code point whatever the
-- database's default collation, and PostgreSQL (15 or later) turns `name ^@ prefix` into an
-- index range on a "C"-collated column. Replaces contracts_active_ans_by_name, which had no
-- migration and whose text_pattern_ops order cannot serve the ORDER BY.
create index contracts_active_ans_by_migration_name
  on contracts (migration_id, (ans_name collate "C"))
  include (ans_expires_at)
  where archived_record_time = 'infinity' and ans_name is not null;
drop index contracts_active_ans_by_name;
