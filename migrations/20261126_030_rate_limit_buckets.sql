-- Token buckets that all API replicas share when RATE_LIMIT_STORE=postgres (src/api/fair-access/). One row
-- per route group (or API key) and client. A replica reserves several tokens at a time and serves from them,
-- so a row is written once per reservation, not per request. UNLOGGED: no WAL for this churn; after a crash
-- the table is empty, which only means every client starts with a full bucket again.
create unlogged table rate_limit_buckets (
  bucket      text             primary key,
  -- Tokens left after the last reservation, as of refilled_at.
  tokens      double precision not null,
  -- What the last reservation got, returned to the replica that asked.
  granted     integer          not null,
  refilled_at timestamptz      not null,
  -- When the bucket is full again: a row past it says nothing an absent row does not, and is deleted.
  full_at     timestamptz      not null
);
