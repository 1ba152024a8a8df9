/**
 * The partitions of the history tables (migration 20261126_001_partitioned_history.sql): one per
 * migration and UTC month for updates, verdicts, traffic summaries, activity records and activities
 * (20261126_080), and one
 * per archive month for contracts and their stakeholder rows. The writer makes them ahead of the
 * rows that need them, each month together with the next, so that in steady state a month's
 * partitions exist weeks before its first item; retention drops whole months.
 */
import { sql } from 'kysely';
import type { StreamKey } from '../domain/stream-key';
import { IMPORT_RECORD_TIME, formatRecordTime, fromPgTimestamp, parseTimestamp, startOfMonth, type Micros } from '../domain/time';
import { dropHoldingTotalsBefore } from './holding-totals-repository';
import type { Db } from './pool';
import { repositoryOperation } from './query-operation';

/** Months known to have their partitions, per database handle: the common case asks nothing of the server. */
const ensuredMonths = new WeakMap<Db, Set<string>>();

function ensuredOf(db: Db): Set<string> {
  let set = ensuredMonths.get(db);
  if (!set) {
    set = new Set();
    ensuredMonths.set(db, set);
  }
  return set;
}

/**
 * Makes the partitions for the months of these keys (any time in the month will do), and for the
 * month after each, where missing. Each call of the SQL function commits on its own, outside any
 * batch: attaching a partition takes a lock that readers and writers do not wait for.
 * Returns how many partitions were made.
 */
export const ensureHistoryPartitions = repositoryOperation(
  'ensureHistoryPartitions',
  async function ensureHistoryPartitions(db: Db, keys: Iterable<StreamKey>): Promise<number> {
    const ensured = ensuredOf(db);
    let made = 0;
    for (const key of keys) {
      for (const month of [startOfMonth(key.recordTime), startOfMonth(key.recordTime, 1)]) {
        const id = `${key.migrationId}/${month}`;
        if (ensured.has(id)) continue;
        const { rows } = await sql<{ made: number }>`
          select ensure_history_partitions(${key.migrationId}::bigint, ${formatRecordTime(month)}::timestamptz) as made`.execute(db);
        made += rows[0]?.made ?? 0;
        ensured.add(id);
      }
    }
    return made;
  },
);

/** Forgets what ensureHistoryPartitions knows of this database (after partitions were dropped). */
function forgetEnsuredPartitions(db: Db): void {
  ensuredMonths.delete(db);
}

/** The network_facts key of where the stored history starts, once retention has dropped some (JSON: a record time). */
const HISTORY_START_FACT = 'history_start';

/** Where the stored history starts: undefined while nothing was ever dropped. */
export const readHistoryStart = repositoryOperation('readHistoryStart', async function readHistoryStart(db: Db): Promise<
  Micros | undefined
> {
  const row = await db.selectFrom('network_facts').select('value').where('key', '=', HISTORY_START_FACT).executeTakeFirst();
  return row ? fromPgTimestamp(JSON.parse(row.value) as string) : undefined;
});

/** A month partition of a history table, as its name tells (see ensure_history_partitions). */
interface HistoryPartition {
  parent: string;
  name: string;
  /** Undefined for the contracts' archive partitions, which hold every migration. */
  migrationId: number | undefined;
  month: Micros;
}

const PARTITION_NAME =
  /^(updates|verdicts|traffic_summaries|app_activity_records|activities|update_subjects)_m(\d+)_p(\d{4})(\d{2})$|^(contracts|contract_stakeholders)_archived_p(\d{4})(\d{2})$/;

const monthOf = (year: string, month: string): Micros => parseTimestamp(`${year}-${month}-01T00:00:00Z`);

async function listHistoryPartitions(db: Db): Promise<HistoryPartition[]> {
  const { rows } = await sql<{ parent: string; name: string }>`
    select p.relname as parent, c.relname as name
    from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
    where p.relname in ('updates', 'verdicts', 'traffic_summaries', 'app_activity_records', 'activities', 'update_subjects', 'contracts', 'contract_stakeholders')
      and p.relnamespace = current_schema()::regnamespace`.execute(db);
  return rows.flatMap((r): HistoryPartition[] => {
    const m = PARTITION_NAME.exec(r.name);
    if (!m) return [];
    return m[1]
      ? [{ parent: r.parent, name: r.name, migrationId: Number(m[2]), month: monthOf(m[3]!, m[4]!) }]
      : [{ parent: r.parent, name: r.name, migrationId: undefined, month: monthOf(m[6]!, m[7]!) }];
  });
}

/** The (migration, month start) of every month partition of the updates, for copying a database's layout. */
export const listHistoryMonths = repositoryOperation('listHistoryMonths', async function listHistoryMonths(db: Db): Promise<StreamKey[]> {
  return (await listHistoryPartitions(db)).flatMap((p) =>
    p.parent === 'updates' && p.migrationId !== undefined ? [{ migrationId: p.migrationId, recordTime: p.month }] : [],
  );
});

export interface DroppedHistory {
  /** Where the history starts now (the cutoff when nothing was ever dropped). */
  start: Micros;
  /** The partitions detached and dropped, by name. */
  partitions: string[];
}

/**
 * Drops the history before `cutoff`, a month start: every month partition that ends by then, and
 * the import updates of a migration none of whose later history is left (the newest migration's
 * are kept). Records the new start first, so that requests for the dropped range are refused with
 * it (never answered from a half-dropped range), then detaches each partition concurrently (no
 * lock that readers or the writer wait for) and drops it. ACS snapshots before the cutoff go too:
 * their archived contracts are gone.
 */
export const dropHistoryBefore = repositoryOperation(
  'dropHistoryBefore',
  async function dropHistoryBefore(db: Db, cutoff: Micros): Promise<DroppedHistory> {
    const previous = await readHistoryStart(db);
    if (previous !== undefined && previous >= cutoff) return { start: previous, partitions: [] };
    const partitions = await listHistoryPartitions(db);
    const importMonth = startOfMonth(IMPORT_RECORD_TIME);
    const newestMigration = Math.max(-1, ...partitions.flatMap((p) => (p.migrationId === undefined ? [] : [p.migrationId])));
    const ends = (p: HistoryPartition) => startOfMonth(p.month, 1);
    // Migrations with live history left after the drop.
    const alive = new Set(partitions.filter((p) => p.month !== importMonth && ends(p) > cutoff).flatMap((p) => p.migrationId ?? []));
    const doomed = partitions.filter((p) =>
      p.month === importMonth ? p.migrationId !== newestMigration && !alive.has(p.migrationId!) : ends(p) <= cutoff,
    );
    // Nothing stored before the cutoff: the history still starts where it did.
    if (doomed.length === 0) return { start: previous ?? cutoff, partitions: [] };
    const start = formatRecordTime(cutoff);
    await db
      .insertInto('network_facts')
      .values({ key: HISTORY_START_FACT, value: JSON.stringify(start) })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: JSON.stringify(start), updated_at: sql<string>`now()` }))
      .execute();
    for (const p of doomed) {
      await sql`alter table ${sql.table(p.parent)} detach partition ${sql.table(p.name)} concurrently`.execute(db);
      await sql`drop table ${sql.table(p.name)}`.execute(db);
    }
    // The snapshots' holdings totals first: the newest row of each owner carries over to the first kept snapshot.
    await dropHoldingTotalsBefore(db, start);
    await sql`delete from acs_snapshots where record_time < ${start}::timestamptz`.execute(db);
    // What the migration-info operations report: the record times still held.
    await sql`delete from migration_synchronizers where max_record_time < ${start}::timestamptz`.execute(db);
    await sql`update migration_synchronizers set min_record_time = ${start}::timestamptz where min_record_time < ${start}::timestamptz`.execute(
      db,
    );
    forgetEnsuredPartitions(db);
    return { start: cutoff, partitions: doomed.map((p) => p.name) };
  },
);
