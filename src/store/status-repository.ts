/** Ingestion progress for /status: where each stream is and what has been announced. */
import type { Db } from './pool';

export interface IngestStatus {
  streams: { stream: string; position: string; migrationId: number | null; recordTime: string | null; itemsApplied: number; updatedAt: string }[];
  migrations: { migrationId: number; updates: number; lastRecordTime: string | null; snapshots: number; lastSnapshot: string | null }[];
}

export async function readIngestStatus(db: Db): Promise<IngestStatus> {
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
        eb.selectFrom('migration_synchronizers as s').select((e) => e.fn.max('s.max_record_time').as('t')).whereRef('s.migration_id', '=', 'm.migration_id').as('last_record_time'),
        eb.selectFrom('acs_snapshots as a').select((e) => e.fn.countAll<number>().as('n')).whereRef('a.migration_id', '=', 'm.migration_id').as('snapshots'),
        eb.selectFrom('acs_snapshots as a').select((e) => e.fn.max('a.record_time').as('t')).whereRef('a.migration_id', '=', 'm.migration_id').as('last_snapshot'),
      ])
      .orderBy('m.migration_id')
      .execute(),
  ]);
  return {
    streams: streams.map((s) => ({
      stream: s.stream,
      position: s.position,
      migrationId: s.migration_id,
      recordTime: s.record_time,
      itemsApplied: s.items_applied,
      updatedAt: s.updated_at,
    })),
    migrations: migrations.map((m) => ({
      migrationId: m.migration_id,
      updates: Number(m.updates ?? 0),
      lastRecordTime: m.last_record_time ?? null,
      snapshots: Number(m.snapshots ?? 0),
      lastSnapshot: m.last_snapshot ?? null,
    })),
  };
}
