/**
 * How many shared buffers a repository read touches, for the tests that show a read costs what it
 * returns rather than the history around it (read-cost.test.ts and its kin): the read runs through a
 * Kysely that keeps the queries it compiles, and each is run again under `explain (analyze, buffers)`.
 * Reads only: a query is executed twice.
 */
import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import type pg from 'pg';
import type { Database } from '../../../src/store/schema';

interface Plan {
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
}

export interface BufferCounter {
  /** The Db to hand the repository function, so that its queries are seen. */
  readonly db: Kysely<Database>;
  /** Buffers touched by the last query `run` made (a read of one statement). */
  lastQuery(run: () => Promise<unknown>): Promise<number>;
  /** Buffers touched by every query `run` made, summed (a read of several statements). */
  allQueries(run: () => Promise<unknown>): Promise<number>;
}

export function bufferCounter(pool: pg.Pool): BufferCounter {
  let captured: CompiledQuery[] = [];
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: (e) => void (e.level === 'query' && captured.push(e.query)),
  });
  const blocksOf = async (q: CompiledQuery): Promise<number> => {
    const res = await pool.query<{ 'QUERY PLAN': [{ Plan: Plan }] }>(`explain (analyze, buffers, format json) ${q.sql}`, [...q.parameters]);
    const plan = res.rows[0]!['QUERY PLAN'][0].Plan;
    return plan['Shared Hit Blocks'] + plan['Shared Read Blocks'];
  };
  const queriesOf = async (run: () => Promise<unknown>): Promise<CompiledQuery[]> => {
    captured = [];
    await run();
    if (captured.length === 0) throw new Error('the read made no query through the counted Db');
    return captured;
  };
  return {
    db,
    lastQuery: async (run) => blocksOf((await queriesOf(run)).at(-1)!),
    allQueries: async (run) => {
      let sum = 0;
      for (const q of await queriesOf(run)) sum += await blocksOf(q);
      return sum;
    },
  };
}
