/** Governance: the vote requests in flight and the closed ones, with their votes. */
import { useState } from 'preact/hooks';
import { api, type VoteRequestPayload } from '../api';
import { ExternalLink, Section, Show, useLoad } from '../components';

const RESULTS_STEP = 20;

/** The action a vote request asks for, by its innermost tag: "ARC_DsoRules / SRARC_GrantFeaturedAppRight". */
function actionName(action: VoteRequestPayload['action']): string {
  const inner = Object.values(action.value).find((v): v is { tag: string } => typeof v === 'object' && v !== null && 'tag' in v);
  return inner ? `${action.tag} / ${inner.tag}` : action.tag;
}

export function GovernanceView() {
  const requests = useLoad(() => api.voteRequests(), []);
  // The vote results operation takes a limit and no page token: "more" asks for a larger limit.
  const [limit, setLimit] = useState(RESULTS_STEP);
  const results = useLoad(() => api.voteResults(limit), [limit]);
  return (
    <>
      <h1>Governance</h1>
      <Section title="Active vote requests">
        <Show loaded={requests} what="the vote requests">
          {(r) =>
            r.dso_rules_vote_requests.length === 0 ? (
              <p>No vote request is open.</p>
            ) : (
              <ul class="cards">
                {r.dso_rules_vote_requests.map((c) => (
                  <li key={c.contract_id} class="card">
                    <VoteRequest request={c.payload} status={`open until ${c.payload.voteBefore}`} />
                  </li>
                ))}
              </ul>
            )
          }
        </Show>
      </Section>
      <Section title="Closed vote requests">
        <Show loaded={results} what="the vote results">
          {(r) =>
            r.dso_rules_vote_results.length === 0 ? (
              <p>No vote request has been closed.</p>
            ) : (
              <>
                <ul class="cards">
                  {r.dso_rules_vote_results.map((v, i) => (
                    <li key={`${v.completedAt}-${i}`} class="card">
                      <VoteRequest request={v.request} status={`${v.outcome.tag.replace(/^VRO_/, '')} at ${v.completedAt}`} />
                      {v.abstainingSvs.length > 0 && <p>Abstained: {v.abstainingSvs.join(', ')}</p>}
                    </li>
                  ))}
                </ul>
                {r.dso_rules_vote_results.length === limit && (
                  <button type="button" onClick={() => setLimit(limit + RESULTS_STEP)}>
                    Show more results
                  </button>
                )}
              </>
            )
          }
        </Show>
      </Section>
    </>
  );
}

function VoteRequest({ request, status }: { request: VoteRequestPayload; status: string }) {
  const accepted = request.votes.filter(([, v]) => v.accept).length;
  return (
    <>
      <h3>{actionName(request.action)}</h3>
      <p class="vote-status">
        {status}; requested by {request.requester}; {accepted} of {request.votes.length} votes accept
      </p>
      {request.reason.body && (
        <p>
          {request.reason.body}
          {request.reason.url && (
            <>
              {' '}
              (<ExternalLink url={request.reason.url} />)
            </>
          )}
        </p>
      )}
      <ul class="votes" aria-label="Votes">
        {request.votes.map(([name, v]) => (
          <li key={name}>
            <strong>{name}</strong>: {v.accept ? 'accept' : 'reject'}
            {v.reason.body && ` — ${v.reason.body}`}
            {v.optCastAt && <span class="muted"> ({v.optCastAt})</span>}
          </li>
        ))}
      </ul>
    </>
  );
}
