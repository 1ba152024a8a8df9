/**
 * Options of the simulator and their defaults. Defaults give a small but
 * complete network: four super validators, a few hundred parties, ten-minute
 * round ticks as on the real network, a few updates per second.
 */

import { parseTimestamp, type Micros } from '../domain/time';

export interface SimulatorOptions {
  /** Same seed and options, same stream, byte for byte. */
  readonly seed: number | string;
  /**
   * Number of non-import updates (transactions and reassignments) to produce;
   * omit for an endless stream. Import updates after a hard migration and
   * rejected transactions (items without an update) come on top.
   */
  readonly updates?: number;
  /** Number of migrations the updates are spread over, with a hard migration between each; default 1. */
  readonly migrations?: number;
  /** Migration id of the first migration; default 0. */
  readonly firstMigrationId?: number;
  /** Record time the network starts at (backfill only; live mode follows the wall clock). */
  readonly startTime?: Micros;
  /** Mean gap between record times in backfill, in milliseconds (fractions allowed); default 500. */
  readonly meanUpdateGapMs?: number;
  /** Round tick (half a round); default 600 s. */
  readonly tickSeconds?: number;
  /** Number of super validators; default 4. */
  readonly superValidators?: number;
  /** Number of user parties (app providers come on top); default 200. */
  readonly parties?: number;
  /**
   * In the last migration, the DsoRules config announces a synchronizer
   * upgrade at this time to migration id last + 1 (`/v0/migrations/schedule`).
   */
  readonly scheduledUpgradeAt?: Micros;
  /**
   * Token-standard V2 DvP trades as well: each side allocates an AmuletAllocationV2, then the executor
   * settles them (SettlementFactory_SettleBatch) or cancels them, the sender withdraws, or the lock is
   * left to expire. Off by default: the streams of existing seeds stay the same, byte for byte.
   */
  readonly tokenStandardV2?: boolean;
  /**
   * The DSO expires amulet now and then (Amulet_Expire; LockedAmulet_ExpireAmulet for some locks left
   * to expire; with tokenStandardV2, the V2 forms for half of them). Off by default, for the same reason.
   */
  readonly amuletExpiry?: boolean;
}

export interface Settings {
  readonly seed: string;
  readonly updates: number;
  readonly migrations: number;
  readonly firstMigrationId: number;
  readonly startTime: Micros;
  readonly meanGapMicros: number;
  readonly tickMicros: Micros;
  readonly superValidators: number;
  readonly validators: number;
  readonly parties: number;
  readonly scheduledUpgradeAt: Micros | undefined;
  readonly tokenStandardV2: boolean;
  readonly amuletExpiry: boolean;
}

export const DEFAULT_START_TIME = parseTimestamp('2025-01-01T00:00:00Z');

function integer(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) throw new RangeError(`${name} must be an integer >= ${min}, got ${value}`);
  return value;
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number, got ${value}`);
  return value;
}

export function resolveOptions(o: SimulatorOptions): Settings {
  const parties = integer('parties', o.parties ?? 200, 2);
  return {
    seed: String(o.seed),
    updates: o.updates === undefined || o.updates === Infinity ? Infinity : integer('updates', o.updates, 0),
    migrations: integer('migrations', o.migrations ?? 1, 1),
    firstMigrationId: integer('firstMigrationId', o.firstMigrationId ?? 0, 0),
    startTime: o.startTime ?? DEFAULT_START_TIME,
    meanGapMicros: Math.max(1, Math.round(positive('meanUpdateGapMs', o.meanUpdateGapMs ?? 500) * 1000)),
    tickMicros: BigInt(integer('tickSeconds', o.tickSeconds ?? 600, 1)) * 1_000_000n,
    superValidators: integer('superValidators', o.superValidators ?? 4, 1),
    validators: Math.max(2, Math.ceil(parties / 25)),
    parties,
    scheduledUpgradeAt: o.scheduledUpgradeAt,
    tokenStandardV2: o.tokenStandardV2 ?? false,
    amuletExpiry: o.amuletExpiry ?? false,
  };
}
