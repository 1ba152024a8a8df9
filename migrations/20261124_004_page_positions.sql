-- Page positions behind numeric page tokens. The older Scan operations (/v1/state/acs, /v1/holdings/state)
-- carry their page token as an int64, which cannot hold a keyset position (a snapshot, a creation time and a
-- contract id) the way the HMAC'd string tokens of the newer operations do. Such a token is the id of a row
-- here, bound to the operation and the request that issued it. Rows are short-lived: the API deletes rows
-- older than a day as it issues new ones.
create table page_positions (
  id             bigint      generated always as identity primary key,
  operation      text        not null,
  request_digest text        not null,
  position       jsonb       not null,
  issued_at      timestamptz not null default now()
);

create index page_positions_by_issue_time on page_positions (issued_at);
