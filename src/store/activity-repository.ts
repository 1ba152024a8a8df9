/**
 * The activity projection (20261126_080_activities.sql): a party's activities as keyset pages, and the
 * backfill's reads and writes for history stored before the projection existed.
 */
import { ROUND_AGGREGATES_LOCK_KEY } from './round-aggregates-repository';
import { sql } from 'kysely';
import { formatDecimal, parseDecimal } from '../domain/decimal';
import type { TransactionUpdate } from '../domain/items';
import { formatRecordTime, fromPgTimestamp, type Micros } from '../domain/time';
import { ACTIVITY_COLUMNS, type ActivityRow } from './ingest-rows';
import { backfillStateOf, type BackfillState } from './backfill-state';
import type { Db } from './pool';
import { firstOfRanges, rangesAfter, timeRangePerMigration } from './keyset';
import { repositoryOperation } from './query-operation';
import { readUpdatesBetween } from './update-repository';

/** An activity row's place in the network's order: the page token's position. */
export interface ActivityPosition {
  migrationId: number;
  recordTime: Micros;
  updateId: string;
  node: number;
  kind: string;
  leg: number;
}

export interface StoredActivity extends ActivityPosition {
  party: string;
  round: number | null;
  /** Decimals with ten fractional digits. */
  amount: string;
  fees: string;
  holdingFees: string | null;
  burned: string | null;
  counterparties: string[];
  provider: string | null;
  featured: boolean | null;
  via: string | null;
  traffic: number | null;
  subject: string | null;
  detail: string | null;
  outcome: string | null;
  expiresAt: Micros | null;
}

export interface PartyActivityQuery {
  party: string;
  /** Any of these kinds; all when absent. */
  kinds?: readonly string[];
  /** Record time at or after `from`, before `to`. */
  from?: Micros;
  to?: Micros;
  order: 'asc' | 'desc';
  /** The position of the last row of the previous page. */
  after?: ActivityPosition;
  limit: number;
}

const timestamp = (t: Micros) => sql`${formatRecordTime(t)}::timestamptz`;
const tenDigits = (x: string) => formatDecimal(parseDecimal(x));

interface ActivitySelect {
  migration_id: number;
  record_time: string;
  update_id: string;
  node: number;
  kind: string;
  leg: number;
  party: string;
  round: number | null;
  amount: string;
  fees: string;
  holding_fees: string | null;
  burned: string | null;
  counterparties: string[];
  provider: string | null;
  featured: boolean | null;
  via: string | null;
  traffic: number | null;
  subject: string | null;
  detail: string | null;
  outcome: string | null;
  expires_at: string | null;
}

/**
 * A page of a party's activities in the network's order (or its reverse): the ranges of
 * activities_by_party after the position (./keyset.ts), filtered by kind and record time.
 */
export const listPartyActivities = repositoryOperation(
  'listPartyActivities',
  async function listPartyActivities(db: Db, q: PartyActivityQuery): Promise<StoredActivity[]> {
    const conditions = [sql`party = ${q.party}`];
    if (q.kinds !== undefined) conditions.push(sql`kind = any(${[...q.kinds]}::text[])`);
    // With a time range, per migration (./keyset.ts): on the record time alone, a window read the
    // party's whole history (history-read-cost.test.ts).
    if (q.from !== undefined || q.to !== undefined) conditions.push((await timeRangePerMigration(db, q.from, q.to)) ?? sql`false`);
    const ranges = rangesAfter(
      { migration: sql`migration_id`, rest: sql`(record_time, update_id, node, kind, leg)` },
      q.after && {
        migrationId: q.after.migrationId,
        rest: sql`(${timestamp(q.after.recordTime)}, ${q.after.updateId}::text, ${q.after.node}::int, ${q.after.kind}::text, ${q.after.leg}::smallint)`,
      },
      q.order,
    );
    const page = firstOfRanges(
      ranges,
      (range) => sql`select migration_id, record_time, update_id, node, kind, leg, party, round, amount, fees, holding_fees, burned,
        counterparties, provider, featured, via, traffic, subject, detail, outcome, expires_at
      from activities
      where ${sql.join([...conditions, range], sql` and `)}`,
      { alias: '', columns: ['migration_id', 'record_time', 'update_id', 'node', 'kind', 'leg'], direction: q.order },
      q.limit,
    );
    const { rows } = await sql<ActivitySelect>`${page}`.execute(db);
    return rows.map((r) => ({
      migrationId: r.migration_id,
      recordTime: fromPgTimestamp(r.record_time),
      updateId: r.update_id,
      node: r.node,
      kind: r.kind,
      leg: r.leg,
      party: r.party,
      round: r.round,
      amount: tenDigits(r.amount),
      fees: tenDigits(r.fees),
      holdingFees: r.holding_fees === null ? null : tenDigits(r.holding_fees),
      burned: r.burned === null ? null : tenDigits(r.burned),
      counterparties: r.counterparties,
      provider: r.provider,
      featured: r.featured,
      via: r.via,
      traffic: r.traffic,
      subject: r.subject,
      detail: r.detail,
      outcome: r.outcome,
      expiresAt: r.expires_at === null ? null : fromPgTimestamp(r.expires_at),
    }));
  },
);

/** An update's key in the stream's order (updates_live_by_position). */
export interface UpdateKey {
  migrationId: number;
  recordTime: Micros;
  synchronizerId: string;
  updateId: string;
}

const BEFORE_EVERYTHING = { migrationId: -1, recordTime: formatRecordTime(0n), synchronizerId: '', updateId: '' };

/**
 * Where the backfill is; the first call records where it ends (the newest live update stored then:
 * the writer derives the activities of what it stores after that). Undefined when nothing is stored.
 */
export const beginActivityBackfill = repositoryOperation('beginActivityBackfill', async function beginActivityBackfill(db: Db): Promise<
  BackfillState | undefined
> {
  const existing = await db.selectFrom('activity_backfill').selectAll().executeTakeFirst();
  if (!existing) {
    const newest = await sql<{ migration_id: number; record_time: string; synchronizer_id: string; update_id: string }>`
        select migration_id, record_time, synchronizer_id, update_id from updates
        where record_time > '0001-01-01 00:00:00+00'
        order by migration_id desc, record_time desc, synchronizer_id desc, update_id desc limit 1`.execute(db);
    const end = newest.rows[0];
    if (!end) return undefined;
    await db.transaction().execute(async (trx) => {
      // The round aggregation takes this lock in each round's transaction and checks for a backfill under
      // it: a round is either summed before the backfill begins (and cleared here) or not until it ends.
      await sql`select pg_advisory_xact_lock(${ROUND_AGGREGATES_LOCK_KEY}::bigint)`.execute(trx);
      const inserted = await sql`
        insert into activity_backfill (migration_id, record_time, synchronizer_id, update_id,
          end_migration_id, end_record_time, end_synchronizer_id, end_update_id, updates_done)
        values (${BEFORE_EVERYTHING.migrationId}, ${BEFORE_EVERYTHING.recordTime}::timestamptz, '', '',
          ${end.migration_id}, ${end.record_time}::timestamptz, ${end.synchronizer_id}, ${end.update_id}, 0)
        on conflict (id) do nothing`.execute(trx);
      // Rounds aggregated before their activities were derived are summed again once the backfill ends;
      // in the same transaction as the row, so that a crash leaves both or neither.
      if (Number(inserted.numAffectedRows ?? 0n) > 0) await sql`truncate round_totals, round_party_totals, round_party_latest`.execute(trx);
    });
  }
  const row = await db.selectFrom('activity_backfill').selectAll().executeTakeFirstOrThrow();
  return backfillStateOf(row);
});

/** Live updates stored, the backfill's whole (the ranges' counts). */
export const countLiveUpdates = repositoryOperation('countLiveUpdates', async function countLiveUpdates(db: Db): Promise<number> {
  const { rows } = await sql<{ n: string | null }>`select sum(update_count)::text as n from migration_synchronizers`.execute(db);
  return Number(rows[0]?.n ?? 0);
});

export interface StoredTransaction {
  key: UpdateKey;
  /** Undefined for a reassignment. */
  transaction: TransactionUpdate | undefined;
}

/** The next live updates after `position` up to `end` (inclusive), in the stream's order, transactions parsed. */
export const readUpdatesForBackfill = repositoryOperation(
  'readUpdatesForBackfill',
  async function readUpdatesForBackfill(
    db: Db,
    position: UpdateKey | undefined,
    end: UpdateKey,
    limit: number,
  ): Promise<StoredTransaction[]> {
    const rows = await readUpdatesBetween(db, position, end, limit, true);
    return rows.map((r) => ({
      key: r.key,
      transaction: r.compactJson === undefined ? undefined : (JSON.parse(r.compactJson) as TransactionUpdate),
    }));
  },
);

/**
 * The activities of a page of the backfill and its new position, in one transaction: an interrupted
 * backfill resumes after the last page committed. Rows already there (from a page committed before a
 * crash, or from the writer) are left as they are.
 */
export const writeActivityBackfillPage = repositoryOperation(
  'writeActivityBackfillPage',
  async function writeActivityBackfillPage(
    db: Db,
    rows: readonly ActivityRow[],
    position: UpdateKey,
    updates: number,
    finished: boolean,
  ): Promise<void> {
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += 500) {
        const chunk = rows.slice(i, i + 500);
        await sql`
          insert into activities (${sql.join(ACTIVITY_COLUMNS.map((c) => sql.ref(c)))})
          values ${sql.join(chunk.map((r) => sql`(${sql.join(ACTIVITY_COLUMNS.map((c) => valueOf(r, c)))})`))}
          on conflict do nothing`.execute(trx);
      }
      await sql`
        update activity_backfill set migration_id = ${position.migrationId}, record_time = ${timestamp(position.recordTime)},
          synchronizer_id = ${position.synchronizerId}, update_id = ${position.updateId}, updates_done = updates_done + ${updates},
          finished_at = ${finished ? sql`now()` : sql`null`}, updated_at = now()`.execute(trx);
    });
  },
);

function valueOf(row: ActivityRow, column: (typeof ACTIVITY_COLUMNS)[number]) {
  const v = row[column];
  // An expiry's amount and burn: the initial amount of the contract it archives, stored with the history.
  if (row.amount === null && (column === 'amount' || column === 'burned')) {
    return sql`(select c.amulet_initial_amount from contracts c where c.migration_id = ${row.migration_id} and c.contract_id = ${row.subject})`;
  }
  switch (column) {
    case 'record_time':
      return sql`${v}::timestamptz`;
    case 'round':
    case 'traffic':
      return sql`${v === null ? null : String(v)}::bigint`;
    case 'amount':
    case 'fees':
    case 'holding_fees':
    case 'burned':
    case 'balance_change':
    case 'holding_rate_change':
    case 'input_amulet':
    case 'change_amount':
    case 'change_fee':
    case 'sender_fee':
    case 'self_amount':
    case 'self_fee':
      return sql`${v}::numeric`;
    case 'counterparties':
      return sql`${v}::text[]`;
    default:
      return sql`${v}`;
  }
}
