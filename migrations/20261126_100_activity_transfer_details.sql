-- What the Scan's deprecated transaction history (POST /api/scan/v0/transactions) shows of a transfer beyond
-- the activity's own figures, kept on the transfer's rows so that the answer reads no stored JSON.
-- Every transfer row: the party's normalized balance change from the transfer summary (null when the summary
-- has none for it). The sender's row (leg 0) only: the summary's input and change, the change fee, the
-- sender's fee as the Scan summed it, and its outputs to itself (amount, receiver fee and place among the
-- distinct receivers), which the activity folds into the sender's fees.
alter table activities
  add column balance_change      numeric,
  add column holding_rate_change numeric,
  add column input_amulet        numeric,
  add column change_amount       numeric,
  add column change_fee          numeric,
  add column sender_fee          numeric,
  add column self_amount         numeric,
  add column self_fee            numeric,
  add column self_rank           smallint;

-- Rows derived before this migration lack these figures: they are derived again, by
-- `scan-indexer backfill-activities` from the start (the writer fills them from now on).
truncate activities;
delete from activity_backfill;
