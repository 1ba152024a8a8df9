-- Per-owner holdings totals at ACS snapshots, so that a holdings summary reads one row per owner
-- instead of every holding (issue #27).
--
-- holding_totals keeps, per migration and owner, its totals at a snapshot: a row is written at a
-- snapshot only for the owners whose holdings changed since the previous one, and an owner's totals
-- at snapshot S are its newest row at or before S (holdings = 0: none). The first snapshot taken with
-- totals writes a row for every owner; snapshots taken before hold none (they have no row in
-- holding_totals_snapshots) and are read from the contracts as before.
--
-- Holding fees as of round R are sum(least(amount, (R - created_round) * rate)). Without the clamp
-- that is R * sum(rate) - sum(created_round * rate), which the sums give; the clamp binds only for
-- holdings whose clamp round (holding_clamp_round) is at most R, and those are read one by one
-- (contracts_holdings_by_clamp_round).
-- The snapshots taken with holdings totals (acs_snapshots itself is left as it was).
create table holding_totals_snapshots (
  migration_id bigint      not null,
  record_time  timestamptz not null,
  primary key (migration_id, record_time)
);

create table holding_totals (
  migration_id       bigint      not null,
  owner              text        not null,
  record_time        timestamptz not null,
  -- Holdings of the owner at the snapshot; 0 once it has none.
  holdings           bigint      not null,
  -- The smallest created_at among them: summaries list owners in this order.
  first_created_at   timestamptz,
  unlocked           numeric     not null,
  locked             numeric     not null,
  -- Over the holdings with amount, created round and rate all set: sum(rate), sum(created_round * rate).
  unlocked_rate      numeric     not null,
  locked_rate        numeric     not null,
  unlocked_round_rate numeric    not null,
  locked_round_rate  numeric     not null,
  primary key (migration_id, owner, record_time)
);

-- The first round at which least(amount, (round - created_round) * rate) takes the amount rather than
-- the product: created_round + floor(amount / rate) + 1 (div truncates exactly; amount >= 0, rate > 0).
-- Null: never (rate 0 on a non-negative amount). -Infinity: always a candidate (a missing column, a
-- negative amount or rate), so that the fee of such a holding is always computed by the rule itself.
create function holding_clamp_round(amount numeric, created_round bigint, rate numeric) returns numeric
  language sql immutable parallel safe
  return case
    when amount is null or created_round is null or rate is null or amount < 0 or rate < 0 then '-Infinity'::numeric
    when rate = 0 then null
    else created_round + div(amount, rate) + 1
  end;

-- Holdings by the snapshot slot of their creation and of their archive: what a snapshot adds and
-- removes. Keyed by slot, a key no other read ranges over, so that no plan of theirs takes these.
create index contracts_holdings_by_creation on contracts (migration_id, created_slot)
  include (amulet_owner, amulet_initial_amount, amulet_created_round, amulet_rate_per_round, amulet_locked)
  where amulet_owner is not null and archived_record_time > created_slot;
create index contracts_holdings_by_archive on contracts (migration_id, acs_slot(archived_record_time))
  include (amulet_owner, amulet_initial_amount, amulet_created_round, amulet_rate_per_round, amulet_locked)
  where amulet_owner is not null and archived_record_time < 'infinity' and archived_record_time > created_slot;
-- Active holdings by owner and clamp round: those whose fee is clamped as of a round.
create index contracts_holdings_by_clamp_round
  on contracts (migration_id, amulet_owner, holding_clamp_round(amulet_initial_amount, amulet_created_round, amulet_rate_per_round))
  include (created_record_time, amulet_initial_amount, amulet_created_round, amulet_rate_per_round, amulet_locked)
  where amulet_owner is not null and archived_record_time = 'infinity';
