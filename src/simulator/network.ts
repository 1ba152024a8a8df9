/**
 * The simulated network: shared state, the step loop and the one place where
 * a built transaction becomes a canonical item (with its verdict, traffic
 * summary and app-activity records). Each step takes the next record time
 * from the clock, runs the earliest due task if there is one (automation,
 * follow-ups of earlier steps) and otherwise a random user activity.
 */

import type { CanonicalItem } from '../domain/items';
import type { Micros } from '../domain/time';
import { Activities } from './activities';
import { AmuletWallets } from './amulet';
import { Ans } from './ans';
import type { Clock } from './clock';
import type { NetworkContext, SubmissionInfo, Submitter } from './context';
import { Governance } from './governance';
import { IdFactory } from './ids';
import { createIdentities, type Identities, type SuperValidator, type User } from './identities';
import { withCreatedEventBlobs } from './blobs';
import { lazyProtobufItem } from './item';
import { Ledger } from './ledger';
import { importUpdate } from './migration';
import type { Settings } from './options';
import { Prng } from './prng';
import { Reassignments } from './reassignments';
import { ExternalTransfers } from './external-transfers';
import { AmuletExpiry } from './expiry';
import { ConfigStates } from './config-states';
import { TokenStandard } from './token-standard';
import { ValidatorLicenses } from './validator-licenses';
import { Rounds } from './rounds';
import { Scheduler, type Task } from './scheduler';
import { SvNodes } from './sv-nodes';
import { renderTransaction, TxBuilder } from './transaction';
import { acceptedVerdict } from './verdicts';
import { Votes } from './votes';

/** How long the synchronizer is down during a hard migration. */
const MIGRATION_DOWNTIME: Micros = 30n * 60n * 1_000_000n;

/** Updates before the end of a migration at which the SVs vote to schedule the upgrade. */
const UPGRADE_VOTE_LEAD = 40;

export class Network implements NetworkContext {
  readonly rng: Prng;
  readonly ids: IdFactory;
  readonly ledger = new Ledger();
  readonly who: Identities;
  readonly scheduler = new Scheduler();
  migrationId: number;
  /** Record time of the step being built. */
  now: Micros;

  readonly gov: Governance;
  readonly svNodes: SvNodes;
  readonly rounds: Rounds;
  readonly wallets: AmuletWallets;
  readonly ans: Ans;
  readonly votes: Votes;
  readonly reassignments: Reassignments;
  readonly licenses: ValidatorLicenses;
  readonly externalTransfers: ExternalTransfers;
  readonly tokenStandard: TokenStandard;
  readonly expiry: AmuletExpiry;
  readonly configStates: ConfigStates;
  private readonly activities: Activities;
  private readonly userParties: ReadonlySet<string>;
  private lastEffectiveAt: Micros;

  constructor(
    readonly settings: Settings,
    private readonly clock: Clock,
    rng: Prng,
  ) {
    this.rng = rng;
    this.ids = new IdFactory(rng);
    this.who = createIdentities(this.ids, rng, {
      svs: settings.superValidators,
      validators: settings.validators,
      users: settings.parties,
    });
    this.userParties = new Set(this.who.users.map((u) => u.party));
    this.migrationId = settings.firstMigrationId;
    this.now = settings.startTime;
    this.lastEffectiveAt = settings.startTime - 1_000_000n;
    this.gov = new Governance(this);
    this.svNodes = new SvNodes(this);
    this.rounds = new Rounds(this);
    this.wallets = new AmuletWallets(this);
    this.ans = new Ans(this);
    this.votes = new Votes(this);
    this.reassignments = new Reassignments(this);
    this.licenses = new ValidatorLicenses(this);
    this.externalTransfers = new ExternalTransfers(this);
    this.tokenStandard = new TokenStandard(this);
    this.expiry = new AmuletExpiry(this);
    this.configStates = new ConfigStates(this);
    this.activities = new Activities(this);
  }

  *items(): Generator<CanonicalItem> {
    const { updates, migrations, firstMigrationId } = this.settings;
    const lastMigrationId = firstMigrationId + migrations - 1;
    // Non-import updates after which migration firstMigrationId + i ends.
    const migrationEnds = Number.isFinite(updates)
      ? Array.from({ length: migrations - 1 }, (_, i) => Math.floor((updates * (i + 1)) / migrations))
      : [];
    this.gov.bootstrap(this.settings.scheduledUpgradeAt !== undefined && migrations === 1 ? this.settings.scheduledUpgradeAt : undefined);

    let produced = 0;
    let upgradeVoted = false;
    while (produced < updates) {
      const index = this.migrationId - firstMigrationId;
      const end = migrationEnds[index];
      if (end !== undefined) {
        const length = end - (migrationEnds[index - 1] ?? 0);
        if (!upgradeVoted && produced >= end - Math.min(UPGRADE_VOTE_LEAD, Math.floor(length / 4))) {
          const eta = this.now + BigInt((end - produced) * this.settings.meanGapMicros);
          this.votes.requestUpgradeSchedule({ time: eta, migrationId: this.migrationId + 1 });
          upgradeVoted = true;
        }
        if (produced >= end && !this.reassignments.inFlight()) {
          yield* this.hardMigration(lastMigrationId);
          upgradeVoted = false;
        }
      }
      this.now = this.clock.next();
      this.rounds.onTime(this.now);
      const task = this.scheduler.takeDue(this.now);
      const item = task ? task() : this.activities.next();
      if (!item) continue;
      if (item.update) produced++;
      yield item;
    }
  }

  /** Ends the current migration: the next one starts with the active contracts as import updates. */
  private *hardMigration(lastMigrationId: number): Generator<CanonicalItem> {
    this.migrationId++;
    this.clock.pause(MIGRATION_DOWNTIME);
    // Import updates in update-id order, the order Scan serves them in (backfilling/import-updates), so
    // that a mirror that reads them there ingests them in the order the simulator gave them.
    const contracts = this.ledger.sortedContracts();
    const updateIds = contracts.map(() => this.ids.updateId()).sort();
    for (const [i, contract] of contracts.entries()) yield importUpdate(this, contract, updateIds[i] as string);
    const scheduled = this.migrationId === lastMigrationId ? this.settings.scheduledUpgradeAt : undefined;
    if (scheduled !== undefined) this.votes.requestUpgradeSchedule({ time: scheduled, migrationId: this.migrationId + 1 });
    else if (this.gov.upgradeSchedule) this.votes.requestUpgradeSchedule(null);
    this.svNodes.announceMigration();
  }

  /** Builds one transaction at the current record time and wraps it as an item. */
  submit(submitter: Submitter, build: (tx: TxBuilder) => SubmissionInfo | void): CanonicalItem {
    // Ledger time trails the record time a little and, like causality, never goes back.
    const drawn = this.now - BigInt(this.rng.int(20_000, 900_000));
    const effectiveAt = drawn > this.lastEffectiveAt ? drawn : this.lastEffectiveAt + 1n;
    this.lastEffectiveAt = effectiveAt;
    const tx = new TxBuilder(this.ids, this.ledger, effectiveAt, this.who.globalSynchronizer);
    const info = build(tx) ?? {};
    const rendered = renderTransaction(
      {
        updateId: this.ids.updateId(),
        migrationId: this.migrationId,
        recordTime: this.now,
        synchronizerId: this.who.globalSynchronizer,
        effectiveAt,
        ...(info.externallySigned ? { externalTransactionHash: this.ids.hash() } : {}),
      },
      tx.roots,
    );
    const { verdict, trafficSummary, appActivityRecords } = acceptedVerdict(
      this,
      rendered.compact,
      tx.roots,
      submitter,
      info.featuredProvider,
    );
    return withCreatedEventBlobs(lazyProtobufItem(rendered.compact, verdict, trafficSummary, appActivityRecords, rendered.protobuf));
  }

  /** Runs `task` at the first step at or after `due`. */
  at(due: Micros, task: Task): void {
    this.scheduler.at(due, task);
  }

  /** Runs `task` at the next step (after tasks already due). */
  soon(task: Task): void {
    this.scheduler.at(this.now, task);
  }

  after(delay: Micros, task: Task): void {
    this.scheduler.at(this.now + delay, task);
  }

  ticks(n: number): Micros {
    return this.settings.tickMicros * BigInt(n);
  }

  isUser(party: string): boolean {
    return this.userParties.has(party);
  }

  randomSv(): SuperValidator {
    return this.rng.pick(this.who.svs);
  }

  svSubmitter(sv: SuperValidator): Submitter {
    return { parties: [sv.party], participant: sv.participant };
  }

  userSubmitter(user: User, parties: readonly string[] = [user.party]): Submitter {
    return { parties, participant: user.participant };
  }

  /** The DSO party acting through one SV's participant (bootstrap and other DSO-submitted commands). */
  dsoSubmitter(sv: SuperValidator): Submitter {
    return { parties: [this.who.dso], participant: sv.participant };
  }
}
