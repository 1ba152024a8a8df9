-- The legacy TransferCommand workflow of external parties, taken from the history as it is ingested, for
-- transfer-command/status: each create, send, withdrawal or expiry of a command, by sender and nonce. The
-- Scan app keeps the same events in its transaction log.
create table transfer_command_events (
  migration_id   bigint      not null,
  record_time    timestamptz not null,
  update_id      text        not null,
  event_id       text        not null,
  contract_id    text        not null,
  sender         text        not null,
  nonce          bigint      not null,
  -- created, sent, failed, withdrawn or expired
  state          text        not null,
  -- why a send failed, as the Scan app prints it
  reason         text,
  ingest_seq     bigint      generated always as identity,
  primary key (update_id, event_id)
);

-- The latest event of each command of a sender and nonce.
create index transfer_command_events_by_sender_nonce on transfer_command_events (sender, nonce, contract_id, ingest_seq desc);
