/**
 * Reads the fields the API filters and sums from Splice contract payloads
 * (compact_json), keyed by package name and qualified template name so that
 * every package version of a template is recognised.
 */
import type { Json } from './json';

export const SPLICE = {
  amulet: { packageName: 'splice-amulet', qualifiedName: 'Splice.Amulet:Amulet' },
  lockedAmulet: { packageName: 'splice-amulet', qualifiedName: 'Splice.Amulet:LockedAmulet' },
  openMiningRound: { packageName: 'splice-amulet', qualifiedName: 'Splice.Round:OpenMiningRound' },
  summarizingMiningRound: { packageName: 'splice-amulet', qualifiedName: 'Splice.Round:SummarizingMiningRound' },
  issuingMiningRound: { packageName: 'splice-amulet', qualifiedName: 'Splice.Round:IssuingMiningRound' },
  closedMiningRound: { packageName: 'splice-amulet', qualifiedName: 'Splice.Round:ClosedMiningRound' },
  ansEntry: { packageName: 'splice-amulet-name-service', qualifiedName: 'Splice.Ans:AnsEntry' },
  dsoRules: { packageName: 'splice-dso-governance', qualifiedName: 'Splice.DsoRules:DsoRules' },
  voteRequest: { packageName: 'splice-dso-governance', qualifiedName: 'Splice.DsoRules:VoteRequest' },
  svNodeState: { packageName: 'splice-dso-governance', qualifiedName: 'Splice.DSO.SvState:SvNodeState' },
  amuletPriceVote: { packageName: 'splice-dso-governance', qualifiedName: 'Splice.DSO.AmuletPrice:AmuletPriceVote' },
  amuletRules: { packageName: 'splice-amulet', qualifiedName: 'Splice.AmuletRules:AmuletRules' },
  externalPartyAmuletRules: { packageName: 'splice-amulet', qualifiedName: 'Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules' },
  externalPartyConfigState: { packageName: 'splice-amulet', qualifiedName: 'Splice.ExternalPartyConfigState:ExternalPartyConfigState' },
  ansRules: { packageName: 'splice-amulet-name-service', qualifiedName: 'Splice.Ans:AnsRules' },
  featuredAppRight: { packageName: 'splice-amulet', qualifiedName: 'Splice.Amulet:FeaturedAppRight' },
  transferPreapproval: { packageName: 'splice-amulet', qualifiedName: 'Splice.AmuletRules:TransferPreapproval' },
  transferCommandCounter: { packageName: 'splice-amulet', qualifiedName: 'Splice.ExternalPartyAmuletRules:TransferCommandCounter' },
  transferCommand: { packageName: 'splice-amulet', qualifiedName: 'Splice.ExternalPartyAmuletRules:TransferCommand' },
  validatorLicense: { packageName: 'splice-amulet', qualifiedName: 'Splice.ValidatorLicense:ValidatorLicense' },
  unclaimedDevelopmentFundCoupon: { packageName: 'splice-amulet', qualifiedName: 'Splice.Amulet:UnclaimedDevelopmentFundCoupon' },
  amuletTransferInstruction: { packageName: 'splice-amulet', qualifiedName: 'Splice.AmuletTransferInstruction:AmuletTransferInstruction' },
  amuletAllocation: { packageName: 'splice-amulet', qualifiedName: 'Splice.AmuletAllocation:AmuletAllocation' },
  amuletAllocationV2: { packageName: 'splice-amulet', qualifiedName: 'Splice.AmuletAllocationV2:AmuletAllocationV2' },
} as const;

export interface TemplateKey {
  packageName: string;
  qualifiedName: string;
}

/** "<package id>:<Module.Path>:<Entity>" → "<Module.Path>:<Entity>". */
export function qualifiedNameOf(templateId: string): string {
  const first = templateId.indexOf(':');
  const qualified = templateId.slice(first + 1);
  if (first <= 0 || qualified.split(':').length !== 2) {
    throw new Error(`malformed template id '${templateId}': expected <package id>:<Module>:<Entity>`);
  }
  return qualified;
}

const is = (key: TemplateKey, packageName: string, qualifiedName: string) =>
  key.packageName === packageName && key.qualifiedName === qualifiedName;

/** Typed columns of the contracts table; null where the template has no such field. */
export interface ContractFacts {
  dsoParty: string | null;
  amuletOwner: string | null;
  amuletInitialAmount: string | null;
  amuletCreatedRound: number | null;
  amuletRatePerRound: string | null;
  amuletLocked: boolean | null;
  lockHolders: string[] | null;
  lockExpiresAt: string | null;
  roundNumber: number | null;
  ansName: string | null;
  ansUser: string | null;
  ansExpiresAt: string | null;
}

const NONE: ContractFacts = {
  dsoParty: null,
  amuletOwner: null,
  amuletInitialAmount: null,
  amuletCreatedRound: null,
  amuletRatePerRound: null,
  amuletLocked: null,
  lockHolders: null,
  lockExpiresAt: null,
  roundNumber: null,
  ansName: null,
  ansUser: null,
  ansExpiresAt: null,
};

class PayloadError extends Error {}

function field(value: Json | undefined, path: string[]): Json | undefined {
  let v = value;
  for (const key of path) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
    v = v[key];
  }
  return v;
}

function text(value: Json | undefined, path: string[]): string {
  const v = field(value, path);
  if (typeof v !== 'string') throw new PayloadError(`expected a string at ${path.join('.')}`);
  return v;
}

function optionalText(value: Json | undefined, path: string[]): string | null {
  const v = field(value, path);
  return typeof v === 'string' ? v : null;
}

function int(value: Json | undefined, path: string[]): number {
  const v = field(value, path);
  const n = typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : typeof v === 'number' ? v : NaN;
  if (!Number.isSafeInteger(n)) throw new PayloadError(`expected an Int64 at ${path.join('.')}`);
  return n;
}

function decimal(value: Json | undefined, path: string[]): string {
  const v = text(value, path);
  if (!/^-?\d+(\.\d+)?$/.test(v)) throw new PayloadError(`expected a decimal at ${path.join('.')}`);
  return v;
}

function parties(value: Json | undefined, path: string[]): string[] {
  const v = field(value, path);
  if (!Array.isArray(v) || v.some((p) => typeof p !== 'string')) throw new PayloadError(`expected a list of parties at ${path.join('.')}`);
  return v as string[];
}

function amuletFacts(amulet: Json | undefined): Partial<ContractFacts> {
  return {
    amuletOwner: text(amulet, ['owner']),
    amuletInitialAmount: decimal(amulet, ['amount', 'initialAmount']),
    amuletCreatedRound: int(amulet, ['amount', 'createdAt', 'number']),
    amuletRatePerRound: decimal(amulet, ['amount', 'ratePerRound', 'rate']),
  };
}

/**
 * Extracts the typed facts of a contract; throws an Error naming the field when
 * a recognised Splice template has a payload of the wrong shape.
 */
export function contractFacts(key: TemplateKey, args: Json): ContractFacts {
  const facts: ContractFacts = { ...NONE, dsoParty: optionalText(args, ['dso']) };
  try {
    if (is(key, SPLICE.amulet.packageName, SPLICE.amulet.qualifiedName)) {
      return { ...facts, ...amuletFacts(args), amuletLocked: false };
    }
    if (is(key, SPLICE.lockedAmulet.packageName, SPLICE.lockedAmulet.qualifiedName)) {
      const amulet = field(args, ['amulet']);
      return {
        ...facts,
        dsoParty: optionalText(amulet, ['dso']),
        ...amuletFacts(amulet),
        amuletLocked: true,
        lockHolders: parties(args, ['lock', 'holders']),
        lockExpiresAt: text(args, ['lock', 'expiresAt']),
      };
    }
    if (key.packageName === 'splice-amulet' && /^Splice\.Round:(Open|Summarizing|Issuing|Closed)MiningRound$/.test(key.qualifiedName)) {
      return { ...facts, roundNumber: int(args, ['round', 'number']) };
    }
    if (is(key, SPLICE.ansEntry.packageName, SPLICE.ansEntry.qualifiedName)) {
      return {
        ...facts,
        ansName: text(args, ['name']),
        ansUser: text(args, ['user']),
        ansExpiresAt: text(args, ['expiresAt']),
      };
    }
    return facts;
  } catch (err) {
    if (err instanceof PayloadError) throw new Error(`${key.qualifiedName} payload: ${err.message}`, { cause: err });
    throw err;
  }
}
