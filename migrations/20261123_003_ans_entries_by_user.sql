-- ANS entries of a user (/v0/ans-entries/by-party/{party}): the first live one by name, in the
-- current migration, as one index range.
create index contracts_active_ans_by_user
  on contracts (migration_id, ans_user, (ans_name collate "C"))
  include (ans_expires_at)
  where archived_record_time = 'infinity' and ans_name is not null;
