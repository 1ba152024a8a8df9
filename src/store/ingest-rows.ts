/**
 * The rows the planner makes and the writer stores, and their COPY encoding: no SQL runs here
 * (the writer's statements are in ingest-repository.ts), so the planner depends on the row shapes
 * without depending on the database (.dependency-cruiser.cjs, planner-runs-no-sql).
 */
import type { Selectable } from 'kysely';
import { activitiesOf, type Activity, type SkippedActivity, type TransferDetails } from '../domain/activities';
import { formatDecimal } from '../domain/decimal';
import type { TransactionUpdate } from '../domain/items';
import { formatRecordTime, parseTimestamp } from '../domain/time';
import { BinaryCopyRows, type BinaryType } from './copy-binary';
import type { ContractRow, CreatedContracts } from './contract-rows';
import { copyField, CopyRows, type CopyValue } from './copy-text';
import type { UpdatesTable } from './schema';

/**
 * Rows as the writer sends them (every column given, in the types the pool reads back), derived
 * from the table types so the two cannot drift; columns left to the database are omitted.
 */
// command_id stays null: no source gives it (the ledger API's commandId is therefore "").
// json_compact and json_protobuf are the text columns of rows written before payload existed.
export type UpdateRow = Omit<
  Selectable<UpdatesTable>,
  'ingested_at' | 'ingest_seq' | 'command_id' | 'json_compact' | 'json_protobuf' | 'payload' | 'payload_compact_length'
> & {
  payload: Buffer;
  payload_compact_length: number;
};
// ContractRow lives with the encoding of created contracts (contract-rows.ts).
export type { ContractRow };

/** An archive of a contract stored before the batch. */
export interface ArchiveRow {
  migration_id: number;
  contract_id: string;
  record_time: string;
  update_id: string;
  /** The snapshot slot of record_time (domain/snapshot-schedule.ts). */
  slot: string;
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

interface EventSideRow {
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

/** An event of a TransferCommand (transfer_command_events). */
export interface TransferCommandEventRow {
  migration_id: number;
  record_time: string;
  update_id: string;
  event_id: string;
  contract_id: string;
  sender: string;
  nonce: string;
  state: string;
  reason: string | null;
}

/** A closed vote's result (vote_results). */
export interface VoteResultRow {
  migration_id: number;
  record_time: string;
  update_id: string;
  event_id: string;
  action_name: string;
  accepted: boolean;
  requester: string;
  effective_at: string | null;
  completed_at: string;
  result: string;
}

/** One activity of a transaction for one party (activities); amounts are decimal text. */
export interface ActivityRow {
  migration_id: number;
  record_time: string;
  update_id: string;
  node: number;
  kind: string;
  leg: number;
  party: string;
  round: bigint | null;
  /** Null while an expiry's amount is unknown: it is the initial amount of the stored contract in `subject`. */
  amount: string | null;
  fees: string;
  holding_fees: string | null;
  burned: string | null;
  counterparties: string[];
  provider: string | null;
  featured: boolean | null;
  via: string | null;
  traffic: bigint | null;
  /** A transfer's details (domain/activities.ts TransferDetail); null on other rows. */
  balance_change: string | null;
  holding_rate_change: string | null;
  input_amulet: string | null;
  change_amount: string | null;
  change_fee: string | null;
  sender_fee: string | null;
  self_amount: string | null;
  self_fee: string | null;
  self_rank: number | null;
  /** The kinds beyond Amulet's own (domain/activities.ts); null on the others. */
  subject: string | null;
  detail: string | null;
  outcome: string | null;
  expires_at: string | null;
}

/** The parties and templates of a live update's events (update_subjects, domain/update-subjects.ts). */
export interface SubjectRow {
  migration_id: number;
  record_time: string;
  synchronizer_id: string;
  update_id: string;
  parties: string[];
  templates: string[];
}

export interface RangeRow {
  migration_id: number;
  synchronizer_id: string;
  min_record_time: string;
  max_record_time: string;
  update_count: number;
}

/** Updates of a batch in one UTC hour of one migration (import updates are not counted). */
export interface HourlyCountRow {
  migration_id: number;
  /** The hour's start. */
  hour: string;
  update_count: number;
}

export interface MigrationRow {
  migration_id: number;
  last_import_update_id: string | null;
}

/** What a batch adds to the ACS figures of one snapshot slot (created minus archived). */
export interface AcsDeltaRow {
  migration_id: number;
  slot: string;
  contract_count: number;
  /** Decimal text. */
  unlocked_amulet: string;
  locked_amulet: string;
  max_created_at: string | null;
  /** Contracts archived in the slot. */
  archived_count: number;
}

// Binary COPY: the payload goes in as its bytes.
const UPDATE_COLUMNS = [
  { name: 'update_id', type: 'text' },
  { name: 'migration_id', type: 'int8' },
  { name: 'record_time', type: 'timestamptz' },
  { name: 'synchronizer_id', type: 'text' },
  { name: 'kind', type: 'text' },
  { name: 'workflow_id', type: 'text' },
  { name: 'effective_at', type: 'timestamptz' },
  { name: 'external_transaction_hash', type: 'text' },
  { name: 'ledger_offset', type: 'int8' },
  { name: 'event_count', type: 'int4' },
  { name: 'payload', type: 'bytea' },
  { name: 'payload_compact_length', type: 'int4' },
] as const satisfies readonly { name: keyof UpdateRow; type: BinaryType }[];
const VERDICT_COLUMNS = [
  'update_id',
  'migration_id',
  'record_time',
  'domain_id',
  'finalization_time',
  'submitting_parties',
  'submitting_participant_uid',
  'verdict_result',
  'mediator_group',
  'round_number',
  'root_views',
  'json',
] as const satisfies readonly (keyof VerdictRow)[];
const TRAFFIC_COLUMNS = [
  'migration_id',
  'record_time',
  'synchronizer_id',
  'update_id',
  'total_traffic_cost',
  'json',
] as const satisfies readonly (keyof TrafficRow)[];
const APP_ACTIVITY_COLUMNS = [
  'migration_id',
  'record_time',
  'synchronizer_id',
  'update_id',
  'round_number',
  'json',
] as const satisfies readonly (keyof AppActivityRow)[];
const TRANSFER_COMMAND_COLUMNS = [
  'migration_id',
  'record_time',
  'update_id',
  'event_id',
  'contract_id',
  'sender',
  'nonce',
  'state',
  'reason',
] as const satisfies readonly (keyof TransferCommandEventRow)[];
const VOTE_RESULT_COLUMNS = [
  'migration_id',
  'record_time',
  'update_id',
  'event_id',
  'action_name',
  'accepted',
  'requester',
  'effective_at',
  'completed_at',
  'result',
] as const satisfies readonly (keyof VoteResultRow)[];

const SUBJECT_COLUMNS = [
  'migration_id',
  'record_time',
  'synchronizer_id',
  'update_id',
  'parties',
  'templates',
] as const satisfies readonly (keyof SubjectRow)[];

/**
 * The activity rows of a transaction (domain/activities.ts) at its key. An exercise whose argument or
 * result lacks what it must hold gives no rows and is listed in `skipped`.
 */
export function activityRows(tx: TransactionUpdate, migrationId: number, recordTime: string, skipped: SkippedActivity[]): ActivityRow[] {
  return activityValues(tx, migrationId, recordTime, skipped).map(
    (values) => Object.fromEntries(ACTIVITY_COLUMNS.map((column, i) => [column, values[i]])) as unknown as ActivityRow,
  );
}

const nullableDecimal = (x: bigint | null | undefined): string | null => (x === null || x === undefined ? null : formatDecimal(x));

type TransferDetail = NonNullable<ReturnType<TransferDetails['get']>>;

/** One activity's values, in the order of ACTIVITY_COLUMNS. */
function valuesOf(a: Activity, d: TransferDetail | undefined, migrationId: number, recordTime: string, updateId: string): CopyValue[] {
  const s = d?.sender;
  const change = d?.balanceChange;
  return [
    migrationId,
    recordTime,
    updateId,
    a.node,
    a.kind,
    a.leg,
    a.party,
    a.round,
    // An amount kept on an earlier contract (an expiry's) is left null for the planner or the writer to fill in.
    a.amountOf === null ? formatDecimal(a.amount) : null,
    formatDecimal(a.fees),
    nullableDecimal(a.holdingFees),
    a.amountOf === null ? nullableDecimal(a.burned) : null,
    a.counterparties,
    a.provider,
    a.featured,
    a.via,
    a.traffic,
    nullableDecimal(change?.initialAmountAsOfRoundZero),
    nullableDecimal(change?.holdingFeesRate),
    nullableDecimal(s?.inputAmulet),
    nullableDecimal(s?.changeAmount),
    nullableDecimal(s?.changeFee),
    nullableDecimal(s?.senderFee),
    nullableDecimal(s?.self?.amount),
    nullableDecimal(s?.self?.fee),
    s?.self?.rank ?? null,
    a.subject,
    a.detail,
    a.outcome,
    a.expiresAt === null ? null : formatRecordTime(a.expiresAt),
  ];
}

/**
 * activityRows' rows as the values of ACTIVITY_COLUMNS, in order: what the planner encodes for COPY,
 * without an object per row in between.
 */
export function activityValues(tx: TransactionUpdate, migrationId: number, recordTime: string, skipped: SkippedActivity[]): CopyValue[][] {
  const details: TransferDetails = new Map();
  return activitiesOf(tx, details, skipped).map((a) => valuesOf(a, details.get(a), migrationId, recordTime, tx.update_id));
}

const NULL_FIELD = '\\N';
// Decimals and record times are formatted here (digits, '-', '.', ':', '+' and a space): COPY escapes none of them.
const decimalField = (x: bigint | null | undefined): string => (x === null || x === undefined ? NULL_FIELD : formatDecimal(x));
const textField = (x: string | null): string => (x === null ? NULL_FIELD : copyField(x));
const integerField = (x: number | bigint | null | undefined): string => (x === null || x === undefined ? NULL_FIELD : String(x));

/**
 * The COPY line of an activity whose amount it holds (amountOf null): what copyFields writes of
 * valuesOf's values, written from the activity without them. `head`: the transaction's three fields.
 */
function activityLine(head: string, a: Activity, d: TransferDetail | undefined): string {
  const s = d?.sender;
  const change = d?.balanceChange;
  return (
    `${head}\t${a.node}\t${copyField(a.kind)}\t${a.leg}\t${copyField(a.party)}\t${integerField(a.round)}\t` +
    `${formatDecimal(a.amount)}\t${formatDecimal(a.fees)}\t${decimalField(a.holdingFees)}\t${decimalField(a.burned)}\t` +
    `${copyField(a.counterparties)}\t${textField(a.provider)}\t${a.featured === null ? NULL_FIELD : a.featured ? 't' : 'f'}\t` +
    `${textField(a.via)}\t${integerField(a.traffic)}\t` +
    `${decimalField(change?.initialAmountAsOfRoundZero)}\t${decimalField(change?.holdingFeesRate)}\t` +
    `${decimalField(s?.inputAmulet)}\t${decimalField(s?.changeAmount)}\t${decimalField(s?.changeFee)}\t` +
    `${decimalField(s?.senderFee)}\t${decimalField(s?.self?.amount)}\t${decimalField(s?.self?.fee)}\t${integerField(s?.self?.rank)}\t` +
    `${textField(a.subject)}\t${textField(a.detail)}\t${textField(a.outcome)}\t` +
    `${a.expiresAt === null ? NULL_FIELD : formatRecordTime(a.expiresAt)}\n`
  );
}

const NO_PENDING: readonly PendingActivity[] = [];

/**
 * An activity row whose amount is the initial amount of a contract stored before its batch (an amulet
 * the DSO expires): the writer fills in amount and burned from the archive of that contract.
 */
export interface PendingActivity {
  migration_id: number;
  contract_id: string;
  values: CopyValue[];
}

/** Sets a pending row's amount and burn (decimal text). */
export function completeActivity(values: CopyValue[], amount: string): void {
  values[ACTIVITY_AMOUNT] = amount;
  values[ACTIVITY_BURNED] = amount;
}

export const ACTIVITY_COLUMNS = [
  'migration_id',
  'record_time',
  'update_id',
  'node',
  'kind',
  'leg',
  'party',
  'round',
  'amount',
  'fees',
  'holding_fees',
  'burned',
  'counterparties',
  'provider',
  'featured',
  'via',
  'traffic',
  'balance_change',
  'holding_rate_change',
  'input_amulet',
  'change_amount',
  'change_fee',
  'sender_fee',
  'self_amount',
  'self_fee',
  'self_rank',
  'subject',
  'detail',
  'outcome',
  'expires_at',
] as const satisfies readonly (keyof ActivityRow)[];

/** The places in activityValues' rows of the amount and burned columns, null while an expiry's amount is unknown. */
const ACTIVITY_AMOUNT = ACTIVITY_COLUMNS.indexOf('amount');
const ACTIVITY_BURNED = ACTIVITY_COLUMNS.indexOf('burned');

/**
 * The rows of a batch that never change once planned (updates, verdicts,
 * traffic and activity records, vote results, transfer command events, activities, update subjects), encoded for COPY as they are
 * added: a batch holds their bytes, outside the JavaScript heap, rather than
 * objects the garbage collector copies until the batch commits.
 */
export class AppendedRows {
  readonly updates = new BinaryCopyRows('updates', UPDATE_COLUMNS);
  readonly verdicts = new CopyRows('verdicts', VERDICT_COLUMNS);
  readonly traffic = new CopyRows('traffic_summaries', TRAFFIC_COLUMNS);
  readonly appActivity = new CopyRows('app_activity_records', APP_ACTIVITY_COLUMNS);
  readonly voteResults = new CopyRows('vote_results', VOTE_RESULT_COLUMNS);
  readonly transferCommands = new CopyRows('transfer_command_events', TRANSFER_COMMAND_COLUMNS);
  readonly activities = new CopyRows('activities', ACTIVITY_COLUMNS);
  readonly subjects = new CopyRows('update_subjects', SUBJECT_COLUMNS);

  update(row: UpdateRow): void {
    this.updates.add([
      row.update_id,
      row.migration_id,
      parseTimestamp(row.record_time),
      row.synchronizer_id,
      row.kind,
      row.workflow_id,
      row.effective_at === null ? null : parseTimestamp(row.effective_at),
      row.external_transaction_hash,
      row.ledger_offset,
      row.event_count,
      row.payload,
      row.payload_compact_length,
    ]);
  }

  verdict(row: VerdictRow): void {
    this.verdicts.add(VERDICT_COLUMNS.map((k) => row[k]));
  }

  trafficSummary(row: TrafficRow): void {
    this.traffic.add(TRAFFIC_COLUMNS.map((k) => row[k]));
  }

  appActivityRecords(row: AppActivityRow): void {
    this.appActivity.add(APP_ACTIVITY_COLUMNS.map((k) => row[k]));
  }

  voteResult(row: VoteResultRow): void {
    this.voteResults.add(VOTE_RESULT_COLUMNS.map((k) => row[k]));
  }

  transferCommandEvent(row: TransferCommandEventRow): void {
    this.transferCommands.add(TRANSFER_COMMAND_COLUMNS.map((k) => row[k]));
  }

  /** One activity row, as activityValues gives it. */
  activity(values: readonly CopyValue[]): void {
    this.activities.add(values);
  }

  /**
   * The activity rows of a transaction (activityValues' rows, in order), each encoded straight from its
   * activity. An expiry's amount is the initial amount of an earlier contract: `amountOf` gives it where
   * the batch knows that contract; the rows it does not are returned, for the writer to complete.
   */
  transactionActivities(
    tx: TransactionUpdate,
    migrationId: number,
    recordTime: string,
    skipped: SkippedActivity[],
    amountOf: (contractId: string) => string | null | undefined,
  ): readonly PendingActivity[] {
    const details: TransferDetails = new Map();
    const activities = activitiesOf(tx, details, skipped);
    if (activities.length === 0) return NO_PENDING;
    const head = `${migrationId}\t${copyField(recordTime)}\t${copyField(tx.update_id)}`;
    let pending: PendingActivity[] | undefined;
    for (const a of activities) {
      if (a.amountOf === null) {
        this.activities.addLine(activityLine(head, a, details.get(a)));
        continue;
      }
      const values = valuesOf(a, details.get(a), migrationId, recordTime, tx.update_id);
      const amount = amountOf(a.amountOf);
      if (amount === undefined || amount === null) {
        (pending ??= []).push({ migration_id: migrationId, contract_id: a.amountOf, values });
        continue;
      }
      completeActivity(values, amount);
      this.activities.add(values);
    }
    return pending ?? NO_PENDING;
  }

  subject(row: SubjectRow): void {
    this.subjects.addLine(subjectLine(row));
  }

  /** Bytes encoded so far. */
  get bytes(): number {
    return (
      this.updates.bytes +
      this.verdicts.bytes +
      this.traffic.bytes +
      this.appActivity.bytes +
      this.voteResults.bytes +
      this.transferCommands.bytes +
      this.activities.bytes +
      this.subjects.bytes
    );
  }
}

/** The COPY line of an update_subjects row: what copyFields writes of its SUBJECT_COLUMNS values, without an array of them. */
function subjectLine(row: SubjectRow): string {
  return (
    `${row.migration_id}\t${copyField(row.record_time)}\t${copyField(row.synchronizer_id)}\t${copyField(row.update_id)}\t` +
    `${copyField(row.parties)}\t${copyField(row.templates)}\n`
  );
}

/** update_subjects rows, encoded for COPY. */
export function subjectCopies(rows: Iterable<SubjectRow>): CopyRows {
  const copies = new CopyRows('update_subjects', SUBJECT_COLUMNS);
  for (const row of rows) copies.addLine(subjectLine(row));
  return copies;
}

export interface BatchRows {
  migrations: MigrationRow[];
  /** Updates, verdicts, traffic and activity records, encoded. */
  appended: AppendedRows;
  /** Creates, encoded: a contract id already present in the migration is bad input. */
  contracts: CreatedContracts;
  /** Contracts arriving by assignment, which the migration may already have. */
  assignedContracts: ContractRow[];
  archives: ArchiveRow[];
  reassignments: ReassignmentRow[];
  ranges: RangeRow[];
  hourlyCounts: HourlyCountRow[];
  /** The ACS deltas of `contracts` (the store adds those of archives and assignments). */
  acsDeltas: AcsDeltaRow[];
  /** Created-event blobs of contracts of the batch. */
  contractBlobs: ContractBlobRow[];
  /**
   * The update_subjects rows of updates that archive contracts stored before the batch, by
   * `migration/update id`: the writer adds those contracts' stakeholders, which the archive reads, and
   * copies them with the others.
   */
  pendingSubjects: Map<string, SubjectRow>;
  /** Expiry rows that wait for the initial amount of the stored contract their update archives. */
  pendingActivities: PendingActivity[];
}

/** A contract's created-event blob (contract_blobs). */
export interface ContractBlobRow {
  contract_id: string;
  /** Base64. */
  blob: string;
}
