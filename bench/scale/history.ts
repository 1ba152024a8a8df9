/**
 * Synthetic history for scale runs: the past of the simulated network (the
 * same DSO party, users and synchronizer as the simulator's stream for the
 * same seed), in one migration, before the stream's first record time,
 * generated in record-time order as the rows the writer would have left:
 *
 * - updates: transactions creating `contractsPerUpdate` contracts on average,
 *   their payload encoded as the writer encodes it (update-payload.ts), in both
 *   renderings. To keep payloads small, a payload holds only the update's
 *   first created event (a valid transaction of one create, and its verdict
 *   one view): the other creates (numbered `<update id>:<n>` in contracts) and
 *   the archives of earlier contracts are left out;
 * - contracts of the template mix of contracts.ts, written once in their final
 *   state (archived by a later update, or active), with the typed columns the
 *   planner extracts (contractFacts) and their contract_stakeholders rows where
 *   the writer writes them (CreatedContracts);
 * - a verdict and a traffic summary for every update, app activity records for
 *   some;
 * - the writer's bookkeeping (bookkeeping.ts).
 *
 * Everything is drawn from a seeded PRNG, in order, except what a later update
 * must know of an earlier one: update ids and record times are pure functions
 * of the update's number (ids.ts), so a contract is written with the id and
 * time of the update that will archive it. Memory stays bounded: a chunk of
 * updates at a time, plus the bookkeeping's one entry per slot and per hour.
 */
import type { CreatedEvent, TransactionUpdate, Verdict } from '../../src/domain/items';
import { contractFacts, qualifiedNameOf } from '../../src/domain/splice-contracts';
import { formatDateTime, formatInstant, formatRecordTime, type Micros } from '../../src/domain/time';
import { toCompactJson, toProtobufJson } from '../../src/domain/value-encoding';
import { networkIdentities, type Identities, type SimulatorOptions } from '../../src/simulator';
import { Prng } from '../../src/simulator/prng';
import { sortedParties } from '../../src/simulator/transaction';
import type { CopyData } from '../../src/store/chunked-buffer';
import { CreatedContracts } from '../../src/store/contract-rows';
import { AppendedRows, type ContractRow } from '../../src/store/ingest-rows';
import { encodePayload } from '../../src/store/update-payload';
import { Bookkeeper, inSomeSnapshot, type Bookkeeping } from './bookkeeping';
import { ContractMix, type Cast, type DrawnContract } from './contracts';
import { ContractIds, FingerprintIds, unitOf } from './ids';

export interface HistorySpec {
  /** Updates (transactions) to generate. */
  updates: number;
  /** Mean contracts created per update. */
  contractsPerUpdate: number;
  /** Share of the contracts still active at the end. */
  activeShare: number;
  /** Record times of the history: [start, end). */
  start: Micros;
  end: Micros;
  migrationId: number;
  /** Parties holding amulets (the simulated network's users among them). */
  holders: number;
  /** The simulator options of the stream that follows, whose network this is the past of. */
  network: SimulatorOptions;
  seed: number;
  /** Updates per chunk handed to the sink. */
  chunkUpdates?: number;
}

/** Encoded rows of the history tables, one chunk of updates at a time. */
export interface HistoryChunk {
  contracts: CopyData;
  contractStakeholders: CopyData;
  updates: CopyData;
  verdicts: CopyData;
  trafficSummaries: CopyData;
  appActivityRecords: CopyData;
}

export interface HistoryCounts {
  updates: number;
  contracts: number;
  activeContracts: number;
  /** Contracts in some snapshot (active, or archived after their creation slot): those with stakeholder rows. */
  visibleContracts: number;
  stakeholderRows: number;
  verdicts: number;
  trafficSummaries: number;
  appActivityRecords: number;
  byTemplate: Record<string, number>;
  /** Bytes encoded for COPY, all tables. */
  encodedBytes: number;
}

export interface HistoryResult {
  counts: HistoryCounts;
  bookkeeping: Bookkeeping;
  firstRecordTime: Micros;
  lastRecordTime: Micros;
}

const DEFAULT_CHUNK_UPDATES = 2_000;
/** Share of transactions that earn a featured app activity record. */
const FEATURED_SHARE = 0.2;
/** Ledger time trails record time by up to this much (the simulator draws 20-900 ms). */
const MAX_LEDGER_LAG_MICROS = 900_000;
/** Generated parties beyond the simulated network's: app providers. */
const PROVIDERS = 50;

export interface HistoryCast extends Cast {
  /** Participants that submit (the validators' nodes). */
  participants: readonly string[];
}

/** The history's parties: the simulated network's, then generated ones. */
export function castOf(who: Identities, holders: number, seed: number): HistoryCast {
  const fingerprints = new FingerprintIds(0x51ed0000 ^ seed);
  let n = 0;
  const party = (hint: string) => `${hint}::${fingerprints.of(n++)}`;
  // The network's whales first, then its other users: the skewed draw gives the first holders the most.
  const users = [...who.users.filter((u) => u.whale), ...who.users.filter((u) => !u.whale)].map((u) => u.party);
  const generated = Array.from({ length: Math.max(0, holders - users.length) }, (_, i) => party(`holder-${i + 1}`));
  const validators = Array.from({ length: Math.max(8, Math.ceil(holders / 100)) }, (_, i) => party(`validator-op-${i + 1}`));
  return {
    dso: who.dso,
    holders: [...users, ...generated],
    providers: [...who.appProviders.map((u) => u.party), ...Array.from({ length: PROVIDERS }, (_, i) => party(`app-provider-${i + 1}`))],
    validators,
    participants: validators.map((v) => `PAR::${v}`),
  };
}

/** Record times: evenly spread, with a jitter below half the gap, so strictly increasing. */
export class RecordTimes {
  /** Mean microseconds between updates. */
  readonly gap: number;

  constructor(
    private readonly start: Micros,
    end: Micros,
    count: number,
    private readonly salt: number,
  ) {
    this.gap = Number(end - start) / count;
    if (this.gap < 4) throw new RangeError(`${count} updates do not fit in ${end - start} µs of record time`);
  }

  of(i: number): Micros {
    return this.start + BigInt(Math.floor(i * this.gap + unitOf(i, this.salt) * (this.gap / 2)));
  }
}

/** The created event the payload of an update holds, in both renderings. */
interface PayloadEvent {
  compact: CreatedEvent;
  protobuf: CreatedEvent;
}

/** Generates the history chunk by chunk; see the module comment. */
class HistoryGenerator {
  readonly counts: HistoryCounts;
  readonly bookkeeper: Bookkeeper;
  readonly times: RecordTimes;
  private readonly cast: HistoryCast;
  private readonly synchronizerId: string;
  private readonly rng: Prng;
  private readonly mix: ContractMix;
  private readonly updateIds: FingerprintIds;
  private readonly contractIds: ContractIds;
  private readonly lag: number;
  private readonly maxPerUpdate: number;

  constructor(private readonly spec: HistorySpec) {
    const who = networkIdentities(spec.network);
    this.cast = castOf(who, spec.holders, spec.seed);
    this.synchronizerId = who.globalSynchronizer;
    this.rng = new Prng(`scale history ${spec.seed}`);
    this.mix = new ContractMix(spec.activeShare);
    this.updateIds = new FingerprintIds(0x0bda7e00 ^ spec.seed);
    this.contractIds = new ContractIds(0x0c0ac700 ^ spec.seed);
    this.times = new RecordTimes(spec.start, spec.end, spec.updates, 0x71e00000 ^ spec.seed);
    this.lag = Math.max(1, Math.min(MAX_LEDGER_LAG_MICROS, Math.floor(this.times.gap / 4)));
    // Uniform in 1..2m-1: a mean of m.
    this.maxPerUpdate = Math.max(1, Math.round(2 * spec.contractsPerUpdate - 1));
    this.bookkeeper = new Bookkeeper(spec.migrationId, this.synchronizerId);
    this.counts = {
      updates: 0,
      contracts: 0,
      activeContracts: 0,
      visibleContracts: 0,
      stakeholderRows: 0,
      verdicts: 0,
      trafficSummaries: 0,
      appActivityRecords: 0,
      byTemplate: Object.fromEntries(ContractMix.kinds().map((k) => [k, 0])),
      encodedBytes: 0,
    };
  }

  /** The rows of updates [from, to). */
  chunk(from: number, to: number): HistoryChunk {
    const appended = new AppendedRows();
    const contracts: ContractRow[] = [];
    for (let i = from; i < to; i++) this.update(i, appended, contracts);
    // Encoded as the writer encodes a batch's new contracts, with their archives set as a later item of the batch sets them.
    const created = new CreatedContracts();
    for (const c of contracts) {
      const entry = created.add(c);
      entry.archived_record_time = c.archived_record_time;
      entry.archived_in_update_id = c.archived_in_update_id;
    }
    const copies = created.copies();
    this.counts.stakeholderRows += copies.stakeholders.size;
    const chunk: HistoryChunk = {
      contracts: copies.contracts,
      contractStakeholders: copies.stakeholders,
      updates: appended.updates,
      verdicts: appended.verdicts,
      trafficSummaries: appended.traffic,
      appActivityRecords: appended.appActivity,
    };
    this.counts.encodedBytes += Object.values(chunk).reduce((n: number, rows: CopyData) => n + rows.bytes, 0);
    return chunk;
  }

  private update(i: number, appended: AppendedRows, contracts: ContractRow[]): void {
    const { spec, rng } = this;
    const recordTime = this.times.of(i);
    const updateId = this.updateIds.of(i);
    const effectiveAt = recordTime - BigInt(rng.int(Math.min(this.lag, 20_000), this.lag));
    const n = 1 + Math.floor(rng.float() * this.maxPerUpdate);
    let first: PayloadEvent | undefined;
    let submitter = '';
    for (let k = 0; k < n; k++) {
      const draft = this.mix.draw(this.cast, rng, effectiveAt);
      const created = this.contract(draft, i, k, updateId, recordTime, effectiveAt);
      contracts.push(created.row);
      if (k === 0) {
        first = { compact: created.event, protobuf: { ...created.event, create_arguments: toProtobufJson(draft.args) } };
        submitter = draft.submitter;
      }
    }
    const event = first!;

    const eventsById = (e: CreatedEvent): Record<string, CreatedEvent> => ({ [e.event_id]: e });
    const update: TransactionUpdate = {
      update_id: updateId,
      migration_id: spec.migrationId,
      workflow_id: '',
      record_time: formatRecordTime(recordTime),
      synchronizer_id: this.synchronizerId,
      effective_at: formatInstant(effectiveAt),
      root_event_ids: [event.compact.event_id],
      events_by_id: eventsById(event.compact),
    };
    const payload = encodePayload(JSON.stringify(update), JSON.stringify({ ...update, events_by_id: eventsById(event.protobuf) }));
    appended.update({
      update_id: updateId,
      migration_id: spec.migrationId,
      record_time: update.record_time,
      synchronizer_id: this.synchronizerId,
      kind: 'transaction',
      workflow_id: '',
      effective_at: update.effective_at,
      external_transaction_hash: null,
      ledger_offset: null,
      event_count: 1,
      payload: payload.payload,
      payload_compact_length: payload.compactLength,
    });
    this.counts.updates += 1;
    this.bookkeeper.update(recordTime);
    this.sideRows(update, recordTime, event.compact, submitter, n, appended);
  }

  /** A contract row in its final state, and its created event. */
  private contract(
    draft: DrawnContract,
    i: number,
    k: number,
    updateId: string,
    recordTime: Micros,
    effectiveAt: Micros,
  ): { row: ContractRow; event: CreatedEvent } {
    const { spec } = this;
    const contractId = this.contractIds.of(this.counts.contracts);
    const archivedBy = draft.lifetimeMicros === null ? null : i + Math.max(1, Math.ceil(draft.lifetimeMicros / this.times.gap));
    // A contract whose life would outlast the history is one of the active set.
    const archiveAt = archivedBy !== null && archivedBy < spec.updates ? archivedBy : null;
    const archivedRecordTime = archiveAt === null ? null : this.times.of(archiveAt);
    const compactArgs = toCompactJson(draft.args);
    const qualifiedName = qualifiedNameOf(draft.template.templateId);
    const facts = contractFacts({ packageName: draft.template.packageName, qualifiedName }, compactArgs);
    const event: CreatedEvent = {
      event_type: 'created_event',
      event_id: `${updateId}:${k}`,
      contract_id: contractId,
      template_id: draft.template.templateId,
      package_name: draft.template.packageName,
      create_arguments: compactArgs,
      created_at: formatDateTime(effectiveAt),
      signatories: draft.signatories,
      observers: draft.observers,
    };
    const row: ContractRow = {
      migration_id: spec.migrationId,
      contract_id: contractId,
      template_id: event.template_id,
      package_name: event.package_name,
      qualified_name: qualifiedName,
      create_arguments: JSON.stringify(compactArgs),
      created_at: event.created_at,
      signatories: draft.signatories,
      observers: draft.observers,
      created_in_update_id: updateId,
      created_event_id: event.event_id,
      created_record_time: formatRecordTime(recordTime),
      archived_record_time: archivedRecordTime === null ? 'infinity' : formatRecordTime(archivedRecordTime),
      archived_in_update_id: archiveAt === null ? null : this.updateIds.of(archiveAt),
      synchronizer_id: this.synchronizerId,
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
    this.counts.contracts += 1;
    this.counts.byTemplate[draft.kind] = (this.counts.byTemplate[draft.kind] ?? 0) + 1;
    if (archivedRecordTime === null) this.counts.activeContracts += 1;
    if (inSomeSnapshot(recordTime, archivedRecordTime)) this.counts.visibleContracts += 1;
    this.bookkeeper.contract(row, effectiveAt, recordTime, archivedRecordTime);
    return { row, event };
  }

  /** The update's verdict, traffic summary and (sometimes) app activity records. */
  private sideRows(
    update: TransactionUpdate,
    recordTime: Micros,
    event: CreatedEvent,
    submitter: string,
    creates: number,
    appended: AppendedRows,
  ): void {
    const { spec, rng } = this;
    const verdict: Verdict = {
      update_id: update.update_id,
      migration_id: spec.migrationId,
      domain_id: this.synchronizerId,
      record_time: update.record_time,
      finalization_time: formatRecordTime(recordTime + BigInt(rng.int(30_000, 450_000))),
      submitting_parties: [submitter],
      submitting_participant_uid: rng.pick(this.cast.participants),
      verdict_result: 'VERDICT_RESULT_ACCEPTED',
      mediator_group: 0,
      transaction_views: {
        views: [
          {
            view_id: 0,
            informees: sortedParties([...event.signatories, ...event.observers]),
            confirming_parties: [{ parties: event.signatories, threshold: event.signatories.length }],
            sub_views: [],
            view_hash: '',
          },
        ],
        root_views: [0],
      },
    };
    appended.verdict({
      update_id: verdict.update_id,
      migration_id: verdict.migration_id,
      record_time: verdict.record_time,
      domain_id: verdict.domain_id,
      finalization_time: verdict.finalization_time,
      submitting_parties: verdict.submitting_parties,
      submitting_participant_uid: verdict.submitting_participant_uid,
      verdict_result: verdict.verdict_result,
      mediator_group: verdict.mediator_group,
      round_number: null,
      root_views: verdict.transaction_views.root_views,
      json: JSON.stringify(verdict),
    });
    this.counts.verdicts += 1;

    // Costed like the simulator's envelopes: a base and a share per event of the whole transaction.
    const cost = 1200 + 650 * creates + rng.int(0, 399);
    const side = {
      migration_id: spec.migrationId,
      record_time: update.record_time,
      synchronizer_id: this.synchronizerId,
      update_id: update.update_id,
    };
    appended.trafficSummary({
      ...side,
      total_traffic_cost: cost,
      json: JSON.stringify({ total_traffic_cost: cost, envelope_traffic_summaries: [{ traffic_cost: cost, view_ids: [0] }] }),
    });
    this.counts.trafficSummaries += 1;
    if (rng.chance(FEATURED_SHARE)) {
      // Round 0, as every generated contract (contracts.ts).
      const records = { round_number: 0, records: [{ party: rng.pick(this.cast.providers), weight: cost }] };
      appended.appActivityRecords({ ...side, round_number: records.round_number, json: JSON.stringify(records) });
      this.counts.appActivityRecords += 1;
    }
  }
}

/**
 * Generates the history, handing each chunk of encoded rows to `sink` (awaited before the next
 * chunk is generated, so the sink bounds how far generation runs ahead of loading).
 */
export async function generateHistory(
  spec: HistorySpec,
  sink: (chunk: HistoryChunk) => Promise<void>,
  progress?: (done: HistoryCounts) => void,
): Promise<HistoryResult> {
  const generator = new HistoryGenerator(spec);
  const chunkUpdates = spec.chunkUpdates ?? DEFAULT_CHUNK_UPDATES;
  for (let from = 0; from < spec.updates; from += chunkUpdates) {
    await sink(generator.chunk(from, Math.min(spec.updates, from + chunkUpdates)));
    progress?.(generator.counts);
  }
  return {
    counts: generator.counts,
    bookkeeping: generator.bookkeeper.encode(),
    firstRecordTime: generator.times.of(0),
    lastRecordTime: generator.times.of(spec.updates - 1),
  };
}
