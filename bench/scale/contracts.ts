/**
 * The contracts of generated history: which Splice templates, in what shares,
 * how long each kind lives, and their payloads, built with the simulator's
 * value constructors so that arguments, signatories and observers have the
 * shapes the simulated network gives them (src/simulator/amulet.ts,
 * validator-licenses.ts, ans.ts).
 *
 * Only contracts of which a network holds many at once are ever left active:
 * amulets, locked amulets and ANS entries. Reward coupons and activity records
 * are always archived (a round's coupons are claimed or expired within hours),
 * and singletons (DsoRules, AmuletRules, mining rounds) are never generated:
 * the simulated stream creates its own.
 */
import { V, type DamlRecord } from '../../src/domain/daml-value';
import type { Decimal10 } from '../../src/domain/decimal';
import type { Micros } from '../../src/domain/time';
import { FEES } from '../../src/simulator/economics';
import type { Prng } from '../../src/simulator/prng';
import { amuletRecord, roundValue, timeLock } from '../../src/simulator/splice-values';
import { sortedParties } from '../../src/simulator/transaction';
import { TEMPLATES, type TemplateRef } from '../../src/simulator/templates';

const MINUTE = 60_000_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Who takes part in generated history. */
export interface Cast {
  dso: string;
  /** Holders of amulets, skewed: the first ones hold the most (the simulator's users come first). */
  holders: readonly string[];
  /** App providers (reward coupon providers, lock holders). */
  providers: readonly string[];
  /** Validator operators (validator reward coupons, liveness records). */
  validators: readonly string[];
}

interface ContractDraft {
  template: TemplateRef;
  args: DamlRecord;
  signatories: string[];
  observers: string[];
  /** The party that submitted the transaction creating it. */
  submitter: string;
}

interface Kind {
  readonly name: string;
  /** Share of generated contracts. */
  readonly share: number;
  /** Relative chance of still being active at the end of history (0: always archived). */
  readonly longevity: number;
  /** Lifetime of an archived one, drawn log-uniformly. */
  readonly lifetimeMicros: readonly [number, number];
  build(cast: Cast, rng: Prng, createdAt: Micros): Omit<ContractDraft, 'template'>;
}

const sorted = (...parties: string[]): string[] => sortedParties(parties);

/** Heavy-tailed: a cube of a uniform number picks low indices far more often. */
const skewed = <T>(rng: Prng, items: readonly T[]): T => items[Math.floor(items.length * rng.float() ** 3)] as T;

/** A log-uniform amount between 10^lo and 10^hi, with ten decimals. */
function amount(rng: Prng, lo: number, hi: number): Decimal10 {
  const whole = Math.floor(10 ** (lo + (hi - lo) * rng.float()));
  return BigInt(whole) * 10_000_000_000n + BigInt(rng.int(0, 9_999_999_999));
}

// The simulated network starts at round 0, so its generated past is at round 0 too: holding fees of
// generated amulets at the stream's rounds are the ones the simulator's own amulets have.
const ROUND = 0;

const KINDS: readonly (Kind & { template: TemplateRef })[] = [
  {
    name: 'Amulet',
    template: TEMPLATES.amulet,
    share: 0.55,
    longevity: 1,
    lifetimeMicros: [2 * MINUTE, 60 * DAY],
    build: (cast, rng) => {
      const owner = skewed(rng, cast.holders);
      return {
        args: amuletRecord(cast.dso, owner, amount(rng, 0, 6), ROUND, FEES.holdingFeeRate),
        signatories: sorted(cast.dso, owner),
        observers: [],
        submitter: owner,
      };
    },
  },
  {
    name: 'AppRewardCoupon',
    template: TEMPLATES.appRewardCoupon,
    share: 0.17,
    longevity: 0,
    lifetimeMicros: [10 * MINUTE, 3 * HOUR],
    build: (cast, rng) => {
      const provider = rng.pick(cast.providers);
      return {
        args: V.record({
          dso: V.party(cast.dso),
          provider: V.party(provider),
          featured: V.bool(rng.chance(0.3)),
          amount: V.numeric(amount(rng, -1, 3)),
          round: roundValue(ROUND),
          beneficiary: V.some(V.party(provider)),
        }),
        signatories: [cast.dso],
        observers: [provider],
        submitter: provider,
      };
    },
  },
  {
    name: 'ValidatorRewardCoupon',
    template: TEMPLATES.validatorRewardCoupon,
    share: 0.17,
    longevity: 0,
    lifetimeMicros: [10 * MINUTE, 3 * HOUR],
    build: (cast, rng) => {
      const user = rng.pick(cast.validators);
      return {
        args: V.record({ dso: V.party(cast.dso), user: V.party(user), amount: V.numeric(amount(rng, -1, 3)), round: roundValue(ROUND) }),
        signatories: [cast.dso],
        observers: [user],
        submitter: user,
      };
    },
  },
  {
    name: 'LockedAmulet',
    template: TEMPLATES.lockedAmulet,
    share: 0.05,
    longevity: 0.5,
    lifetimeMicros: [10 * MINUTE, 7 * DAY],
    build: (cast, rng, createdAt) => {
      const owner = skewed(rng, cast.holders);
      const holder = rng.chance(0.5) ? cast.dso : rng.pick(cast.providers);
      const expiresAt = createdAt + BigInt(rng.int(HOUR, 2 * DAY));
      return {
        args: V.record({
          amulet: amuletRecord(cast.dso, owner, amount(rng, 0, 5), ROUND, FEES.holdingFeeRate),
          lock: timeLock([holder], expiresAt, rng.chance(0.5) ? `transfer to ${skewed(rng, cast.holders)}` : null),
        }),
        signatories: sorted(cast.dso, owner, holder),
        observers: [],
        submitter: owner,
      };
    },
  },
  {
    name: 'ValidatorLivenessActivityRecord',
    template: TEMPLATES.validatorLivenessActivityRecord,
    share: 0.04,
    longevity: 0,
    lifetimeMicros: [10 * MINUTE, 3 * HOUR],
    build: (cast, rng) => {
      const validator = rng.pick(cast.validators);
      return {
        args: V.record({ dso: V.party(cast.dso), validator: V.party(validator), round: roundValue(ROUND) }),
        signatories: [cast.dso],
        observers: [validator],
        submitter: validator,
      };
    },
  },
  {
    name: 'AnsEntry',
    template: TEMPLATES.ansEntry,
    share: 0.02,
    longevity: 3,
    lifetimeMicros: [30 * DAY, 90 * DAY],
    build: (cast, rng, createdAt) => {
      const user = skewed(rng, cast.holders);
      const hint = user.slice(0, user.indexOf('::'));
      // The counter keeps names unique; the simulator names entries "<hint>.unverified.cns", never with "hist".
      return {
        args: V.record({
          user: V.party(user),
          dso: V.party(cast.dso),
          name: V.text(`${hint}-hist${rng.u32().toString(36)}${rng.u32().toString(36)}.unverified.cns`),
          url: V.text(rng.chance(0.5) ? `https://${hint}.example.com` : ''),
          description: V.text(rng.chance(0.5) ? `${hint}'s wallet` : ''),
          expiresAt: V.timestamp(createdAt + 90n * BigInt(DAY)),
        }),
        signatories: sorted(user, cast.dso),
        observers: [],
        submitter: user,
      };
    },
  },
];

export interface DrawnContract extends ContractDraft {
  kind: string;
  /** Null: still active at the end of history. */
  lifetimeMicros: number | null;
}

/**
 * Draws contracts of the template mix, each either left active (with the chances scaled so that
 * `activeShare` of all contracts are) or given a lifetime.
 */
export class ContractMix {
  private readonly cumulative: number[];
  private readonly activeChance: number[];

  constructor(activeShare: number) {
    const total = KINDS.reduce((n, k) => n + k.share, 0);
    let sum = 0;
    this.cumulative = KINDS.map((k) => (sum += k.share / total));
    // The scale c with sum(share * min(1, c * longevity)) = activeShare, by bisection.
    const activeAt = (c: number) => KINDS.reduce((n, k) => n + (k.share / total) * Math.min(1, c * k.longevity), 0);
    if (activeShare < 0 || activeShare > activeAt(1e9))
      throw new RangeError(`the active share must be between 0 and ${activeAt(1e9).toFixed(2)}`);
    let lo = 0;
    let hi = 1e9;
    for (let i = 0; i < 200; i++) {
      const mid = (lo + hi) / 2;
      if (activeAt(mid) < activeShare) lo = mid;
      else hi = mid;
    }
    this.activeChance = KINDS.map((k) => Math.min(1, hi * k.longevity));
  }

  static kinds(): string[] {
    return KINDS.map((k) => k.name);
  }

  draw(cast: Cast, rng: Prng, createdAt: Micros): DrawnContract {
    const u = rng.float();
    let i = this.cumulative.findIndex((c) => u < c);
    if (i < 0) i = KINDS.length - 1;
    const kind = KINDS[i]!;
    const active = rng.float() < this.activeChance[i]!;
    const [lo, hi] = kind.lifetimeMicros;
    const lifetime = active ? null : Math.round(lo * (hi / lo) ** rng.float());
    return { kind: kind.name, template: kind.template, ...kind.build(cast, rng, createdAt), lifetimeMicros: lifetime };
  }
}
