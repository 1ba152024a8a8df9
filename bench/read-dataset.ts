/**
 * The data set of the read benchmark (bench/read-bench.ts), built through the
 * real ingestion path so that every derived table (contracts, stakeholders,
 * ACS deltas, migration ranges, snapshots) is what ingestion would leave:
 *
 * 1. a simulated network (the simulator source in backfill mode, through
 *    runWorker), whose updates S4, S5 and L1 look up;
 * 2. a synthetic amulet history after it, as canonical transactions that each
 *    create or archive `contractsPerTransaction` Amulet / LockedAmulet
 *    contracts, through the pipeline and the writer (runPipeline, commitPlan):
 *    - `activeAmulets` live amulets and locked amulets spread over `owners`
 *      owner parties (about 10 each at full scale);
 *    - `historyAmulets` archived amulets of the same owners;
 *    - one history-heavy party with `heavyArchived` archived amulets (in
 *      addition to `historyAmulets`) and `heavyLive` live ones;
 *    every archived amulet lives `minLifetimeHours`..`maxLifetimeHours`
 *    (at least 4 h), so it crosses a 3-hour snapshot boundary and is visible
 *    in some snapshot (it is in the ACS indexes and contract_stakeholders);
 * 3. catchUpSnapshots and catchUpHoldingTotals, then `vacuum analyze`.
 *
 * Contracts are generated from their cohort (the transaction that creates
 * them) by a seeded PRNG, so archiving a cohort regenerates its contract ids
 * and templates instead of keeping millions of contracts in memory.
 */
import crypto from 'node:crypto';
import { sql } from 'kysely';
import type pg from 'pg';
import type { CanonicalItem, CreatedEvent, ExercisedEvent, TreeEvent } from '../src/domain/items';
import { formatRecordTime, fromPgTimestamp, parseTimestamp, type Micros } from '../src/domain/time';
import { runPipeline } from '../src/ingest/pipeline';
import type { SourceItem } from '../src/ingest/source';
import { createSimulatorSource } from '../src/ingest/sources/simulator-source';
import { runWorker } from '../src/ingest/worker';
import { commitPlan, storedLookup } from '../src/ingest/writer';
import { createLogger } from '../src/internal/logger';
import { catchUpSnapshots } from '../src/jobs/acs-snapshots';
import { catchUpHoldingTotals } from '../src/jobs/holding-totals';
import { HOLDING_TOTALS_REFRESH_OWNERS_DEFAULT } from '../src/internal/config';
import { newestStoredKey, readCheckpoint } from '../src/store/ingest-repository';
import type { Db } from '../src/store/pool';
import { DEFAULT_START_TIME } from '../src/simulator/options';
import { TEMPLATES } from '../src/simulator/templates';

export type Scale = 'full' | 'quick' | 'tiny';

export interface DatasetSpec {
  /** Owner parties of the live and archived amulets (the history-heavy party not included). */
  owners: number;
  /** Live Amulet and LockedAmulet contracts of the owners. */
  activeAmulets: number;
  /** Archived amulets of the owners. */
  historyAmulets: number;
  /** Archived amulets of the history-heavy party, in addition to historyAmulets. */
  heavyArchived: number;
  /** Live amulets of the history-heavy party. */
  heavyLive: number;
  /** Share of LockedAmulet among the generated amulets. */
  lockedShare: number;
  /** Updates of the simulated network ingested first (0: none). */
  simulatorUpdates: number;
  /** Mean simulated updates per second of ledger time. */
  simulatorRate: number;
  /** Ledger time the synthetic history spans. */
  spanHours: number;
  minLifetimeHours: number;
  maxLifetimeHours: number;
  contractsPerTransaction: number;
  /** Items (transactions) per writer batch. */
  itemsPerBatch: number;
  seed: number;
}

const BASE: Omit<
  DatasetSpec,
  'owners' | 'activeAmulets' | 'historyAmulets' | 'heavyArchived' | 'heavyLive' | 'simulatorUpdates' | 'spanHours'
> = {
  lockedShare: 0.2,
  simulatorRate: 2,
  minLifetimeHours: 4,
  maxLifetimeHours: 72,
  contractsPerTransaction: 100,
  itemsPerBatch: 1000,
  seed: 11,
};

export const DATASET_SPECS: Record<Scale, DatasetSpec> = {
  full: {
    ...BASE,
    owners: 100_000,
    activeAmulets: 1_000_000,
    historyAmulets: 2_000_000,
    heavyArchived: 1_000_000,
    heavyLive: 1_000,
    simulatorUpdates: 100_000,
    spanHours: 60 * 24,
  },
  quick: {
    ...BASE,
    owners: 2_000,
    activeAmulets: 20_000,
    historyAmulets: 40_000,
    heavyArchived: 20_000,
    heavyLive: 1_000,
    simulatorUpdates: 5_000,
    spanHours: 10 * 24,
  },
  tiny: {
    ...BASE,
    owners: 100,
    activeAmulets: 1_000,
    historyAmulets: 2_000,
    heavyArchived: 1_000,
    heavyLive: 100,
    simulatorUpdates: 1_000,
    spanHours: 3 * 24,
    maxLifetimeHours: 24,
  },
};

/** A state with no history at all: live amulets only, for the "fresh" comparisons. */
export function freshSpec(activeAmulets: number): DatasetSpec {
  return {
    ...BASE,
    owners: Math.max(1, Math.round(activeAmulets / 10)),
    activeAmulets,
    historyAmulets: 0,
    heavyArchived: 0,
    heavyLive: 0,
    simulatorUpdates: 0,
    spanHours: 24,
  };
}

export interface DatasetInfo {
  migrationId: number;
  /** The owner parties, in index order. */
  owners: string[];
  heavyParty: string;
  /** Latest announced snapshot (PostgreSQL text) and how many snapshots there are. */
  latestSnapshot: string;
  snapshots: number;
  /** Random transaction ids of the simulated network (for S4, S5, L1). */
  updateIdSample: string[];
  counts: Record<string, number>;
  seconds: Record<string, number>;
}

// ---------------------------------------------------------------------------------------------
// Deterministic helpers

/** mulberry32: a small seeded PRNG, one per cohort. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sha = (text: string) => crypto.createHash('sha256').update(text).digest('hex');
const partyId = (name: string) => `${name}::1220${sha(`party ${name}`)}`;

function ownerParty(i: number): string {
  return partyId(`readbench-owner-${String(i).padStart(6, '0')}`);
}
const HEAVY_PARTY = partyId('readbench-heavy');
const PROVIDERS = Array.from({ length: 10 }, (_, i) => partyId(`readbench-provider-${i}`));

const HOUR_MICROS = 3_600_000_000;

type CohortKind = 'active' | 'heavy-live' | 'history' | 'heavy-history';

interface Cohort {
  index: number;
  kind: CohortKind;
  size: number;
  created: number; // micros after the start
  archived: number | undefined;
}

interface CohortContract {
  contractId: string;
  locked: boolean;
  owner: string;
  holder: string;
  amount: string;
}

function cohortContracts(spec: DatasetSpec, c: Cohort, owners: string[]): CohortContract[] {
  const rand = prng((spec.seed * 0x9e3779b1) ^ (c.index * 0x85ebca6b));
  const suffix = sha(`readbench ${spec.seed} cohort ${c.index}`);
  const heavy = c.kind === 'heavy-live' || c.kind === 'heavy-history';
  const out: CohortContract[] = [];
  for (let j = 0; j < c.size; j++) {
    const owner = heavy ? HEAVY_PARTY : owners[Math.floor(rand() * owners.length)]!;
    const locked = rand() < spec.lockedShare;
    const holder = PROVIDERS[Math.floor(rand() * PROVIDERS.length)]!;
    const whole = 1 + Math.floor(rand() * 100_000);
    const frac = String(Math.floor(rand() * 1e10)).padStart(10, '0');
    out.push({
      contractId: `00${sha(`readbench ${spec.seed} contract ${c.index}/${j}`)}ca101220${suffix}`,
      locked,
      owner,
      holder,
      amount: `${whole}.${frac}`,
    });
  }
  return out;
}

/** The cohorts of the synthetic history, each with its creation and (maybe) archive time. */
function planCohorts(spec: DatasetSpec): Cohort[] {
  const rand = prng(spec.seed * 7919 + 1);
  const span = spec.spanHours * HOUR_MICROS;
  const cohorts: Cohort[] = [];
  const add = (kind: CohortKind, total: number) => {
    for (let left = total; left > 0; left -= spec.contractsPerTransaction) {
      const size = Math.min(spec.contractsPerTransaction, left);
      if (kind === 'active' || kind === 'heavy-live') {
        cohorts.push({ index: cohorts.length, kind, size, created: Math.floor(rand() * span), archived: undefined });
      } else {
        const lifetime = (spec.minLifetimeHours + rand() * (spec.maxLifetimeHours - spec.minLifetimeHours)) * HOUR_MICROS;
        const created = Math.floor(rand() * Math.max(1, span - lifetime));
        cohorts.push({ index: cohorts.length, kind, size, created, archived: Math.floor(created + lifetime) });
      }
    }
  };
  add('active', spec.activeAmulets);
  add('heavy-live', spec.heavyLive);
  add('history', spec.historyAmulets);
  add('heavy-history', spec.heavyArchived);
  return cohorts;
}

interface Network {
  migrationId: number;
  synchronizerId: string;
  dso: string;
  round: number;
  start: Micros;
}

function createdEvent(updateId: string, n: number, c: CohortContract, network: Network, createdAt: string): CreatedEvent {
  const amulet = {
    dso: network.dso,
    owner: c.owner,
    amount: { initialAmount: c.amount, createdAt: { number: String(network.round) }, ratePerRound: { rate: '0.0038051800' } },
  };
  const template = c.locked ? TEMPLATES.lockedAmulet : TEMPLATES.amulet;
  const expiresAt = formatRecordTime(parseTimestamp(createdAt) + 24n * BigInt(HOUR_MICROS));
  return {
    event_type: 'created_event',
    event_id: `${updateId}:${n}`,
    contract_id: c.contractId,
    template_id: template.templateId,
    package_name: template.packageName,
    create_arguments: c.locked ? { amulet, lock: { holders: [c.holder], expiresAt, optContext: 'readbench lock' } } : amulet,
    created_at: createdAt,
    signatories: c.locked ? [network.dso, c.holder, c.owner] : [network.dso, c.owner],
    observers: [],
  };
}

function archivedEvent(updateId: string, n: number, c: CohortContract): ExercisedEvent {
  const template = c.locked ? TEMPLATES.lockedAmulet : TEMPLATES.amulet;
  return {
    event_type: 'exercised_event',
    event_id: `${updateId}:${n}`,
    contract_id: c.contractId,
    template_id: template.templateId,
    package_name: template.packageName,
    choice: 'Archive',
    choice_argument: {},
    child_event_ids: [],
    exercise_result: {},
    consuming: true,
    acting_parties: [c.owner],
    interface_id: null,
  };
}

function transaction(updateId: string, recordTime: string, network: Network, events: TreeEvent[]): CanonicalItem {
  return {
    update: {
      update_id: updateId,
      migration_id: network.migrationId,
      workflow_id: '',
      record_time: recordTime,
      synchronizer_id: network.synchronizerId,
      effective_at: recordTime,
      root_event_ids: events.map((e) => e.event_id),
      events_by_id: Object.fromEntries(events.map((e) => [e.event_id, e])),
    },
    verdict: null,
    traffic_summary: null,
    app_activity_records: null,
  };
}

/** The synthetic transactions in record-time order. */
function* syntheticItems(spec: DatasetSpec, network: Network, owners: string[]): Generator<CanonicalItem> {
  const cohorts = planCohorts(spec);
  const events: { t: number; cohort: Cohort; archive: boolean }[] = [];
  for (const c of cohorts) {
    events.push({ t: c.created, cohort: c, archive: false });
    if (c.archived !== undefined) events.push({ t: c.archived, cohort: c, archive: true });
  }
  events.sort((a, b) => a.t - b.t || Number(a.archive) - Number(b.archive) || a.cohort.index - b.cohort.index);
  let last = -1;
  let k = 0;
  for (const e of events) {
    // Strictly increasing record times, a millisecond apart at least.
    const t = Math.max(e.t, last + 1000);
    last = t;
    k += 1;
    const recordTime = formatRecordTime(network.start + BigInt(t));
    const updateId = `1220${sha(`readbench ${spec.seed} update ${k}`)}`;
    const contracts = cohortContracts(spec, e.cohort, owners);
    const treeEvents = contracts.map((c, n) =>
      e.archive ? archivedEvent(updateId, n, c) : createdEvent(updateId, n, c, network, recordTime),
    );
    yield transaction(updateId, recordTime, network, treeEvents);
  }
}

// ---------------------------------------------------------------------------------------------
// Building

async function network(db: Db, migrationId: number): Promise<Network> {
  const { rows } = await sql<{ dso: string | null; sync: string | null; round: string | null; last: string | null }>`
    select (select dso_party from contracts where dso_party is not null limit 1) as dso,
           (select synchronizer_id from migration_synchronizers where migration_id = ${migrationId} order by max_record_time desc limit 1) as sync,
           (select max(round_number)::text from contracts where qualified_name = 'Splice.Round:OpenMiningRound') as round,
           (select max(max_record_time)::text from migration_synchronizers where migration_id = ${migrationId}) as last`.execute(db);
  const r = rows[0]!;
  // Start on the hour after the simulated network ends (or at the simulator's default start).
  const hour = BigInt(HOUR_MICROS);
  const start = r.last ? (fromPgTimestamp(r.last) / hour + 2n) * hour : DEFAULT_START_TIME;
  return {
    migrationId,
    synchronizerId: r.sync ?? `global-domain::1220${sha('readbench synchronizer')}`,
    dso: r.dso ?? `DSO::1220${sha('readbench dso')}`,
    round: r.round ? Math.max(0, Number(r.round) - 1) : 1,
    start,
  };
}

/** Applies the synthetic stream through runPipeline, which plans the next batch while the current one commits. */
async function applySynthetic(db: Db, spec: DatasetSpec, net: Network, owners: string[], log: (line: string) => void): Promise<number> {
  const stream = `readbench:synthetic:seed=${spec.seed}`;
  const checkpoint = await readCheckpoint(db, stream);
  if (checkpoint) throw new Error(`the database already holds the stream ${stream}: the read benchmark needs an empty database`);
  let contracts = 0;
  let lastLog = Date.now();
  const started = Date.now();
  function* items(): Generator<SourceItem> {
    let count = 0;
    for (const item of syntheticItems(spec, net, owners)) {
      count += 1;
      contracts += Object.keys((item.update as { events_by_id: object }).events_by_id).length;
      if (Date.now() - lastLog > 15_000) {
        lastLog = Date.now();
        log(
          `  synthetic history: ${count} transactions, ${contracts} contract events, ${Math.round(contracts / ((Date.now() - started) / 1000))} events/s`,
        );
      }
      yield { item, position: String(count), origin: `synthetic item ${count}` };
    }
  }
  const generated = items();
  const result = await runPipeline({
    items: { [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve(generated.next()) }) },
    checkpoint,
    batchSize: spec.itemsPerBatch,
    // Batches are sealed by size: the time limit is for live sources, and this one never keeps the pipeline waiting.
    batchMaxWaitMs: 60_000,
    commit: (plan, expectedPosition) => commitPlan(db, stream, plan, expectedPosition),
    onApplied: () => undefined,
    signal: new AbortController().signal,
    storedMax: await newestStoredKey(db),
    lookUpStored: storedLookup(db),
  });
  return result.items;
}

async function timed<T>(seconds: Record<string, number>, name: string, work: () => Promise<T>): Promise<T> {
  const start = process.hrtime.bigint();
  try {
    return await work();
  } finally {
    seconds[name] = Number(process.hrtime.bigint() - start) / 1e9;
  }
}

async function count(pool: pg.Pool, sql: string): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(sql);
  return Number(rows[0]!.n);
}

async function datasetCounts(pool: pg.Pool): Promise<Record<string, number>> {
  return {
    updates: await count(pool, 'select count(*) as n from updates'),
    contracts: await count(pool, 'select count(*) as n from contracts'),
    activeAmulets: await count(
      pool,
      `select count(*) as n from contracts where amulet_owner is not null and archived_record_time = 'infinity'`,
    ),
    archivedAmulets: await count(
      pool,
      `select count(*) as n from contracts where amulet_owner is not null and archived_record_time < 'infinity'`,
    ),
    archivedAmuletsInSomeSnapshot: await count(
      pool,
      `select count(*) as n from contracts where amulet_owner is not null and archived_record_time < 'infinity' and archived_record_time > created_slot`,
    ),
    activeContracts: await count(pool, `select count(*) as n from contracts where archived_record_time = 'infinity'`),
    contractStakeholders: await count(pool, 'select count(*) as n from contract_stakeholders'),
    snapshots: await count(pool, 'select count(*) as n from acs_snapshots'),
    databaseMegabytes: await count(pool, 'select (pg_database_size(current_database()) / 1048576)::bigint as n'),
  };
}

/**
 * Builds the data set into a migrated, empty database. `db` and `pool` are the
 * caller's (the pool needs at least 2 connections: the worker holds one for its lock).
 */
export async function buildDataset(db: Db, pool: pg.Pool, spec: DatasetSpec, log: (line: string) => void): Promise<DatasetInfo> {
  const seconds: Record<string, number> = {};
  const migrationId = 0;
  let updateIdSample: string[] = [];
  if (spec.simulatorUpdates > 0) {
    const result = await timed(seconds, 'simulator', () =>
      runWorker(
        {
          db,
          pool,
          source: createSimulatorSource({
            seed: spec.seed,
            mode: 'backfill',
            updates: spec.simulatorUpdates,
            ratePerSecond: spec.simulatorRate,
            migrations: 1,
          }),
          logger: createLogger('warn'),
          batchSize: 500,
          batchMaxWaitMs: 1000,
        },
        new AbortController().signal,
      ),
    );
    log(`  simulated network: ${result.updates} updates in ${seconds.simulator!.toFixed(1)} s`);
    const { rows } = await pool.query<{ update_id: string }>(
      `select update_id from updates where kind = 'transaction' and record_time > '0001-01-02' order by random() limit 10000`,
    );
    updateIdSample = rows.map((r) => r.update_id);
  }
  const owners = Array.from({ length: spec.owners }, (_, i) => ownerParty(i));
  const net = await network(db, migrationId);
  const transactions = await timed(seconds, 'synthetic', () => applySynthetic(db, spec, net, owners, log));
  log(`  synthetic history: ${transactions} transactions in ${seconds.synthetic!.toFixed(1)} s`);
  const { taken } = await timed(seconds, 'snapshots', () => catchUpSnapshots(db));
  log(`  ${taken.length} ACS snapshots announced in ${seconds.snapshots!.toFixed(1)} s`);
  const derived = await timed(seconds, 'holdingTotals', () => catchUpHoldingTotals(db, HOLDING_TOTALS_REFRESH_OWNERS_DEFAULT));
  log(`  the holdings totals of ${derived} of them derived in ${seconds.holdingTotals!.toFixed(1)} s`);
  await timed(seconds, 'vacuumAnalyze', () => pool.query('vacuum analyze'));
  log(`  vacuum analyze in ${seconds.vacuumAnalyze!.toFixed(1)} s`);
  const { rows } = await pool.query<{ record_time: string; n: string }>(
    `select max(record_time)::text as record_time, count(*)::text as n from acs_snapshots where migration_id = $1`,
    [migrationId],
  );
  if (!rows[0]?.record_time) throw new Error('the data set has no ACS snapshot');
  const counts = await timed(seconds, 'counts', () => datasetCounts(pool));
  return {
    migrationId,
    owners,
    heavyParty: HEAVY_PARTY,
    latestSnapshot: rows[0].record_time,
    snapshots: Number(rows[0].n),
    updateIdSample,
    counts,
    seconds,
  };
}
