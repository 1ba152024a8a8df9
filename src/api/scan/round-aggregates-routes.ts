/**
 * The Scan's round aggregates, deprecated and then removed by Splice (scan.yaml, tag `deprecated`),
 * computed from the activity projection:
 *       GET /v0/rewards-collected[?round=N]
 *
 * As HttpScanHandler.getRewardsCollected and ScanStore's round_totals of the last release that had it:
 * the app and validator rewards claimed as transfer inputs in a round (by the transfer's round), or in
 * every round up to the newest closed one without `round`; a round after it is not aggregated yet (404).
 * The other removed aggregates are not served: docs/api.md says why.
 */
import { Router } from 'express';
import { z } from 'zod';
import { notFound } from '../../internal/errors';
import { findLatestClosedRound, sumRewardsCollected } from '../../store/round-aggregates-repository';
import type { ApiContext } from '../context';
import { sendJson } from '../json-response';
import { mountOperations, operation, type OperationOf } from '../operation';
import { scanErrors } from './error-answers';
import { queryInteger } from './params';

const RewardsCollectedQuery = z.object({
  round: queryInteger('an integer round').optional().describe('The round; omitted: every round up to the newest closed one.'),
});

const GetRewardsCollectedResponse = z.object({ amount: z.string() }).meta({ id: 'GetRewardsCollectedResponse' });

// HttpScanHandler's answer when no round (or not the one asked for) has been aggregated.
const NOT_AGGREGATED = 'No data has been made available yet';

const rewardsCollected = operation({
  method: 'get',
  path: '/v0/rewards-collected',
  summary:
    'Deprecated: the app and validator rewards that transfers claimed in a round (by the round of the transfer), or in every round up to the newest closed one; 404 for a round not closed yet.',
  deprecated: true,
  request: { query: RewardsCollectedQuery },
  responses: { '200': { description: 'OK', body: GetRewardsCollectedResponse }, ...scanErrors(400, 404, 500) },
  handle: async ({ db }: ApiContext, { query }, _req, res) => {
    const latest = await findLatestClosedRound(db);
    let amount: string;
    if (query.round === undefined) {
      // As round_totals' cumulative figures at its newest row: none before the first closed round.
      amount = latest === undefined ? '0.0000000000' : await sumRewardsCollected(db, 0n, latest);
    } else {
      if (latest === undefined || query.round > latest) throw notFound(NOT_AGGREGATED);
      amount = await sumRewardsCollected(db, query.round, query.round);
    }
    sendJson(res, { amount } satisfies z.input<typeof GetRewardsCollectedResponse>);
  },
});

export const roundAggregatesOperations: readonly OperationOf<ApiContext>[] = [rewardsCollected];

export function roundAggregatesRoutes(context: ApiContext): Router {
  return mountOperations(Router(), roundAggregatesOperations, context);
}
