-- The activity kinds beyond Amulet's own (docs/ingestion.md, "Activities"): ANS entries, transfer
-- commands, token-standard transfer instructions and allocations, votes cast and vote results. What
-- they are about does not fit the figures of a transfer, so each gets nullable columns of its own, read
-- without parsing JSON: the subject (an ANS entry's name, a vote request's id, a command's, instruction's
-- or allocation's contract id), a detail (the action voted on, a failed command's reason, a settlement
-- id), the outcome within the kind (created, renewed, accepted, withdrawn, ...), and an expiry. Rows of
-- the kinds before keep nulls. Adding nullable columns rewrites no partition.
alter table activities
  add column subject    text,
  add column detail     text,
  add column outcome    text,
  add column expires_at timestamptz;

-- History derived before this migration lacks the new kinds: forgetting where the backfill is makes
-- `scan-indexer backfill-activities` walk the whole stored history once more, adding their rows and
-- keeping the rows already there.
delete from activity_backfill;
