/**
 * What the replica monitor (replica-monitor.ts) asks of the primary and of each streaming replica:
 * WAL positions, whether a server is a standby of this cluster, and the data a replica holds, read on
 * the replica itself (so what it reports is there, whatever the replay does next).
 */
import { sql } from 'kysely';
import { fromPgTimestamp, type Micros } from '../domain/time';
import type { Db } from './pool';
import { repositoryOperation } from './query-operation';

/** The primary's current WAL insert position (text, as PostgreSQL prints a pg_lsn). */
export const readPrimaryWalPosition = repositoryOperation(
  'readPrimaryWalPosition',
  async function readPrimaryWalPosition(db: Db): Promise<string> {
    const { rows } = await sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`.execute(db);
    return rows[0]!.lsn;
  },
);

/**
 * The cluster's system identifier, the same on a primary and all its physical replicas (a replica of
 * another cluster must never serve). Undefined where the role may not read it.
 */
export const readSystemIdentifier = repositoryOperation('readSystemIdentifier', async function readSystemIdentifier(db: Db): Promise<
  string | undefined
> {
  try {
    const { rows } = await sql<{ id: string }>`select system_identifier::text as id from pg_control_system()`.execute(db);
    return rows[0]?.id;
  } catch (err) {
    // insufficient_privilege: the check is skipped rather than the replica refused.
    if ((err as { code?: unknown }).code === '42501') return undefined;
    throw err;
  }
});

export interface StandbyStatus {
  inRecovery: boolean;
  /** Where replay stands (pg_lsn text); null on a server that is not a standby. */
  replayLsn: string | null;
  replayPaused: boolean;
}

export const readStandbyStatus = repositoryOperation('readStandbyStatus', async function readStandbyStatus(db: Db): Promise<StandbyStatus> {
  const { rows } = await sql<{ in_recovery: boolean; replay_lsn: string | null; replay_paused: boolean }>`
    select pg_is_in_recovery() as in_recovery,
      pg_last_wal_replay_lsn()::text as replay_lsn,
      case when pg_is_in_recovery() then pg_is_wal_replay_paused() else false end as replay_paused`.execute(db);
  const row = rows[0]!;
  return { inRecovery: row.in_recovery, replayLsn: row.replay_lsn, replayPaused: row.replay_paused };
});

/** Per migration, the newest record time of the updates held and the newest announced ACS snapshot. */
export interface MigrationHorizon {
  migrationId: number;
  newestRecordTime: Micros | null;
  newestSnapshot: Micros | null;
}

/**
 * The data a server holds, in one statement (one consistent view): per migration, the newest record
 * time of its updates (the writer's per-synchronizer ranges and the streams' checkpoints, both written
 * with each batch) and its newest announced snapshot. Reads a few rows of small tables.
 */
export const readDataHorizon = repositoryOperation('readDataHorizon', async function readDataHorizon(db: Db): Promise<MigrationHorizon[]> {
  const { rows } = await sql<{ migration_id: number; newest_record_time: string | null; newest_snapshot: string | null }>`
    select m.migration_id,
      greatest(
        (select max(s.max_record_time) from migration_synchronizers s where s.migration_id = m.migration_id),
        (select max(c.record_time) from ingest_checkpoints c where c.migration_id = m.migration_id)
      ) as newest_record_time,
      (select max(a.record_time) from acs_snapshots a where a.migration_id = m.migration_id) as newest_snapshot
    from migrations m
    order by m.migration_id`.execute(db);
  return rows.map((r) => ({
    migrationId: r.migration_id,
    newestRecordTime: r.newest_record_time === null ? null : fromPgTimestamp(r.newest_record_time),
    newestSnapshot: r.newest_snapshot === null ? null : fromPgTimestamp(r.newest_snapshot),
  }));
});
