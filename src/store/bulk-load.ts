/**
 * Bulk loading of generated history (the scale runs of `npm run bench -- --only scale`): rows go in
 * by COPY through the parent table names, secondary structures are found in the catalog (never by
 * name) so that they can be built after the rows, and what was built is measured. Nothing here is
 * used by the service itself.
 */
import { finished } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { CopyData } from './chunked-buffer';

/** Settings of a loading session: its commits need not wait for the WAL flush (a failed load is dropped). */
export async function startBulkSession(client: pg.ClientBase, maintenanceWorkMem = '512MB'): Promise<void> {
  await client.query(`set synchronous_commit = off; set statement_timeout = 0; set maintenance_work_mem = '${maintenanceWorkMem}'`);
}

/** One COPY … FROM STDIN of encoded rows (text or binary), in its own transaction. */
export async function copyRows(client: pg.ClientBase, rows: CopyData): Promise<void> {
  if (rows.size === 0) return;
  const stream = client.query(copyFrom(rows.statement()));
  const done = finished(stream);
  for (const chunk of rows.data()) stream.write(chunk);
  stream.end();
  await done;
}

/** An index of a table as the catalog defines it, to drop it and build it again. */
export interface IndexDefinition {
  /** Quoted (schema-qualified where needed), for statements. */
  table: string;
  index: string;
  /** `create index …`, or the constraint's definition when a constraint owns the index. */
  definition: string;
  /** Set when the index belongs to a primary key, unique or exclusion constraint. */
  constraint: string | null;
  /** The table is partitioned: the index is its partitions' indexes under one name. */
  partitioned: boolean;
}

/**
 * Every index of these tables (a partitioned table's own, which its partitions inherit), in the
 * catalog's order.
 */
export async function indexesOf(pool: pg.Pool, tables: readonly string[]): Promise<IndexDefinition[]> {
  const { rows } = await pool.query<{
    table: string;
    index: string;
    definition: string;
    constraint: string | null;
    constraint_definition: string | null;
    partitioned: boolean;
  }>(
    `select c.oid::regclass::text as table, quote_ident(i.relname) as index, pg_get_indexdef(i.oid) as definition,
       quote_ident(con.conname) as constraint, pg_get_constraintdef(con.oid) as constraint_definition,
       c.relkind = 'p' as partitioned
     from pg_index x
     join pg_class i on i.oid = x.indexrelid
     join pg_class c on c.oid = x.indrelid
     left join pg_constraint con on con.conindid = i.oid and con.conrelid = c.oid and con.contype in ('p', 'u', 'x')
     where c.relnamespace = 'public'::regnamespace and c.relname = any($1::text[])
     order by c.relname, i.relname`,
    [tables],
  );
  return rows.map((r) => ({
    table: r.table,
    index: r.index,
    definition: r.constraint === null ? r.definition : (r.constraint_definition ?? ''),
    constraint: r.constraint,
    partitioned: r.partitioned,
  }));
}

export async function dropIndexes(pool: pg.Pool, indexes: readonly IndexDefinition[]): Promise<void> {
  for (const ix of indexes) {
    await pool.query(ix.constraint === null ? `drop index ${ix.index}` : `alter table ${ix.table} drop constraint ${ix.constraint}`);
  }
}

/**
 * Builds an index (or its constraint) again as the catalog defined it, with the leaf pages filled
 * to `fillfactor` percent when given. The fill applies to this build only: the index's storage
 * parameters are reset afterwards, so later splits (and a definition read from the catalog) are the
 * migration's. A partitioned table's index cannot have them reset, and its new partitions would
 * inherit them: it is built at its definition's fill. Returns the fill it was built with.
 */
export async function createIndex(client: pg.ClientBase, ix: IndexDefinition, fillfactor?: number): Promise<number | undefined> {
  const fill = fillfactor === undefined || ix.partitioned ? '' : ` with (fillfactor = ${Math.round(fillfactor)})`;
  if (ix.constraint !== null) {
    // A constraint definition takes storage parameters after its column list (and INCLUDE).
    const ownFill = / WITH \(/i.test(ix.definition);
    await client.query(`alter table ${ix.table} add constraint ${ix.constraint} ${ix.definition}${ownFill ? '' : fill}`);
  } else {
    // A partitioned table's index is listed `on only` the parent; built on the parent, it covers the partitions.
    let definition = ix.definition.replace(/ ON ONLY /, ' ON ');
    if (fill && !/\) WITH \(/i.test(definition)) {
      // The storage parameters go after the key columns and INCLUDE list, before a WHERE clause.
      const where = definition.search(/ WHERE /);
      definition = where < 0 ? `${definition}${fill}` : `${definition.slice(0, where)}${fill}${definition.slice(where)}`;
    }
    await client.query(definition);
  }
  if (!fill) return undefined;
  await client.query(`alter index ${ix.index} reset (fillfactor)`);
  return fillfactor;
}

/** The bytes of each index of these tables (a partitioned index summed over its partitions), by index name. */
export async function indexSizes(pool: pg.Pool, tables: readonly string[]): Promise<Map<string, number>> {
  const { rows } = await pool.query<{ index: string; bytes: string }>(
    `select quote_ident(i.relname) as index, coalesce(sum(pg_relation_size(p.relid)), 0)::text as bytes
     from pg_index x
     join pg_class i on i.oid = x.indexrelid
     join pg_class c on c.oid = x.indrelid
     cross join lateral (select relid from pg_partition_tree(i.oid) union select i.oid) p
     where c.relnamespace = 'public'::regnamespace and c.relname = any($1::text[])
     group by i.relname`,
    [tables],
  );
  return new Map(rows.map((r) => [r.index, Number(r.bytes)]));
}

/** Builds every index of these tables again from its rows (REINDEX). */
export async function reindexTables(pool: pg.Pool, tables: readonly string[]): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query(`set statement_timeout = 0; set maintenance_work_mem = '512MB'`);
    for (const table of tables) await client.query(`reindex table ${client.escapeIdentifier(table)}`);
  } finally {
    client.release();
  }
}

/** VACUUM and ANALYZE of these tables (their partitions included). */
export async function vacuumAnalyze(pool: pg.Pool, tables: readonly string[]): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('set statement_timeout = 0');
    for (const table of tables) await client.query(`vacuum (analyze) ${client.escapeIdentifier(table)}`);
  } finally {
    client.release();
  }
}

export interface RelationSize {
  table: string;
  /** Heap with its TOAST, every partition counted. */
  tableBytes: number;
  indexBytes: number;
}

/** Table and index bytes of these tables, each summed over its partitions (if any). */
export async function relationSizes(pool: pg.Pool, tables: readonly string[]): Promise<RelationSize[]> {
  const { rows } = await pool.query<{ table: string; table_bytes: string; index_bytes: string }>(
    `select t.name as table, coalesce(sum(pg_table_size(p.relid)), 0)::text as table_bytes,
       coalesce(sum(pg_indexes_size(p.relid)), 0)::text as index_bytes
     from unnest($1::text[]) as t(name)
     -- A table that is not partitioned has no partition tree: it is its own only part.
     cross join lateral (select relid from pg_partition_tree(t.name::regclass) union select t.name::regclass) p
     group by t.name`,
    [tables],
  );
  const byName = new Map(rows.map((r) => [r.table, r]));
  return tables.map((table) => ({
    table,
    tableBytes: Number(byName.get(table)?.table_bytes ?? 0),
    indexBytes: Number(byName.get(table)?.index_bytes ?? 0),
  }));
}

export async function databaseBytes(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ size: string }>('select pg_database_size(current_database())::text as size');
  return Number(rows[0]!.size);
}

/** Server settings by name, as SHOW prints them ("128MB"); a setting the user may not read is left out. */
export async function serverSettings(pool: pg.Pool, names: readonly string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of names) {
    try {
      const { rows } = await pool.query<{ value: string }>('select current_setting($1) as value', [name]);
      out[name] = rows[0]!.value;
    } catch {
      // Settings such as data_directory need superuser or pg_read_all_settings.
    }
  }
  return out;
}

/** A size setting in bytes (max_wal_size, shared_buffers). */
export async function settingBytes(pool: pg.Pool, name: string): Promise<number> {
  const { rows } = await pool.query<{ bytes: string }>('select pg_size_bytes(current_setting($1))::text as bytes', [name]);
  return Number(rows[0]!.bytes);
}
