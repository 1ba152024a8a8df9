/**
 * Migration 20261126_001 converts a database that holds history into the partitioned tables: every
 * row comes through unchanged (the ledger offsets in ingest_seq included), the sequences go on from
 * where they were, and the writer carries on ingesting into it as into a database made new.
 */
import { sql } from 'kysely';
import type { CanonicalItem } from '../../src/domain/items';
import { backfillActivities } from '../../src/ingest/activity-backfill';
import { migrate, readMigrationFiles } from '../../src/store/migrator';
import { createTestDatabase, destroyTestDatabase, type TestDatabase } from '../support/database/database';
import { dumpTables } from '../support/database/dump';
import { ingestThroughWorker, simulatedItems } from '../support/items/simulated-network';

const CONVERSION = '20261126_001_partitioned_history.sql';
// About 70 days of ledger time over two migrations: several month partitions of each table.
const items: CanonicalItem[] = simulatedItems({ seed: 'conversion', updates: 1200, migrations: 2, meanUpdateGapMs: 5_000_000 });
const split = Math.floor(items.length * 0.7);

/** What the writer and the snapshot job fill, as the tables were before the conversion. */
const TABLES = [
  'migrations',
  'migration_synchronizers',
  'update_counts_by_hour',
  'updates',
  'contracts',
  'contract_stakeholders',
  'verdicts',
  'traffic_summaries',
  'app_activity_records',
  'acs_deltas',
  'acs_snapshots',
  'vote_results',
  'transfer_command_events',
  'contract_blobs',
  'ingest_checkpoints',
];

/** Copies every row of TABLES from one database to another, columns by name (generated ones left to the target). */
async function copyRows(from: TestDatabase, to: TestDatabase): Promise<void> {
  for (const table of TABLES) {
    const { rows: columns } = await to.pool.query<{ column_name: string }>(
      `select column_name from information_schema.columns
       where table_schema = current_schema() and table_name = $1 and is_generated = 'NEVER' order by ordinal_position`,
      [table],
    );
    const list = columns.map((c) => `"${c.column_name}"`).join(', ');
    // As text: parsed in JavaScript, numeric amounts would pass through floats.
    const { rows } = await from.pool.query<{ rows: string }>(`select coalesce(json_agg(t), '[]')::text as rows from ${table} t`);
    await to.pool.query(
      `insert into ${table} (${list}) overriding system value
       select ${list} from json_populate_recordset(null::${table}, $1::json)`,
      [rows[0]!.rows],
    );
  }
  // As identity columns would stand after those rows were written by the writer.
  for (const [table, sequence] of [
    ['updates', 'updates_ingest_seq_seq'],
    ['contracts', 'contracts_ingest_seq_seq'],
    ['vote_results', 'vote_results_ingest_seq_seq'],
    ['transfer_command_events', 'transfer_command_events_ingest_seq_seq'],
  ] as const) {
    await to.pool.query(`select setval('${sequence}', coalesce((select max(ingest_seq) from ${table}), 0) + 1, false)`);
  }
}

const offsets = async (t: TestDatabase) =>
  (await sql<{ update_id: string; ingest_seq: number }>`select update_id, ingest_seq from updates order by update_id`.execute(t.db)).rows;

describe(`migration ${CONVERSION}`, () => {
  let grown: TestDatabase;
  let converted: TestDatabase;

  beforeAll(async () => {
    grown = await createTestDatabase();
    converted = await createTestDatabase({ empty: true });
  }, 120_000);
  afterAll(async () => {
    await destroyTestDatabase(grown);
    await destroyTestDatabase(converted);
  });

  it('converts a database holding history without losing or changing a row, and the writer carries on in it', async () => {
    // The history as a database that grew before the conversion holds it.
    await ingestThroughWorker(grown, items.slice(0, split));
    const before = readMigrationFiles().filter((f) => f.name < CONVERSION);
    await migrate(converted.pool, { files: before });
    await copyRows(grown, converted);
    const partitioned = async (t: TestDatabase) =>
      Number((await t.pool.query<{ n: string }>(`select count(*) as n from pg_partitioned_table`)).rows[0]!.n);
    expect(await partitioned(converted)).toBe(0);

    // The conversion alone (later migrations add partitioned tables of their own).
    await migrate(converted.pool, { files: readMigrationFiles().filter((f) => f.name <= CONVERSION) });
    expect(await partitioned(converted)).toBe(6);
    await migrate(converted.pool);
    // As an operator upgrading does: the activity projection of the history stored before it.
    await backfillActivities(converted.db);
    expect(await dumpTables(converted.db)).toEqual(await dumpTables(grown.db));
    expect(await offsets(converted)).toEqual(await offsets(grown));
    const months = await converted.pool.query<{ relname: string }>(
      `select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'updates'::regclass order by 1`,
    );
    expect(months.rows.length).toBeGreaterThanOrEqual(4);

    // The rest of the stream, into both (each resumes at the checkpoint it holds): the same rows, and the
    // ledger offsets go on alike.
    await ingestThroughWorker(grown, items);
    await ingestThroughWorker(converted, items);
    expect(await dumpTables(converted.db)).toEqual(await dumpTables(grown.db));
    expect(await offsets(converted)).toEqual(await offsets(grown));
  }, 600_000);
});
