/** Ingestion progress for /status: where each stream is and what has been announced. */
import { fromPgTimestamp, type Micros } from '../domain/time';
import type { Db } from './pool';
import { repositoryOperation } from './query-operation';

export interface IngestStatus {
  streams: {
    stream: string;
    position: string;
    migrationId: number | null;
    recordTime: Micros | null;
    itemsApplied: number;
    updatedAt: Micros;
  }[];
  migrations: { migrationId: number; updates: number; lastRecordTime: Micros | null; snapshots: number; lastSnapshot: Micros | null }[];
}

const instant = (t: string | null | undefined): Micros | null => (t === null || t === undefined ? null : fromPgTimestamp(t));

export const readIngestStatus = repositoryOperation('readIngestStatus', async function readIngestStatus(db: Db): Promise<IngestStatus> {
  const [streams, migrations] = await Promise.all([
    db.selectFrom('ingest_checkpoints').selectAll().orderBy('stream').execute(),
    db
      .selectFrom('migrations as m')
      .select((eb) => [
        'm.migration_id',
        eb
          .selectFrom('migration_synchronizers as s')
          .select((e) => e.fn.coalesce(e.fn.sum<number>('s.update_count'), e.lit(0)).as('n'))
          .whereRef('s.migration_id', '=', 'm.migration_id')
          .as('updates'),
        eb
          .selectFrom('migration_synchronizers as s')
          .select((e) => e.fn.max('s.max_record_time').as('t'))
          .whereRef('s.migration_id', '=', 'm.migration_id')
          .as('last_record_time'),
        eb
          .selectFrom('acs_snapshots as a')
          .select((e) => e.fn.countAll<number>().as('n'))
          .whereRef('a.migration_id', '=', 'm.migration_id')
          .as('snapshots'),
        eb
          .selectFrom('acs_snapshots as a')
          .select((e) => e.fn.max('a.record_time').as('t'))
          .whereRef('a.migration_id', '=', 'm.migration_id')
          .as('last_snapshot'),
      ])
      .orderBy('m.migration_id')
      .execute(),
  ]);
  return {
    streams: streams.map((s) => ({
      stream: s.stream,
      position: s.position,
      migrationId: s.migration_id,
      recordTime: instant(s.record_time),
      itemsApplied: s.items_applied,
      updatedAt: fromPgTimestamp(s.updated_at),
    })),
    migrations: migrations.map((m) => ({
      migrationId: m.migration_id,
      updates: Number(m.updates ?? 0),
      lastRecordTime: instant(m.last_record_time),
      snapshots: Number(m.snapshots ?? 0),
      lastSnapshot: instant(m.last_snapshot),
    })),
  };
});
