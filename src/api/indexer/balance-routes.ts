/**
 * Balances and supply at any instant (issue #29), mounted at /api/indexer:
 *   GET /v0/parties/{party}/balance           a party's holdings at an instant
 *   GET /v0/parties/{party}/balances/daily    the same at each UTC day's end over a range of days
 *   GET /v0/network/supply                    the network's holdings at an instant, the flows since the snapshot,
 *                                             and the cumulative flows (src/store/supply-totals-repository.ts)
 * Each figure is the newest snapshot at or before the instant plus what changed since
 * (src/store/balance-repository.ts): a read costs what changed in at most one snapshot interval.
 * Errors are the Scan API's `{"error": "..."}`, from the application's error handler.
 */
import { z } from 'zod';
import { formatDecimal } from '../../domain/decimal';
import { summaryFigures } from '../../domain/holding-fees';
import { MINTED_KINDS, totalMinted, type MintedKind, type SupplyTotals } from '../../domain/supply-totals';
import { partyIdProblem } from '../../domain/party-id';
import { formatDateTime, type Micros } from '../../domain/time';
import { badRequest } from '../../internal/errors';
import { migrationAt, openRoundAt, partyBalanceAt, supplyAt } from '../../store/balance-repository';
import type { Db } from '../../store/pool';
import { sendJson } from '../json-response';
import { operation, type OperationOf } from '../operation';
import { ErrorResponse } from '../schema-kit';
import { NetworkSupply, PartyBalance, PartyDailyBalances } from './schemas';
import { MAX_DAYS, MICROS_PER_DAY, checkRange, dayParam, dayStart, instant } from './series-routes';

interface BalanceServices {
  db: Db;
}

const PartyParams = z.object({ party: z.string().describe('A party id, <identifier>::<namespace>.') });
const expectedRound = 'expected a non-negative integer';
const asOfRound = z
  .string({ error: expectedRound })
  .regex(/^\d{1,18}$/, { error: expectedRound })
  .optional()
  .meta({ type: 'integer', format: 'int64', minimum: 0, pattern: undefined })
  .describe('The round to compute holding fees as of; by default the earliest mining round open at each instant.');
const atParam = z.string({ error: 'expected a single date-time' }).describe('The instant.').meta({ format: 'date-time' });

const mistake = (what: string) => ({ description: `A client mistake (${what}).`, body: ErrorResponse });

function checkParty(party: string): void {
  const problem = partyIdProblem(party);
  if (problem) throw badRequest(problem);
}

/** The party's figures at an instant: in the migration begun by then, fees as of the round asked or open then. */
async function balanceFigures(db: Db, party: string, at: Micros, round: string | undefined) {
  const migrationId = await migrationAt(db, at);
  const asOf = round !== undefined ? BigInt(round) : migrationId === undefined ? undefined : await openRoundAt(db, migrationId, at);
  const b =
    migrationId === undefined
      ? { holdings: 0, unlocked: 0n, locked: 0n, feesUnlocked: 0n, feesLocked: 0n }
      : await partyBalanceAt(db, migrationId, party, at, asOf);
  const f = summaryFigures(b);
  return {
    migration_id: migrationId ?? null,
    as_of_round: asOf === undefined ? null : Number(asOf),
    holdings: b.holdings,
    total_unlocked_coin: formatDecimal(f.total_unlocked_coin),
    total_locked_coin: formatDecimal(f.total_locked_coin),
    total_coin_holdings: formatDecimal(f.total_coin_holdings),
    accumulated_holding_fees_unlocked: formatDecimal(f.accumulated_holding_fees_unlocked),
    accumulated_holding_fees_locked: formatDecimal(f.accumulated_holding_fees_locked),
    accumulated_holding_fees_total: formatDecimal(f.accumulated_holding_fees_total),
    total_available_coin: formatDecimal(f.total_available_coin),
  } satisfies Omit<z.input<typeof PartyBalance>, 'party' | 'at'>;
}

const partyBalance = operation({
  method: 'get',
  path: '/v0/parties/{party}/balance',
  summary:
    "A party's unlocked and locked amulet at any instant, with holding fees as of a round, as the Scan's holdings summary computes them: from the newest snapshot at or before the instant and the holdings created and archived since.",
  request: { params: PartyParams, query: z.object({ at: atParam, as_of_round: asOfRound }) },
  responses: { '200': { description: 'OK', body: PartyBalance }, '400': mistake('a malformed party, instant or round') },
  handle: async ({ db }: BalanceServices, { params, query }, _req, res) => {
    checkParty(params.party);
    const at = instant(query.at, 'at');
    const figures = await balanceFigures(db, params.party, at, query.as_of_round);
    sendJson(res, { party: params.party, at: formatDateTime(at), ...figures } satisfies z.input<typeof PartyBalance>);
  },
});

const partyDailyBalances = operation({
  method: 'get',
  path: '/v0/parties/{party}/balances/daily',
  summary: "A party's unlocked and locked amulet at the end of each UTC day of a range (its last microsecond), as /balance gives them.",
  request: {
    params: PartyParams,
    query: z.object({
      from: dayParam('The first UTC day.'),
      to: dayParam(`The UTC day after the last one (exclusive); at most ${MAX_DAYS} days after from.`),
      as_of_round: asOfRound,
    }),
  },
  responses: {
    '200': { description: 'OK', body: PartyDailyBalances },
    '400': mistake(`a malformed party, day or round, to not after from, a range longer than ${MAX_DAYS} days`),
  },
  handle: async ({ db }: BalanceServices, { params, query }, _req, res) => {
    checkParty(params.party);
    const from = dayStart(query.from, 'from');
    const to = dayStart(query.to, 'to');
    checkRange(from, to);
    const days: z.input<typeof PartyDailyBalances>['days'] = [];
    for (let t = from; t < to; t += MICROS_PER_DAY) {
      const end = t + MICROS_PER_DAY - 1n;
      days.push({
        day: formatDateTime(t).slice(0, 10),
        at: formatDateTime(end),
        ...(await balanceFigures(db, params.party, end, query.as_of_round)),
      });
    }
    sendJson(res, { party: params.party, days } satisfies z.input<typeof PartyDailyBalances>);
  },
});

/** Cumulative totals as served: totals and parts (fees: what burned holds besides the other parts). */
function cumulativeFigures(t: SupplyTotals): NonNullable<z.input<typeof NetworkSupply>['cumulative']> {
  const minted = Object.fromEntries(MINTED_KINDS.map((k) => [k, formatDecimal(t.minted[k])])) as Record<MintedKind, string>;
  return {
    minted: { total: formatDecimal(totalMinted(t)), ...minted },
    burned: {
      total: formatDecimal(t.burned),
      fees: formatDecimal(t.burned - t.holdingFees - t.traffic - t.ans - t.expired),
      holding_fees: formatDecimal(t.holdingFees),
      traffic: formatDecimal(t.traffic),
      ans: formatDecimal(t.ans),
      expired: formatDecimal(t.expired),
    },
    allowed_mint: t.allowedMint === null ? null : formatDecimal(t.allowedMint),
    issuing_rounds: t.issuingRounds,
  };
}

const networkSupply = operation({
  method: 'get',
  path: '/v0/network/supply',
  summary:
    'The amulet supply at any instant: the initial amounts of every Amulet and LockedAmulet active then (before holding fees), what was minted and burned since the snapshot it starts from, and, over the whole history ingested up to the instant, what was minted, burned, and allowed to be minted by the issuance curve (Splice issue 179).',
  request: { query: z.object({ at: atParam }) },
  responses: { '200': { description: 'OK', body: NetworkSupply }, '400': mistake('a malformed instant') },
  handle: async ({ db }: BalanceServices, { query }, _req, res) => {
    const at = instant(query.at, 'at');
    const migrationId = await migrationAt(db, at);
    const s =
      migrationId === undefined
        ? { snapshot: undefined, unlocked: 0n, locked: 0n, mintedSinceSnapshot: 0n, burnedSinceSnapshot: 0n, cumulative: undefined }
        : await supplyAt(db, migrationId, at);
    sendJson(res, {
      at: formatDateTime(at),
      migration_id: migrationId ?? null,
      snapshot: s.snapshot === undefined ? null : formatDateTime(s.snapshot),
      unlocked: formatDecimal(s.unlocked),
      locked: formatDecimal(s.locked),
      total: formatDecimal(s.unlocked + s.locked),
      since_snapshot: { minted: formatDecimal(s.mintedSinceSnapshot), burned: formatDecimal(s.burnedSinceSnapshot) },
      cumulative: s.cumulative === undefined ? null : cumulativeFigures(s.cumulative),
    } satisfies z.input<typeof NetworkSupply>);
  },
});

export const balanceOperations: readonly OperationOf<BalanceServices>[] = [partyBalance, partyDailyBalances, networkSupply];
