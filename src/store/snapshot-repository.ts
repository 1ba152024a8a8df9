/**
 * ACS snapshots over the temporal ACS. A snapshot copies no rows: its figures
 * are the previous snapshot's plus what was created and archived in between,
 * read from the creation and archive indexes, so its cost follows the
 * activity of the period, not the size of the ACS.
 */
import { sql } from 'kysely';
import type { Db } from './pool';

export interface MigrationSpan {
  migrationId: number;
  /** PostgreSQL timestamptz text of the first and last non-import update. */
  first: string;
  last: string;
}

export interface SnapshotRow {
  migrationId: number;
  recordTime: string;
  contractCount: number;
  unlockedAmulet: string;
  lockedAmulet: string;
}

export async function migrationSpans(db: Db): Promise<MigrationSpan[]> {
  const rows = await db
    .selectFrom('migration_synchronizers')
    .select(['migration_id', (eb) => eb.fn.min('min_record_time').as('first'), (eb) => eb.fn.max('max_record_time').as('last')])
    .groupBy('migration_id')
    .orderBy('migration_id')
    .execute();
  return rows.map((r) => ({ migrationId: r.migration_id, first: r.first, last: r.last }));
}

export async function latestSnapshot(db: Db, migrationId: number): Promise<SnapshotRow | undefined> {
  const row = await db
    .selectFrom('acs_snapshots')
    .selectAll()
    .where('migration_id', '=', migrationId)
    .orderBy('record_time', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row
    ? {
        migrationId,
        recordTime: row.record_time,
        contractCount: row.contract_count,
        unlockedAmulet: row.unlocked_amulet,
        lockedAmulet: row.locked_amulet,
      }
    : undefined;
}

/** Takes the snapshot at `to` from the one at `from` (undefined: from nothing). */
export async function takeSnapshot(db: Db, migrationId: number, from: SnapshotRow | undefined, to: string): Promise<SnapshotRow> {
  const lower = from?.recordTime ?? '-infinity';
  // The first snapshot of a migration counts all its contracts: exempt it from the API statement timeout.
  const row = await db.transaction().execute(async (trx) => {
    await sql`set local statement_timeout = 0`.execute(trx);
    return sql<{ contract_count: number; unlocked: string; locked: string }>`
    with created as (
      select count(*) as n,
             coalesce(sum(amulet_initial_amount) filter (where amulet_locked = false), 0) as unlocked,
             coalesce(sum(amulet_initial_amount) filter (where amulet_locked), 0) as locked
      from contracts
      where migration_id = ${migrationId} and created_record_time > ${lower}::timestamptz
        and created_record_time <= ${to}::timestamptz
    ), archived as (
      select count(*) as n,
             coalesce(sum(amulet_initial_amount) filter (where amulet_locked = false), 0) as unlocked,
             coalesce(sum(amulet_initial_amount) filter (where amulet_locked), 0) as locked
      from contracts
      where migration_id = ${migrationId} and archived_record_time > ${lower}::timestamptz
        and archived_record_time <= ${to}::timestamptz
    )
    insert into acs_snapshots (migration_id, record_time, contract_count, unlocked_amulet, locked_amulet)
    select ${migrationId}, ${to}::timestamptz,
           ${from?.contractCount ?? 0} + created.n - archived.n,
           ${from?.unlockedAmulet ?? '0'}::numeric + created.unlocked - archived.unlocked,
           ${from?.lockedAmulet ?? '0'}::numeric + created.locked - archived.locked
    from created, archived
    on conflict (migration_id, record_time) do update set migration_id = excluded.migration_id
    returning contract_count, unlocked_amulet as unlocked, locked_amulet as locked`.execute(trx);
  });
  const r = row.rows[0]!;
  return { migrationId, recordTime: to, contractCount: r.contract_count, unlockedAmulet: r.unlocked, lockedAmulet: r.locked };
}
