/**
 * The writer's bookkeeping over generated history, summed as the rows are
 * generated and encoded at the end with the writer's row types: the ACS deltas
 * per snapshot slot (created minus archived, amulet sums, the newest creation,
 * archives), updates per UTC hour, the migration and its record-time range.
 * One entry per slot and per hour: bounded by the history's span, not its size.
 */
import { formatDecimal, parseDecimal, type Decimal10 } from '../../src/domain/decimal';
import { snapshotSlot } from '../../src/domain/snapshot-schedule';
import { formatRecordTime, startOfHour, type Micros } from '../../src/domain/time';
import type { CopyData } from '../../src/store/chunked-buffer';
import { CopyRows } from '../../src/store/copy-text';
import type { AcsDeltaRow, ContractRow, HourlyCountRow, MigrationRow, RangeRow } from '../../src/store/ingest-rows';

export interface Bookkeeping {
  migrations: CopyData;
  migrationSynchronizers: CopyData;
  updateCountsByHour: CopyData;
  acsDeltas: CopyData;
}

interface SlotDelta {
  contracts: number;
  unlocked: Decimal10;
  locked: Decimal10;
  maxCreatedAt: Micros | undefined;
  archived: number;
}

const MIGRATION_COLUMNS = ['migration_id', 'last_import_update_id'] as const satisfies readonly (keyof MigrationRow)[];
const RANGE_COLUMNS = [
  'migration_id',
  'synchronizer_id',
  'min_record_time',
  'max_record_time',
  'update_count',
] as const satisfies readonly (keyof RangeRow)[];
const HOUR_COLUMNS = ['migration_id', 'hour', 'update_count'] as const satisfies readonly (keyof HourlyCountRow)[];
const DELTA_COLUMNS = [
  'migration_id',
  'slot',
  'contract_count',
  'unlocked_amulet',
  'locked_amulet',
  'max_created_at',
  'archived_count',
] as const satisfies readonly (keyof AcsDeltaRow)[];

const byKey = <V>(entries: Map<Micros, V>): [Micros, V][] => [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

export class Bookkeeper {
  private readonly slots = new Map<Micros, SlotDelta>();
  private readonly hours = new Map<Micros, number>();
  private first: Micros | undefined;
  private last: Micros | undefined;
  private updates = 0;

  constructor(
    private readonly migrationId: number,
    private readonly synchronizerId: string,
  ) {}

  /** A non-import update at this record time. */
  update(recordTime: Micros): void {
    const hour = startOfHour(recordTime);
    this.hours.set(hour, (this.hours.get(hour) ?? 0) + 1);
    if (this.first === undefined || recordTime < this.first) this.first = recordTime;
    if (this.last === undefined || recordTime > this.last) this.last = recordTime;
    this.updates += 1;
  }

  /** A contract as written: counted in its creation's slot and, when archived, out of its archive's. */
  contract(c: ContractRow, createdAt: Micros, createdRecordTime: Micros, archivedRecordTime: Micros | null): void {
    const amount = c.amulet_initial_amount === null ? 0n : parseDecimal(c.amulet_initial_amount);
    const created = this.slot(snapshotSlot(createdRecordTime));
    created.contracts += 1;
    if (c.amulet_locked === true) created.locked += amount;
    if (c.amulet_locked === false) created.unlocked += amount;
    if (created.maxCreatedAt === undefined || createdAt > created.maxCreatedAt) created.maxCreatedAt = createdAt;
    if (archivedRecordTime === null) return;
    const archived = this.slot(snapshotSlot(archivedRecordTime));
    archived.contracts -= 1;
    archived.archived += 1;
    if (c.amulet_locked === true) archived.locked -= amount;
    if (c.amulet_locked === false) archived.unlocked -= amount;
  }

  encode(): Bookkeeping {
    const migrations = new CopyRows('migrations', [...MIGRATION_COLUMNS, 'complete', 'import_updates_complete']);
    const migration: MigrationRow = { migration_id: this.migrationId, last_import_update_id: null };
    // The writer records a migration it reads from its beginning as complete.
    migrations.add([...MIGRATION_COLUMNS.map((k) => migration[k]), true, true]);

    const migrationSynchronizers = new CopyRows('migration_synchronizers', RANGE_COLUMNS);
    if (this.first !== undefined && this.last !== undefined) {
      const range: RangeRow = {
        migration_id: this.migrationId,
        synchronizer_id: this.synchronizerId,
        min_record_time: formatRecordTime(this.first),
        max_record_time: formatRecordTime(this.last),
        update_count: this.updates,
      };
      migrationSynchronizers.add(RANGE_COLUMNS.map((k) => range[k]));
    }

    const updateCountsByHour = new CopyRows('update_counts_by_hour', HOUR_COLUMNS);
    for (const [hour, count] of byKey(this.hours)) {
      const row: HourlyCountRow = { migration_id: this.migrationId, hour: formatRecordTime(hour), update_count: count };
      updateCountsByHour.add(HOUR_COLUMNS.map((k) => row[k]));
    }

    const acsDeltas = new CopyRows('acs_deltas', DELTA_COLUMNS);
    for (const [slot, d] of byKey(this.slots)) {
      const row: AcsDeltaRow = {
        migration_id: this.migrationId,
        slot: formatRecordTime(slot),
        contract_count: d.contracts,
        unlocked_amulet: formatDecimal(d.unlocked),
        locked_amulet: formatDecimal(d.locked),
        max_created_at: d.maxCreatedAt === undefined ? null : formatRecordTime(d.maxCreatedAt),
        archived_count: d.archived,
      };
      acsDeltas.add(DELTA_COLUMNS.map((k) => row[k]));
    }
    return { migrations, migrationSynchronizers, updateCountsByHour, acsDeltas };
  }

  private slot(slot: Micros): SlotDelta {
    let d = this.slots.get(slot);
    if (!d) this.slots.set(slot, (d = { contracts: 0, unlocked: 0n, locked: 0n, maxCreatedAt: undefined, archived: 0 }));
    return d;
  }
}

/** Whether a contract is in some ACS snapshot: active, or archived after the snapshot boundary that follows its creation. */
export function inSomeSnapshot(createdRecordTime: Micros, archivedRecordTime: Micros | null): boolean {
  return archivedRecordTime === null || archivedRecordTime > snapshotSlot(createdRecordTime);
}
