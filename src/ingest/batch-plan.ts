/**
 * Turns a batch of canonical items into the rows the writer stores, one item
 * at a time as the source yields it (so a batch holds rows, not parsed items),
 * checking the stream as it goes: items in (migration id, record time) order,
 * event trees whose references resolve, contracts created once and archived at
 * most once. Any violation is a SourceItemError naming the item. Contracts
 * created and archived within the batch are written once, already archived.
 */
import type { CanonicalItem, CreatedEvent, ExercisedEvent, TransactionUpdate, TreeEvent, Update } from '../domain/items';
import { isAssign, isTransaction, updateMigrationId } from '../domain/items';
import { contractFacts, qualifiedNameOf } from '../domain/splice-contracts';
import { parseDecimal, formatDecimal, type Decimal10 } from '../domain/decimal';
import { snapshotSlot } from '../domain/snapshot-schedule';
import { CLOSE_VOTE_REQUEST, voteResultFacts } from '../domain/vote-results';
import { TRANSFER_COMMAND_CHOICES, transferCommandEvent } from '../domain/transfer-commands';
import { compareStreamKeys, type StreamKey } from '../domain/stream-key';
import { IMPORT_RECORD_TIME, formatRecordTime, parseTimestamp, startOfHour, startOfMonth, type Micros } from '../domain/time';
import { AppendedRows, type AcsDeltaRow } from '../store/ingest-rows';
import type { SkippedActivity } from '../domain/activities';
import { subjectsOf } from '../domain/update-subjects';
import { CreatedContracts, type CreatedContract } from '../store/contract-rows';
import type {
  ArchiveRow,
  BatchRows,
  ContractRow,
  HourlyCountRow,
  RangeRow,
  ReassignmentRow,
  TransferCommandEventRow,
  UpdateRow,
  VoteResultRow,
} from '../store/ingest-rows';
import { encodePayload } from '../store/update-payload';
import { SourceItemError, type SourceItem } from './source';
import { withoutLastMember, type ItemTexts } from './sources/item-text';

export interface PlanInput {
  items: SourceItem[];
  /** The key of the last item applied before this batch. */
  previous: StreamKey | undefined;
  /** Updates and verdicts already stored: re-applying them is a no-op. */
  storedUpdates: Set<string>;
  storedVerdicts: Set<string>;
}

/** Where a row came from, for errors found when it is written. */
export interface ItemOrigin {
  origin: string;
  updateId: string;
}

export interface Plan {
  rows: BatchRows;
  last: StreamKey | undefined;
  /** Items planned, and the position and origin of the last one. */
  items: number;
  /** Updates written (re-applied ones excluded), import updates included. */
  updates: number;
  /** What the batch writes, by kind (re-applied items excluded). */
  counts: BatchCounts;
  position: string;
  lastOrigin: string;
  /** Which item each archive of a pre-existing contract came from, for errors. */
  archiveOrigins: ContractMap<ItemOrigin>;
  /** Which item created each contract of the batch, for errors. */
  createOrigins: ContractMap<ItemOrigin>;
  /** The months (migration, month start) the batch's rows fall in: their partitions must exist. */
  months: StreamKey[];
  /** Activities that could not be derived (their updates are stored all the same), to log and count once committed. */
  skippedActivities: (SkippedActivity & { updateId: string })[];
}

export interface BatchCounts {
  /** Transactions and reassignments, import updates excluded. */
  updates: number;
  /** Updates carrying a migration's ACS over a hard migration. */
  importUpdates: number;
  /** Events of the transactions (created and exercised), one per reassignment. */
  events: number;
  verdicts: number;
  reassignments: number;
}

/** What a contract created in a batch holds on the heap, with its map entries, about (measured on the simulator's stream). */
const CONTRACT_HEAP_BYTES = 512;

/**
 * Values by migration and contract id. Keyed by the contract id string itself, within a map per
 * migration: a joined key would be a new string, built and hashed at every lookup.
 */
class ContractMap<T> {
  private readonly byMigration = new Map<number, Map<string, T>>();

  get(migrationId: number, contractId: string): T | undefined {
    return this.byMigration.get(migrationId)?.get(contractId);
  }

  set(migrationId: number, contractId: string, value: T): void {
    let map = this.byMigration.get(migrationId);
    if (!map) {
      map = new Map();
      this.byMigration.set(migrationId, map);
    }
    map.set(contractId, value);
  }
}

/**
 * Record times and snapshot slots as text, formatted once for the many rows that repeat them (an item's
 * rows share its record time; slots are hours apart).
 */
class TimeTexts {
  private time: Micros | undefined;
  private timeText = '';
  private slot: Micros | undefined;
  private slotText = '';

  of(t: Micros): string {
    if (t !== this.time) {
      this.time = t;
      this.timeText = formatRecordTime(t);
    }
    return this.timeText;
  }

  slotOf(t: Micros): string {
    const slot = snapshotSlot(t);
    if (slot !== this.slot) {
      this.slot = slot;
      this.slotText = formatRecordTime(slot);
    }
    return this.slotText;
  }
}

interface Delta {
  migrationId: number;
  slot: string;
  contracts: number;
  unlocked: Decimal10;
  locked: Decimal10;
  maxCreatedAt: Micros | undefined;
  archived: number;
}

/** The exercises whose results the history tables keep (Scan's transaction log), by choice name: one lookup per exercise. */
type RecordedChoice = { step: 'vote' | keyof typeof TRANSFER_COMMAND_CHOICES; qualifiedName: string };
const RECORDED_CHOICES = new Map<string, RecordedChoice>([
  [CLOSE_VOTE_REQUEST.choice, { step: 'vote', qualifiedName: CLOSE_VOTE_REQUEST.qualifiedName }],
  ...(Object.keys(TRANSFER_COMMAND_CHOICES) as (keyof typeof TRANSFER_COMMAND_CHOICES)[]).map((step): [string, RecordedChoice] => [
    TRANSFER_COMMAND_CHOICES[step].choice,
    { step, qualifiedName: TRANSFER_COMMAND_CHOICES[step].qualifiedName },
  ]),
]);

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const isBase64 = (text: string): boolean => BASE64.test(text);

const HASH_KEY = 'external_transaction_hash';

/** The update without external_transaction_hash, written again. */
function servedText(update: Update): string {
  const { external_transaction_hash: _hash, ...served } = update as TransactionUpdate;
  return JSON.stringify(served);
}

/**
 * The update's two renderings as served, which leave out external_transaction_hash (a column). Texts the
 * source kept are stored as received, the hash cut off where it is their last member (where Scan puts it);
 * anything else is written again from the parsed item.
 */
function servedRenderings(item: CanonicalItem, texts: ItemTexts | undefined, hash: unknown): { compact: string; protobuf: string | null } {
  const served = (text: string) => (hash === undefined ? text : withoutLastMember(text, HASH_KEY, hash));
  const compactText = texts?.update === undefined ? undefined : served(texts.update);
  const compact = compactText ?? servedText(item.update!);
  if (texts?.updateProtobuf !== undefined) {
    return { compact, protobuf: served(texts.updateProtobuf) ?? servedText(JSON.parse(texts.updateProtobuf) as Update) };
  }
  return { compact, protobuf: item.update_protobuf_json ? servedText(item.update_protobuf_json) : null };
}

const stakeholdersOfRow = (row: ContractRow): string[] => [...row.signatories, ...row.observers];

function synchronizerOf(update: Update): string {
  if (isTransaction(update)) return update.synchronizer_id;
  return isAssign(update.event) ? update.event.target_synchronizer : update.event.source_synchronizer;
}

export class BatchPlanner {
  private readonly rows: BatchRows = {
    migrations: [],
    appended: new AppendedRows(),
    contracts: new CreatedContracts(),
    assignedContracts: [],
    archives: [],
    reassignments: [],
    ranges: [],
    hourlyCounts: [],
    acsDeltas: [],
    contractBlobs: [],
    pendingSubjects: new Map(),
    pendingActivities: [],
  };
  /** Created-event blobs of the batch by contract id (a later one replaces an earlier one). */
  private readonly blobs = new Map<string, string>();
  private blobBytes = 0;
  private readonly migrations = new Map<number, string | null>();
  private readonly ranges = new Map<string, RangeRow & { min: Micros; max: Micros }>();
  private readonly hourly = new Map<string, HourlyCountRow>();
  /** Contracts created or assigned in this batch, by migration and contract id. */
  private readonly fresh = new ContractMap<CreatedContract>();
  /** Fresh rows that came by assignment: the store counts their ACS deltas, knowing whether they are new. */
  private readonly assigned = new Set<CreatedContract>();
  private readonly archiveOrigins = new ContractMap<ItemOrigin>();
  private readonly createOrigins = new ContractMap<ItemOrigin>();
  private readonly deltas = new Map<string, Delta>();
  private readonly times = new TimeTexts();
  private last: StreamKey | undefined;
  /** The month of the last item, and the months of the batch so far. */
  private month: { migrationId: number; from: Micros; to: Micros } | undefined;
  private readonly months: StreamKey[] = [];
  private count = 0;
  private updateCount = 0;
  private readonly counts: BatchCounts = { updates: 0, importUpdates: 0, events: 0, verdicts: 0, reassignments: 0 };
  private lastSource: SourceItem | undefined;
  private readonly skippedActivities: (SkippedActivity & { updateId: string })[] = [];

  /** Stored or seen earlier in this batch: a repeated update or verdict is a no-op. */
  private readonly seenUpdates = new Set<string>();
  private readonly seenVerdicts = new Set<string>();

  /** `previous`: the key of the last item applied before this batch. */
  constructor(previous: StreamKey | undefined) {
    this.last = previous;
  }

  /** Updates and verdicts already stored: re-applying them is a no-op. */
  markStored(updateIds: Iterable<string>, verdictIds: Iterable<string>): void {
    for (const id of updateIds) this.seenUpdates.add(id);
    for (const id of verdictIds) this.seenVerdicts.add(id);
  }

  /** The key of the last item planned (or the previous batch's). */
  get lastKey(): StreamKey | undefined {
    return this.last;
  }

  get items(): number {
    return this.count;
  }

  /**
   * About how much memory the batch holds: its encoded rows, and what it keeps on the heap of each
   * contract it created (as a later item may archive or reassign them).
   */
  get bytes(): number {
    const contracts = this.rows.contracts;
    return this.rows.appended.bytes + contracts.bytes + contracts.size * CONTRACT_HEAP_BYTES + this.blobBytes;
  }

  /** Plans one item; throws a SourceItemError, leaving the batch unusable, if it is bad. */
  add(sourceItem: SourceItem): void {
    this.addItem(sourceItem);
    this.count += 1;
    this.lastSource = sourceItem;
  }

  finish(): Plan {
    const lastSource = this.lastSource;
    if (!lastSource) throw new Error('a batch needs at least one item');
    this.rows.migrations = [...this.migrations].map(([migration_id, last_import_update_id]) => ({ migration_id, last_import_update_id }));
    this.rows.ranges = [...this.ranges.values()].map(({ min: _min, max: _max, ...row }) => row);
    this.rows.hourlyCounts = [...this.hourly.values()];
    this.rows.acsDeltas = [...this.deltas.values()].map((d): AcsDeltaRow => ({
      migration_id: d.migrationId,
      slot: d.slot,
      contract_count: d.contracts,
      unlocked_amulet: formatDecimal(d.unlocked),
      locked_amulet: formatDecimal(d.locked),
      max_created_at: d.maxCreatedAt === undefined ? null : formatRecordTime(d.maxCreatedAt),
      archived_count: d.archived,
    }));
    this.rows.contractBlobs = [...this.blobs].map(([contract_id, blob]) => ({ contract_id, blob }));
    return {
      rows: this.rows,
      last: this.last,
      items: this.count,
      updates: this.updateCount,
      counts: { ...this.counts },
      position: lastSource.position,
      lastOrigin: lastSource.origin,
      archiveOrigins: this.archiveOrigins,
      createOrigins: this.createOrigins,
      months: this.months,
      skippedActivities: this.skippedActivities,
    };
  }

  /** Items come in order: a new month is noted once, when the first item of it arrives. */
  private noteMonth(key: StreamKey): void {
    const m = this.month;
    if (m && m.migrationId === key.migrationId && key.recordTime >= m.from && key.recordTime < m.to) return;
    const from = startOfMonth(key.recordTime);
    this.month = { migrationId: key.migrationId, from, to: startOfMonth(key.recordTime, 1) };
    this.months.push({ migrationId: key.migrationId, recordTime: from });
  }

  /** Adds a contract created at `createdAt` to (sign 1), or removes it from (sign -1), the ACS figures of a slot. */
  private countDelta(contract: CreatedContract, recordTime: Micros, sign: 1 | -1, createdAt?: Micros): void {
    const slot = this.times.slotOf(recordTime);
    const key = `${contract.migration_id}/${slot}`;
    let d = this.deltas.get(key);
    if (!d) {
      d = { migrationId: contract.migration_id, slot, contracts: 0, unlocked: 0n, locked: 0n, maxCreatedAt: undefined, archived: 0 };
      this.deltas.set(key, d);
    }
    d.contracts += sign;
    if (sign < 0) d.archived += 1;
    if (contract.amulet_initial_amount !== null && contract.amulet_locked !== null) {
      const amount = parseDecimal(contract.amulet_initial_amount) * BigInt(sign);
      if (contract.amulet_locked) d.locked += amount;
      else d.unlocked += amount;
    }
    if (createdAt !== undefined && (d.maxCreatedAt === undefined || createdAt > d.maxCreatedAt)) d.maxCreatedAt = createdAt;
  }

  private fail(source: SourceItem, reason: string, updateId?: string): never {
    throw new SourceItemError(source.origin, updateId ?? source.item.update?.update_id ?? source.item.verdict?.update_id, reason);
  }

  private time(source: SourceItem, text: unknown, what: string): Micros {
    if (typeof text !== 'string') this.fail(source, `${what} is missing`);
    try {
      return parseTimestamp(text);
    } catch (err) {
      this.fail(source, `${what}: ${(err as Error).message}`);
    }
  }

  private addItem(source: SourceItem): void {
    const { item } = source;
    if (typeof item !== 'object' || item === null || (!item.update && !item.verdict)) {
      this.fail(source, 'an item needs an update or a verdict');
    }
    const key: StreamKey = item.update
      ? { migrationId: updateMigrationId(item.update), recordTime: this.time(source, item.update.record_time, 'record_time') }
      : { migrationId: item.verdict!.migration_id, recordTime: this.time(source, item.verdict!.record_time, 'verdict record_time') };
    if (!Number.isSafeInteger(key.migrationId) || key.migrationId < 0) this.fail(source, 'migration_id must be a non-negative integer');
    if (this.last && compareStreamKeys(key, this.last) < 0) {
      this.fail(
        source,
        `out of order: (migration ${key.migrationId}, ${formatRecordTime(key.recordTime)}) comes after (migration ${this.last.migrationId}, ${formatRecordTime(this.last.recordTime)})`,
      );
    }
    this.last = key;
    this.noteMonth(key);
    if (!this.migrations.has(key.migrationId)) this.migrations.set(key.migrationId, null);

    const synchronizer = item.update ? synchronizerOf(item.update) : item.verdict!.domain_id;
    const sideKey = {
      migration_id: key.migrationId,
      record_time: this.times.of(key.recordTime),
      synchronizer_id: synchronizer,
      update_id: item.update?.update_id ?? item.verdict?.update_id ?? null,
    };
    const updateIsNew = item.update ? !this.seenUpdates.has(item.update.update_id) : false;
    const verdictIsNew = item.verdict ? !this.seenVerdicts.has(item.verdict.update_id) : false;
    if (item.update && updateIsNew) {
      this.seenUpdates.add(item.update.update_id);
      this.addUpdate(source, item, key);
    }
    if (item.verdict && verdictIsNew) {
      this.seenVerdicts.add(item.verdict.update_id);
      // Its partition is that of its own key (normally the update's).
      this.noteMonth({
        migrationId: item.verdict.migration_id,
        recordTime: this.time(source, item.verdict.record_time, 'verdict record_time'),
      });
      this.time(source, item.verdict.finalization_time, 'verdict finalization_time');
      this.addVerdict(item, source.texts?.verdict);
    }
    // Traffic and activity belong to the event; written once, with the first of its parts.
    if (updateIsNew || (!item.update && verdictIsNew)) {
      if (item.traffic_summary) {
        this.rows.appended.trafficSummary({
          ...sideKey,
          total_traffic_cost: item.traffic_summary.total_traffic_cost,
          json: source.texts?.trafficSummary ?? JSON.stringify(item.traffic_summary),
        });
      }
      if (item.app_activity_records) {
        this.rows.appended.appActivityRecords({
          ...sideKey,
          round_number: item.app_activity_records.round_number,
          json: source.texts?.appActivityRecords ?? JSON.stringify(item.app_activity_records),
        });
      }
    }
  }

  private addUpdate(source: SourceItem, item: CanonicalItem, key: StreamKey): void {
    const update = item.update!;
    const isImport = key.recordTime === IMPORT_RECORD_TIME;
    if (isTransaction(update)) {
      if (typeof update.events_by_id !== 'object' || update.events_by_id === null || !Array.isArray(update.root_event_ids)) {
        this.fail(source, 'a transaction needs root_event_ids and events_by_id');
      }
      this.time(source, update.effective_at, 'effective_at');
    }
    const external_transaction_hash = (update as TransactionUpdate).external_transaction_hash;
    const { compact, protobuf } = servedRenderings(item, source.texts, external_transaction_hash);
    const row: UpdateRow = {
      update_id: update.update_id,
      migration_id: key.migrationId,
      record_time: this.times.of(key.recordTime),
      synchronizer_id: synchronizerOf(update),
      kind: isTransaction(update) ? 'transaction' : isAssign(update.event) ? 'assignment' : 'unassignment',
      workflow_id: isTransaction(update) ? update.workflow_id : null,
      effective_at: isTransaction(update) ? update.effective_at : null,
      external_transaction_hash: external_transaction_hash ?? null,
      ledger_offset: null,
      event_count: isTransaction(update) ? Object.keys(update.events_by_id).length : 1,
      ...(({ payload, compactLength }) => ({ payload, payload_compact_length: compactLength }))(encodePayload(compact, protobuf)),
    };
    this.rows.appended.update(row);
    this.updateCount += 1;
    this.counts.events += row.event_count;
    if (isImport) this.counts.importUpdates += 1;
    else this.counts.updates += 1;
    if (!isTransaction(update)) this.counts.reassignments += 1;

    if (isImport) {
      const previous = this.migrations.get(key.migrationId) ?? null;
      if (previous === null || update.update_id > previous) this.migrations.set(key.migrationId, update.update_id);
    } else {
      this.widenRange(key, row.synchronizer_id);
      this.countInHour(key);
    }

    if (item.created_event_blobs !== undefined) this.addBlobs(source, update, item.created_event_blobs);
    if (isTransaction(update)) {
      this.applyTransaction(source, update, key, isImport);
      if (!isImport) this.addActivities(update, row.migration_id, row.record_time);
    } else if (isAssign(update.event)) {
      const event = update.event;
      const contractId = event.created_event.contract_id;
      const known = this.fresh.get(key.migrationId, contractId);
      if (known) {
        this.checkCounter(source, known, event.reassignment_counter);
        known.synchronizer_id = event.target_synchronizer;
        known.reassignment_counter = event.reassignment_counter;
      } else {
        // Arrived from another synchronizer; the migration may know it already (then it is only reassigned).
        const contract = this.contractRow(source, event.created_event, key, null);
        contract.synchronizer_id = event.target_synchronizer;
        contract.reassignment_counter = event.reassignment_counter;
        this.rows.assignedContracts.push(contract);
        this.assigned.add(contract);
        this.fresh.set(key.migrationId, contractId, contract);
      }
    } else {
      const event = update.event;
      const known = this.fresh.get(key.migrationId, event.contract_id);
      if (known) {
        this.checkCounter(source, known, event.reassignment_counter);
        known.synchronizer_id = null;
        known.reassignment_counter = event.reassignment_counter;
      } else {
        const row: ReassignmentRow = {
          migration_id: key.migrationId,
          contract_id: event.contract_id,
          synchronizer_id: null,
          reassignment_counter: event.reassignment_counter,
        };
        this.rows.reassignments.push(row);
      }
    }
    // What the stream's party and template filters read (the update's events, checked above).
    if (!isImport) this.addSubjects(update, row);
  }

  /**
   * The stakeholders of a contract the update consumes come from the batch when it created the contract;
   * otherwise the row waits for the writer, whose archive of the stored contract reads them.
   */
  private addSubjects(update: Update, row: UpdateRow): void {
    let waits = false;
    const { parties, templates } = subjectsOf(update, (contractId) => {
      const fresh = this.fresh.get(row.migration_id, contractId);
      // An assigned contract is kept as its whole row; a created one, encoded.
      if (fresh) return this.assigned.has(fresh) ? stakeholdersOfRow(fresh as ContractRow) : this.rows.contracts.stakeholdersOf(fresh);
      waits = true;
      return undefined;
    });
    const subject = {
      migration_id: row.migration_id,
      record_time: row.record_time,
      synchronizer_id: row.synchronizer_id,
      update_id: row.update_id,
      parties,
      templates,
    };
    if (waits) this.rows.pendingSubjects.set(`${row.migration_id}/${row.update_id}`, subject);
    else if (parties.length > 0 || templates.length > 0) this.rows.appended.subject(subject);
  }

  /** The blobs of contracts the update creates or assigns; a blob of any other contract, or not base64, is bad input. */
  private addBlobs(source: SourceItem, update: Update, blobs: unknown): void {
    if (typeof blobs !== 'object' || blobs === null || Array.isArray(blobs)) this.fail(source, 'created_event_blobs must be an object');
    const created = new Set<string>();
    if (isTransaction(update)) {
      for (const event of Object.values(update.events_by_id ?? {})) {
        if (event?.event_type === 'created_event') created.add(event.contract_id);
      }
    } else if (isAssign(update.event)) {
      created.add(update.event.created_event.contract_id);
    }
    for (const [contractId, blob] of Object.entries(blobs)) {
      if (!created.has(contractId)) this.fail(source, `created_event_blobs names ${contractId}, which the update does not create`);
      if (typeof blob !== 'string' || !isBase64(blob)) this.fail(source, `the created_event_blob of ${contractId} is not base64`);
      if (blob === '') continue;
      this.blobBytes += blob.length - (this.blobs.get(contractId)?.length ?? 0);
      this.blobs.set(contractId, blob);
    }
  }

  private checkCounter(source: SourceItem, contract: CreatedContract, counter: number): void {
    if (!Number.isSafeInteger(counter) || counter < contract.reassignment_counter) {
      this.fail(
        source,
        `reassignment_counter ${counter} of ${contract.contract_id} is below its previous ${contract.reassignment_counter}`,
      );
    }
  }

  private countInHour(key: StreamKey): void {
    const hour = startOfHour(key.recordTime);
    const hourKey = `${key.migrationId}/${hour}`;
    const counted = this.hourly.get(hourKey);
    if (counted) counted.update_count += 1;
    else this.hourly.set(hourKey, { migration_id: key.migrationId, hour: formatRecordTime(hour), update_count: 1 });
  }

  private widenRange(key: StreamKey, synchronizerId: string): void {
    const rangeKey = `${key.migrationId}/${synchronizerId}`;
    const range = this.ranges.get(rangeKey);
    if (!range) {
      const t = this.times.of(key.recordTime);
      this.ranges.set(rangeKey, {
        migration_id: key.migrationId,
        synchronizer_id: synchronizerId,
        min_record_time: t,
        max_record_time: t,
        update_count: 1,
        min: key.recordTime,
        max: key.recordTime,
      });
      return;
    }
    range.update_count += 1;
    if (key.recordTime < range.min) {
      range.min = key.recordTime;
      range.min_record_time = this.times.of(key.recordTime);
    }
    if (key.recordTime > range.max) {
      range.max = key.recordTime;
      range.max_record_time = this.times.of(key.recordTime);
    }
  }

  /**
   * An exercise whose result Scan keeps in its transaction log: a closed vote's result, or a step of a
   * TransferCommand, with the facts requests filter on. A result that lacks them is bad input.
   */
  private recordExercise(
    source: SourceItem,
    tx: TransactionUpdate,
    eventId: string,
    event: ExercisedEvent,
    key: StreamKey,
    recorded: RecordedChoice,
  ): void {
    const at = { migration_id: key.migrationId, record_time: this.times.of(key.recordTime), update_id: tx.update_id, event_id: eventId };
    let row: { vote: VoteResultRow } | { command: TransferCommandEventRow };
    try {
      if (qualifiedNameOf(event.template_id) !== recorded.qualifiedName) return;
      if (recorded.step === 'vote') {
        const facts = voteResultFacts(event.exercise_result);
        row = {
          vote: {
            ...at,
            action_name: facts.actionName,
            accepted: facts.accepted,
            requester: facts.requester,
            effective_at: facts.effectiveAt === null ? null : formatRecordTime(facts.effectiveAt),
            completed_at: formatRecordTime(facts.completedAt),
            result: JSON.stringify(event.exercise_result),
          },
        };
      } else {
        const c = transferCommandEvent(recorded.step, {
          contractId: event.contract_id,
          argument: event.choice_argument,
          result: event.exercise_result,
        });
        row = { command: { ...at, contract_id: c.contractId, sender: c.sender, nonce: c.nonce, state: c.state, reason: c.reason } };
      }
    } catch (err) {
      this.fail(source, `event ${eventId}: ${(err as Error).message}`);
    }
    if ('vote' in row) this.rows.appended.voteResult(row.vote);
    else this.rows.appended.transferCommandEvent(row.command);
  }

  /**
   * The activity projection's rows of a transaction (domain/activities.ts). The projection is derived:
   * an activity whose exercise lacks what it must hold is skipped (and reported with the plan), never a
   * reason to refuse the update, which is stored all the same.
   */
  private addActivities(tx: TransactionUpdate, migrationId: number, recordTime: string): void {
    const skipped: SkippedActivity[] = [];
    // An expiry of an amulet created before this transaction: by this batch, or stored (the writer's archive reads it).
    const pending = this.rows.appended.transactionActivities(
      tx,
      migrationId,
      recordTime,
      skipped,
      (contractId) => this.fresh.get(migrationId, contractId)?.amulet_initial_amount,
    );
    for (const p of pending) this.rows.pendingActivities.push(p);
    for (const s of skipped) this.skippedActivities.push({ ...s, updateId: tx.update_id });
  }

  /** Walks the tree in pre-order, so a create precedes the consumption of its contract. */
  private applyTransaction(source: SourceItem, tx: TransactionUpdate, key: StreamKey, isImport: boolean): void {
    const events = tx.events_by_id;
    // One for the item's creates and archives: only errors read it.
    const origin: ItemOrigin = { origin: source.origin, updateId: tx.update_id };
    const visited = new Set<string>();
    const stack = [...tx.root_event_ids].reverse();
    while (stack.length > 0) {
      const id = stack.pop()!;
      const event: TreeEvent | undefined = events[id];
      if (!event) this.fail(source, `event id ${id} is referenced but not in events_by_id`);
      if (visited.has(id)) this.fail(source, `event id ${id} is referenced twice`);
      visited.add(id);
      if (event.event_type === 'created_event') {
        const row = this.contractRow(source, event, key, isImport ? null : tx.update_id);
        row.synchronizer_id = tx.synchronizer_id;
        if (this.fresh.get(key.migrationId, event.contract_id)) {
          this.fail(source, `contract ${event.contract_id} is created twice in migration ${key.migrationId}`);
        }
        const contract = this.rows.contracts.add(row);
        this.fresh.set(key.migrationId, event.contract_id, contract);
        this.createOrigins.set(key.migrationId, event.contract_id, origin);
        this.countDelta(contract, key.recordTime, 1, parseTimestamp(row.created_at));
      } else if (event.event_type === 'exercised_event') {
        if (event.consuming) this.archive(source, origin, event.contract_id, key);
        const recorded = isImport ? undefined : RECORDED_CHOICES.get(event.choice);
        if (recorded) this.recordExercise(source, tx, id, event, key, recorded);
        for (let i = (event.child_event_ids ?? []).length - 1; i >= 0; i--) stack.push(event.child_event_ids[i]!);
      } else {
        this.fail(source, `event ${id} has unknown event_type ${String((event as { event_type?: unknown }).event_type)}`);
      }
    }
    if (visited.size !== Object.keys(events).length) {
      const orphan = Object.keys(events).find((id) => !visited.has(id));
      this.fail(source, `event ${orphan} is not reachable from root_event_ids`);
    }
  }

  private archive(source: SourceItem, origin: ItemOrigin, contractId: string, key: StreamKey): void {
    const { updateId } = origin;
    const recordTime = this.times.of(key.recordTime);
    const known = this.fresh.get(key.migrationId, contractId);
    if (known) {
      if (known.archived_in_update_id !== null) this.fail(source, `contract ${contractId} is archived twice`, updateId);
      known.archived_record_time = recordTime;
      known.archived_in_update_id = updateId;
      if (!this.assigned.has(known)) this.countDelta(known, key.recordTime, -1);
      return;
    }
    if (this.archiveOrigins.get(key.migrationId, contractId)) this.fail(source, `contract ${contractId} is archived twice`, updateId);
    const row: ArchiveRow = {
      migration_id: key.migrationId,
      contract_id: contractId,
      record_time: recordTime,
      update_id: updateId,
      slot: this.times.slotOf(key.recordTime),
    };
    this.rows.archives.push(row);
    this.archiveOrigins.set(key.migrationId, contractId, origin);
  }

  private contractRow(source: SourceItem, event: CreatedEvent, key: StreamKey, createdInUpdateId: string | null): ContractRow {
    let qualifiedName: string;
    let facts: ReturnType<typeof contractFacts>;
    try {
      qualifiedName = qualifiedNameOf(event.template_id);
      facts = contractFacts({ packageName: event.package_name, qualifiedName }, event.create_arguments);
      parseTimestamp(event.created_at);
    } catch (err) {
      this.fail(source, `created event ${event.event_id} (contract ${event.contract_id}): ${(err as Error).message}`);
    }
    return {
      migration_id: key.migrationId,
      contract_id: event.contract_id,
      template_id: event.template_id,
      package_name: event.package_name,
      qualified_name: qualifiedName,
      create_arguments: JSON.stringify(event.create_arguments),
      created_at: event.created_at,
      signatories: event.signatories,
      observers: event.observers,
      created_in_update_id: createdInUpdateId,
      created_event_id: createdInUpdateId === null ? null : event.event_id,
      created_record_time: this.times.of(key.recordTime),
      archived_record_time: 'infinity',
      archived_in_update_id: null,
      synchronizer_id: null,
      reassignment_counter: 0,
      dso_party: facts.dsoParty,
      amulet_owner: facts.amuletOwner,
      amulet_initial_amount: facts.amuletInitialAmount,
      amulet_created_round: facts.amuletCreatedRound,
      amulet_rate_per_round: facts.amuletRatePerRound,
      amulet_locked: facts.amuletLocked,
      lock_holders: facts.lockHolders,
      lock_expires_at: facts.lockExpiresAt,
      round_number: facts.roundNumber,
      ans_name: facts.ansName,
      ans_user: facts.ansUser,
      ans_expires_at: facts.ansExpiresAt,
    };
  }

  private addVerdict(item: CanonicalItem, text: string | undefined): void {
    const v = item.verdict!;
    this.counts.verdicts += 1;
    const roundNumber = (v as { round_number?: unknown }).round_number;
    this.rows.appended.verdict({
      update_id: v.update_id,
      migration_id: v.migration_id,
      record_time: v.record_time,
      domain_id: v.domain_id,
      finalization_time: v.finalization_time,
      submitting_parties: v.submitting_parties,
      submitting_participant_uid: v.submitting_participant_uid,
      verdict_result: v.verdict_result,
      mediator_group: v.mediator_group,
      round_number: typeof roundNumber === 'number' ? roundNumber : null,
      root_views: v.transaction_views.root_views,
      json: text ?? JSON.stringify(v),
    });
  }
}

/** Plans a whole batch at once. */
export function planBatch(input: PlanInput): Plan {
  const planner = new BatchPlanner(input.previous);
  planner.markStored(input.storedUpdates, input.storedVerdicts);
  for (const item of input.items) planner.add(item);
  return planner.finish();
}
