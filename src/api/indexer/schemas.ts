/**
 * The answers of this indexer's own operations (router.ts). The web UI takes its types from here
 * (type-only imports), so that the page and the server read one description of each answer.
 */
import { z } from 'zod';
import { ACTIVITY_KINDS } from '../../domain/activities';
import { bool, dateTime, decimal, int32, int64, str } from '../schema-kit';

export const SnapshotsPage = z.object({
  snapshots: z.array(
    z.object({
      migration_id: int64(),
      record_time: dateTime('As /v0/state/acs/snapshot-timestamp reports it.'),
      contract_count: int64('Active contracts in the snapshot.'),
      unlocked_amulet: decimal('Sum of the Amulet amounts (as created, before holding fees).'),
      locked_amulet: decimal('Sum of the LockedAmulet amounts (as created, before holding fees).'),
    }),
  ),
  next_page_token: z.string().nullable().describe('Set when the page is full: pass it as page_token for the next page.'),
});

export const HourlyUpdates = z.object({
  migration_id: int64('Null when the database holds no update.').nullable(),
  buckets: z
    .array(z.object({ hour: dateTime('Start of the UTC hour.'), updates: int64() }))
    .describe('As many as hours asked for; empty when migration_id is null.'),
});

const nullableDecimal = (description: string) => decimal(description).nullable();

export const ActivityRecord = z
  .object({
    migration_id: int64(),
    record_time: dateTime("The update's record time, six fractional digits."),
    update_id: str(),
    event_id: str('The exercise the activity was read from.'),
    kind: z
      .enum(ACTIVITY_KINDS)
      .describe(
        'transfer, mint, tap; reward claims app_reward, validator_reward, sv_reward, validator_faucet (liveness), unclaimed_reward (unclaimed activity records spent); lock, unlock, owner_expire_lock; ' +
          "expire (the DSO expired an amulet of the party: amount and burned its initial amount, round the V1 summary's, subject the amulet's contract id, detail locked for a LockedAmulet); traffic_purchase; " +
          'ans_entry (the user paying for an ANS entry, then the DSO that burned the fee: amount the fee burned, also burned on leg 0, subject the name, expires_at the expiry; outcome created or renewed); ' +
          'transfer_command, transfer_instruction, allocation (created: sender then receiver with the amount, subject the contract id, expires_at the deadline; ' +
          'then sent, failed, withdrawn or expired for commands, the sender only with amount 0; accepted, rejected or withdrawn for instructions and executed, cancelled or withdrawn for allocations, the acting party then the owners of the holdings it returns, with their amounts; ' +
          'a token-standard V2 allocation: created by its authorizer, then the owners of its other sides, detail the settlement id; settled in a batch, the executor then the owners of the holdings returned, detail the settlement id); ' +
          'vote (a ballot: the voter SV, subject the request, detail the action, outcome accept or reject); vote_result (the DSO then each voter: outcome accepted, rejected or expired, expires_at when an accepted action takes effect). docs/ingestion.md, "Activities", has the whole mapping.',
      ),
    leg: int32(
      "0: the party that acted (sender, owner, claimant, buyer); 1 and up: the others (receivers); a lock's leg is its output's index.",
    ),
    party: str(),
    round: int64('The mining round the result names.').nullable(),
    amount: decimal(
      "The party's amount: sent to others (a sender), received (a receiver), minted, tapped, claimed, locked or released, paid for traffic.",
    ),
    fees: decimal("Fees the party paid: a sender's share of the output fees and its change fee; a receiver's share."),
    holding_fees: nullableDecimal("Holding fees of the sender's inputs (transfers and traffic purchases)."),
    burned: nullableDecimal(
      "What the activity burned in all (leg 0 of transfers and traffic purchases; an ANS entry's fee; an expired amulet).",
    ),
    counterparties: z.array(z.string()).describe("A sender's receivers, a receiver's sender, a lock's holders."),
    provider: str('The app provider of a transfer.').nullable(),
    featured: bool('Whether the transfer used a featured-app right.').nullable(),
    via: str("The choice whose exercise led to the activity's (null at a root).").nullable(),
    traffic: int64('Traffic bought, in bytes.').nullable(),
    subject: str(
      "What the activity is about: an ANS entry's name; a vote request's id (its tracking contract id); a transfer command's, instruction's or allocation's contract id.",
    ).nullable(),
    detail: str("The action voted on; a failed transfer command's reason; an allocation's settlement id.").nullable(),
    outcome: str(
      'The step within the kind: created, renewed, sent, failed, accepted, rejected, withdrawn, expired, executed, settled, cancelled, accept, reject.',
    ).nullable(),
    expires_at: dateTime(
      "An ANS entry's expiry; a transfer command's, instruction's or allocation's deadline; when an accepted vote's action takes effect.",
    ).nullable(),
  })
  .meta({ id: 'IndexerActivity' });

export const ActivityPage = z.object({
  activities: z.array(ActivityRecord),
  next_page_token: z.string().nullable().describe('Set when the page is full: pass it as page_token for the next page.'),
});

// The series' answers are declared beside their routes; the web UI takes every answer type from this file.
export type { DailyMintBurn, NetworkSeries, RewardLeaderboard } from './series-schemas';
/** A party's holdings at one instant, in the figures of the Scan's holdings summary (balance-routes.ts). */
const BalanceFigures = {
  migration_id: int64('The migration whose ledger the instant reads (the newest begun by then); null before any.').nullable(),
  as_of_round: int64('The round the holding fees are computed as of; null when none was open (fees are then zero).').nullable(),
  holdings: int64('Amulet and LockedAmulet contracts the party owns at the instant.'),
  total_unlocked_coin: decimal('Initial amounts of its Amulet holdings.'),
  total_locked_coin: decimal('Initial amounts of its LockedAmulet holdings.'),
  total_coin_holdings: decimal('total_unlocked_coin + total_locked_coin.'),
  accumulated_holding_fees_unlocked: decimal('Holding fees of the Amulet holdings as of as_of_round, as the Scan computes them.'),
  accumulated_holding_fees_locked: decimal('Holding fees of the LockedAmulet holdings as of as_of_round.'),
  accumulated_holding_fees_total: decimal(),
  total_available_coin: decimal('total_unlocked_coin - accumulated_holding_fees_unlocked.'),
};

export const PartyBalance = z.object({
  party: str(),
  at: dateTime('The instant: holdings created at or before it and archived after it.'),
  ...BalanceFigures,
});

export const PartyDailyBalances = z.object({
  party: str(),
  days: z
    .array(z.object({ day: str('The UTC day, YYYY-MM-DD.'), at: dateTime("The day's last microsecond."), ...BalanceFigures }))
    .describe('One entry per UTC day of the range, oldest first.'),
});

export const NetworkSupply = z.object({
  at: dateTime('The instant: holdings created at or before it and archived after it.'),
  migration_id: int64('The migration whose ledger the instant reads (the newest begun by then); null before any.').nullable(),
  snapshot: dateTime('The ACS snapshot the figures start from (the newest at or before the instant); null: none.').nullable(),
  unlocked: decimal('Initial amounts of every Amulet active at the instant (before holding fees).'),
  locked: decimal('Initial amounts of every LockedAmulet active at the instant (before holding fees).'),
  total: decimal('unlocked + locked.'),
  since_snapshot: z
    .object({
      minted: decimal('Mints, taps and rewards claimed with record time in (snapshot, at].'),
      burned: decimal('Fees, holding fees and traffic paid with record time in (snapshot, at].'),
    })
    .describe('From the activity projection; over (-infinity, at] of the migration when snapshot is null.'),
  cumulative: z
    .object({
      minted: z
        .object({
          total: decimal('Everything minted: the sum of the fields below.'),
          mint: decimal(),
          tap: decimal(),
          app_reward: decimal('App rewards claimed (minted when a transfer or traffic purchase takes the coupon as an input).'),
          validator_reward: decimal(),
          sv_reward: decimal(),
          validator_faucet: decimal('Validator liveness (faucet) rewards claimed.'),
        })
        .describe('Amulet minted, by kind, as the daily mint and burn series counts it.'),
      burned: z
        .object({
          total: decimal('Everything burned: the sum of the fields below.'),
          fees: decimal('Transfer and traffic purchase fees (output and change fees).'),
          holding_fees: decimal('Holding fees of the amulet spent by transfers and traffic purchases.'),
          traffic: decimal('Amulet paid for traffic.'),
          ans: decimal('ANS entry fees, which the DSO burns.'),
          expired: decimal(
            'Amulet the DSO expired once its holding fees had eaten it (Amulet_Expire, LockedAmulet_ExpireAmulet and their V2 forms): the initial amounts of the amulets that left the supply.',
          ),
        })
        .describe('Amulet burned, by kind.'),
      allowed_mint: decimal(
        "What the issuance curve let the rounds that started issuing by the instant mint: per round, amuletToIssuePerYear / (365 days / tickDuration) from the round's configuration, as AmuletRules_MiningRound_StartIssuing computes it (all tranches, before they are split). Null when a round's configuration could not be read.",
      ).nullable(),
      issuing_rounds: int64('The rounds allowed_mint counts: IssuingMiningRound contracts created (not imported) by the instant.'),
    })
    .nullable()
    .describe(
      'Over the whole history ingested up to the instant: every earlier migration, and this one up to the instant. Null when unknown: the snapshot has no stored totals (history stored before they existed, until `scan-indexer backfill-supply-totals` has run, or before the first snapshot retention kept).',
    ),
});
