/**
 * Validators' licenses and liveness, and the development fund's coupons.
 *
 * At genesis the DSO grants each validator operator (the app providers, who
 * run the validators their users are hosted on) a ValidatorLicense. Now and
 * then a validator records its liveness for the current open round
 * (ValidatorLicense_RecordValidatorLivenessActivity): the license is
 * re-created with its faucet state moved on (the rounds it missed counted)
 * and a ValidatorLivenessActivityRecord is created for the round; the
 * validator's previous record is collected (archived) at the same time, so
 * each validator has at most one. The DSO also creates
 * UnclaimedDevelopmentFundCoupons, and allocates (archives) the oldest when
 * more than a few are waiting.
 */

import { decimalOf } from '../domain/decimal';
import { V } from '../domain/daml-value';
import type { CanonicalItem } from '../domain/items';
import type { NetworkContext } from './context';
import type { SuperValidator, User } from './identities';
import { roundValue } from './splice-values';
import { TEMPLATES } from './templates';

declare module './context' {
  interface Subsystems {
    readonly licenses: ValidatorLicenses;
  }
}

interface License {
  cid: string;
  readonly validator: User;
  readonly sponsor: SuperValidator;
  /** Rounds of the faucet state: none until the first liveness record. */
  firstRound: number | null;
  lastRound: number | null;
  missed: number;
  /** The validator's latest ValidatorLivenessActivityRecord. */
  recordCid: string | null;
}

/** Development fund coupons waiting before the DSO allocates the oldest. */
const MAX_WAITING_COUPONS = 4;

export class ValidatorLicenses {
  private readonly licenses: License[] = [];
  private readonly coupons: string[] = [];

  constructor(private readonly net: NetworkContext) {}

  /** The genesis grants: one license per validator operator, sponsored by an SV. */
  bootstrap(founder: SuperValidator): CanonicalItem {
    const net = this.net;
    return net.submit(net.dsoSubmitter(founder), (tx) => {
      net.who.appProviders.forEach((validator, i) => {
        const sponsor = net.who.svs[i % net.who.svs.length] as SuperValidator;
        const license: License = { cid: '', validator, sponsor, firstRound: null, lastRound: null, missed: 0, recordCid: null };
        license.cid = tx.create(null, TEMPLATES.validatorLicense, this.args(license), [net.who.dso], [validator.party]);
        this.licenses.push(license);
      });
    });
  }

  /** A validator records its liveness for the open round; undefined when it already has this round. */
  recordLiveness(): CanonicalItem | undefined {
    const net = this.net;
    if (this.licenses.length === 0) return undefined;
    const license = net.rng.pick(this.licenses);
    const round = net.rounds.current();
    if (license.lastRound !== null && license.lastRound >= round.number) return undefined;
    const dso = net.who.dso;
    const validator = license.validator.party;
    return net.submit(net.userSubmitter(license.validator), (tx) => {
      const node = tx.exercise(
        null,
        license.cid,
        'ValidatorLicense_RecordValidatorLivenessActivity',
        V.record({ openRoundCid: V.contractId(round.cid) }),
        [validator],
        true,
      );
      if (license.lastRound !== null) license.missed += Math.max(0, round.number - license.lastRound - 1);
      license.firstRound ??= round.number;
      license.lastRound = round.number;
      license.cid = tx.create(node, TEMPLATES.validatorLicense, this.args(license), [dso], [validator]);
      const recordCid = tx.create(
        node,
        TEMPLATES.validatorLivenessActivityRecord,
        V.record({ dso: V.party(dso), validator: V.party(validator), round: roundValue(round.number) }),
        [dso],
        [validator],
      );
      node.result = V.record({ licenseCid: V.contractId(license.cid), activityRecordCid: V.contractId(recordCid) });
      if (license.recordCid !== null) tx.archive(null, license.recordCid, [dso]);
      license.recordCid = recordCid;
    });
  }

  /** The DSO sets aside development funding as a coupon, allocating the oldest when too many wait. */
  fundDevelopment(): CanonicalItem {
    const net = this.net;
    const dso = net.who.dso;
    return net.submit(net.dsoSubmitter(net.randomSv()), (tx) => {
      const amount = net.rng.bigint(decimalOf(1_000), decimalOf(50_000));
      this.coupons.push(
        tx.create(null, TEMPLATES.unclaimedDevelopmentFundCoupon, V.record({ dso: V.party(dso), amount: V.numeric(amount) }), [dso]),
      );
      if (this.coupons.length > MAX_WAITING_COUPONS) tx.archive(null, this.coupons.shift() as string, [dso]);
    });
  }

  private args(license: License) {
    const net = this.net;
    const faucetState =
      license.firstRound === null || license.lastRound === null
        ? V.none()
        : V.some(
            V.record({
              firstReceivedFor: roundValue(license.firstRound),
              lastReceivedFor: roundValue(license.lastRound),
              numCouponsMissed: V.int64(BigInt(license.missed)),
            }),
          );
    return V.record({
      validator: V.party(license.validator.party),
      sponsor: V.party(license.sponsor.party),
      dso: V.party(net.who.dso),
      faucetState,
      metadata: V.some(
        V.record({
          lastUpdatedAt: V.timestamp(net.now),
          version: V.text('0.4.20'),
          contactPoint: V.text(`ops@${license.validator.party.slice(0, license.validator.party.indexOf('::'))}.example.com`),
        }),
      ),
      lastActiveAt: V.some(V.timestamp(net.now)),
    });
  }
}
