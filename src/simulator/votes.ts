/**
 * Governance votes. An SV requests a vote (DsoRules_RequestVote creates a
 * VoteRequest holding the requester's own vote), other SVs cast votes
 * (DsoRules_CastVote archives the request and recreates it with the vote
 * added to its `votes` map), and the request is closed as accepted (the
 * action runs), rejected, or expired once voteBefore has passed. Scheduling
 * a synchronizer upgrade is such a vote, setting the DsoRules config.
 */

import { V, type DamlRecord, type DamlValue } from '../domain/daml-value';
import type { CanonicalItem } from '../domain/items';
import type { Micros } from '../domain/time';
import { dsoRulesAction, VOTE_REQUEST_TICKS, type UpgradeSchedule } from './governance';
import type { SuperValidator } from './identities';
import type { NetworkContext } from './context';
import { damlMap, reason } from './splice-values';
import { TEMPLATES } from './templates';
import type { ExerciseNode, TxBuilder } from './transaction';

declare module './context' {
  interface Subsystems {
    readonly votes: Votes;
  }
}

type Outcome = 'accepted' | 'rejected' | 'expired';

interface VoteRequest {
  readonly requester: SuperValidator;
  readonly action: DamlValue;
  readonly reason: DamlRecord;
  readonly voteBefore: Micros;
  readonly execute: (tx: TxBuilder, parent: ExerciseNode) => void;
  readonly votes: Map<string, DamlValue>;
  cid: string;
  /** The first contract id of the request, which later versions track. */
  trackingCid: string | null;
}

const SECOND = 1_000_000n;
/** At most this many votes run at once, besides upgrade scheduling. */
const MAX_OPEN_VOTES = 2;

export class Votes {
  private open = 0;

  constructor(private readonly net: NetworkContext) {}

  /** A random governance vote: grant a featured app right or change an SV's reward weight. */
  randomRequest(): CanonicalItem | undefined {
    const net = this.net;
    if (this.open >= MAX_OPEN_VOTES || net.who.svs.length < 2) return undefined;
    const outcome: Outcome = net.rng.pick(['accepted', 'accepted', 'accepted', 'rejected', 'rejected', 'expired']);
    if (net.rng.chance(0.5)) {
      const provider = net.who.appProviders.find((p) => !net.gov.featuredRights.has(p.party)) ?? net.rng.pick(net.who.users);
      const slug = provider.party.slice(0, provider.party.indexOf('::'));
      return this.request(
        dsoRulesAction('SRARC_GrantFeaturedAppRight', V.record({ provider: V.party(provider.party) })),
        reason(`https://forum.cantonsim.example/t/featured-app-${slug}`, `Grant featured app status to ${slug}`),
        (tx, parent) => net.gov.grantFeaturedAppRight(tx, parent, provider.party),
        outcome,
      );
    }
    const sv = net.randomSv();
    const weight = net.rng.int(1, 10) * 10_000;
    return this.request(
      dsoRulesAction('SRARC_UpdateSvRewardWeight', V.record({ svParty: V.party(sv.party), newRewardWeight: V.int64(weight) })),
      reason('https://forum.cantonsim.example/t/sv-weights', `Set the reward weight of ${sv.name} to ${weight}`),
      (tx, parent) => net.gov.updateSvRewardWeight(tx, parent, sv.party, weight),
      outcome,
    );
  }

  /** A vote, accepted by all SVs, that sets (or with null clears) the DsoRules' next scheduled synchronizer upgrade. */
  requestUpgradeSchedule(schedule: UpgradeSchedule | null): void {
    const net = this.net;
    const text = schedule
      ? `Upgrade to migration id ${schedule.migrationId}`
      : 'Clear the synchronizer upgrade schedule after the migration';
    net.soon(() =>
      this.request(
        dsoRulesAction(
          'SRARC_SetConfig',
          V.record({
            newConfig: net.gov.dsoRulesConfig(schedule),
            baseConfig: V.some(net.gov.dsoRulesConfig(net.gov.upgradeSchedule)),
          }),
        ),
        reason('https://forum.cantonsim.example/t/synchronizer-upgrade', text),
        (tx, parent) => net.gov.setUpgradeSchedule(tx, parent, schedule),
        'accepted',
        true,
      ),
    );
  }

  private request(action: DamlValue, why: DamlRecord, execute: VoteRequest['execute'], outcome: Outcome, urgent = false): CanonicalItem {
    const net = this.net;
    const requester = net.randomSv();
    const vote: VoteRequest = {
      requester,
      action,
      reason: why,
      voteBefore: net.now + net.ticks(VOTE_REQUEST_TICKS),
      execute,
      votes: new Map(),
      cid: '',
      trackingCid: null,
    };
    this.open++;
    return net.submit(net.svSubmitter(requester), (tx) => {
      vote.votes.set(requester.name, this.voteValue(requester, true, 'I accept, as I requested the vote.', tx.effectiveAt));
      const node = tx.exercise(
        null,
        net.gov.dsoRulesCid,
        'DsoRules_RequestVote',
        V.record({
          requester: V.party(requester.party),
          action,
          reason: why,
          voteRequestTimeout: V.none(),
          targetEffectiveAt: V.none(),
        }),
        [requester.party],
      );
      vote.cid = tx.create(node, TEMPLATES.voteRequest, this.requestArgs(vote), [net.who.dso]);
      node.result = V.record({ voteRequest: V.contractId(vote.cid) });
      this.scheduleBallots(vote, outcome, urgent);
    });
  }

  /** Decides who votes how and when, so the request ends with the planned outcome. */
  private scheduleBallots(vote: VoteRequest, outcome: Outcome, urgent: boolean): void {
    const net = this.net;
    const required = net.gov.requiredVotes();
    const others = net.who.svs.filter((sv) => sv !== vote.requester);
    const ballots: [SuperValidator, boolean][] = [];
    if (outcome === 'accepted') others.slice(0, required - 1).forEach((sv) => ballots.push([sv, true]));
    if (outcome === 'rejected') others.slice(0, required).forEach((sv) => ballots.push([sv, false]));
    if (outcome === 'expired') others.slice(0, Math.max(0, required - 2)).forEach((sv) => ballots.push([sv, net.rng.chance(0.5)]));
    // Ballots arrive in order, spread over the first half of the voting window (seconds apart when urgent).
    const window = urgent ? 5n * SECOND : (vote.voteBefore - net.now) / 2n;
    let at = net.now;
    for (const [sv, accept] of ballots) {
      at += 1n + BigInt(net.rng.int(0, Number(window / BigInt(ballots.length + 1))));
      net.at(at, () => this.cast(vote, sv, accept));
    }
    if (outcome === 'expired') net.at(vote.voteBefore + 1n, () => this.close(vote, 'expired'));
    else net.at(at + 1n, () => this.close(vote, outcome));
  }

  private cast(vote: VoteRequest, sv: SuperValidator, accept: boolean): CanonicalItem {
    const net = this.net;
    return net.submit(net.svSubmitter(sv), (tx) => {
      const dso = net.who.dso;
      const ballot = this.voteValue(sv, accept, accept ? 'Looks good to me' : 'I disagree', tx.effectiveAt);
      const node = tx.exercise(
        null,
        net.gov.dsoRulesCid,
        'DsoRules_CastVote',
        V.record({ requestCid: V.contractId(vote.cid), vote: ballot }),
        [sv.party],
      );
      tx.archive(node, vote.cid, [dso]);
      vote.trackingCid ??= vote.cid;
      vote.votes.set(sv.name, ballot);
      vote.cid = tx.create(node, TEMPLATES.voteRequest, this.requestArgs(vote), [dso]);
      node.result = V.record({ voteRequest: V.contractId(vote.cid) });
    });
  }

  /** DsoRules_CloseVoteRequest: archives the request and, when accepted, runs its action. */
  private close(vote: VoteRequest, outcome: Outcome): CanonicalItem {
    const net = this.net;
    const sv = net.randomSv();
    this.open--;
    return net.submit(net.svSubmitter(sv), (tx) => {
      const node = tx.exercise(
        null,
        net.gov.dsoRulesCid,
        'DsoRules_CloseVoteRequest',
        V.record({
          requestCid: V.contractId(vote.cid),
          amuletRulesCid: V.some(V.contractId(net.gov.amuletRulesCid)),
          sv: V.some(V.party(sv.party)),
        }),
        [sv.party],
      );
      tx.archive(node, vote.cid, [net.who.dso]);
      if (outcome === 'accepted') vote.execute(tx, node);
      const outcomeValue =
        outcome === 'accepted'
          ? V.variant('VRO_Accepted', V.record({ effectiveAt: V.timestamp(tx.effectiveAt) }))
          : V.variant(outcome === 'rejected' ? 'VRO_Rejected' : 'VRO_Expired', V.unit());
      node.result = V.record({
        request: this.requestArgs(vote),
        completedAt: V.timestamp(tx.effectiveAt),
        offboardedVoters: V.list([]),
        abstainingSvs: V.list(net.who.svs.filter((s) => !vote.votes.has(s.name)).map((s) => V.text(s.name))),
        outcome: outcomeValue,
      });
    });
  }

  private requestArgs(vote: VoteRequest): DamlRecord {
    return V.record({
      dso: V.party(this.net.who.dso),
      requester: V.text(vote.requester.name),
      action: vote.action,
      reason: vote.reason,
      voteBefore: V.timestamp(vote.voteBefore),
      votes: damlMap(vote.votes, V.text),
      trackingCid: V.optional(vote.trackingCid === null ? null : V.contractId(vote.trackingCid)),
      targetEffectiveAt: V.none(),
    });
  }

  private voteValue(sv: SuperValidator, accept: boolean, body: string, castAt: Micros): DamlValue {
    return V.record({
      sv: V.party(sv.party),
      accept: V.bool(accept),
      reason: reason('', body),
      optCastAt: V.some(V.timestamp(castAt)),
    });
  }
}
