/**
 * What every subsystem of the simulated network is given: the shared state
 * and services of the network (randomness, ids, the ledger, identities, the
 * clock, submission and scheduling) and its sibling subsystems.
 *
 * The subsystems use each other (rounds confirm through governance, wallets
 * read the current round, governance taps wallets at genesis). To keep the
 * modules free of import cycles, no subsystem imports another through the
 * network: each subsystem's module declares itself in `Subsystems` below
 * (TypeScript module augmentation), and network.ts, the only module that
 * imports them all, builds them and hands each this context.
 */
import type { CanonicalItem } from '../domain/items';
import type { Micros } from '../domain/time';
import type { IdFactory } from './ids';
import type { Identities, Participant, SuperValidator, User } from './identities';
import type { Ledger } from './ledger';
import type { Settings } from './options';
import type { Prng } from './prng';
import type { Task } from './scheduler';
import type { TxBuilder } from './transaction';

export interface Submitter {
  readonly parties: readonly string[];
  readonly participant: Participant;
}

export interface SubmissionInfo {
  /** The featured app provider the transaction earns app activity for. */
  readonly featuredProvider?: string;
  /** Submitted by an external party: the transaction carries external_transaction_hash. */
  readonly externallySigned?: boolean;
}

/**
 * The sibling subsystems, each added by its own module (`declare module './context'`).
 * @public (exported for those augmentations, which knip does not count as uses)
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by module augmentation
export interface Subsystems {}

export interface NetworkContext extends Subsystems {
  readonly rng: Prng;
  readonly ids: IdFactory;
  readonly ledger: Ledger;
  readonly who: Identities;
  readonly settings: Settings;
  readonly migrationId: number;
  /** Record time of the step being built. */
  readonly now: Micros;
  /** Builds one transaction at the current record time and wraps it as an item. */
  submit(submitter: Submitter, build: (tx: TxBuilder) => SubmissionInfo | void): CanonicalItem;
  /** Runs `task` at the first step at or after `due`. */
  at(due: Micros, task: Task): void;
  /** Runs `task` at the next step (after tasks already due). */
  soon(task: Task): void;
  after(delay: Micros, task: Task): void;
  ticks(n: number): Micros;
  isUser(party: string): boolean;
  randomSv(): SuperValidator;
  svSubmitter(sv: SuperValidator): Submitter;
  userSubmitter(user: User, parties?: readonly string[]): Submitter;
  /** The DSO party acting through one SV's participant (bootstrap and other DSO-submitted commands). */
  dsoSubmitter(sv: SuperValidator): Submitter;
}
