/**
 * Skip-and-count (docs/ingestion.md, "Activities"): a recognised exercise whose result lacks what its
 * activity needs is skipped by the writer, with a warning naming the update, choice and reason, and
 * scan_indexer_activities_skipped_total{choice}; the update is stored and ingestion goes on.
 */
import { Writable } from 'node:stream';
import type { ExercisedEvent, TransactionUpdate } from '../../../src/domain/items';
import { createFileSource } from '../../../src/ingest/sources/file-source';
import { runWorker } from '../../../src/ingest/worker';
import { createLogger } from '../../../src/internal/logger';
import { createMetrics } from '../../../src/internal/metrics';
import { useTestDatabase } from '../../support/database/database';
import { simulatedItems, writeItems } from '../../support/items/simulated-network';

describe('an activity that cannot be derived', () => {
  const t = useTestDatabase();

  it('is skipped, logged and counted; its update is stored and the writer goes on', async () => {
    const items = simulatedItems({ seed: 'activity-skip', updates: 400, migrations: 1, meanUpdateGapMs: 30_000 });
    // The first transfer whose transaction has nothing else an activity is read from: its result loses the summary.
    const broken = items.findIndex((i) => {
      const tx = i.update as TransactionUpdate | null;
      if (!tx || !('events_by_id' in tx)) return false;
      const choices = Object.values(tx.events_by_id).flatMap((e) => (e.event_type === 'exercised_event' ? [e.choice] : []));
      return (
        choices.includes('AmuletRules_Transfer') &&
        choices.every((c) => ['AmuletRules_Transfer', 'Archive', 'TransferPreapproval_Send'].includes(c))
      );
    });
    expect(broken).toBeGreaterThan(0);
    const tx = items[broken]!.update as TransactionUpdate;
    const [eventId, transfer] = Object.entries(tx.events_by_id).find(
      ([, e]) => e.event_type === 'exercised_event' && e.choice === 'AmuletRules_Transfer',
    ) as [string, ExercisedEvent];
    delete (transfer.exercise_result as Record<string, unknown>).summary;

    const lines: { level: number; msg: string; updateId?: string; eventId?: string; choice?: string; reason?: string }[] = [];
    const logger = createLogger(
      'warn',
      'scan-indexer',
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as (typeof lines)[number]);
          done();
        },
      }),
    );
    const metrics = createMetrics({ processMetrics: false });
    await runWorker(
      { db: t.db, pool: t.pool, source: createFileSource(writeItems(items)), logger, metrics, batchSize: 100, batchMaxWaitMs: 100 },
      new AbortController().signal,
    );

    const updates = items.filter((i) => i.update).length;
    const stored = await t.pool.query<{ n: string }>('select count(*)::text as n from updates');
    expect(Number(stored.rows[0]!.n)).toBe(updates);
    const mine = await t.pool.query('select kind from activities where update_id = $1', [tx.update_id]);
    expect(mine.rows).toEqual([]);
    // The transfers of the other transactions are there.
    const others = await t.pool.query<{ n: string }>("select count(*)::text as n from activities where kind = 'transfer'");
    expect(Number(others.rows[0]!.n)).toBeGreaterThan(0);
    expect(lines.filter((l) => l.msg === 'activity skipped: it cannot be derived')).toEqual([
      expect.objectContaining({
        level: 40,
        updateId: tx.update_id,
        eventId,
        choice: 'AmuletRules_Transfer',
        reason: 'summary must be a record',
      }),
    ]);
    expect((await metrics.activitiesSkipped.get()).values).toEqual([{ labels: { choice: 'AmuletRules_Transfer' }, value: 1 }]);
  }, 120_000);
});
