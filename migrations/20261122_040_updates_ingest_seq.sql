-- Ingestion order of the updates, served as the participant-local ledger `offset` of
-- POST /v2/updates/transaction-by-id (this indexer plays the participant; Canton offsets
-- are participant-local too). Filled by the sequence, so the writer does not change.
alter table updates add column ingest_seq bigint generated always as identity;
