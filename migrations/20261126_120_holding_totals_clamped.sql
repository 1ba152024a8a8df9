-- Holdings summaries with fees as of a round (S1) at the cost of the holdings whose clamp round lies
-- between the snapshot's own round and the round asked, not of every clamped holding (issue #27).
--
-- Each holding_totals row keeps a round K (clamped_by) and, over the owner's holdings at the snapshot
-- whose clamp round (holding_clamp_round) is finite and at most K, the sums of amount, rate and
-- created_round * rate. Each of those holdings has its fee equal to its amount as of any round R >= K,
-- so the sums give their fees at once; only the holdings whose clamp round is in (K, R] (or, for
-- R < K, in (R, K], taken back out) and those whose clamp round is -Infinity are read one by one.
-- K is the snapshot's clamped_by: the highest created round among the holdings seen so far by the
-- snapshots with totals of the migration. Rows written before this migration keep K = -Infinity and
-- zero sums: they are read as before (every holding whose clamp round is at most R).
alter table holding_totals
  add column clamped_by numeric not null default '-Infinity',
  add column unlocked_clamped numeric not null default 0,
  add column locked_clamped numeric not null default 0,
  add column unlocked_clamped_rate numeric not null default 0,
  add column locked_clamped_rate numeric not null default 0,
  add column unlocked_clamped_round_rate numeric not null default 0,
  add column locked_clamped_round_rate numeric not null default 0;

-- The snapshot's K (null: taken before this migration, or no holding with a created round yet).
alter table holding_totals_snapshots add column clamped_by numeric;
