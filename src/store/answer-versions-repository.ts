/**
 * The versions of the answer families (src/domain/answer-families.ts), table answer_versions: set
 * inside the transaction that changes a family's contracts, read by the API's answer cache
 * (src/api/answer-cache.ts) before it serves a kept answer. A version is the id of the transaction
 * that set it, so it never repeats, even after the database is restored from a backup.
 */
import { sql } from 'kysely';
import { ANSWER_FAMILIES, FAMILY_TEMPLATES, familyOfTemplate, type AnswerFamily, type AnswerVersions } from '../domain/answer-families';
import type pg from 'pg';
import { poolOf, poolQuery, type Db } from './pool';
import { repositoryOperation } from './query-operation';

const TEMPLATE_PARAMS = [
  FAMILY_TEMPLATES.map((t) => t.packageName),
  FAMILY_TEMPLATES.map((t) => t.qualifiedName),
  FAMILY_TEMPLATES.map((t) => t.family),
];

/** A connection inside a write transaction (the writer's, or a mirror's). */
type WriteConnection = pg.ClientBase;

/** What a batch writes to contracts (the writer's BatchRows). */
interface ContractChanges {
  contracts: { templates(): readonly { package_name: string; qualified_name: string }[] };
  assignedContracts: readonly { package_name: string; qualified_name: string }[];
  archives: readonly { migration_id: number; contract_id: string; record_time: string }[];
  reassignments: readonly { migration_id: number; contract_id: string }[];
}

const FAMILY_COUNT = Object.keys(ANSWER_FAMILIES).length;

/** Sets the named families, in name order, so that two writers of versions cannot deadlock. */
const SET_VERSIONS = `insert into answer_versions (family, version)
  select family, pg_current_xact_id()::text::bigint from families order by family
  on conflict (family) do update set version = excluded.version`;

// Archives and reassignments name a contract only by its id: its template is looked up by primary key,
// archive time included, so that each lookup reads the one partition the contract is in (an archived
// contract is in its archive month's; a reassigned one is active, or archived later in the batch, and
// then found by its archive).
const MARK_BATCH_SQL = `with touched as (
    select c.package_name, c.qualified_name
    from unnest($1::bigint[], $2::text[], $7::timestamptz[]) as x(migration_id, contract_id, archived_record_time)
    join contracts c on c.migration_id = x.migration_id and c.contract_id = x.contract_id
      and c.archived_record_time = x.archived_record_time),
  families as (
    select unnest($3::text[]) as family
    union
    select t.family from touched c
    join unnest($4::text[], $5::text[], $6::text[]) as t(package_name, qualified_name, family)
      on t.package_name = c.package_name and t.qualified_name = c.qualified_name)
  ${SET_VERSIONS}`;

/**
 * Marks the families whose contracts the batch creates, assigns, archives or reassigns as changed,
 * inside the batch's own transaction: its answers then change on the first request after the
 * commit, in every API process. A batch that touches none of the families writes nothing.
 */
export async function markChangedAnswers(connection: WriteConnection, rows: ContractChanges): Promise<void> {
  const families = new Set<AnswerFamily>();
  for (const list of [rows.contracts.templates(), rows.assignedContracts]) {
    for (const c of list) {
      const family = familyOfTemplate(c.package_name, c.qualified_name);
      if (family) families.add(family);
    }
  }
  // With every family changed already, archives and reassignments need no lookup.
  const touched =
    families.size === FAMILY_COUNT ? [] : [...rows.archives, ...rows.reassignments.map((r) => ({ ...r, record_time: 'infinity' }))];
  if (families.size === 0 && touched.length === 0) return;
  await connection.query(MARK_BATCH_SQL, [
    touched.map((r) => r.migration_id),
    touched.map((r) => r.contract_id),
    [...families],
    ...TEMPLATE_PARAMS,
    touched.map((r) => r.record_time),
  ]);
}

/**
 * The plan, with buffers touched, of the statement of markChangedAnswers for these archives, run in
 * the writer's planner settings and rolled back: for a test that shows it looks contracts up by
 * primary key, whatever the statistics say.
 */
export async function explainMarkChangedAnswers(db: Db, archives: ContractChanges['archives']): Promise<unknown> {
  const client = await poolOf(db).connect();
  try {
    await client.query(`begin; set local enable_seqscan = off; set local enable_bitmapscan = off;
      set local enable_hashjoin = off; set local enable_mergejoin = off`);
    const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(`explain (analyze, buffers, format json) ${MARK_BATCH_SQL}`, [
      archives.map((r) => r.migration_id),
      archives.map((r) => r.contract_id),
      [],
      ...TEMPLATE_PARAMS,
      archives.map((r) => r.record_time),
    ]);
    return rows[0]!['QUERY PLAN'];
  } finally {
    await client.query('rollback');
    client.release();
  }
}

// Blobs are kept by contract id; answers read the contracts of the current migration.
const MARK_BLOBS_SQL = `with families as (
    select distinct t.family
    from unnest($1::text[]) as x(contract_id)
    join contracts c on c.migration_id = (select max(migration_id) from migrations) and c.contract_id = x.contract_id
    join unnest($2::text[], $3::text[], $4::text[]) as t(package_name, qualified_name, family)
      on t.package_name = c.package_name and t.qualified_name = c.qualified_name)
  ${SET_VERSIONS}`;

/** Marks the families of these contracts as changed, in the transaction that stored their created-event blobs. */
export async function markChangedBlobs(connection: WriteConnection, contractIds: readonly string[]): Promise<void> {
  if (contractIds.length === 0) return;
  await connection.query(MARK_BLOBS_SQL, [contractIds, ...TEMPLATE_PARAMS]);
}

/** Marks families as changed by a statement of the caller's transaction (a network fact written). */
export async function markChangedFamilies(db: Db, families: readonly AnswerFamily[]): Promise<void> {
  await sql`with families as (select unnest(${families}::text[]) as family) ${sql.raw(SET_VERSIONS)}`.execute(db);
}

// In key order so that the table of a few rows is read by its primary key, not by the sequential scan
// the pool's settings price at the disable cost (src/store/pool.ts).
const READ_VERSIONS_SQL = `(select family, version::text from answer_versions order by family)
  union all
  select 'migration', coalesce(max(migration_id), -1)::text from migrations`;

/**
 * The version of every family, and the current migration as the pseudo-family `migration`; one
 * statement, so that the versions are of one moment. Inside a transaction (`db` a Transaction),
 * through it; else as a prepared statement of the pool's connections, which the server plans once
 * per connection: the answer cache reads the versions for every round of requests it serves.
 */
export const readAnswerVersions = repositoryOperation(
  'readAnswerVersions',
  async function readAnswerVersions(db: Db): Promise<AnswerVersions> {
    if (db.isTransaction) {
      const { rows } = await sql<{ family: string; version: string }>`${sql.raw(READ_VERSIONS_SQL)}`.execute(db);
      return new Map(rows.map((r) => [r.family, r.version]));
    }
    // Prepared on each connection once: the server parses and plans it once per connection.
    return new Map(await poolQuery<[string, string]>(db, { name: 'read-answer-versions', text: READ_VERSIONS_SQL, rowMode: 'array' }));
  },
);
