-- The removed Scan round aggregates (docs/api.md, "Round aggregates"): per closed round, and per closed
-- round and party, the reward claims and traffic purchases of the activity projection, with running
-- totals, as Splice's ScanAggregator kept round_totals and round_party_totals. Written by the worker
-- after its batches (src/jobs/round-aggregates.ts), one round at a time in round order, never by the
-- writer's batch transaction; reads are of these rows only, so a read costs what it returns.

create table round_totals (
  closed_round              bigint      primary key,
  -- The ledger effective time of the round's ClosedMiningRound create.
  closed_round_effective_at timestamptz not null,
  app_rewards               numeric     not null,
  validator_rewards         numeric     not null,
  cumulative_app_rewards       numeric  not null,
  cumulative_validator_rewards numeric  not null
);

-- One row per round and party with a reward claim or a traffic purchase in the round.
create table round_party_totals (
  closed_round                 bigint  not null,
  party                        text    not null,
  app_rewards                  numeric not null,
  validator_rewards            numeric not null,
  traffic_purchased            bigint  not null,
  traffic_purchased_cc_spent   numeric not null,
  traffic_num_purchases        bigint  not null,
  cumulative_app_rewards       numeric not null,
  cumulative_validator_rewards numeric not null,
  cumulative_traffic_purchased bigint  not null,
  cumulative_traffic_purchased_cc_spent numeric not null,
  cumulative_traffic_num_purchases      bigint  not null,
  primary key (closed_round, party)
);

-- Each party's running totals at the newest aggregated round (Splice's active_parties joined with
-- round_party_totals): the leaderboards are the head of one index each.
create table round_party_latest (
  party                        text    primary key,
  closed_round                 bigint  not null,
  cumulative_app_rewards       numeric not null,
  cumulative_validator_rewards numeric not null,
  cumulative_traffic_purchased bigint  not null,
  cumulative_traffic_purchased_cc_spent numeric not null,
  cumulative_traffic_num_purchases      bigint  not null,
  -- The newest round in which the party bought traffic; 0 if never.
  last_purchased_in_round      bigint  not null
);
create index round_party_latest_by_app_rewards on round_party_latest (cumulative_app_rewards desc, (party collate "C") desc)
  where cumulative_app_rewards > 0;
create index round_party_latest_by_validator_rewards on round_party_latest (cumulative_validator_rewards desc, (party collate "C") desc)
  where cumulative_validator_rewards > 0;
create index round_party_latest_by_traffic on round_party_latest (cumulative_traffic_purchased desc, (party collate "C") desc)
  where cumulative_traffic_purchased > 0;

-- What the job reads per round: the round's ClosedMiningRound (archived ones too, which the indexes of
-- active contracts leave out), and the round's reward claims and traffic purchases. The second replaces
-- activity_rewards_by_round (20261126_210), as narrow, with traffic purchases added: per batch the writer
-- adds one more index entry per traffic purchase and one per ClosedMiningRound, none per other row.
create index contracts_closed_rounds on contracts (round_number) include (created_at)
  where package_name = 'splice-amulet' and qualified_name = 'Splice.Round:ClosedMiningRound';
create index activities_round_totals on activities (round)
  where kind in ('app_reward', 'validator_reward', 'traffic_purchase');
drop index activity_rewards_by_round;
