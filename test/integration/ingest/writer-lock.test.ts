/** One writer at a time: a second worker waits as a standby and takes over when the first stops. */
import { sql } from 'kysely';
import { createLogger } from '../../../src/internal/logger';
import type { Source, SourceItem } from '../../../src/ingest/source';
import { runWorker } from '../../../src/ingest/worker';
import { useTestDatabase } from '../../support/database/database';
import { created, transaction } from '../../support/items/hand-items';

/** Endless source: one transaction every 20 ms, resuming after the checkpointed count. */
function tickingSource(): Source {
  return {
    stream: 'ticking',
    async *read(from: string | undefined, signal: AbortSignal): AsyncIterable<SourceItem> {
      for (let n = Number(from ?? 0) + 1; !signal.aborted; n++) {
        await new Promise((r) => setTimeout(r, 20));
        const time = new Date(Date.UTC(2025, 0, 1, 0, 0, n)).toISOString().replace('.000Z', '.000000Z');
        yield { item: transaction(`u${n}`, time, [created(`u${n}`, 0, `c${n}`)]), position: String(n), origin: `tick ${n}` };
      }
    },
  };
}

describe('writer lock', () => {
  const t = useTestDatabase();

  it('keeps a second worker on standby until the first stops, then it resumes at the checkpoint', async () => {
    const options = {
      db: t.db,
      pool: t.pool,
      source: tickingSource(),
      logger: createLogger('silent'),
      batchSize: 5,
      batchMaxWaitMs: 50,
      lockPollMs: 50,
    };
    const first = new AbortController();
    const second = new AbortController();
    const firstRun = runWorker(options, first.signal);
    await new Promise((r) => setTimeout(r, 400));
    const secondRun = runWorker(options, second.signal);
    await new Promise((r) => setTimeout(r, 400));
    const whileStandby = await sql<{ n: number }>`select count(*)::int as n from updates`.execute(t.db);

    first.abort();
    const firstResult = await firstRun;
    expect(firstResult.items).toBeGreaterThan(0);
    // The standby writes nothing while the first holds the lock: all rows so far are the first's.
    expect(whileStandby.rows[0]!.n).toBeLessThanOrEqual(firstResult.items);

    // The standby takes the lock within its poll and writes; on a loaded machine that can take more than a
    // fixed wait, so wait for its first rows (up to 10 s), then stop it.
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const now = await sql<{ n: number }>`select count(*)::int as n from updates`.execute(t.db);
      if (now.rows[0]!.n > firstResult.items) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    second.abort();
    const secondResult = await secondRun;
    expect(secondResult.items).toBeGreaterThan(0);

    const total = await sql<{ n: number }>`select count(*)::int as n from updates`.execute(t.db);
    // No gap and no duplicate: the standby continued exactly where the first stopped.
    expect(total.rows[0]!.n).toBe(firstResult.items + secondResult.items);
    const checkpoint = await t.db.selectFrom('ingest_checkpoints').selectAll().executeTakeFirstOrThrow();
    expect(checkpoint.position).toBe(String(firstResult.items + secondResult.items));
  });
});
