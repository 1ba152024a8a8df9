/**
 * The backfill of update_subjects (the live stream's party and template filters) over the history
 * stored before 20261126_150 (`scan-indexer backfill-stream-index`): where it is, the updates it reads,
 * and the rows of each page committed with its position.
 */
import { sql } from 'kysely';
import type { Update } from '../domain/items';
import { formatRecordTime, type Micros } from '../domain/time';
import type { SubjectRow } from './ingest-rows';
import { backfillStateOf, type BackfillState } from './backfill-state';
import type { Db } from './pool';
import { repositoryOperation } from './query-operation';
import { readUpdatesBetween, type UpdatePosition } from './update-repository';

const timestamp = (t: Micros) => sql`${formatRecordTime(t)}::timestamptz`;

/** Where the backfill is; undefined when there was nothing to backfill. */
export const readSubjectBackfill = repositoryOperation('readSubjectBackfill', async function readSubjectBackfill(db: Db): Promise<
  BackfillState | undefined
> {
  const row = await db.selectFrom('update_subjects_backfill').selectAll().executeTakeFirst();
  if (!row) return undefined;
  return backfillStateOf(row);
});

export interface StoredUpdateForIndex {
  key: UpdatePosition;
  update: Update;
}

/** The next live updates after `position` up to `end` (inclusive), in the stream's order, parsed. */
export const readUpdatesForSubjects = repositoryOperation(
  'readUpdatesForSubjects',
  async function readUpdatesForSubjects(
    db: Db,
    position: UpdatePosition | undefined,
    end: UpdatePosition,
    limit: number,
  ): Promise<StoredUpdateForIndex[]> {
    const rows = await readUpdatesBetween(db, position, end, limit, false);
    return rows.map((r) => ({ key: r.key, update: JSON.parse(r.compactJson!) as Update }));
  },
);

/**
 * The signatories and observers of contracts as stored, each found by its key: the migration, the
 * contract id and the record time of the update that archived it. By `migration/contract id`; a
 * contract not stored (dropped by retention) is missing.
 */
export const readArchivedStakeholders = repositoryOperation(
  'readArchivedStakeholders',
  async function readArchivedStakeholders(
    db: Db,
    archived: readonly { migrationId: number; contractId: string; archivedAt: Micros }[],
  ): Promise<Map<string, string[]>> {
    if (archived.length === 0) return new Map();
    const { rows } = await sql<{ migration_id: string; contract_id: string; signatories: string[]; observers: string[] }>`
      select c.migration_id, c.contract_id, c.signatories, c.observers
      from unnest(${archived.map((a) => a.migrationId)}::bigint[], ${archived.map((a) => a.contractId)}::text[],
        ${archived.map((a) => formatRecordTime(a.archivedAt))}::timestamptz[]) as x(migration_id, contract_id, archived_record_time)
      join contracts c on c.migration_id = x.migration_id and c.contract_id = x.contract_id
        and c.archived_record_time = x.archived_record_time`.execute(db);
    return new Map(rows.map((r) => [`${r.migration_id}/${r.contract_id}`, [...r.signatories, ...r.observers]]));
  },
);

/**
 * A page's rows and the backfill's new position, in one transaction, so that an interrupted backfill
 * resumes after the last page committed. Rows already there are left as they are.
 */
export const writeSubjectBackfillPage = repositoryOperation(
  'writeSubjectBackfillPage',
  async function writeSubjectBackfillPage(
    db: Db,
    rows: readonly SubjectRow[],
    position: UpdatePosition,
    updates: number,
    finished: boolean,
  ): Promise<void> {
    await db.transaction().execute(async (trx) => {
      if (rows.length > 0) {
        await sql`
          insert into update_subjects (migration_id, record_time, synchronizer_id, update_id, parties, templates)
          select m, t, s, u, string_to_array(p, chr(1)), string_to_array(x, chr(1))
          from unnest(${rows.map((r) => r.migration_id)}::bigint[], ${rows.map((r) => r.record_time)}::timestamptz[],
            ${rows.map((r) => r.synchronizer_id)}::text[], ${rows.map((r) => r.update_id)}::text[],
            ${rows.map((r) => r.parties.join('\u0001'))}::text[], ${rows.map((r) => r.templates.join('\u0001'))}::text[]) as k(m, t, s, u, p, x)
          on conflict do nothing`.execute(trx);
      }
      await sql`
        update update_subjects_backfill set migration_id = ${position.migrationId}, record_time = ${timestamp(position.recordTime)},
          synchronizer_id = ${position.synchronizerId}, update_id = ${position.updateId}, updates_done = updates_done + ${updates},
          finished_at = ${finished ? sql`now()` : sql`null`}, updated_at = now()`.execute(trx);
    });
  },
);
