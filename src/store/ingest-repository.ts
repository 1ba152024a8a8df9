/**
 * All SQL of the ingestion writer. A batch is written with one multi-row
 * statement per table (json_to_recordset: one parameter, any row count), inside
 * the caller's transaction, together with the stream's checkpoint.
 */
import { sql, type RawBuilder, type Selectable, type Transaction } from 'kysely';
import type { Db } from './pool';
import type { ContractsTable, Database, UpdatesTable } from './schema';

type Trx = Transaction<Database>;

/**
 * Rows as the writer sends them (every column given, in the types the pool reads back), derived
 * from the table types so the two cannot drift; columns left to the database are omitted.
 */
// command_id stays null: no source gives it (the ledger API's commandId is therefore "").
export type UpdateRow = Omit<Selectable<UpdatesTable>, 'ingested_at' | 'ingest_seq' | 'command_id'>;
export type ContractRow = Omit<Selectable<ContractsTable>, 'created_event_blob' | 'ingest_seq'>;

export interface ArchiveRow {
  migration_id: number;
  contract_id: string;
  record_time: string;
  update_id: string;
}

/** A reassignment of a contract that existed before the batch. */
export interface ReassignmentRow {
  migration_id: number;
  contract_id: string;
  synchronizer_id: string | null;
  reassignment_counter: number;
}

export interface VerdictRow {
  update_id: string;
  migration_id: number;
  record_time: string;
  domain_id: string;
  finalization_time: string;
  submitting_parties: string[];
  submitting_participant_uid: string;
  verdict_result: string;
  mediator_group: number;
  round_number: number | null;
  root_views: number[];
  json: string;
}

export interface VerdictViewRow {
  update_id: string;
  view_id: number;
  informees: string[];
  confirming_parties: string;
  sub_views: number[];
  view_hash: string;
}

export interface EventSideRow {
  migration_id: number;
  record_time: string;
  synchronizer_id: string;
  update_id: string | null;
  json: string;
}

export interface TrafficRow extends EventSideRow {
  total_traffic_cost: number;
}

export interface AppActivityRow extends EventSideRow {
  round_number: number;
}

export interface RangeRow {
  migration_id: number;
  synchronizer_id: string;
  min_record_time: string;
  max_record_time: string;
  update_count: number;
}

export interface MigrationRow {
  migration_id: number;
  last_import_update_id: string | null;
}

export interface CheckpointWrite {
  stream: string;
  /** The position the batch started from; the write fails if another writer moved it. */
  expectedPosition: string | undefined;
  position: string;
  migrationId: number | null;
  recordTime: string | null;
  items: number;
}

export interface BatchRows {
  migrations: MigrationRow[];
  updates: UpdateRow[];
  /** Creates: a contract id already present in the migration is bad input. */
  contracts: ContractRow[];
  /** Contracts arriving by assignment, which the migration may already have. */
  assignedContracts: ContractRow[];
  archives: ArchiveRow[];
  reassignments: ReassignmentRow[];
  verdicts: VerdictRow[];
  verdictViews: VerdictViewRow[];
  traffic: TrafficRow[];
  appActivity: AppActivityRow[];
  ranges: RangeRow[];
}

export interface Checkpoint {
  stream: string;
  position: string;
  migrationId: number | null;
  recordTime: string | null;
  itemsApplied: number;
}

export class CheckpointConflictError extends Error {
  constructor(stream: string) {
    super(`the checkpoint of ${stream} was moved by another writer; stopping`);
    this.name = 'CheckpointConflictError';
  }
}

export async function readCheckpoint(db: Db | Trx, stream: string): Promise<Checkpoint | undefined> {
  const row = await db.selectFrom('ingest_checkpoints').selectAll().where('stream', '=', stream).executeTakeFirst();
  return row
    ? { stream, position: row.position, migrationId: row.migration_id, recordTime: row.record_time, itemsApplied: row.items_applied }
    : undefined;
}

/** Which of these update ids are already stored (a re-applied item is a no-op). */
export async function storedUpdateIds(trx: Trx, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await sql<{ update_id: string }>`select update_id from updates where update_id = any(${ids}::text[])`.execute(trx);
  return new Set(rows.rows.map((r) => r.update_id));
}

export async function storedVerdictIds(trx: Trx, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await sql<{ update_id: string }>`select update_id from verdicts where update_id = any(${ids}::text[])`.execute(trx);
  return new Set(rows.rows.map((r) => r.update_id));
}

const json = (rows: unknown[]) => JSON.stringify(rows);

/**
 * Inserts contracts and their rows of contract_stakeholders (each signatory or
 * observer once). `onConflict` may update an existing contract's archive; the
 * stakeholder rows of a contract returned as updated take its archive over.
 */
async function insertContracts(trx: Trx, contracts: ContractRow[], onConflict: RawBuilder<unknown>): Promise<void> {
  await sql`
      with written as (
      insert into contracts (migration_id, contract_id, template_id, package_name, qualified_name, create_arguments,
        create_arguments_protobuf, created_at, signatories, observers, created_in_update_id, created_event_id,
        created_record_time, archived_record_time, archived_in_update_id, synchronizer_id, reassignment_counter,
        dso_party, amulet_owner, amulet_initial_amount, amulet_created_round, amulet_rate_per_round, amulet_locked,
        lock_holders, lock_expires_at, round_number, ans_name, ans_user, ans_expires_at)
      select migration_id, contract_id, template_id, package_name, qualified_name, create_arguments,
        create_arguments_protobuf, created_at, signatories, observers, created_in_update_id, created_event_id,
        created_record_time, archived_record_time, archived_in_update_id, synchronizer_id, reassignment_counter,
        dso_party, amulet_owner, amulet_initial_amount, amulet_created_round, amulet_rate_per_round, amulet_locked,
        lock_holders, lock_expires_at, round_number, ans_name, ans_user, ans_expires_at
      from json_to_recordset(${json(contracts)}::json) as x(
        migration_id bigint, contract_id text, template_id text, package_name text, qualified_name text,
        create_arguments text, create_arguments_protobuf text, created_at timestamptz, signatories text[],
        observers text[], created_in_update_id text, created_event_id text, created_record_time timestamptz,
        archived_record_time timestamptz, archived_in_update_id text, synchronizer_id text,
        reassignment_counter bigint, dso_party text, amulet_owner text, amulet_initial_amount numeric,
        amulet_created_round bigint, amulet_rate_per_round numeric, amulet_locked boolean, lock_holders text[],
        lock_expires_at timestamptz, round_number bigint, ans_name text, ans_user text, ans_expires_at timestamptz)
      ${onConflict}
      returning migration_id, contract_id, created_at, package_name, qualified_name, signatories, observers,
        created_record_time, archived_record_time)
      insert into contract_stakeholders (migration_id, party, created_at, contract_id, package_name, qualified_name,
        created_record_time, archived_record_time)
      select distinct w.migration_id, p.party, w.created_at, w.contract_id, w.package_name, w.qualified_name,
        w.created_record_time, w.archived_record_time
      from written w cross join lateral unnest(w.signatories || w.observers) as p(party)
      on conflict (migration_id, party, created_at, contract_id) do update set
        archived_record_time = excluded.archived_record_time`.execute(trx);
}

/**
 * Writes the rows of one batch. Returns the archives that matched no active
 * contract (the caller turns them into a precise error and rolls back).
 */
export async function writeBatch(trx: Trx, rows: BatchRows): Promise<{ unmatchedArchives: ArchiveRow[] }> {
  if (rows.migrations.length) {
    // An indexer that reads a stream from its beginning holds all of each migration it sees.
    await sql`
      insert into migrations (migration_id, last_import_update_id, complete, import_updates_complete)
      select migration_id, last_import_update_id, true, true
      from json_to_recordset(${json(rows.migrations)}::json) as x(migration_id bigint, last_import_update_id text)
      on conflict (migration_id) do update set last_import_update_id =
        greatest(migrations.last_import_update_id, excluded.last_import_update_id)`.execute(trx);
  }
  if (rows.updates.length) {
    await sql`
      insert into updates (update_id, migration_id, record_time, synchronizer_id, kind, workflow_id, effective_at,
                           external_transaction_hash, ledger_offset, event_count, json_compact, json_protobuf)
      select update_id, migration_id, record_time, synchronizer_id, kind, workflow_id, effective_at,
             external_transaction_hash, ledger_offset, event_count, json_compact, json_protobuf
      from json_to_recordset(${json(rows.updates)}::json) as x(
        update_id text, migration_id bigint, record_time timestamptz, synchronizer_id text, kind text,
        workflow_id text, effective_at timestamptz, external_transaction_hash text, ledger_offset bigint,
        event_count integer, json_compact text, json_protobuf text)`.execute(trx);
  }
  // Reassignments of contracts stored before this batch precede any assignment row of the batch.
  if (rows.reassignments.length) {
    await sql`
      update contracts c set synchronizer_id = x.synchronizer_id, reassignment_counter = x.reassignment_counter
      from json_to_recordset(${json(rows.reassignments)}::json) as x(
        migration_id bigint, contract_id text, synchronizer_id text, reassignment_counter bigint)
      where c.migration_id = x.migration_id and c.contract_id = x.contract_id`.execute(trx);
  }
  for (const [contracts, onConflict] of [
    [rows.contracts, sql``],
    // An assignment may bring back a contract this migration already has: it is then only reassigned.
    [
      rows.assignedContracts,
      // An archive later in the same batch travels on the row and must not be dropped.
      sql`on conflict (migration_id, contract_id) do update set
        synchronizer_id = excluded.synchronizer_id, reassignment_counter = excluded.reassignment_counter,
        archived_record_time = case when contracts.archived_record_time = 'infinity'
          then excluded.archived_record_time else contracts.archived_record_time end,
        archived_in_update_id = case when contracts.archived_record_time = 'infinity'
          then excluded.archived_in_update_id else contracts.archived_in_update_id end`,
    ],
  ] as const) {
    if (contracts.length) await insertContracts(trx, contracts, onConflict);
  }
  let unmatchedArchives: ArchiveRow[] = [];
  if (rows.archives.length) {
    // The stakeholder rows are found by their key: no index by contract id is needed.
    const archived = await sql<{ migration_id: number; contract_id: string }>`
      with archived as (
        update contracts c set archived_record_time = x.record_time, archived_in_update_id = x.update_id
        from json_to_recordset(${json(rows.archives)}::json) as x(
          migration_id bigint, contract_id text, record_time timestamptz, update_id text)
        where c.migration_id = x.migration_id and c.contract_id = x.contract_id
          and c.archived_record_time = 'infinity'
        returning c.migration_id, c.contract_id, c.created_at, c.signatories, c.observers, c.archived_record_time),
      stakeholders as (
        update contract_stakeholders s set archived_record_time = a.archived_record_time
        from archived a cross join lateral unnest(a.signatories || a.observers) as p(party)
        where s.migration_id = a.migration_id and s.party = p.party and s.created_at = a.created_at
          and s.contract_id = a.contract_id)
      select migration_id, contract_id from archived`.execute(trx);
    const done = new Set(archived.rows.map((r) => `${r.migration_id}/${r.contract_id}`));
    unmatchedArchives = rows.archives.filter((a) => !done.has(`${a.migration_id}/${a.contract_id}`));
  }
  if (rows.verdicts.length) {
    await sql`
      insert into verdicts (update_id, migration_id, record_time, domain_id, finalization_time, submitting_parties,
        submitting_participant_uid, verdict_result, mediator_group, round_number, root_views, json)
      select update_id, migration_id, record_time, domain_id, finalization_time, submitting_parties,
        submitting_participant_uid, verdict_result, mediator_group, round_number, root_views, json
      from json_to_recordset(${json(rows.verdicts)}::json) as x(
        update_id text, migration_id bigint, record_time timestamptz, domain_id text, finalization_time timestamptz,
        submitting_parties text[], submitting_participant_uid text, verdict_result text, mediator_group integer,
        round_number bigint, root_views integer[], json text)`.execute(trx);
  }
  if (rows.verdictViews.length) {
    await sql`
      insert into verdict_views (update_id, view_id, informees, confirming_parties, sub_views, view_hash)
      select update_id, view_id, informees, confirming_parties, sub_views, view_hash
      from json_to_recordset(${json(rows.verdictViews)}::json) as x(
        update_id text, view_id integer, informees text[], confirming_parties text, sub_views integer[], view_hash text)`.execute(
      trx,
    );
  }
  if (rows.traffic.length) {
    await sql`
      insert into traffic_summaries (migration_id, record_time, synchronizer_id, update_id, total_traffic_cost, json)
      select migration_id, record_time, synchronizer_id, update_id, total_traffic_cost, json
      from json_to_recordset(${json(rows.traffic)}::json) as x(
        migration_id bigint, record_time timestamptz, synchronizer_id text, update_id text, total_traffic_cost bigint, json text)
      on conflict do nothing`.execute(trx);
  }
  if (rows.appActivity.length) {
    await sql`
      insert into app_activity_records (migration_id, record_time, synchronizer_id, update_id, round_number, json)
      select migration_id, record_time, synchronizer_id, update_id, round_number, json
      from json_to_recordset(${json(rows.appActivity)}::json) as x(
        migration_id bigint, record_time timestamptz, synchronizer_id text, update_id text, round_number bigint, json text)
      on conflict do nothing`.execute(trx);
  }
  if (rows.ranges.length) {
    await sql`
      insert into migration_synchronizers (migration_id, synchronizer_id, min_record_time, max_record_time, update_count)
      select migration_id, synchronizer_id, min_record_time, max_record_time, update_count
      from json_to_recordset(${json(rows.ranges)}::json) as x(
        migration_id bigint, synchronizer_id text, min_record_time timestamptz, max_record_time timestamptz, update_count bigint)
      on conflict (migration_id, synchronizer_id) do update set
        min_record_time = least(migration_synchronizers.min_record_time, excluded.min_record_time),
        max_record_time = greatest(migration_synchronizers.max_record_time, excluded.max_record_time),
        update_count = migration_synchronizers.update_count + excluded.update_count`.execute(trx);
  }
  return { unmatchedArchives };
}

/** Advances the checkpoint, failing if another writer moved it since the batch began. */
export async function advanceCheckpoint(trx: Trx, c: CheckpointWrite): Promise<void> {
  if (c.expectedPosition === undefined) {
    const inserted = await sql`
      insert into ingest_checkpoints (stream, position, migration_id, record_time, items_applied)
      values (${c.stream}, ${c.position}, ${c.migrationId}, ${c.recordTime}::timestamptz, ${c.items})
      on conflict (stream) do nothing`.execute(trx);
    if (Number(inserted.numAffectedRows ?? 0) !== 1) throw new CheckpointConflictError(c.stream);
    return;
  }
  const updated = await sql`
    update ingest_checkpoints set position = ${c.position},
      migration_id = coalesce(${c.migrationId}::bigint, migration_id),
      record_time = coalesce(${c.recordTime}::timestamptz, record_time),
      items_applied = items_applied + ${c.items}, updated_at = now()
    where stream = ${c.stream} and position = ${c.expectedPosition}`.execute(trx);
  if (Number(updated.numAffectedRows ?? 0) !== 1) throw new CheckpointConflictError(c.stream);
}
