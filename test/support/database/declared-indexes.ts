/**
 * Plans name the index of the partition they scan; tests that check which index a read uses name
 * the index as the migrations declare it, on the partitioned table. This maps the one to the other.
 */
import type pg from 'pg';

export async function declaredIndexNames(pool: pg.Pool): Promise<(name: string | undefined) => string | undefined> {
  const { rows } = await pool.query<{ partition_index: string; declared: string }>(
    `select c.relname as partition_index, p.relname as declared
     from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
     where c.relkind = 'i'`,
  );
  const byName = new Map(rows.map((r) => [r.partition_index, r.declared]));
  return (name) => (name === undefined ? undefined : (byName.get(name) ?? name));
}
