/**
 * The Splice templates the simulated network uses, with their package names
 * (Splice's Daml models; docs/interfaces.md, "Scan: templates"). Template ids carry a package id; ours are
 * fixed hashes of the package name and version, so they are the same for
 * every seed, as real package ids are for every network.
 */

import { Prng } from './prng';

export interface TemplateRef {
  /** `<64-hex package id>:<Module>:<Entity>` */
  readonly templateId: string;
  readonly packageName: string;
  readonly moduleName: string;
  readonly entityName: string;
}

const PACKAGE_VERSIONS = {
  'splice-amulet': '0.1.9',
  'splice-amulet-name-service': '0.1.9',
  'splice-dso-governance': '0.1.13',
} as const;

type PackageName = keyof typeof PACKAGE_VERSIONS;

const packageIds = new Map<PackageName, string>();

function packageId(name: PackageName): string {
  let id = packageIds.get(name);
  if (id === undefined) {
    id = new Prng(`package ${name}-${PACKAGE_VERSIONS[name]}`).hex(32);
    packageIds.set(name, id);
  }
  return id;
}

function template(packageName: PackageName, moduleName: string, entityName: string): TemplateRef {
  return { templateId: `${packageId(packageName)}:${moduleName}:${entityName}`, packageName, moduleName, entityName };
}

export const TEMPLATES = {
  amulet: template('splice-amulet', 'Splice.Amulet', 'Amulet'),
  lockedAmulet: template('splice-amulet', 'Splice.Amulet', 'LockedAmulet'),
  featuredAppRight: template('splice-amulet', 'Splice.Amulet', 'FeaturedAppRight'),
  appRewardCoupon: template('splice-amulet', 'Splice.Amulet', 'AppRewardCoupon'),
  validatorRewardCoupon: template('splice-amulet', 'Splice.Amulet', 'ValidatorRewardCoupon'),
  unclaimedReward: template('splice-amulet', 'Splice.Amulet', 'UnclaimedReward'),
  amuletRules: template('splice-amulet', 'Splice.AmuletRules', 'AmuletRules'),
  externalPartyAmuletRules: template('splice-amulet', 'Splice.ExternalPartyAmuletRules', 'ExternalPartyAmuletRules'),
  externalPartyConfigState: template('splice-amulet', 'Splice.ExternalPartyConfigState', 'ExternalPartyConfigState'),
  transferPreapproval: template('splice-amulet', 'Splice.AmuletRules', 'TransferPreapproval'),
  transferCommandCounter: template('splice-amulet', 'Splice.ExternalPartyAmuletRules', 'TransferCommandCounter'),
  transferCommand: template('splice-amulet', 'Splice.ExternalPartyAmuletRules', 'TransferCommand'),
  amuletTransferInstruction: template('splice-amulet', 'Splice.AmuletTransferInstruction', 'AmuletTransferInstruction'),
  amuletAllocation: template('splice-amulet', 'Splice.AmuletAllocation', 'AmuletAllocation'),
  amuletAllocationV2: template('splice-amulet', 'Splice.AmuletAllocationV2', 'AmuletAllocationV2'),
  validatorLicense: template('splice-amulet', 'Splice.ValidatorLicense', 'ValidatorLicense'),
  validatorLivenessActivityRecord: template('splice-amulet', 'Splice.ValidatorLicense', 'ValidatorLivenessActivityRecord'),
  unclaimedDevelopmentFundCoupon: template('splice-amulet', 'Splice.Amulet', 'UnclaimedDevelopmentFundCoupon'),
  openMiningRound: template('splice-amulet', 'Splice.Round', 'OpenMiningRound'),
  summarizingMiningRound: template('splice-amulet', 'Splice.Round', 'SummarizingMiningRound'),
  issuingMiningRound: template('splice-amulet', 'Splice.Round', 'IssuingMiningRound'),
  closedMiningRound: template('splice-amulet', 'Splice.Round', 'ClosedMiningRound'),
  ansRules: template('splice-amulet-name-service', 'Splice.Ans', 'AnsRules'),
  ansEntryContext: template('splice-amulet-name-service', 'Splice.Ans', 'AnsEntryContext'),
  ansEntry: template('splice-amulet-name-service', 'Splice.Ans', 'AnsEntry'),
  dsoRules: template('splice-dso-governance', 'Splice.DsoRules', 'DsoRules'),
  voteRequest: template('splice-dso-governance', 'Splice.DsoRules', 'VoteRequest'),
  confirmation: template('splice-dso-governance', 'Splice.DsoRules', 'Confirmation'),
  svNodeState: template('splice-dso-governance', 'Splice.DSO.SvState', 'SvNodeState'),
  svStatusReport: template('splice-dso-governance', 'Splice.DSO.SvState', 'SvStatusReport'),
  amuletPriceVote: template('splice-dso-governance', 'Splice.DSO.AmuletPrice', 'AmuletPriceVote'),
} satisfies Record<string, TemplateRef>;
