/**
 * The Scan's round aggregates, deprecated and then removed by Splice (scan.yaml, tag `deprecated`),
 * read from the rounds the worker has aggregated (src/jobs/round-aggregates.ts):
 *       GET  /v0/aggregated-rounds
 *       GET  /v0/round-of-latest-data
 *       POST /v0/round-totals
 *       POST /v0/round-party-totals
 *       GET  /v0/rewards-collected[?round=N]
 *       GET  /v0/top-providers-by-app-rewards?round=N&limit=L
 *       GET  /v0/top-validators-by-validator-rewards?round=N&limit=L
 *       GET  /v0/top-validators-by-purchased-traffic?round=N&limit=L
 *
 * As HttpScanHandler and DbScanStore of the last release that had them: statuses and messages are
 * theirs. Its transaction-log parser no longer recorded balance changes, so the balance fields of the
 * round totals are zero (docs/api.md says why). The other removed aggregates are not served: docs/api.md.
 */
import { Router } from 'express';
import { z } from 'zod';
import { parseTimestamp, formatDateTime } from '../../domain/time';
import { badRequest, notFound } from '../../internal/errors';
import {
  findAggregatedRounds,
  findLatestRoundTotals,
  findRoundRewards,
  listRoundPartyTotals,
  listRoundTotals,
  topPartiesByPurchasedTraffic,
  topPartiesByRewards,
  type RoundTotalsRow,
} from '../../store/round-aggregates-repository';
import type { ApiContext } from '../context';
import { sendJson } from '../json-response';
import { mountOperations, operation, type OperationOf } from '../operation';
import { scanErrors } from './error-answers';
import { int64, queryInteger } from './params';

const ZERO = '0.0000000000';

// HttpScanHandler's answer when no round (or not the one asked for) has been aggregated.
const NOT_AGGREGATED = 'No data has been made available yet';
const NO_AGGREGATED_ROUNDS = 'No aggregated rounds found';

// ---------------------------------------------------------------------------------------------------
// Schemas (scan.yaml's names)

const RoundTotals = z
  .object({
    closed_round: int64,
    closed_round_effective_at: z.string().meta({ format: 'date-time' }),
    app_rewards: z.string(),
    validator_rewards: z.string(),
    change_to_initial_amount_as_of_round_zero: z.string(),
    change_to_holding_fees_rate: z.string(),
    cumulative_app_rewards: z.string(),
    cumulative_validator_rewards: z.string(),
    cumulative_change_to_initial_amount_as_of_round_zero: z.string(),
    cumulative_change_to_holding_fees_rate: z.string(),
    total_amulet_balance: z.string(),
  })
  .meta({ id: 'RoundTotals' });

const RoundPartyTotals = z
  .object({
    closed_round: int64,
    party: z.string(),
    app_rewards: z.string(),
    validator_rewards: z.string(),
    traffic_purchased: int64,
    traffic_purchased_cc_spent: z.string(),
    traffic_num_purchases: int64,
    cumulative_app_rewards: z.string(),
    cumulative_validator_rewards: z.string(),
    cumulative_change_to_initial_amount_as_of_round_zero: z.string(),
    cumulative_change_to_holding_fees_rate: z.string(),
    cumulative_traffic_purchased: int64,
    cumulative_traffic_purchased_cc_spent: z.string(),
    cumulative_traffic_num_purchases: int64,
  })
  .meta({ id: 'RoundPartyTotals' });

const RoundRangeRequest = (id: string) => z.object({ start_round: int64, end_round: int64 }).meta({ id });

const ListRoundTotalsResponse = z.object({ entries: z.array(RoundTotals) }).meta({ id: 'ListRoundTotalsResponse' });
const ListRoundPartyTotalsResponse = z.object({ entries: z.array(RoundPartyTotals) }).meta({ id: 'ListRoundPartyTotalsResponse' });
const GetAggregatedRoundsResponse = z.object({ start: int64, end: int64 }).meta({ id: 'GetAggregatedRoundsResponse' });
const GetRoundOfLatestDataResponse = z
  .object({ round: int64, effectiveAt: z.string().meta({ format: 'date-time' }) })
  .meta({ id: 'GetRoundOfLatestDataResponse' });
const GetRewardsCollectedResponse = z.object({ amount: z.string() }).meta({ id: 'GetRewardsCollectedResponse' });
const PartyAndRewards = z.object({ provider: z.string(), rewards: z.string() }).meta({ id: 'PartyAndRewards' });
const GetTopProvidersByAppRewardsResponse = z
  .object({ providersAndRewards: z.array(PartyAndRewards) })
  .meta({ id: 'GetTopProvidersByAppRewardsResponse' });
const GetTopValidatorsByValidatorRewardsResponse = z
  .object({ validatorsAndRewards: z.array(PartyAndRewards) })
  .meta({ id: 'GetTopValidatorsByValidatorRewardsResponse' });
const ValidatorPurchasedTraffic = z
  .object({
    validator: z.string(),
    numPurchases: int64,
    totalTrafficPurchased: int64,
    totalCcSpent: z.string(),
    lastPurchasedInRound: int64,
  })
  .meta({ id: 'ValidatorPurchasedTraffic' });
const GetTopValidatorsByPurchasedTrafficResponse = z
  .object({ validatorsByPurchasedTraffic: z.array(ValidatorPurchasedTraffic) })
  .meta({ id: 'GetTopValidatorsByPurchasedTrafficResponse' });

const RewardsCollectedQuery = z.object({
  round: queryInteger('an integer round').optional().describe('The round; omitted: every aggregated round.'),
});

const LeaderboardQuery = z.object({
  round: queryInteger('an integer round').describe('The round as of whose end to rank: the newest aggregated round.'),
  limit: queryInteger('an integer limit').describe('The most parties to list (an int32, at least 0).'),
});

// ---------------------------------------------------------------------------------------------------
// Rules

/** As HttpScanHandler.ensureValidRange: the checks, in its order, with its messages. */
async function ensureValidRange(context: ApiContext, start: number, end: number, maxRounds: number): Promise<void> {
  if (start < 0 || end < 0) throw badRequest(`rounds must be non-negative: start_round ${start}, end_round ${end}`);
  if (end < start) throw badRequest(`end_round ${end} must be >= start_round ${start}`);
  if (end - start + 1 > maxRounds) throw badRequest(`Cannot request more than ${maxRounds} rounds at a time`);
  const range = await findAggregatedRounds(context.db);
  if (!range) throw notFound(NO_AGGREGATED_ROUNDS);
  if (BigInt(start) < range.start || BigInt(end) > range.end) {
    throw badRequest(`Requested rounds range ${start}-${end} is outside of the available rounds range ${range.start}-${range.end}`);
  }
}

/** An int32 limit, at least 0 (Splice's query failed on a negative one). */
function limitOf(limit: bigint): number {
  if (limit < 0n || limit >= 2n ** 31n) throw badRequest('limit must be an int32 of at least 0');
  return Number(limit);
}

/**
 * As ScanStore.ensureAggregated and the leaderboards of the last release: data only as of the newest
 * aggregated round; a later round (or none aggregated) is "not yet computed"; an earlier one has none.
 */
async function leaderboard<T>(context: ApiContext, round: bigint, emptyMessage: string, read: () => Promise<T[]>): Promise<T[]> {
  const latest = await findLatestRoundTotals(context.db);
  if (!latest || round > latest.closedRound) throw notFound(`Data for round ${round} not yet computed`);
  const rows = round === latest.closedRound ? await read() : [];
  if (rows.length === 0) throw notFound(emptyMessage);
  return rows;
}

const effectiveAt = (r: RoundTotalsRow) => formatDateTime(parseTimestamp(r.effectiveAt));

// ---------------------------------------------------------------------------------------------------
// Operations

const aggregatedRounds = operation({
  method: 'get',
  path: '/v0/aggregated-rounds',
  summary: 'Deprecated: the first and the newest round whose aggregates are computed; 404 before the first.',
  deprecated: true,
  responses: { '200': { description: 'OK', body: GetAggregatedRoundsResponse }, ...scanErrors(404, 500) },
  handle: async ({ db }: ApiContext, _input, _req, res) => {
    const range = await findAggregatedRounds(db);
    if (!range) throw notFound(NO_AGGREGATED_ROUNDS);
    sendJson(res, { start: Number(range.start), end: Number(range.end) } satisfies z.input<typeof GetAggregatedRoundsResponse>);
  },
});

const roundOfLatestData = operation({
  method: 'get',
  path: '/v0/round-of-latest-data',
  summary: 'Deprecated: the newest aggregated round and the effective time of its ClosedMiningRound; 404 before the first.',
  deprecated: true,
  responses: { '200': { description: 'OK', body: GetRoundOfLatestDataResponse }, ...scanErrors(404, 500) },
  handle: async ({ db }: ApiContext, _input, _req, res) => {
    const latest = await findLatestRoundTotals(db);
    if (!latest) throw notFound(NOT_AGGREGATED);
    sendJson(res, { round: Number(latest.closedRound), effectiveAt: effectiveAt(latest) } satisfies z.input<
      typeof GetRoundOfLatestDataResponse
    >);
  },
});

const roundTotals = operation({
  method: 'post',
  path: '/v0/round-totals',
  summary:
    'Deprecated: per aggregated round, the app and validator rewards claimed in it and their running totals, for up to 200 rounds; the balance fields are zero (see docs/api.md).',
  deprecated: true,
  request: { body: RoundRangeRequest('ListRoundTotalsRequest') },
  responses: { '200': { description: 'OK', body: ListRoundTotalsResponse }, ...scanErrors(400, 404, 500) },
  handle: async (context: ApiContext, { body }, _req, res) => {
    await ensureValidRange(context, body.start_round, body.end_round, 200);
    const rows = await listRoundTotals(context.db, BigInt(body.start_round), BigInt(body.end_round));
    const entries = rows.map((r) => ({
      closed_round: Number(r.closedRound),
      closed_round_effective_at: effectiveAt(r),
      app_rewards: r.appRewards,
      validator_rewards: r.validatorRewards,
      change_to_initial_amount_as_of_round_zero: ZERO,
      change_to_holding_fees_rate: ZERO,
      cumulative_app_rewards: r.cumulativeAppRewards,
      cumulative_validator_rewards: r.cumulativeValidatorRewards,
      cumulative_change_to_initial_amount_as_of_round_zero: ZERO,
      cumulative_change_to_holding_fees_rate: ZERO,
      total_amulet_balance: ZERO,
    }));
    sendJson(res, { entries } satisfies z.input<typeof ListRoundTotalsResponse>);
  },
});

const roundPartyTotals = operation({
  method: 'post',
  path: '/v0/round-party-totals',
  summary:
    'Deprecated: per aggregated round and party with a reward claim or a traffic purchase in it, its figures and running totals, for up to 50 rounds.',
  deprecated: true,
  request: { body: RoundRangeRequest('ListRoundPartyTotalsRequest') },
  responses: { '200': { description: 'OK', body: ListRoundPartyTotalsResponse }, ...scanErrors(400, 404, 500) },
  handle: async (context: ApiContext, { body }, _req, res) => {
    await ensureValidRange(context, body.start_round, body.end_round, 50);
    const rows = await listRoundPartyTotals(context.db, BigInt(body.start_round), BigInt(body.end_round));
    const entries = rows.map((r) => ({
      closed_round: Number(r.closedRound),
      party: r.party,
      app_rewards: r.appRewards,
      validator_rewards: r.validatorRewards,
      traffic_purchased: Number(r.trafficPurchased),
      traffic_purchased_cc_spent: r.trafficPurchasedCcSpent,
      traffic_num_purchases: Number(r.trafficNumPurchases),
      cumulative_app_rewards: r.cumulativeAppRewards,
      cumulative_validator_rewards: r.cumulativeValidatorRewards,
      cumulative_change_to_initial_amount_as_of_round_zero: ZERO,
      cumulative_change_to_holding_fees_rate: ZERO,
      cumulative_traffic_purchased: Number(r.cumulativeTrafficPurchased),
      cumulative_traffic_purchased_cc_spent: r.cumulativeTrafficPurchasedCcSpent,
      cumulative_traffic_num_purchases: Number(r.cumulativeTrafficNumPurchases),
    }));
    sendJson(res, { entries } satisfies z.input<typeof ListRoundPartyTotalsResponse>);
  },
});

const rewardsCollected = operation({
  method: 'get',
  path: '/v0/rewards-collected',
  summary:
    'Deprecated: the app and validator rewards that transfers claimed in a round (by the round of the transfer), or in every aggregated round; 404 for a round not aggregated yet.',
  deprecated: true,
  request: { query: RewardsCollectedQuery },
  responses: { '200': { description: 'OK', body: GetRewardsCollectedResponse }, ...scanErrors(400, 404, 500) },
  handle: async ({ db }: ApiContext, { query }, _req, res) => {
    const latest = await findLatestRoundTotals(db);
    let amount: string;
    if (query.round === undefined) {
      // round_totals' running totals at its newest row: none before the first aggregated round.
      amount = latest ? addDecimals(latest.cumulativeAppRewards, latest.cumulativeValidatorRewards) : ZERO;
    } else {
      if (!latest || query.round > latest.closedRound) throw notFound(NOT_AGGREGATED);
      // A round before the first aggregated one has no row: 0, as Splice's getOrElse(0).
      amount = (await findRoundRewards(db, query.round)) ?? ZERO;
    }
    sendJson(res, { amount } satisfies z.input<typeof GetRewardsCollectedResponse>);
  },
});

/** a + b, both with ten decimals, written with ten decimals. */
function addDecimals(a: string, b: string): string {
  const units = (x: string) => BigInt(x.replace('.', ''));
  const sum = units(a) + units(b);
  const digits = sum.toString().padStart(11, '0');
  return `${digits.slice(0, -10)}.${digits.slice(-10)}`;
}

const topProviders = operation({
  method: 'get',
  path: '/v0/top-providers-by-app-rewards',
  summary:
    'Deprecated: the parties with the most app rewards claimed over every aggregated round, as of the newest one (the only round answered), most first.',
  deprecated: true,
  request: { query: LeaderboardQuery },
  responses: { '200': { description: 'OK', body: GetTopProvidersByAppRewardsResponse }, ...scanErrors(400, 404, 500) },
  handle: async (context: ApiContext, { query }, _req, res) => {
    const limit = limitOf(query.limit);
    const rows = await leaderboard(context, query.round, `No top providers by app rewards found for round ${query.round}`, () =>
      topPartiesByRewards(context.db, 'app_rewards', limit),
    );
    const providersAndRewards = rows.map((r) => ({ provider: r.party, rewards: r.rewards }));
    sendJson(res, { providersAndRewards } satisfies z.input<typeof GetTopProvidersByAppRewardsResponse>);
  },
});

const topValidatorsByRewards = operation({
  method: 'get',
  path: '/v0/top-validators-by-validator-rewards',
  summary:
    'Deprecated: the parties with the most validator rewards claimed over every aggregated round, as of the newest one (the only round answered), most first.',
  deprecated: true,
  request: { query: LeaderboardQuery },
  responses: { '200': { description: 'OK', body: GetTopValidatorsByValidatorRewardsResponse }, ...scanErrors(400, 404, 500) },
  handle: async (context: ApiContext, { query }, _req, res) => {
    const limit = limitOf(query.limit);
    const rows = await leaderboard(context, query.round, `No top validators by validator rewards found for round ${query.round}`, () =>
      topPartiesByRewards(context.db, 'validator_rewards', limit),
    );
    const validatorsAndRewards = rows.map((r) => ({ provider: r.party, rewards: r.rewards }));
    sendJson(res, { validatorsAndRewards } satisfies z.input<typeof GetTopValidatorsByValidatorRewardsResponse>);
  },
});

const topValidatorsByTraffic = operation({
  method: 'get',
  path: '/v0/top-validators-by-purchased-traffic',
  summary:
    'Deprecated: the parties that bought the most traffic over every aggregated round, as of the newest one (the only round answered), most first.',
  deprecated: true,
  request: { query: LeaderboardQuery },
  responses: { '200': { description: 'OK', body: GetTopValidatorsByPurchasedTrafficResponse }, ...scanErrors(400, 404, 500) },
  handle: async (context: ApiContext, { query }, _req, res) => {
    const limit = limitOf(query.limit);
    const rows = await leaderboard(context, query.round, `No top validators by purchased traffic found for round ${query.round}`, () =>
      topPartiesByPurchasedTraffic(context.db, limit),
    );
    const validatorsByPurchasedTraffic = rows.map((r) => ({
      validator: r.validator,
      numPurchases: Number(r.numPurchases),
      totalTrafficPurchased: Number(r.totalTrafficPurchased),
      totalCcSpent: r.totalCcSpent,
      lastPurchasedInRound: Number(r.lastPurchasedInRound),
    }));
    sendJson(res, { validatorsByPurchasedTraffic } satisfies z.input<typeof GetTopValidatorsByPurchasedTrafficResponse>);
  },
});

export const roundAggregatesOperations: readonly OperationOf<ApiContext>[] = [
  aggregatedRounds,
  roundOfLatestData,
  roundTotals,
  roundPartyTotals,
  rewardsCollected,
  topProviders,
  topValidatorsByRewards,
  topValidatorsByTraffic,
];

export function roundAggregatesRoutes(context: ApiContext): Router {
  return mountOperations(Router(), roundAggregatesOperations, context);
}
