/**
 * A canonical dump of what ingestion wrote: every table's rows ordered by key,
 * without bookkeeping columns that differ between runs (ingestion times,
 * identity sequences) and without the per-stream checkpoints.
 */
import { sql } from 'kysely';
import type { Db } from '../../../src/store/pool';

const TABLES: Record<string, { order: string; exclude: string[] }> = {
  migrations: { order: 'migration_id', exclude: ['first_seen_at'] },
  migration_synchronizers: { order: 'migration_id, synchronizer_id', exclude: [] },
  update_counts_by_hour: { order: 'migration_id, hour', exclude: [] },
  updates: { order: 'update_id', exclude: ['ingested_at', 'ingest_seq'] },
  contracts: { order: 'migration_id, contract_id', exclude: ['ingest_seq'] },
  contract_stakeholders: { order: 'migration_id, party, created_at, contract_id', exclude: [] },
  verdicts: { order: 'update_id', exclude: ['ingested_at'] },
  traffic_summaries: { order: 'migration_id, record_time, synchronizer_id', exclude: [] },
  app_activity_records: { order: 'migration_id, record_time, synchronizer_id', exclude: [] },
  acs_snapshots: { order: 'migration_id, record_time', exclude: ['taken_at'] },
  vote_results: { order: 'update_id, event_id', exclude: ['ingest_seq'] },
  transfer_command_events: { order: 'update_id, event_id', exclude: ['ingest_seq'] },
  contract_blobs: { order: 'contract_id', exclude: [] },
  activities: { order: 'migration_id, record_time, update_id, node, kind, leg', exclude: [] },
};

/**
 * Empties every table ingestion writes (the dumped ones, the ACS deltas, the stream's subject index, the
 * snapshots' holdings and supply totals, the round aggregates and the checkpoints), as before a first import.
 */
export async function emptyIngestedTables(db: Db): Promise<void> {
  const tables = [
    ...Object.keys(TABLES),
    'acs_deltas',
    // The stream's subject index: a run from the beginning writes its rows again.
    'update_subjects',
    'holding_totals',
    'holding_totals_snapshots',
    'holding_totals_newest',
    'supply_totals',
    'round_totals',
    'round_party_totals',
    'round_party_latest',
    'ingest_checkpoints',
  ];
  await sql`truncate ${sql.join(tables.map((t) => sql.table(t)))}`.execute(db);
}

/** Rows of `updates`, and distinct update ids among them (equal unless an update was stored twice). */
export async function updateCounts(db: Db): Promise<{ n: number; distinct: number }> {
  const { rows } = await sql<{
    n: number;
    distinct: number;
  }>`select count(*)::int as n, count(distinct update_id)::int as distinct from updates`.execute(db);
  return rows[0]!;
}

export async function dumpTables(db: Db): Promise<Record<string, string>> {
  const dump: Record<string, string> = {};
  for (const [table, { order, exclude }] of Object.entries(TABLES)) {
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table)} order by ${sql.raw(order)}`.execute(db);
    dump[table] = rows.rows
      .map((row) => JSON.stringify(Object.fromEntries(Object.entries(row).filter(([k]) => !exclude.includes(k)))))
      .join('\n');
  }
  return dump;
}

/**
 * The same canonical content as dumpTables, as one digest per table (the md5 of each row's text, in key
 * order, digested again): for tables too large to hold in memory as JSON.
 */
export async function tableDigests(db: Db): Promise<Record<string, { rows: number; digest: string }>> {
  const digests: Record<string, { rows: number; digest: string }> = {};
  for (const [table, { order, exclude }] of Object.entries(TABLES)) {
    const columns = (
      await sql<{ column_name: string }>`
        select column_name from information_schema.columns
        where table_schema = current_schema() and table_name = ${table} order by ordinal_position`.execute(db)
    ).rows
      .map((r) => r.column_name)
      .filter((c) => !exclude.includes(c));
    const row = sql.raw(`row(${columns.map((c) => `t."${c}"`).join(', ')})::text`);
    const result = await sql<{ rows: string; digest: string | null }>`
      select count(*)::text as rows, md5(string_agg(md5(${row}), '' order by ${sql.raw(
        order
          .split(',')
          .map((c) => `t.${c.trim()}`)
          .join(', '),
      )})) as digest
      from ${sql.table(table)} t`.execute(db);
    digests[table] = { rows: Number(result.rows[0]!.rows), digest: result.rows[0]!.digest ?? '' };
  }
  return digests;
}
