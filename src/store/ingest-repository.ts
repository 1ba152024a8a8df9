/**
 * All SQL of the ingestion writer. A batch is written inside one transaction
 * of a dedicated connection, together with the stream's checkpoint: new rows
 * go in by COPY straight into their tables; every statement that touches
 * existing rows (archives, reassignments, assignments of known contracts) is
 * keyed by the primary key of the rows it names, and the transaction tells
 * the planner to use nothing but index lookups, so its cost per row does not
 * depend on how many rows the tables hold, whatever the statistics say.
 */
import { finished } from 'node:stream/promises';
import { sql, type Transaction } from 'kysely';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { snapshotSlot } from '../domain/snapshot-schedule';
import type { StreamKey } from '../domain/stream-key';
import { sortedDistinct } from '../domain/update-subjects';
import { formatRecordTime, fromPgTimestamp, type Micros } from '../domain/time';
import { markChangedBlobs } from './answer-versions-repository';
import type { CopyData } from './chunked-buffer';
import { CopyRows } from './copy-text';
import { CONTRACT_COLUMNS, STAKEHOLDER_COLUMNS, type ContractRow } from './contract-rows';
import {
  ACTIVITY_COLUMNS,
  completeActivity,
  subjectCopies,
  type PendingActivity,
  type AcsDeltaRow,
  type ArchiveRow,
  type BatchRows,
  type ContractBlobRow,
  type ReassignmentRow,
  type SubjectRow,
} from './ingest-rows';
import { poolOf, type Db } from './pool';
import type { Database } from './schema';
import { typedStorageError } from './storage-errors';
import { repositoryOperation } from './query-operation';

type Trx = Transaction<Database>;

export interface CheckpointWrite {
  stream: string;
  /** The position the batch started from; the write fails if another writer moved it. */
  expectedPosition: string | undefined;
  position: string;
  migrationId: number | null;
  recordTime: Micros | null;
  items: number;
}

export interface Checkpoint {
  stream: string;
  position: string;
  migrationId: number | null;
  recordTime: Micros | null;
  itemsApplied: number;
}

export class CheckpointConflictError extends Error {
  constructor(stream: string) {
    super(`the checkpoint of ${stream} was moved by another writer; stopping`);
    this.name = 'CheckpointConflictError';
  }
}

/** A connection inside the writer's transaction. */
export type WriteConnection = pg.ClientBase;

/**
 * Runs `work` in one transaction on a dedicated connection. Statement timeouts
 * do not apply (large batches, catch-ups); commits do not wait for the WAL
 * flush, which is safe because the checkpoint commits with the data: a crash
 * that loses the last commits loses their checkpoint with them, and the
 * stream is read again from the checkpoint that survived.
 */
const BEGIN_WRITE = `begin; set local statement_timeout = 0; set local synchronous_commit = off;
  set local enable_seqscan = off; set local enable_bitmapscan = off;
  set local enable_hashjoin = off; set local enable_mergejoin = off`;

export async function inWriteTransaction<T>(db: Db, work: (connection: WriteConnection) => Promise<T>): Promise<T> {
  const client = await poolOf(db).connect();
  // A connection whose rollback failed is broken: it is closed rather than returned to the pool.
  let broken: Error | undefined;
  // A connection the server drops while it is checked out emits 'error': keep it as the reason the
  // work fails (its query rejects too) instead of letting it go unhandled and end the process.
  const onError = (err: Error) => (broken = err);
  client.on('error', onError);
  try {
    await client.query(BEGIN_WRITE);
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch((rollbackErr: unknown) => {
      broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr));
    });
    throw typedStorageError(err);
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}

export async function readCheckpoint(db: Db | Trx | WriteConnection, stream: string): Promise<Checkpoint | undefined> {
  const row =
    'query' in db
      ? (
          await db.query<{ position: string; migration_id: number | null; record_time: string | null; items_applied: number }>(
            'select position, migration_id, record_time, items_applied from ingest_checkpoints where stream = $1',
            [stream],
          )
        ).rows[0]
      : await db.selectFrom('ingest_checkpoints').selectAll().where('stream', '=', stream).executeTakeFirst();
  return row
    ? {
        stream,
        position: row.position,
        migrationId: row.migration_id,
        recordTime: row.record_time === null ? null : fromPgTimestamp(row.record_time),
        itemsApplied: row.items_applied,
      }
    : undefined;
}

/**
 * The greatest (migration id, record time) of any stored update or verdict,
 * import updates included; undefined for an empty database. Every item the
 * writer is given after this position is new, so only items at or before it
 * need to be looked up before they are written.
 */
export const newestStoredKey = repositoryOperation('newestStoredKey', async function newestStoredKey(db: Db): Promise<
  StreamKey | undefined
> {
  const { rows } = await sql<{ migration_id: number; record_time: string }>`
    select migration_id, record_time from (
      (select migration_id, record_time from updates where record_time > '0001-01-01 00:00:00+00'
       order by migration_id desc, record_time desc limit 1)
      union all
      (select migration_id, record_time from updates where record_time = '0001-01-01 00:00:00+00'
       order by migration_id desc limit 1)
      union all
      (select migration_id, record_time from verdicts order by migration_id desc, record_time desc limit 1)
    ) k
    order by migration_id desc, record_time desc limit 1`.execute(db);
  const r = rows[0];
  return r ? { migrationId: r.migration_id, recordTime: fromPgTimestamp(r.record_time) } : undefined;
});

/** Which of these update ids are already stored (a re-applied item is a no-op). */
export const storedUpdateIds = repositoryOperation('storedUpdateIds', async function storedUpdateIds(db: Db, ids: string[]): Promise<
  Set<string>
> {
  if (ids.length === 0) return new Set();
  const rows = await sql<{ update_id: string }>`select update_id from updates where update_id = any(${ids}::text[])`.execute(db);
  return new Set(rows.rows.map((r) => r.update_id));
});

export const storedVerdictIds = repositoryOperation('storedVerdictIds', async function storedVerdictIds(db: Db, ids: string[]): Promise<
  Set<string>
> {
  if (ids.length === 0) return new Set();
  const rows = await sql<{ update_id: string }>`select update_id from verdicts where update_id = any(${ids}::text[])`.execute(db);
  return new Set(rows.rows.map((r) => r.update_id));
});

async function copy(connection: WriteConnection, rows: CopyData): Promise<void> {
  if (rows.size === 0) return;
  const stream = connection.query(copyFrom(rows.statement()));
  // Listening before the first write: a connection that drops mid-COPY must reject here, not throw unhandled.
  const done = finished(stream);
  for (const chunk of rows.data()) stream.write(chunk);
  stream.end();
  await done;
}

const json = (rows: unknown[]) => JSON.stringify(rows);

/** An active stakeholder row `s` by every column of each of its indexes, from the keys `k`. */
const STAKEHOLDER_KEY = `s.migration_id = k.migration_id and s.party = k.party and s.created_at = k.created_at
  and s.contract_id = k.contract_id and s.package_name = k.package_name and s.qualified_name = k.qualified_name
  and s.archived_record_time = 'infinity'`;

const ASSIGNED_RETURNING = `c.migration_id, c.contract_id, c.created_at, c.package_name, c.qualified_name, c.signatories,
  c.observers, c.created_record_time, c.archived_record_time, c.archived_in_update_id, c.amulet_initial_amount, c.amulet_locked,
  c.created_slot`;

/**
 * Contracts arriving by assignment: new ones are inserted with their
 * stakeholder rows; a contract the migration already has is only reassigned
 * (and archived, when the batch archives it later). Rare, so written with a
 * plain statement rather than COPY, and allowed to look a contract up in every
 * partition (one that is archived already keeps its archive). Returns the ACS
 * deltas of what changed.
 */
const ASSIGNED_SQL = `with input as (
       select * from json_to_recordset($1::json) as x(
         migration_id bigint, contract_id text, template_id text, package_name text, qualified_name text,
         create_arguments text, created_at timestamptz, signatories text[], observers text[],
         created_in_update_id text, created_event_id text, created_record_time timestamptz,
         archived_record_time timestamptz, archived_in_update_id text, synchronizer_id text,
         reassignment_counter bigint, dso_party text, amulet_owner text, amulet_initial_amount numeric,
         amulet_created_round bigint, amulet_rate_per_round numeric, amulet_locked boolean, lock_holders text[],
         lock_expires_at timestamptz, round_number bigint, ans_name text, ans_user text, ans_expires_at timestamptz)),
     -- Known and active: reassigned, and archived when a later item of the batch archives it (the archive travels on the row).
     known_active as (
       update contracts c set synchronizer_id = i.synchronizer_id, reassignment_counter = i.reassignment_counter,
         archived_record_time = i.archived_record_time, archived_in_update_id = i.archived_in_update_id
       from input i
       where c.migration_id = i.migration_id and c.contract_id = i.contract_id and c.archived_record_time >= 'infinity'
       returning false as inserted, ${ASSIGNED_RETURNING}),
     known_archived as (
       update contracts c set synchronizer_id = i.synchronizer_id, reassignment_counter = i.reassignment_counter
       from input i
       where c.migration_id = i.migration_id and c.contract_id = i.contract_id and c.archived_record_time < 'infinity'
       returning c.contract_id),
     inserted as (
       insert into contracts as c (${CONTRACT_COLUMNS.join(', ')})
       select ${CONTRACT_COLUMNS.join(', ')} from input i
       where not exists (select 1 from contracts c where c.migration_id = i.migration_id and c.contract_id = i.contract_id)
       returning true as inserted, ${ASSIGNED_RETURNING}),
     written as (select * from known_active union all select * from inserted),
     stakeholder_rows as (
       select distinct w.inserted, w.migration_id, p.party, w.created_at, w.contract_id, w.package_name, w.qualified_name,
         w.created_record_time, w.archived_record_time, w.archived_record_time > w.created_slot as visible
       from written w cross join lateral unnest(w.signatories || w.observers) as p(party)),
     new_stakeholders as (
       insert into contract_stakeholders (${STAKEHOLDER_COLUMNS.join(', ')})
       select ${STAKEHOLDER_COLUMNS.join(', ')} from stakeholder_rows where inserted and visible),
     archived_stakeholders as (
       update contract_stakeholders s set archived_record_time = k.archived_record_time
       from stakeholder_rows k
       where not k.inserted and k.visible and k.archived_record_time < 'infinity' and ${STAKEHOLDER_KEY}),
     invisible as (
       delete from contract_stakeholders s using stakeholder_rows k
       where not k.inserted and not k.visible and ${STAKEHOLDER_KEY})
     select w.inserted, w.migration_id, w.created_record_time, w.archived_record_time, w.created_at,
       w.amulet_initial_amount, w.amulet_locked, w.archived_in_update_id is not null as archived_here
     from written w`;

async function writeAssignedContracts(connection: WriteConnection, contracts: ContractRow[]): Promise<AcsDeltaRow[]> {
  const slotOf = (pgTime: string) => formatRecordTime(snapshotSlot(fromPgTimestamp(pgTime)));
  const { rows } = await connection.query<{
    inserted: boolean;
    archived_here: boolean;
    migration_id: number;
    created_record_time: string;
    archived_record_time: string;
    created_at: string;
    amulet_initial_amount: string | null;
    amulet_locked: boolean | null;
  }>(ASSIGNED_SQL, [json(contracts)]);
  const deltas: AcsDeltaRow[] = [];
  for (const r of rows) {
    const amount = r.amulet_initial_amount;
    const delta = (slot: string, sign: 1 | -1, createdAt: string | null): AcsDeltaRow => ({
      migration_id: r.migration_id,
      slot,
      contract_count: sign,
      unlocked_amulet: amount !== null && r.amulet_locked === false ? (sign < 0 ? `-${amount}` : amount) : '0',
      locked_amulet: amount !== null && r.amulet_locked === true ? (sign < 0 ? `-${amount}` : amount) : '0',
      max_created_at: createdAt,
      archived_count: sign < 0 ? 1 : 0,
    });
    if (r.inserted) deltas.push(delta(slotOf(r.created_record_time), 1, r.created_at));
    if (r.archived_here) deltas.push(delta(slotOf(r.archived_record_time), -1, null));
  }
  return deltas;
}

/**
 * Archives contracts stored before the batch (and their stakeholder rows),
 * and adds the batch's ACS deltas: those given, plus minus each archived
 * contract in its archive's slot. Returns the archives that matched no active
 * contract.
 */
// Only the active partition is read, by its primary key: `>= 'infinity'` leaves out every other
// partition as `= 'infinity'` would, but implies none of the partial indexes of the active contracts
// (whose predicate is `= 'infinity'`), which the planner could otherwise take for a lookup by id and
// walk whole. The update moves each row into the partition of its archive month. A contract archived
// already matches nothing, and is reported as unmatched. Stakeholder rows are found by every column
// of either of their indexes, so both are exact lookups.
const ARCHIVE_SQL = `with x as (
       select * from unnest($1::bigint[], $2::text[], $3::timestamptz[], $4::text[], $5::timestamptz[])
         as x(migration_id, contract_id, record_time, update_id, slot)),
     archived as (
       update contracts c set archived_record_time = x.record_time, archived_in_update_id = x.update_id
       from x
       where c.migration_id = x.migration_id and c.contract_id = x.contract_id and c.archived_record_time >= 'infinity'
       returning c.migration_id, c.contract_id, c.archived_in_update_id, c.created_at, c.signatories, c.observers, c.archived_record_time,
         c.created_slot, c.amulet_initial_amount, c.amulet_locked, c.package_name, c.qualified_name, x.slot),
     -- Each stakeholder row by its whole key.
     stakeholder_keys as (
       select distinct a.migration_id, p.party, a.created_at, a.contract_id, a.package_name, a.qualified_name,
         a.archived_record_time, a.archived_record_time > a.created_slot as visible
       from archived a cross join lateral unnest(a.signatories || a.observers) as p(party)),
     -- A contract archived before its first snapshot boundary is in no snapshot: its stakeholder rows go.
     still_visible as (
       update contract_stakeholders s set archived_record_time = k.archived_record_time
       from stakeholder_keys k
       where k.visible and ${STAKEHOLDER_KEY}),
     invisible as (
       delete from contract_stakeholders s using stakeholder_keys k
       where not k.visible and ${STAKEHOLDER_KEY}),
     deltas as (
       insert into acs_deltas (migration_id, slot, contract_count, unlocked_amulet, locked_amulet, max_created_at, archived_count)
       select migration_id, slot, sum(n), sum(unlocked), sum(locked), max(max_created_at), sum(archived_count) from (
         select a.migration_id, a.slot, -count(*) as n,
           -coalesce(sum(a.amulet_initial_amount) filter (where a.amulet_locked = false), 0) as unlocked,
           -coalesce(sum(a.amulet_initial_amount) filter (where a.amulet_locked), 0) as locked,
           null::timestamptz as max_created_at, count(*) as archived_count
         from archived a group by a.migration_id, a.slot
         union all
         select * from unnest($6::bigint[], $7::timestamptz[], $8::bigint[], $9::numeric[], $10::numeric[], $11::timestamptz[], $12::bigint[])
       ) d
       group by migration_id, slot
       on conflict (migration_id, slot) do update set
         contract_count = acs_deltas.contract_count + excluded.contract_count,
         unlocked_amulet = acs_deltas.unlocked_amulet + excluded.unlocked_amulet,
         locked_amulet = acs_deltas.locked_amulet + excluded.locked_amulet,
         max_created_at = greatest(acs_deltas.max_created_at, excluded.max_created_at),
         archived_count = acs_deltas.archived_count + excluded.archived_count)
     select migration_id, contract_id, archived_in_update_id, signatories || observers as stakeholders, amulet_initial_amount
     from archived`;

function archiveParams(archives: ArchiveRow[], deltas: AcsDeltaRow[]): unknown[] {
  const col = <K extends keyof ArchiveRow>(k: K) => archives.map((a) => a[k]);
  const dcol = <K extends keyof AcsDeltaRow>(k: K) => deltas.map((d) => d[k]);
  return [
    col('migration_id'),
    col('contract_id'),
    col('record_time'),
    col('update_id'),
    col('slot'),
    dcol('migration_id'),
    dcol('slot'),
    dcol('contract_count'),
    dcol('unlocked_amulet'),
    dcol('locked_amulet'),
    dcol('max_created_at'),
    dcol('archived_count'),
  ];
}

interface Archived {
  migration_id: string;
  contract_id: string;
  archived_in_update_id: string;
  /** Signatories, then observers: one array for pg to read rather than two. */
  stakeholders: string[];
  /** An Amulet's or LockedAmulet's initial amount (decimal text); null for other templates. */
  amulet_initial_amount: string | null;
}

/** Returns the archives that matched no active contract, and the contracts archived. */
async function archiveAndCount(
  connection: WriteConnection,
  archives: ArchiveRow[],
  deltas: AcsDeltaRow[],
): Promise<{ unmatched: ArchiveRow[]; archived: Archived[] }> {
  const { rows } = await connection.query<Archived>(ARCHIVE_SQL, archiveParams(archives, deltas));
  const done = new Set(rows.map((r) => `${r.migration_id}/${r.contract_id}`));
  return { unmatched: archives.filter((a) => !done.has(`${a.migration_id}/${a.contract_id}`)), archived: rows };
}

/**
 * The update_subjects rows that waited for the stakeholders of the stored contracts their updates
 * archive, with those added.
 */
function completedSubjects(pending: Map<string, SubjectRow>, archived: Archived[]): CopyData {
  const parties = new Map<string, string[]>();
  for (const a of archived) {
    const key = `${a.migration_id}/${a.archived_in_update_id}`;
    if (!pending.has(key)) continue;
    let list = parties.get(key);
    if (!list) parties.set(key, (list = []));
    list.push(...a.stakeholders);
  }
  const rows: SubjectRow[] = [];
  for (const [key, row] of pending) {
    const more = parties.get(key);
    // The row's own parties are distinct and sorted already.
    rows.push(more ? { ...row, parties: sortedDistinct([...row.parties, ...more]) } : row);
  }
  return subjectCopies(rows);
}

/**
 * The expiry rows that waited for the initial amount of the stored amulet their update archives, with
 * it set as their amount and burn. One the archive did not match is left out: the batch fails on that
 * unmatched archive anyway.
 */
function completedActivities(pending: readonly PendingActivity[], archived: Archived[]): CopyData | undefined {
  if (pending.length === 0) return undefined;
  const amounts = new Map<string, string | null>();
  for (const a of archived) amounts.set(`${a.migration_id}/${a.contract_id}`, a.amulet_initial_amount);
  const copies = new CopyRows('activities', ACTIVITY_COLUMNS);
  for (const p of pending) {
    const amount = amounts.get(`${p.migration_id}/${p.contract_id}`);
    if (amount === undefined || amount === null) continue;
    completeActivity(p.values, amount);
    copies.add(p.values);
  }
  return copies;
}

const REASSIGN_SQL = `update contracts c set synchronizer_id = x.synchronizer_id, reassignment_counter = x.reassignment_counter
  from unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[]) as x(migration_id, contract_id, synchronizer_id, reassignment_counter)
  where c.migration_id = x.migration_id and c.contract_id = x.contract_id and c.archived_record_time >= 'infinity'`;

const reassignParams = (r: ReassignmentRow[]): unknown[] => [
  r.map((x) => x.migration_id),
  r.map((x) => x.contract_id),
  r.map((x) => x.synchronizer_id),
  r.map((x) => x.reassignment_counter),
];

/**
 * The plans, with buffers touched, of the writer's statements on existing rows (archives and
 * reassignments) for these rows, run in the writer's settings and rolled back: for tests that
 * show their cost does not grow with the tables.
 */
export async function explainWriterStatements(
  db: Db,
  rows: { archives: ArchiveRow[]; reassignments: ReassignmentRow[] },
): Promise<{ archive: unknown; reassign: unknown }> {
  const client = await poolOf(db).connect();
  try {
    await client.query(BEGIN_WRITE);
    const explain = async (text: string, params: unknown[]) =>
      (await client.query<{ 'QUERY PLAN': unknown }>(`explain (analyze, buffers, format json) ${text}`, params)).rows[0]!['QUERY PLAN'];
    return {
      archive: await explain(ARCHIVE_SQL, archiveParams(rows.archives, [])),
      reassign: await explain(REASSIGN_SQL, reassignParams(rows.reassignments)),
    };
  } finally {
    await client.query('rollback');
    client.release();
  }
}

/**
 * Writes the rows of one batch inside the caller's write transaction. Returns
 * the archives that matched no active contract (the caller turns them into a
 * precise error and rolls back). Unique violations surface as the typed errors
 * of storage-errors.ts once the transaction is rolled back.
 */
export async function writeBatch(connection: WriteConnection, rows: BatchRows): Promise<{ unmatchedArchives: ArchiveRow[] }> {
  if (rows.migrations.length) {
    // An indexer that reads a stream from its beginning holds all of each migration it sees.
    await connection.query(
      `insert into migrations (migration_id, last_import_update_id, complete, import_updates_complete)
       select migration_id, last_import_update_id, true, true
       from unnest($1::bigint[], $2::text[]) as x(migration_id, last_import_update_id)
       on conflict (migration_id) do update set last_import_update_id =
         greatest(migrations.last_import_update_id, excluded.last_import_update_id)`,
      [rows.migrations.map((m) => m.migration_id), rows.migrations.map((m) => m.last_import_update_id)],
    );
  }
  await copy(connection, rows.appended.updates);
  // Reassignments of contracts stored before this batch precede any assignment row of the batch.
  if (rows.reassignments.length) {
    await connection.query(REASSIGN_SQL, reassignParams(rows.reassignments));
  }
  const created = rows.contracts.copies();
  await copy(connection, created.contracts);
  await copy(connection, created.stakeholders);
  const deltas = [...rows.acsDeltas];
  if (rows.assignedContracts.length) deltas.push(...(await writeAssignedContracts(connection, rows.assignedContracts)));
  let unmatchedArchives: ArchiveRow[] = [];
  let archived: Archived[] = [];
  if (rows.archives.length || deltas.length)
    ({ unmatched: unmatchedArchives, archived } = await archiveAndCount(connection, rows.archives, deltas));

  for (const copied of [
    rows.appended.verdicts,
    rows.appended.traffic,
    rows.appended.appActivity,
    rows.appended.voteResults,
    rows.appended.transferCommands,
    rows.appended.activities,
    rows.appended.subjects,
    completedSubjects(rows.pendingSubjects, archived),
    completedActivities(rows.pendingActivities, archived),
  ]) {
    if (copied) await copy(connection, copied);
  }

  if (rows.contractBlobs.length) await connection.query(UPSERT_BLOBS_SQL, blobParams(rows.contractBlobs));

  if (rows.ranges.length) {
    const r = rows.ranges;
    await connection.query(
      `insert into migration_synchronizers (migration_id, synchronizer_id, min_record_time, max_record_time, update_count)
       select * from unnest($1::bigint[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::bigint[])
       on conflict (migration_id, synchronizer_id) do update set
         min_record_time = least(migration_synchronizers.min_record_time, excluded.min_record_time),
         max_record_time = greatest(migration_synchronizers.max_record_time, excluded.max_record_time),
         update_count = migration_synchronizers.update_count + excluded.update_count`,
      [
        r.map((x) => x.migration_id),
        r.map((x) => x.synchronizer_id),
        r.map((x) => x.min_record_time),
        r.map((x) => x.max_record_time),
        r.map((x) => x.update_count),
      ],
    );
  }
  if (rows.hourlyCounts.length) {
    const h = rows.hourlyCounts;
    await connection.query(
      `insert into update_counts_by_hour (migration_id, hour, update_count)
       select * from unnest($1::bigint[], $2::timestamptz[], $3::bigint[])
       on conflict (migration_id, hour) do update set update_count = update_counts_by_hour.update_count + excluded.update_count`,
      [h.map((x) => x.migration_id), h.map((x) => x.hour), h.map((x) => x.update_count)],
    );
  }
  return { unmatchedArchives };
}

/** Advances the checkpoint, failing if another writer moved it since the batch began. */
export async function advanceCheckpoint(connection: WriteConnection, c: CheckpointWrite): Promise<void> {
  if (c.expectedPosition === undefined) {
    const inserted = await connection.query(
      `insert into ingest_checkpoints (stream, position, migration_id, record_time, items_applied)
       values ($1, $2, $3, $4::timestamptz, $5)
       on conflict (stream) do nothing`,
      [c.stream, c.position, c.migrationId, c.recordTime === null ? null : formatRecordTime(c.recordTime), c.items],
    );
    if (inserted.rowCount !== 1) throw new CheckpointConflictError(c.stream);
    return;
  }
  const updated = await connection.query(
    `update ingest_checkpoints set position = $2,
       migration_id = coalesce($3::bigint, migration_id),
       record_time = coalesce($4::timestamptz, record_time),
       items_applied = items_applied + $5, updated_at = now()
     where stream = $1 and position = $6`,
    [c.stream, c.position, c.migrationId, c.recordTime === null ? null : formatRecordTime(c.recordTime), c.items, c.expectedPosition],
  );
  if (updated.rowCount !== 1) throw new CheckpointConflictError(c.stream);
}

// A blob is rewritten only when it changed (a contract carried into a new migration may come with a new one).
const UPSERT_BLOBS_SQL = `insert into contract_blobs (contract_id, blob)
  select * from unnest($1::text[], $2::text[])
  on conflict (contract_id) do update set blob = excluded.blob where contract_blobs.blob <> excluded.blob`;

const blobParams = (rows: readonly ContractBlobRow[]) => [rows.map((r) => r.contract_id), rows.map((r) => r.blob)];

/**
 * Stores created-event blobs that came apart from the stream (a mirror copies them from its upstream's
 * contract endpoints); the newest wins. Returns how many rows were added or changed.
 */
export const storeContractBlobs = repositoryOperation(
  'storeContractBlobs',
  async function storeContractBlobs(db: Db, rows: readonly ContractBlobRow[]): Promise<number> {
    if (rows.length === 0) return 0;
    const unique = [...new Map(rows.map((r) => [r.contract_id, r])).values()];
    // The writer's own statement, in a transaction of its own.
    const result = await inWriteTransaction(db, async (connection) => {
      const stored = await connection.query(UPSERT_BLOBS_SQL, blobParams(unique));
      if (stored.rowCount)
        await markChangedBlobs(
          connection,
          unique.map((r) => r.contract_id),
        );
      return stored;
    });
    return result.rowCount ?? 0;
  },
);
