/**
 * The reward-accounting operations of CIP-0104 (scan.yaml, tag `internal`, "subject to change"):
 *       GET /v0/internal/reward-accounting-process/rounds/earliest-available
 *       GET /v0/internal/reward-accounting-process/rounds/{round_number}/activity-totals
 *       GET /v0/internal/reward-accounting-process/rounds/{round_number}/root-hash
 *       GET /v0/internal/reward-accounting-process/rounds/{round_number}/batches/{batch_hash}
 *
 * An SV's Scan answers them from its own reward computation: per round, once its app activity records
 * are complete (from the round its verdict ingestion began), it sums them per provider, converts the
 * weights to minting allowances with the round's OpenMiningRound inputs (issuance, amulet and traffic
 * price, the CIP-0104 `rewardConfig`: coupon threshold and batch size; Daml Numeric 10 arithmetic) and
 * hashes them into a tree of batches. This indexer performs none of that computation, so it does not
 * answer from its own data: a mirror asks its upstream Scans (./upstream-answers.ts), any other indexer
 * answers 501 naming what the answer needs, and what its history says of the round's inputs (no
 * OpenMiningRound, or one without the CIP-0104 fields). Never a status or value of its own making.
 */
import { Router } from 'express';
import { z } from 'zod';
import type { Json } from '../../domain/json';
import { missingRewardInputs } from '../../domain/reward-accounting-inputs';
import { HttpError } from '../../internal/errors';
import { findNewestOpenRoundPayload } from '../../store/contract-repository';
import type { Db } from '../../store/pool';
import type { ApiContext } from '../context';
import { mountOperations, operation, type OperationOf, type ResponseDeclaration } from '../operation';
import { ErrorResponse, int64, str } from '../schema-kit';
import { scanErrors } from './error-answers';
import { queryInteger } from './params';
import { answeredByUpstreams, fromUpstreams } from './surface-routes';
import { upstreamAnswersOf, type UpstreamAnswers } from './upstream-answers';

interface RewardAccountingServices {
  db: Db;
  /** A mirror's upstream Scans; undefined on any other indexer. */
  upstreams: UpstreamAnswers | undefined;
}

const PREFIX = '/v0/internal/reward-accounting-process/rounds';

// Response bodies as scan.yaml declares them; a mirror checks its upstreams' answers against them.
const EarliestAvailableRoundResponse = z
  .object({ earliest_round: int64() })
  .meta({ id: 'GetRewardAccountingEarliestAvailableRoundResponse' });

/** The answers without totals: Undetermined (not computed yet) or CannotProvide (ask other Scans, as an SV does). */
const StatusOnly = z.object({ status: z.enum(['Undetermined', 'CannotProvide']) });

const ActivityTotalsResponse = z
  .union([
    z.object({
      status: z.literal('Ok'),
      round_number: int64(),
      total_app_activity_weight: int64("The round's app activity weight, in bytes of traffic."),
      active_parties_count: int64(),
      activity_records_count: int64(),
      total_app_reward_minting_allowance: str('The total of the minting allowances granted to app providers.'),
      total_app_reward_thresholded: str('Minting allowances below the app reward threshold, burned.'),
      total_app_reward_unclaimed: str('App rewards not attributed because of the cap per activity.'),
      rewarded_app_provider_parties_count: int64(),
    }),
    StatusOnly,
  ])
  .meta({ id: 'GetRewardAccountingActivityTotalsResponse' });

const RootHashResponse = z
  .union([z.object({ status: z.literal('Ok'), round_number: int64(), root_hash: str('Hex-encoded root hash.') }), StatusOnly])
  .meta({ id: 'GetRewardAccountingRootHashResponse' });

const BatchResponse = z
  .union([
    z.object({ batch_type: z.literal('BatchOfBatches'), child_hashes: z.array(z.string()).describe('Hex-encoded child batch hashes.') }),
    z.object({
      batch_type: z.literal('BatchOfMintingAllowances'),
      minting_allowances: z.array(z.object({ provider: z.string(), amount: z.string() })).describe('Party and amount pairs.'),
    }),
  ])
  .meta({ id: 'GetRewardAccountingBatchResponse' });

const RoundParams = z.object({ round_number: queryInteger('an integer round number') });
const BatchParams = RoundParams.extend({
  batch_hash: z
    .string()
    .regex(/^(?:[0-9a-fA-F]{2})+$/, { error: 'expected a hex-encoded batch hash' })
    .describe('Hex-encoded batch hash.'),
});

const ok = (body: z.ZodType) => ({ '200': { description: 'OK', body } });

const NOT_COMPUTED =
  "this indexer does not compute CIP-0104 reward accounting; an SV's Scan computes it from the round's complete app activity records and the reward inputs of the round's OpenMiningRound (issuance, amulet and traffic price, and the CIP-0104 rewardConfig: app reward coupon threshold and batch size)";

const notComputed: Record<string, ResponseDeclaration> = {
  '501': {
    description: `Not implemented here (not on a mirror): ${NOT_COMPUTED}. The message names what the answer needs.`,
    body: ErrorResponse,
  },
};

const notImplemented = (message: string) => new HttpError(501, message);

/** What the ingested history says of a round's reward inputs, to the end of a 501's message. */
async function roundInputs(db: Db, round: bigint): Promise<string> {
  const payload = await findNewestOpenRoundPayload(db, round);
  if (payload === undefined) return `; no OpenMiningRound of round ${round} has been ingested`;
  const missing = missingRewardInputs(JSON.parse(payload) as Json);
  if (missing.length === 0) return '';
  return `; round ${round}'s OpenMiningRound carries no ${missing.join(' and no ')}, which the computation reads (rounds before CIP-0104 have neither)`;
}

const earliestAvailable = operation({
  method: 'get',
  path: `${PREFIX}/earliest-available`,
  summary:
    'CIP-0104: the earliest round whose app activity records are complete (404 when none): on a mirror, as its upstream Scans answer; elsewhere 501.',
  responses: { ...ok(EarliestAvailableRoundResponse), ...scanErrors(404, 500), ...notComputed, ...fromUpstreams },
  handle: async ({ upstreams }: RewardAccountingServices, _input, _req, res) => {
    if (await answeredByUpstreams(upstreams, `${PREFIX}/earliest-available`, EarliestAvailableRoundResponse, res)) return;
    throw notImplemented(
      `The earliest round available for reward accounting is an SV Scan's own state (the first round whose app activity records it holds completely, from when its verdict ingestion began): ${NOT_COMPUTED}.`,
    );
  },
});

const activityTotals = operation({
  method: 'get',
  path: `${PREFIX}/{round_number}/activity-totals`,
  summary:
    "CIP-0104: a round's app activity totals and minting allowance totals (status Ok, Undetermined or CannotProvide): on a mirror, as its upstream Scans answer; elsewhere 501.",
  request: { params: RoundParams },
  responses: { ...ok(ActivityTotalsResponse), ...scanErrors(400, 404, 500), ...notComputed, ...fromUpstreams },
  handle: async ({ db, upstreams }: RewardAccountingServices, { params }, _req, res) => {
    const round = params.round_number;
    if (await answeredByUpstreams(upstreams, `${PREFIX}/${round}/activity-totals`, ActivityTotalsResponse, res)) return;
    throw notImplemented(
      `The reward accounting totals of round ${round} need the round's minting allowances: ${NOT_COMPUTED}${await roundInputs(db, round)}.`,
    );
  },
});

const rootHash = operation({
  method: 'get',
  path: `${PREFIX}/{round_number}/root-hash`,
  summary:
    "CIP-0104: the root hash of a round's reward batches (status Ok, Undetermined or CannotProvide): on a mirror, as its upstream Scans answer; elsewhere 501.",
  request: { params: RoundParams },
  responses: { ...ok(RootHashResponse), ...scanErrors(400, 404, 500), ...notComputed, ...fromUpstreams },
  handle: async ({ db, upstreams }: RewardAccountingServices, { params }, _req, res) => {
    const round = params.round_number;
    if (await answeredByUpstreams(upstreams, `${PREFIX}/${round}/root-hash`, RootHashResponse, res)) return;
    throw notImplemented(
      `The root hash of round ${round} is the hash of its tree of minting allowance batches: ${NOT_COMPUTED}${await roundInputs(db, round)}.`,
    );
  },
});

const batchByHash = operation({
  method: 'get',
  path: `${PREFIX}/{round_number}/batches/{batch_hash}`,
  summary:
    'CIP-0104: a reward batch of a round by its hash, child hashes or minting allowances (404 for an unknown hash): on a mirror, as its upstream Scans answer; elsewhere 501.',
  request: { params: BatchParams },
  responses: { ...ok(BatchResponse), ...scanErrors(400, 404, 500), ...notComputed, ...fromUpstreams },
  handle: async ({ db, upstreams }: RewardAccountingServices, { params }, _req, res) => {
    const round = params.round_number;
    const hash = params.batch_hash;
    if (await answeredByUpstreams(upstreams, `${PREFIX}/${round}/batches/${hash}`, BatchResponse, res)) return;
    throw notImplemented(
      `The reward batch ${hash} of round ${round} is a node of the round's tree of minting allowance batches: ${NOT_COMPUTED}${await roundInputs(db, round)}.`,
    );
  },
});

export const rewardAccountingOperations: readonly OperationOf<RewardAccountingServices>[] = [
  earliestAvailable,
  activityTotals,
  rootHash,
  batchByHash,
];

export function rewardAccountingRoutes(context: ApiContext): Router {
  return mountOperations(Router(), rewardAccountingOperations, { db: context.db, upstreams: upstreamAnswersOf(context.config) });
}
