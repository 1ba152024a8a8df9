-- Cumulative supply flows at each ACS snapshot (issue #29, Splice issue 179): what was minted (by kind),
-- burned (with its parts) and allowed to be minted by the issuance curve, over the whole history ingested
-- (every earlier migration, and this one up to the snapshot). A row at snapshot S is the row at the
-- snapshot before it (or the end of the migrations before, or zero at the very beginning) plus the
-- activities and issuing rounds in between, written by the snapshot job in the snapshot's transaction;
-- a read at an instant adds to its snapshot's row what happened since, so it costs what changed since
-- the snapshot, never the history. A snapshot without a row has unknown totals (served as null).
--
-- Amounts follow the activity projection (leg 0 of each activity): minted_* sum the amount of the
-- minting kinds; burned is every burn (transfers' and traffic purchases' fees, holding fees and traffic
-- price, ANS entry fees), holding_fees and traffic two of its parts (transfers and traffic purchases),
-- ans the ANS entry fees. allowed_mint sums, over the rounds that started issuing (an IssuingMiningRound
-- created by a live update), what the issuance curve let the round issue; null once a round's
-- configuration could not be read, and from then on.
create table supply_totals (
  migration_id            bigint      not null,
  record_time             timestamptz not null,
  minted_mint             numeric     not null,
  minted_tap              numeric     not null,
  minted_app_reward       numeric     not null,
  minted_validator_reward numeric     not null,
  minted_sv_reward        numeric     not null,
  minted_validator_faucet numeric     not null,
  burned                  numeric     not null,
  burned_holding_fees     numeric     not null,
  burned_traffic          numeric     not null,
  burned_ans              numeric     not null,
  allowed_mint            numeric,
  issuing_rounds          bigint      not null,
  primary key (migration_id, record_time),
  -- Retention deletes the snapshots before the history's start: their totals go with them (the later
  -- rows keep the sums of the history dropped).
  foreign key (migration_id, record_time) references acs_snapshots (migration_id, record_time) on delete cascade
);

-- The history stored before this migration has snapshots without totals: `scan-indexer
-- backfill-supply-totals` computes them, from the activity projection (which must be complete: its own
-- backfill finished). Until it has, nothing is computed from zero (the beginning of the history), only
-- from a snapshot that has totals. A database empty now never needs it.
create table supply_totals_backfill (
  id          boolean     primary key default true check (id),
  snapshots_done bigint   not null default 0,
  finished_at timestamptz,
  updated_at  timestamptz not null default now()
);
insert into supply_totals_backfill (id)
select true where exists (select 1 from acs_snapshots) or exists (select 1 from migration_synchronizers);

-- The rounds that start issuing in a record-time range (a tick's worth per round; a handful per snapshot
-- interval), as contracts_open_rounds_by_created_time does for the open rounds.
create index contracts_issuing_rounds_by_created_time on contracts (migration_id, created_record_time)
  include (round_number)
  where package_name = 'splice-amulet' and qualified_name = 'Splice.Round:IssuingMiningRound';
