/**
 * Lowering the CPU priority of one thread of `start` (API_NICE for its main thread, which serves the API;
 * INGEST_NICE for its worker thread). On Linux a nice value belongs to a thread, not to a process
 * (setpriority(2), section BUGS), so each part of the one process can yield apart; threads a thread
 * starts later (libuv's pool) inherit its value. Elsewhere only a whole process can be reniced, so the
 * setting is skipped. Separate processes (`serve`, `ingest`) are weighed by what runs them: nice(1),
 * docker-compose.yml's cpu_shares, the Helm chart's CPU requests.
 */
import os from 'node:os';

/** What was done, for the log. */
export type PriorityOutcome = { outcome: 'unchanged' } | { outcome: 'lowered'; nice: number } | { outcome: 'skipped'; reason: string };

/**
 * Sets the calling thread's nice value; 0 leaves it alone, as does a value below the current one (raising
 * a priority needs a privilege this does not ask for).
 */
export function lowerThreadPriority(nice: number): PriorityOutcome {
  if (nice === 0) return { outcome: 'unchanged' };
  if (process.platform !== 'linux') return { outcome: 'skipped', reason: `a thread's priority is its process's on ${process.platform}` };
  try {
    const current = os.getPriority(0);
    if (current >= nice) return { outcome: 'skipped', reason: `already at nice ${current}` };
    // Linux: setpriority(PRIO_PROCESS, 0) is the calling thread.
    os.setPriority(nice);
    return { outcome: 'lowered', nice };
  } catch (err) {
    return { outcome: 'skipped', reason: (err as Error).message };
  }
}
