/**
 * The answers of the network time series and the reward leaderboards (series-routes.ts).
 */
import { z } from 'zod';
import { dateTime, decimal, int32, int64, str } from '../schema-kit';

export const DailyMintBurn = z.object({
  days: z
    .array(
      z.object({
        day: str('The UTC day, YYYY-MM-DD.'),
        minted: z
          .object({
            total: decimal('Everything minted on the day: the sum of the fields below.'),
            mint: decimal('AmuletRules_Mint (other than a tap).'),
            tap: decimal('DevNet taps.'),
            app_reward: decimal('App rewards claimed (minted when a transfer or traffic purchase takes the coupon as an input).'),
            validator_reward: decimal('Validator rewards claimed.'),
            sv_reward: decimal('SV rewards claimed.'),
            validator_faucet: decimal('Validator liveness (faucet) rewards claimed.'),
          })
          .describe('Amulet minted, by kind.'),
        burned: z
          .object({
            total: decimal('Everything burned on the day: fees + holding_fees + traffic.'),
            fees: decimal('Output and change fees of transfers and traffic purchases.'),
            holding_fees: decimal('Holding fees of the amulets these spent.'),
            traffic: decimal('Amulet paid for traffic.'),
          })
          .describe('Amulet burned, by kind.'),
        transfers: int64('Transfers (AmuletRules_Transfer exercises).'),
        transfer_volume: decimal('Amulet the transfers sent to parties other than their senders.'),
      }),
    )
    .describe('One entry per UTC day of the range, oldest first, days without activity included (zeros).'),
});

export const RewardLeaderboard = z.object({
  reward: z.enum(['app', 'validator', 'sv', 'validator_faucet']),
  from: dateTime('Start of the window (record time at or after).'),
  to: dateTime('End of the window (record time before).'),
  leaders: z
    .array(
      z.object({
        rank: int32('1 for the largest sum.'),
        party: str(),
        amount: decimal('The rewards the party claimed in the window.'),
        claims: int64('The claims (transfers or traffic purchases taking such coupons) they came in.'),
      }),
    )
    .describe('Largest sum first, ties by party id; at most `limit`.'),
});

export const VolumeLeaderboard = z.object({
  from: dateTime('Start of the window (record time at or after).'),
  to: dateTime('End of the window (record time before).'),
  leaders: z
    .array(
      z.object({
        rank: int32('1 for the largest volume.'),
        party: str(),
        volume: decimal('sent plus received.'),
        sent: decimal("Amulet the party's transfers sent to other parties in the window."),
        received: decimal("Amulet other parties' transfers sent to the party in the window."),
        transfers: int64('The transfers (AmuletRules_Transfer exercises) the party sent or received in.'),
      }),
    )
    .describe('Largest volume first, ties by party id; at most `limit`.'),
});

export const NetworkSeries = z.object({
  interval: z.enum(['day', 'hour']),
  from: dateTime('Start of the first period.'),
  to: dateTime('End of the last period (exclusive).'),
  periods: z
    .array(
      z.object({
        start: dateTime("The period's first instant (UTC)."),
        minted: z
          .object({
            total: decimal('Everything minted in the period: the sum of the fields below.'),
            mint: decimal('AmuletRules_Mint (other than a tap).'),
            tap: decimal('DevNet taps.'),
            app_reward: decimal('App rewards claimed.'),
            validator_reward: decimal('Validator rewards claimed.'),
            sv_reward: decimal('SV rewards claimed.'),
            validator_faucet: decimal('Validator liveness (faucet) rewards claimed.'),
          })
          .describe('Amulet minted, by kind.'),
        burned: z
          .object({
            total: decimal('Everything burned in the period: fees + holding_fees + traffic + ans + expired.'),
            fees: decimal('Output and change fees of transfers and traffic purchases.'),
            holding_fees: decimal('Holding fees of the amulets these spent.'),
            traffic: decimal('Amulet paid for traffic.'),
            ans: decimal("ANS entry fees (the amulet the DSO archived on an entry's creation or renewal)."),
            expired: decimal(
              'Amulet the DSO expired once its holding fees had eaten it (Amulet_Expire, LockedAmulet_ExpireAmulet and their V2 forms): their initial amounts.',
            ),
          })
          .describe('Amulet burned, by kind.'),
        transfers: int64('Transfers (AmuletRules_Transfer exercises).'),
        transfer_volume: decimal('Amulet the transfers sent to parties other than their senders.'),
        active_parties: int64('Distinct parties with an activity of any kind in the period.'),
        supply: z
          .object({
            at: dateTime("The period's end: its last microsecond."),
            migration_id: int64('The migration whose ledger the instant reads (the newest begun by then).'),
            snapshot: dateTime('The ACS snapshot the figures start from (the newest at or before the instant); null: none.').nullable(),
            unlocked: decimal('Initial amounts of every Amulet active at the instant (before holding fees).'),
            locked: decimal('Initial amounts of every LockedAmulet active at the instant (before holding fees).'),
            total: decimal('unlocked + locked.'),
          })
          .nullable()
          .describe(
            "The amulet supply at the period's end, as GET /api/indexer/v0/network/supply answers it at that instant; null when the instant is before every migration.",
          ),
      }),
    )
    .describe('One entry per period of the range, oldest first, periods without activity included (zeros).'),
});
