/**
 * The removed Scan round aggregates (docs/api.md, "Round aggregates"), kept by the writer lock's holder
 * beside ingestion, never in the writer's batch transaction: every few seconds, the rounds closed since
 * the newest aggregated one are summed from the activity projection, a round per transaction, in round
 * order (src/store/round-aggregates-repository.ts). The API, on the primary or a replica, only reads
 * the rows. A round closes every few minutes on a live network, so a pass finds one round or none;
 * after an upgrade or a restore, the backlog is worked off a chunk at a time.
 */
import type { Logger } from '../internal/logger';
import type { Metrics } from '../internal/metrics';
import { sleep } from '../internal/sleep';
import type { Db } from '../store/pool';
import { aggregateClosedRounds, findRoundAggregationGap } from '../store/round-aggregates-repository';

/** Rounds per pass: a pass ends between two transactions, so a backlog never holds the job for long. */
const ROUNDS_PER_PASS = 200;

/** Aggregates every round closed so far; returns how many. */
export async function catchUpRoundAggregates(db: Db, logger: Logger, signal?: AbortSignal): Promise<number> {
  let total = 0;
  while (!signal?.aborted) {
    const rounds = await aggregateClosedRounds(db, ROUNDS_PER_PASS);
    total += rounds.length;
    if (rounds.length > 0) logger.debug({ from: String(rounds[0]), to: String(rounds.at(-1)) }, 'round aggregates: rounds aggregated');
    if (rounds.length < ROUNDS_PER_PASS) break;
  }
  return total;
}

/**
 * Says when the aggregation cannot go on: the next round has no ClosedMiningRound while a later one has
 * (a gap in the history). A warning once per missing round, and the gauge while it lasts, since nothing
 * else shows it: the round of latest data just stops moving. Returns the missing round, if any.
 */
export async function reportRoundAggregationGap(
  db: Db,
  logger: Logger,
  metrics: Metrics | undefined,
  warned?: bigint,
): Promise<bigint | undefined> {
  const gap = await findRoundAggregationGap(db);
  metrics?.roundAggregatesMissingRound.set(gap === undefined ? 0 : Number(gap.missing));
  if (gap !== undefined && gap.missing !== warned) {
    logger.warn(
      { missingRound: String(gap.missing), nextClosedRound: String(gap.nextClosed) },
      'round aggregates: waiting for a round whose ClosedMiningRound is not in the history, though a later round is closed; the aggregates go on once that round is ingested',
    );
  }
  return gap?.missing;
}

/** The loop of the lock holder, until `signal` aborts. */
export async function runRoundAggregation(
  db: Db,
  logger: Logger,
  signal: AbortSignal,
  metrics?: Metrics,
  intervalMs = 5000,
): Promise<void> {
  let warned: bigint | undefined;
  while (!signal.aborted) {
    try {
      await catchUpRoundAggregates(db, logger, signal);
      if (!signal.aborted) warned = await reportRoundAggregationGap(db, logger, metrics, warned);
    } catch (err) {
      if (signal.aborted) break;
      logger.error({ err }, 'round aggregates: aggregating a round failed; retrying');
    }
    await sleep(intervalMs, signal).catch(() => undefined);
  }
}
