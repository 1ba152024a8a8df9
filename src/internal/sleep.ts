/** Waits `ms`, or less when `signal` aborts (never rejects). */
import { setTimeout as delay } from 'node:timers/promises';

export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await delay(ms, undefined, signal ? { signal } : undefined);
  } catch (err) {
    if (!signal?.aborted) throw err;
  }
}
