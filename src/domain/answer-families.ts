/**
 * Answer families: groups of templates whose live contracts make up the answers every validator
 * polls (rules, rounds, the DSO, the transfer factory). The writer sets a family's version when it
 * creates, archives or reassigns a contract of one of its templates; an API process serves a kept
 * answer only while the versions of the families it was made from are unchanged.
 */
import { SPLICE, type TemplateKey } from './splice-contracts';

export const ANSWER_FAMILIES = {
  amuletRules: [SPLICE.amuletRules],
  rounds: [SPLICE.openMiningRound, SPLICE.summarizingMiningRound, SPLICE.issuingMiningRound],
  dso: [SPLICE.dsoRules, SPLICE.svNodeState],
  ansRules: [SPLICE.ansRules],
  externalPartyAmuletRules: [SPLICE.externalPartyAmuletRules],
  /** The newest of the DSO's pair is in every transfer context (a transfer factory's too). */
  externalPartyConfigState: [SPLICE.externalPartyConfigState],
  /** What a transfer factory adds to the rules and the round: the receiver's preapproval and its provider's right. */
  transferParties: [SPLICE.transferPreapproval, SPLICE.featuredAppRight],
} as const satisfies Record<string, readonly TemplateKey[]>;

/**
 * Versions that change without a contract: `networkFacts` when a network fact is written (the DSO
 * party id falls back to one), and `migration`, the current migration (the highest one held), which
 * every answer is read at.
 */
export type AnswerFamily = keyof typeof ANSWER_FAMILIES | 'networkFacts' | 'migration';

/** Every family with templates, as rows (template → family) for SQL. */
export const FAMILY_TEMPLATES: readonly { family: AnswerFamily; packageName: string; qualifiedName: string }[] = Object.entries(
  ANSWER_FAMILIES,
).flatMap(([family, templates]) =>
  templates.map((t) => ({ family: family as AnswerFamily, packageName: t.packageName, qualifiedName: t.qualifiedName })),
);

const byTemplate = new Map(FAMILY_TEMPLATES.map((t) => [`${t.packageName}\u0000${t.qualifiedName}`, t.family]));

/** The family of a template, or undefined when no polled answer is made from it. */
export function familyOfTemplate(packageName: string, qualifiedName: string): AnswerFamily | undefined {
  return byTemplate.get(`${packageName}\u0000${qualifiedName}`);
}

/** The versions of the families, as read together: a family absent from the map has never changed. */
export type AnswerVersions = ReadonlyMap<string, string>;

/** Whether two readings agree on every family in `families`. */
export function sameVersions(a: AnswerVersions, b: AnswerVersions, families: readonly AnswerFamily[]): boolean {
  for (const family of families) if ((a.get(family) ?? '0') !== (b.get(family) ?? '0')) return false;
  return true;
}
