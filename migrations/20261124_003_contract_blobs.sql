-- Created-event blobs (the participant's serialised contract, which wallets pass as a disclosed contract),
-- kept apart from the contracts rows that every ACS and holdings read scans: a blob is kilobytes, only some
-- contracts have one, and only single-contract lookups read it. Keyed by contract id alone: a contract id
-- names one contract instance, in every migration it is carried into; the newest blob a source gives wins.
-- Contracts without a row here have no blob (the source gave none) and are served with "".
create table contract_blobs (
  contract_id text primary key,
  blob        text not null -- base64, as the source gave it
);

-- The column this replaces was never filled by any source.
alter table contracts drop column created_event_blob;
