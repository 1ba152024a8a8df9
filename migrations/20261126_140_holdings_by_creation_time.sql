-- Balances and supply at any instant (issue #29): the holdings created in a record-time range, by
-- owner and for the whole network, so that a read at an instant T adds to the newest snapshot S at or
-- before it the holdings created in (S, T] (and takes out those archived in (S, T], by
-- contracts_holdings_totals and contracts_history_by_archive): its cost is what changed since S.
-- Unlike contracts_holdings_by_creation these keep the holdings created and archived within one slot,
-- which no snapshot sees but an instant inside their life does.
create index contracts_holdings_by_owner_created_time on contracts (migration_id, amulet_owner, created_record_time)
  include (archived_record_time, amulet_initial_amount, amulet_created_round, amulet_rate_per_round, amulet_locked)
  where amulet_owner is not null;
create index contracts_holdings_by_created_time on contracts (migration_id, created_record_time)
  include (archived_record_time, amulet_initial_amount, amulet_locked)
  where amulet_owner is not null;
-- The open mining rounds by creation: the round open at an instant is among the few created last before it.
create index contracts_open_rounds_by_created_time on contracts (migration_id, created_record_time)
  include (round_number, archived_record_time)
  where package_name = 'splice-amulet' and qualified_name = 'Splice.Round:OpenMiningRound';
