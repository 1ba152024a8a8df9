/** Running an ingestion command to its end through SIGKILLs, for the crash-safety tests. */
import { Prng } from '../../src/simulator/prng';
import type { CliExit } from '../support/cli-process';

export interface KilledRuns {
  kills: number;
  runs: number;
}

/**
 * Runs `run` again and again, killing it `kills` times at moments drawn from `seed` between 300 ms
 * and `300 ms + spanMs` after each start, until a run after the last kill ends by itself (with code 0). A run that ends before its kill is due has nothing left to interrupt: `reset`
 * empties its database and the killing goes on.
 */
export async function runThroughKills(
  run: (killAfterMs: number | undefined) => Promise<CliExit>,
  options: { kills: number; spanMs: number; seed: string; reset: () => Promise<void> },
): Promise<KilledRuns> {
  const rng = new Prng(options.seed);
  let kills = 0;
  let runs = 0;
  for (;;) {
    runs += 1;
    const result = await run(kills < options.kills ? 300 + rng.int(0, Math.max(1, Math.floor(options.spanMs))) : undefined);
    if (result.signal === 'SIGKILL') {
      kills += 1;
      continue;
    }
    // Its output is shown only when it fails.
    expect({ code: result.code, stderr: result.code === 0 ? '' : result.stderr }).toEqual({ code: 0, stderr: '' });
    if (kills >= options.kills) return { kills, runs };
    await options.reset();
  }
}
