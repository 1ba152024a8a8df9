/**
 * What the Scan app records of a closed vote (its VoteRequestTxLogEntry), read
 * from a DsoRules_CloseVoteRequest exercise result in compact_json: the name of
 * the action voted on (the inner constructor, e.g. SRARC_GrantFeaturedAppRight;
 * empty for other actions), whether it was accepted, the requesting SV's name,
 * when the accepted action takes effect, and when the vote completed.
 */
import type { Json } from './json';
import { parseTimestamp, type Micros } from './time';

export const CLOSE_VOTE_REQUEST = { qualifiedName: 'Splice.DsoRules:DsoRules', choice: 'DsoRules_CloseVoteRequest' } as const;

export interface VoteResultFacts {
  actionName: string;
  accepted: boolean;
  requester: string;
  effectiveAt: Micros | null;
  completedAt: Micros;
}

type Variant = { tag?: unknown; value?: unknown };

/** The inner constructor of ARC_DsoRules and ARC_AmuletRules actions; '' for the others (as Scan's mapActionName). */
function actionName(action: Variant): string {
  const value = (action.value ?? {}) as Record<string, Variant | undefined>;
  const inner = action.tag === 'ARC_DsoRules' ? value.dsoAction : action.tag === 'ARC_AmuletRules' ? value.amuletRulesAction : undefined;
  return typeof inner?.tag === 'string' ? inner.tag : '';
}

/** Throws on a result that lacks what every DsoRules_CloseVoteRequestResult has. */
export function voteResultFacts(result: Json): VoteResultFacts {
  const r = result as { request?: { requester?: unknown; action?: Variant }; completedAt?: unknown; outcome?: Variant };
  if (typeof r.request?.requester !== 'string' || typeof r.completedAt !== 'string' || typeof r.outcome?.tag !== 'string') {
    throw new Error('not a DsoRules_CloseVoteRequestResult: it needs request.requester, completedAt and outcome');
  }
  const accepted = r.outcome.tag === 'VRO_Accepted';
  const effectiveAt = accepted ? (r.outcome.value as { effectiveAt?: unknown } | undefined)?.effectiveAt : undefined;
  return {
    actionName: actionName(r.request.action ?? {}),
    accepted,
    requester: r.request.requester,
    effectiveAt: typeof effectiveAt === 'string' ? parseTimestamp(effectiveAt) : null,
    completedAt: parseTimestamp(r.completedAt),
  };
}
