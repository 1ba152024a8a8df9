/**
 * Who is on the simulated network: the DSO party, the super validators that
 * run it, validators hosting users, app providers, and whales whose
 * holdings and activity dwarf everyone else's (the history-heavy parties the
 * design asks benchmarks to include).
 */

import type { IdFactory } from './ids';
import type { Prng } from './prng';

export interface Participant {
  readonly name: string;
  readonly uid: string;
}

export interface SuperValidator {
  /** SvInfo.name, e.g. "Digital-Asset-2". */
  readonly name: string;
  readonly party: string;
  readonly participant: Participant;
  readonly scanUrl: string;
  readonly sequencerUrl: string;
  readonly sequencerId: string;
  readonly mediatorId: string;
  readonly cometBftNodeId: string;
  readonly cometBftPubKey: string;
}

export interface User {
  readonly party: string;
  readonly participant: Participant;
  readonly whale: boolean;
}

export interface Identities {
  readonly dso: string;
  readonly svs: readonly SuperValidator[];
  readonly users: readonly User[];
  /** Users that run apps; they appear as transfer providers and lock holders. */
  readonly appProviders: readonly User[];
  readonly globalSynchronizer: string;
  /** A second synchronizer that reassignments move contracts to and back from. */
  readonly appSynchronizer: string;
}

export interface IdentityCounts {
  readonly svs: number;
  readonly validators: number;
  readonly users: number;
}

const SV_NAMES = [
  'Digital-Asset-1',
  'Digital-Asset-2',
  'Global-Synchronizer-Foundation',
  'Cumberland-1',
  'Five-North-1',
  'Liberty-City-Ventures-1',
  'MPC-Holding-Inc',
  'Proof-Group-1',
  'SV-Nodeops-Limited',
  'Tradeweb-Markets-1',
  'C7-Technology-Services-Limited',
  'Orb-1-LP-1',
];

const USER_NAMES = [
  'alice',
  'bob',
  'carol',
  'dave',
  'erin',
  'frank',
  'grace',
  'heidi',
  'ivan',
  'judy',
  'mallory',
  'niaj',
  'olivia',
  'peggy',
  'rupert',
  'sybil',
  'trent',
  'victor',
  'walter',
  'yara',
  'zoe',
  'quentin',
  'uma',
  'xavier',
];

const APP_NAMES = ['splitwell', 'tradex', 'payflow', 'vaultline', 'nodeworks'];

/** About one user in fifty is a whale. */
const WHALE_SHARE = 0.02;

export function createIdentities(ids: IdFactory, rng: Prng, counts: IdentityCounts): Identities {
  const svs: SuperValidator[] = [];
  for (let i = 0; i < counts.svs; i++) {
    const name = SV_NAMES[i] ?? `SV-Operator-${i + 1}`;
    const slug = name.toLowerCase();
    svs.push({
      name,
      party: ids.uid(slug),
      participant: { name: slug, uid: ids.participantUid(slug) },
      scanUrl: `https://scan.${slug}.sv.cantonsim.example`,
      sequencerUrl: `https://sequencer.${slug}.sv.cantonsim.example`,
      sequencerId: `SEQ::${ids.uid(slug)}`,
      mediatorId: `MED::${ids.uid(slug)}`,
      cometBftNodeId: rng.hex(20),
      cometBftPubKey: Buffer.from(rng.hex(32), 'hex').toString('base64'),
    });
  }

  const validators: Participant[] = [];
  for (let i = 0; i < counts.validators; i++) {
    const name = `validator-${i + 1}`;
    validators.push({ name, uid: ids.participantUid(name) });
  }

  const hostOf = (i: number): Participant => validators[i % validators.length] as Participant;
  const appProviders: User[] = APP_NAMES.slice(0, Math.max(1, Math.min(APP_NAMES.length, Math.ceil(counts.users / 40)))).map((name, i) => ({
    party: ids.uid(name),
    participant: hostOf(i),
    whale: false,
  }));
  const users: User[] = [...appProviders];
  for (let i = 0; users.length < counts.users + appProviders.length; i++) {
    const base = USER_NAMES[i % USER_NAMES.length] as string;
    const round = Math.floor(i / USER_NAMES.length);
    const hint = round === 0 ? base : `${base}-${round + 1}`;
    users.push({ party: ids.uid(hint), participant: hostOf(i), whale: rng.chance(WHALE_SHARE) });
  }
  // A network always has at least one whale, so every seed has a history-heavy party.
  if (!users.some((u) => u.whale)) {
    const i = appProviders.length;
    const u = users[i] as User;
    users[i] = { ...u, whale: true };
  }

  return {
    dso: ids.uid('DSO'),
    svs,
    users,
    appProviders,
    globalSynchronizer: ids.uid('global-domain'),
    appSynchronizer: ids.uid('app-synchronizer'),
  };
}
