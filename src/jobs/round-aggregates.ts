/**
 * The removed Scan round aggregates (docs/api.md, "Round aggregates"), kept by the writer lock's holder
 * beside ingestion, never in the writer's batch transaction: every few seconds, the rounds closed since
 * the newest aggregated one are summed from the activity projection, a round per transaction, in round
 * order (src/store/round-aggregates-repository.ts). The API, on the primary or a replica, only reads
 * the rows. A round closes every few minutes on a live network, so a pass finds one round or none;
 * after an upgrade or a restore, the backlog is worked off a chunk at a time.
 */
import type { Logger } from '../internal/logger';
import { sleep } from '../internal/sleep';
import type { Db } from '../store/pool';
import { aggregateClosedRounds } from '../store/round-aggregates-repository';

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

/** The loop of the lock holder, until `signal` aborts. */
export async function runRoundAggregation(db: Db, logger: Logger, signal: AbortSignal, intervalMs = 5000): Promise<void> {
  while (!signal.aborted) {
    try {
      await catchUpRoundAggregates(db, logger, signal);
    } catch (err) {
      if (signal.aborted) break;
      logger.error({ err }, 'round aggregates: aggregating a round failed; retrying');
    }
    await sleep(intervalMs, signal).catch(() => undefined);
  }
}
