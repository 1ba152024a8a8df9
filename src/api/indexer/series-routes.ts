/**
 * Network time series and reward leaderboards from the activity projection (docs/ingestion.md,
 * "Activities"), mounted at /api/indexer:
 *   GET /v0/network/daily-mint-burn   per UTC day: minted by kind, burned by kind, transfers and volume
 *   GET /v0/network/series            the same per UTC day or hour, with ANS fees burned, active parties and
 *                                     the supply at each period's end
 *   GET /v0/leaderboards/rewards      the parties that claimed the most of a reward over a window
 *   GET /v0/leaderboards/volume       the parties with the largest transfer volume over a window
 * Both are SQL aggregations over a record-time range of the activities (src/store/series-repository.ts),
 * so a range's cost is its activities: ranges are bounded to MAX_DAYS days. The series' supply is read for
 * all its period ends at once (supplyAtEach in src/store/balance-repository.ts): the snapshots in the
 * range and the holdings that changed in it.
 * Errors are the Scan API's `{"error": "..."}`, from the application's error handler.
 */
import { z } from 'zod';
import { formatDecimal, parseDecimal, type Decimal10 } from '../../domain/decimal';
import { migrationAtInstant } from '../../domain/migration-at-instant';
import { MINTED_KINDS, type MintedKind } from '../../domain/supply-totals';
import { formatDateTime, parseTimestamp, type Micros } from '../../domain/time';
import { badRequest } from '../../internal/errors';
import { supplyAtEach, type HoldingsSupply, type SupplyPoint } from '../../store/balance-repository';
import { activePartiesPerPeriod, dailyActivitySums, periodActivitySums, rewardLeaders, volumeLeaders } from '../../store/series-repository';
import { migrationSpans } from '../../store/snapshot-repository';
import type { Db } from '../../store/pool';
import { sendJson } from '../json-response';
import { operation, type OperationOf } from '../operation';
import { ErrorResponse } from '../schema-kit';
import { DailyMintBurn, NetworkSeries, RewardLeaderboard, VolumeLeaderboard } from './series-schemas';

interface SeriesServices {
  db: Db;
}

/** The longest range, in days, of a series or a leaderboard: about a quarter. */
export const MAX_DAYS = 92;
export const MICROS_PER_DAY = 86_400_000_000n;
const MAX_LEADERS = 100;
const DEFAULT_LEADERS = 20;

export const dayParam = (what: string) =>
  z
    .string({ error: 'expected a single date, YYYY-MM-DD' })
    .regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'expected a date, YYYY-MM-DD' })
    .describe(what)
    .meta({ format: 'date', pattern: undefined });

const DailyQuery = z.object({
  from: dayParam('The first UTC day.'),
  to: dayParam(`The UTC day after the last one (exclusive); at most ${MAX_DAYS} days after from.`),
});

/** The reward kinds of the activities, by the name a leaderboard takes. */
const REWARD_KINDS = {
  app: 'app_reward',
  validator: 'validator_reward',
  sv: 'sv_reward',
  validator_faucet: 'validator_faucet',
} as const;
type Reward = keyof typeof REWARD_KINDS;

const instantParam = (what: string) => z.string({ error: 'expected a single date-time' }).describe(what).meta({ format: 'date-time' });
const expectedLimit = `expected an integer from 1 to ${MAX_LEADERS}`;
const limitParam = z
  .string({ error: expectedLimit })
  .regex(/^\d{1,10}$/, { error: expectedLimit })
  .transform(Number)
  .refine((n) => n >= 1 && n <= MAX_LEADERS, { error: expectedLimit })
  .optional()
  .meta({ type: 'integer', format: 'int32', minimum: 1, maximum: MAX_LEADERS, default: DEFAULT_LEADERS, pattern: undefined })
  .describe('Parties to list.');
const LeaderboardQuery = z.object({
  reward: z
    .enum(Object.keys(REWARD_KINDS) as [Reward, ...Reward[]], { error: `expected one of ${Object.keys(REWARD_KINDS).join(', ')}` })
    .describe('app, validator, sv or validator_faucet (liveness) rewards.'),
  from: instantParam('Record time at or after this instant.'),
  to: instantParam(`Record time before this instant; at most ${MAX_DAYS} days after from.`),
  limit: limitParam,
});
const VolumeQuery = z.object({
  from: instantParam('Record time at or after this instant.'),
  to: instantParam(`Record time before this instant; at most ${MAX_DAYS} days after from.`),
  limit: limitParam,
});

/** A day's first instant; a 400 for a day that is no date. */
export function dayStart(text: string, name: string): Micros {
  let t: Micros;
  try {
    t = parseTimestamp(`${text}T00:00:00Z`);
  } catch {
    throw badRequest(`Invalid ${name}: '${text}' is no date.`);
  }
  // parseTimestamp may accept a day past the month's end by rolling over: reject it.
  if (formatDateTime(t).slice(0, 10) !== text) throw badRequest(`Invalid ${name}: '${text}' is no date.`);
  return t;
}

export function instant(text: string, name: string): Micros {
  try {
    return parseTimestamp(text);
  } catch {
    throw badRequest(`Invalid ${name}: expected an ISO 8601 date-time with a zone, got '${text}'.`);
  }
}

export function checkRange(from: Micros, to: Micros): void {
  if (to <= from) throw badRequest('Invalid range: to must be after from.');
  if (to - from > BigInt(MAX_DAYS) * MICROS_PER_DAY) throw badRequest(`Invalid range: at most ${MAX_DAYS} days.`);
}

const rangeMistake = (what: string) => ({
  description: `A client mistake (${what}, to not after from, a range longer than ${MAX_DAYS} days).`,
  body: ErrorResponse,
});

const dailyMintBurn = operation({
  method: 'get',
  path: '/v0/network/daily-mint-burn',
  summary:
    'Per UTC day of record time, across migrations: Amulet minted by kind (mints, taps, claimed rewards), burned by kind (fees, holding fees, traffic), transfers and their volume.',
  request: { query: DailyQuery },
  responses: { '200': { description: 'OK', body: DailyMintBurn }, '400': rangeMistake('a malformed or missing date') },
  handle: async ({ db }: SeriesServices, { query }, _req, res) => {
    const from = dayStart(query.from, 'from');
    const to = dayStart(query.to, 'to');
    checkRange(from, to);
    const sums = await dailyActivitySums(db, from, to);
    type Sums = (typeof sums)[number];
    const byDay = new Map<string, Map<string, Sums>>();
    for (const s of sums) {
      let kinds = byDay.get(s.day);
      if (!kinds) byDay.set(s.day, (kinds = new Map<string, Sums>()));
      kinds.set(s.kind, s);
    }
    const days: z.input<typeof DailyMintBurn>['days'] = [];
    for (let t = from; t < to; t += MICROS_PER_DAY) {
      const day = formatDateTime(t).slice(0, 10);
      const kinds = byDay.get(day);
      const figure = (kind: string, field: 'amount' | 'burned' | 'holdingFees'): Decimal10 => {
        const s = kinds?.get(kind);
        return s === undefined ? 0n : parseDecimal(s[field]);
      };
      let minted = 0n;
      for (const k of MINTED_KINDS) minted += figure(k, 'amount');
      const burned = figure('transfer', 'burned') + figure('traffic_purchase', 'burned');
      const holdingFees = figure('transfer', 'holdingFees') + figure('traffic_purchase', 'holdingFees');
      const traffic = figure('traffic_purchase', 'amount');
      days.push({
        day,
        minted: {
          total: formatDecimal(minted),
          mint: formatDecimal(figure('mint', 'amount')),
          tap: formatDecimal(figure('tap', 'amount')),
          app_reward: formatDecimal(figure('app_reward', 'amount')),
          validator_reward: formatDecimal(figure('validator_reward', 'amount')),
          sv_reward: formatDecimal(figure('sv_reward', 'amount')),
          validator_faucet: formatDecimal(figure('validator_faucet', 'amount')),
        },
        burned: {
          total: formatDecimal(burned),
          fees: formatDecimal(burned - holdingFees - traffic),
          holding_fees: formatDecimal(holdingFees),
          traffic: formatDecimal(traffic),
        },
        transfers: kinds?.get('transfer')?.count ?? 0,
        transfer_volume: formatDecimal(figure('transfer', 'amount')),
      });
    }
    sendJson(res, { days } satisfies z.input<typeof DailyMintBurn>);
  },
});

const rewardLeaderboard = operation({
  method: 'get',
  path: '/v0/leaderboards/rewards',
  summary:
    'The parties that claimed the most of one kind of reward (app, validator, SV or validator liveness) with record time in a window, across migrations, largest sum first.',
  request: { query: LeaderboardQuery },
  responses: {
    '200': { description: 'OK', body: RewardLeaderboard },
    '400': rangeMistake('an unknown reward, a malformed time, a limit out of range'),
  },
  handle: async ({ db }: SeriesServices, { query }, _req, res) => {
    const from = instant(query.from, 'from');
    const to = instant(query.to, 'to');
    checkRange(from, to);
    const limit = query.limit ?? DEFAULT_LEADERS;
    const leaders = await rewardLeaders(db, [REWARD_KINDS[query.reward]], from, to, limit);
    sendJson(res, {
      reward: query.reward,
      from: formatDateTime(from),
      to: formatDateTime(to),
      leaders: leaders.map((l, i) => ({ rank: i + 1, party: l.party, amount: formatDecimal(parseDecimal(l.amount)), claims: l.claims })),
    } satisfies z.input<typeof RewardLeaderboard>);
  },
});

const volumeLeaderboard = operation({
  method: 'get',
  path: '/v0/leaderboards/volume',
  summary:
    'The parties with the largest Amulet transfer volume (sent to others plus received from others, AmuletRules_Transfer only) with record time in a window, across migrations, largest first.',
  request: { query: VolumeQuery },
  responses: {
    '200': { description: 'OK', body: VolumeLeaderboard },
    '400': rangeMistake('a malformed time, a limit out of range'),
  },
  handle: async ({ db }: SeriesServices, { query }, _req, res) => {
    const from = instant(query.from, 'from');
    const to = instant(query.to, 'to');
    checkRange(from, to);
    const leaders = await volumeLeaders(db, from, to, query.limit ?? DEFAULT_LEADERS);
    sendJson(res, {
      from: formatDateTime(from),
      to: formatDateTime(to),
      leaders: leaders.map((l, i) => {
        const sent = parseDecimal(l.sent);
        const received = parseDecimal(l.received);
        return {
          rank: i + 1,
          party: l.party,
          volume: formatDecimal(sent + received),
          sent: formatDecimal(sent),
          received: formatDecimal(received),
          transfers: l.transfers,
        };
      }),
    } satisfies z.input<typeof VolumeLeaderboard>);
  },
});

/** The longest range of an hourly series, in days: 744 periods. */
const MAX_HOUR_DAYS = 31;
const MICROS_PER_HOUR = 3_600_000_000n;
const SeriesQuery = z.object({
  interval: z.enum(['day', 'hour'], { error: 'expected day or hour' }).describe('The length of a period: a UTC day or hour.'),
  from: instantParam("The first period's start: a UTC day's or hour's first instant."),
  to: instantParam(
    `The end of the last period (exclusive), on a period boundary; at most ${MAX_DAYS} days after from by day, ${MAX_HOUR_DAYS} by hour.`,
  ),
});

/** A period end's supply, as GET /v0/network/supply gives it there; null before every migration. */
function supplyFigures(at: Micros, s: (HoldingsSupply & { migrationId: number }) | undefined): SeriesSupply {
  if (s === undefined) return null;
  return {
    at: formatDateTime(at),
    migration_id: s.migrationId,
    snapshot: s.snapshot === undefined ? null : formatDateTime(s.snapshot),
    unlocked: formatDecimal(s.unlocked),
    locked: formatDecimal(s.locked),
    total: formatDecimal(s.unlocked + s.locked),
  };
}
type SeriesSupply = z.input<typeof NetworkSeries>['periods'][number]['supply'];

const networkSeries = operation({
  method: 'get',
  path: '/v0/network/series',
  summary:
    "Per UTC day or hour of record time, across migrations: Amulet minted by kind, burned by kind (fees, holding fees, traffic, ANS entry fees, expired amulet), transfers and their volume, the distinct parties with an activity, and the supply at the period's end (its last microsecond) as /v0/network/supply gives it.",
  request: { query: SeriesQuery },
  responses: {
    '200': { description: 'OK', body: NetworkSeries },
    '400': {
      description: `A client mistake (a malformed time, an instant off the interval's boundaries, to not after from, a range longer than ${MAX_DAYS} days by day or ${MAX_HOUR_DAYS} by hour).`,
      body: ErrorResponse,
    },
  },
  handle: async ({ db }: SeriesServices, { query }, _req, res) => {
    const from = instant(query.from, 'from');
    const to = instant(query.to, 'to');
    const step = query.interval === 'day' ? MICROS_PER_DAY : MICROS_PER_HOUR;
    for (const [t, name] of [
      [from, 'from'],
      [to, 'to'],
    ] as const) {
      if (t % step !== 0n) throw badRequest(`Invalid ${name}: not the first instant of a UTC ${query.interval}.`);
    }
    checkRange(from, to);
    if (query.interval === 'hour' && to - from > BigInt(MAX_HOUR_DAYS) * MICROS_PER_DAY) {
      throw badRequest(`Invalid range: at most ${MAX_HOUR_DAYS} days by hour.`);
    }
    const sums = await periodActivitySums(db, query.interval, from, to);
    const active = await activePartiesPerPeriod(db, query.interval, from, to);
    // Supply at each period's last microsecond (as the daily balances' day end), in the migration
    // GET /v0/network/supply would read there: one read for every period end (supplyAtEach).
    const starts = await migrationSpans(db);
    const held: SupplyPoint[] = [];
    for (let t = from; t < to; t += step) {
      const migrationId = migrationAtInstant(starts, t + step - 1n);
      if (migrationId !== undefined) held.push({ migrationId, at: t + step - 1n });
    }
    const supplies = await supplyAtEach(db, held);
    const supplyOf = new Map(held.map((p, i) => [p.at, { migrationId: p.migrationId, ...supplies[i]! }]));
    type Sums = (typeof sums)[number];
    const byPeriod = new Map<string, Map<string, Sums>>();
    for (const s of sums) {
      let kinds = byPeriod.get(s.period);
      if (!kinds) byPeriod.set(s.period, (kinds = new Map<string, Sums>()));
      kinds.set(s.kind, s);
    }
    const periods: z.input<typeof NetworkSeries>['periods'] = [];
    for (let t = from; t < to; t += step) {
      const start = formatDateTime(t);
      const key = `${start.slice(0, 13)}:00:00Z`;
      const kinds = byPeriod.get(key);
      const figure = (kind: string, field: 'amount' | 'burned' | 'holdingFees'): Decimal10 => {
        const s = kinds?.get(kind);
        return s === undefined ? 0n : parseDecimal(s[field]);
      };
      let minted = 0n;
      for (const k of MINTED_KINDS) minted += figure(k, 'amount');
      const burned = figure('transfer', 'burned') + figure('traffic_purchase', 'burned');
      const holdingFees = figure('transfer', 'holdingFees') + figure('traffic_purchase', 'holdingFees');
      const traffic = figure('traffic_purchase', 'amount');
      const ans = figure('ans_entry', 'burned');
      const expired = figure('expire', 'burned');
      periods.push({
        start,
        minted: {
          total: formatDecimal(minted),
          ...(Object.fromEntries(MINTED_KINDS.map((k) => [k, formatDecimal(figure(k, 'amount'))])) as Record<MintedKind, string>),
        },
        burned: {
          total: formatDecimal(burned + ans + expired),
          fees: formatDecimal(burned - holdingFees - traffic),
          holding_fees: formatDecimal(holdingFees),
          traffic: formatDecimal(traffic),
          ans: formatDecimal(ans),
          expired: formatDecimal(expired),
        },
        transfers: kinds?.get('transfer')?.count ?? 0,
        transfer_volume: formatDecimal(figure('transfer', 'amount')),
        active_parties: active.get(key) ?? 0,
        supply: supplyFigures(t + step - 1n, supplyOf.get(t + step - 1n)),
      });
    }
    sendJson(res, {
      interval: query.interval,
      from: formatDateTime(from),
      to: formatDateTime(to),
      periods,
    } satisfies z.input<typeof NetworkSeries>);
  },
});

export const seriesOperations: readonly OperationOf<SeriesServices>[] = [
  dailyMintBurn,
  networkSeries,
  rewardLeaderboard,
  volumeLeaderboard,
];
