-- The results of closed governance votes (DsoRules_CloseVoteRequest), taken from the history as it is
-- ingested, for /v0/admin/sv/voteresults: the Scan app keeps them in its transaction log. `result` is the
-- choice's exercise result as served (compact JSON); the other columns are what requests filter and sort on.
create table vote_results (
  migration_id   bigint      not null,
  record_time    timestamptz not null,
  update_id      text        not null,
  event_id       text        not null,
  action_name    text        not null,
  accepted       boolean     not null,
  requester      text        not null,
  effective_at   timestamptz,
  completed_at   timestamptz not null,
  result         text        not null,
  ingest_seq     bigint      generated always as identity,
  primary key (update_id, event_id)
);

-- Newest first: by effective time (completion time for votes that were not accepted), then ingestion order.
create index vote_results_newest on vote_results ((coalesce(effective_at, completed_at)) desc, ingest_seq desc);
