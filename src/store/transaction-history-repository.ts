/**
 * The Scan's deprecated transaction history (POST /v0/transactions) read from the activity projection
 * (20261126_080): the transfers, mints and taps in the network's order, each with what
 * its item shows (the transfer's receivers, the rewards its sender claimed, its balance changes), and the
 * transaction's synchronizer and effective time from its update.
 */
import { sql } from 'kysely';
import { formatDecimal, parseDecimal } from '../domain/decimal';
import { formatRecordTime, fromPgTimestamp, type Micros } from '../domain/time';
import type { Db } from './pool';
import { firstOfRanges, rangesAfter } from './keyset';
import { repositoryOperation } from './query-operation';

/** The kinds the Scan listed as transactions; the other activities (rewards, locks, traffic) were not. */
const TRANSACTION_KINDS = ['transfer', 'mint', 'tap'];
const REWARD_KINDS = ['app_reward', 'validator_reward', 'sv_reward', 'validator_faucet'];

/** A history item's place: one leg-0 row of a transaction kind per exercise node. */
export interface TransactionPosition {
  migrationId: number;
  recordTime: Micros;
  updateId: string;
  node: number;
}

interface TransactionParty {
  party: string;
  amount: string;
  fees: string;
}

export interface StoredTransaction extends TransactionPosition {
  kind: 'transfer' | 'mint' | 'tap';
  synchronizerId: string;
  /** The update's effective time, else its record time. */
  date: Micros;
  round: number | null;
  /** The owner and amount of a mint or tap; the sender and what it sent to others of a transfer. */
  party: string;
  amount: string;
  /** A transfer's only: */
  transfer: {
    holdingFees: string;
    inputAmulet: string | null;
    changeAmount: string | null;
    changeFee: string | null;
    senderFee: string | null;
    self: (TransactionParty & { rank: number }) | null;
    /** The other receivers in the order of their first output. */
    receivers: TransactionParty[];
    /** The rewards the sender's inputs claimed, by kind. */
    rewards: Record<string, string>;
    /** Every party's balance change that the summary names. */
    balanceChanges: { party: string; changeToInitialAmountAsOfRoundZero: string; changeToHoldingFeesRate: string }[];
  } | null;
}

const tenDigits = (x: string) => formatDecimal(parseDecimal(x));
const nullable = (x: string | null) => (x === null ? null : tenDigits(x));
const timestamp = (t: Micros) => sql`${formatRecordTime(t)}::timestamptz`;

interface ItemSelect {
  migration_id: number;
  record_time: string;
  update_id: string;
  node: number;
  kind: 'transfer' | 'mint' | 'tap';
  party: string;
  round: number | null;
  amount: string;
  holding_fees: string | null;
  input_amulet: string | null;
  change_amount: string | null;
  change_fee: string | null;
  sender_fee: string | null;
  self_amount: string | null;
  self_fee: string | null;
  self_rank: number | null;
  balance_change: string | null;
  holding_rate_change: string | null;
  synchronizer_id: string;
  effective_at: string | null;
}

interface LegSelect {
  migration_id: number;
  record_time: string;
  update_id: string;
  node: number;
  kind: string;
  leg: number;
  party: string;
  amount: string;
  fees: string;
  balance_change: string | null;
  holding_rate_change: string | null;
}

/** The position of the history item an event id names (`<update id>:<node>`), or undefined. */
export const findTransactionPosition = repositoryOperation(
  'findTransactionPosition',
  async function findTransactionPosition(db: Db, updateId: string, node: number): Promise<TransactionPosition | undefined> {
    const { rows } = await sql<{ migration_id: number; record_time: string }>`
      select a.migration_id, a.record_time
      from updates u
      join activities a on a.migration_id = u.migration_id and a.record_time = u.record_time and a.update_id = u.update_id
      where u.update_id = ${updateId} and a.node = ${node} and a.leg = 0 and a.kind = any(${TRANSACTION_KINDS}::text[])
      limit 1`.execute(db);
    const row = rows[0];
    return row && { migrationId: row.migration_id, recordTime: fromPgTimestamp(row.record_time), updateId, node };
  },
);

const keyOf = (r: { migration_id: number; record_time: string; update_id: string; node: number }) =>
  `${r.migration_id}|${r.record_time}|${r.update_id}|${r.node}`;

/**
 * A page of the history: the items strictly after (asc) or before (desc) `after`, from the start or the
 * end when undefined. The ranges of the activities' key after it for the items (./keyset.ts), one lookup for
 * their transfers' legs.
 */
export const listTransactionHistory = repositoryOperation(
  'listTransactionHistory',
  async function listTransactionHistory(
    db: Db,
    q: { after?: TransactionPosition; order: 'asc' | 'desc'; limit: number },
  ): Promise<StoredTransaction[]> {
    const conditions = [sql`a.leg = 0`, sql`a.kind = any(${TRANSACTION_KINDS}::text[])`];
    const p = q.after;
    const ranges = rangesAfter(
      { migration: sql`a.migration_id`, rest: sql`(a.record_time, a.update_id, a.node)` },
      p && { migrationId: p.migrationId, rest: sql`(${timestamp(p.recordTime)}, ${p.updateId}::text, ${p.node}::int)` },
      q.order,
    );
    const page = firstOfRanges(
      ranges,
      (range) => sql`select a.migration_id, a.record_time, a.update_id, a.node, a.kind, a.party, a.round, a.amount, a.holding_fees,
        a.input_amulet, a.change_amount, a.change_fee, a.sender_fee, a.self_amount, a.self_fee, a.self_rank,
        a.balance_change, a.holding_rate_change, u.synchronizer_id, u.effective_at
      from activities a
      join updates u on u.update_id = a.update_id and u.migration_id = a.migration_id and u.record_time = a.record_time
      where ${sql.join([...conditions, range], sql` and `)}`,
      { alias: 'a', columns: ['migration_id', 'record_time', 'update_id', 'node'], direction: q.order },
      q.limit,
    );
    const { rows } = await sql<ItemSelect>`${page}`.execute(db);

    const transfers = rows.filter((r) => r.kind === 'transfer');
    const legs = new Map<string, LegSelect[]>();
    if (transfers.length > 0) {
      const keys = transfers.map(
        (r) => sql`(${r.migration_id}::bigint, ${r.record_time}::timestamptz, ${r.update_id}::text, ${r.node}::int)`,
      );
      const found = await sql<LegSelect>`
        select migration_id, record_time, update_id, node, kind, leg, party, amount, fees, balance_change, holding_rate_change
        from activities
        where (migration_id, record_time, update_id, node) in (${sql.join(keys)})
          and ((kind = 'transfer' and leg > 0) or (kind = any(${REWARD_KINDS}::text[]) and leg = 0))
        order by migration_id, record_time, update_id, node, kind, leg`.execute(db);
      for (const l of found.rows) {
        const k = keyOf(l);
        const list = legs.get(k);
        if (list) list.push(l);
        else legs.set(k, [l]);
      }
    }

    return rows.map((r) => {
      const base = {
        migrationId: r.migration_id,
        recordTime: fromPgTimestamp(r.record_time),
        updateId: r.update_id,
        node: r.node,
        kind: r.kind,
        synchronizerId: r.synchronizer_id,
        date: fromPgTimestamp(r.effective_at ?? r.record_time),
        round: r.round,
        party: r.party,
        amount: tenDigits(r.amount),
      };
      if (r.kind !== 'transfer') return { ...base, transfer: null };
      const mine = legs.get(keyOf(r)) ?? [];
      const receiverLegs = mine.filter((l) => l.kind === 'transfer');
      const rewards: Record<string, string> = {};
      for (const l of mine) if (l.kind !== 'transfer') rewards[l.kind] = tenDigits(l.amount);
      const balanceChanges = [r, ...receiverLegs]
        .filter((l) => l.balance_change !== null && l.holding_rate_change !== null)
        .map((l) => ({
          party: l.party,
          changeToInitialAmountAsOfRoundZero: tenDigits(l.balance_change!),
          changeToHoldingFeesRate: tenDigits(l.holding_rate_change!),
        }));
      return {
        ...base,
        transfer: {
          holdingFees: tenDigits(r.holding_fees ?? '0'),
          inputAmulet: nullable(r.input_amulet),
          changeAmount: nullable(r.change_amount),
          changeFee: nullable(r.change_fee),
          senderFee: nullable(r.sender_fee),
          self:
            r.self_amount === null || r.self_rank === null
              ? null
              : { party: r.party, amount: tenDigits(r.self_amount), fees: tenDigits(r.self_fee ?? '0'), rank: r.self_rank },
          receivers: receiverLegs
            .sort((a, b) => a.leg - b.leg)
            .map((l) => ({ party: l.party, amount: tenDigits(l.amount), fees: tenDigits(l.fees) })),
          rewards,
          balanceChanges,
        },
      };
    });
  },
);
