/**
 * The settings every connection of the service's pools runs with. With sequential scans off, a plan
 * that keeps one (a table of a few rows) carries PostgreSQL's disable cost, past `jit_above_cost`:
 * with JIT on, the server compiled such a sub-millisecond statement for about a second each time.
 */
import { sql } from 'kysely';
import { createDb, createPool } from '../../../src/store/pool';
import { useTestDatabase } from '../../support/database/database';

describe('pool connection settings', () => {
  const t = useTestDatabase();

  it('runs in UTC with ISO dates, no sequential scans and no JIT', async () => {
    const db = createDb(createPool({ connectionString: t.url, max: 1 }));
    try {
      const { rows } = await sql<Record<string, string>>`select current_setting('TimeZone') as "TimeZone",
        current_setting('DateStyle') as "DateStyle", current_setting('enable_seqscan') as enable_seqscan,
        current_setting('jit') as jit`.execute(db);
      expect(rows).toEqual([{ TimeZone: 'UTC', DateStyle: 'ISO, MDY', enable_seqscan: 'off', jit: 'off' }]);
    } finally {
      await db.destroy();
    }
  });

  it('plans a read of a table of a few rows without compiling it', async () => {
    const db = createDb(createPool({ connectionString: t.url, max: 1 }));
    try {
      const { rows } = await sql<{ 'QUERY PLAN': string }>`explain (analyze, format text)
        select family, version::text from answer_versions
        union all select 'migration', coalesce(max(migration_id), -1)::text from migrations`.execute(db);
      expect(rows.map((r) => r['QUERY PLAN']).filter((line) => line.startsWith('JIT'))).toEqual([]);
    } finally {
      await db.destroy();
    }
  });
});
