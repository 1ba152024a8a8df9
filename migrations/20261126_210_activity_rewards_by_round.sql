-- The reward claims of transfers by the round of the transfer: GET /api/scan/v0/rewards-collected sums
-- one round's, or those of every round up to the latest closed one, as Splice's round_totals did.
create index activity_rewards_by_round on activities (round) where kind in ('app_reward', 'validator_reward');
