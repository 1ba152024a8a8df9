/**
 * One writer at a time: a session-level advisory lock on a dedicated
 * connection. A second worker polls for it and takes over when the holder's
 * session ends (its process died or its connection dropped).
 */
import type pg from 'pg';
import { sleep } from '../internal/sleep';

const WRITER_LOCK_KEY = '7231004119';

export interface WriterLock {
  release(): Promise<void>;
}

export async function acquireWriterLock(
  pool: pg.Pool,
  signal: AbortSignal,
  options: { pollMs: number; onWait?: () => void; onLost?: (err: Error) => void },
): Promise<WriterLock | undefined> {
  let waited = false;
  while (!signal.aborted) {
    const client = await pool.connect();
    let held = false;
    try {
      const r = await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1) as ok', [WRITER_LOCK_KEY]);
      held = r.rows[0]?.ok === true;
    } finally {
      if (!held) client.release();
    }
    if (held) {
      // A dropped session releases the lock: the holder must stop writing, not crash on an unhandled 'error'.
      client.on('error', (err: Error) => options.onLost?.(err));
      return {
        release: async () => {
          try {
            await client.query('select pg_advisory_unlock($1)', [WRITER_LOCK_KEY]);
            client.release();
          } catch {
            client.release(true);
          }
        },
      };
    }
    if (!waited) options.onWait?.();
    waited = true;
    await sleep(options.pollMs, signal);
  }
  return undefined;
}
