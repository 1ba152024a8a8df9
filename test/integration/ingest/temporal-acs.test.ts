/**
 * The temporal ACS equals a naive replay of the item stream at randomly
 * sampled (migration, record time) points. The replay here is independent of
 * the writer: a set of contract ids per migration, creates added and consumed
 * contracts removed, transaction by transaction.
 */
import { sql } from 'kysely';
import type { CanonicalItem } from '../../../src/domain/items';
import { createLogger } from '../../../src/internal/logger';
import { createFileSource } from '../../../src/ingest/sources/file-source';
import { runWorker } from '../../../src/ingest/worker';
import { useTestDatabase } from '../../support/database/database';
import { simulatedItems, writeItems } from '../../support/items/simulated-network';

type Key = { migration: number; time: string };

function keyOf(item: CanonicalItem): Key {
  const u = item.update;
  if (u) return { migration: 'events_by_id' in u ? u.migration_id : u.event.migration_id, time: u.record_time };
  return { migration: item.verdict!.migration_id, time: item.verdict!.record_time };
}

const atOrBefore = (a: Key, b: Key) => a.migration < b.migration || (a.migration === b.migration && a.time <= b.time);

function replay(items: CanonicalItem[], at: Key): Set<string> {
  const active = new Set<string>();
  for (const item of items) {
    const key = keyOf(item);
    if (!atOrBefore(key, at)) break;
    if (key.migration !== at.migration || !item.update) continue;
    const u = item.update;
    if ('events_by_id' in u) {
      const events = Object.values(u.events_by_id);
      for (const e of events) if (e.event_type === 'created_event') active.add(e.contract_id);
      for (const e of events) if (e.event_type === 'exercised_event' && e.consuming) active.delete(e.contract_id);
    } else if ('created_event' in u.event) {
      active.add(u.event.created_event.contract_id);
    }
  }
  return active;
}

describe('temporal ACS', () => {
  const t = useTestDatabase();
  const items = simulatedItems({ seed: 5, updates: 800, migrations: 2, meanUpdateGapMs: 5_000 });

  beforeAll(async () => {
    const controller = new AbortController();
    await runWorker(
      {
        db: t.db,
        pool: t.pool,
        source: createFileSource(writeItems(items)),
        logger: createLogger('silent'),
        batchSize: 64,
        batchMaxWaitMs: 100,
      },
      controller.signal,
    );
  });

  it('equals a naive replay at sampled points', async () => {
    const keys = items.map(keyOf);
    // Deterministic sample: every item's key is a candidate; also the import point of migration 1.
    let seed = 12345;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const samples: Key[] = [{ migration: 1, time: '0001-01-01T00:00:00.000000Z' }, keys[keys.length - 1]!];
    for (let i = 0; i < 25; i++) samples.push(keys[Math.floor(random() * keys.length)]!);
    let nonEmpty = 0;
    for (const at of samples) {
      const rows = await sql<{ contract_id: string }>`
        select contract_id from contracts
        where migration_id = ${at.migration} and created_record_time <= ${at.time}::timestamptz
          and archived_record_time > ${at.time}::timestamptz`.execute(t.db);
      const fromDb = new Set(rows.rows.map((r) => r.contract_id));
      const expected = replay(items, at);
      if (expected.size > 0) nonEmpty += 1;
      expect({ at, size: fromDb.size, ids: [...fromDb].sort() }).toEqual({ at, size: expected.size, ids: [...expected].sort() });
    }
    expect(nonEmpty).toBeGreaterThan(20);
  });
});
