/**
 * A party's activities (/api/indexer/v0/parties/{party}/activity), newest first: its history with a
 * kind and day filter and the CSV export of the same range, and its reward claims. Its balance is
 * not a running sum of them (holding fees accrue between activities): it is party-balance.tsx's.
 */
import { useState } from 'preact/hooks';
import { api, type Activity, type ActivityFilter, type ActivityKind } from '../api';
import { DayRangeForm, type DayRange } from '../day-range';
import { ErrorMessage, Id, Party, Section, Show, Table, useLoad } from '../components';
import { addDays, amount, partyHint } from '../format';

const ACTIVITY_PAGE = 20;

/** Every kind, in the API's order: a Record so that the compiler refuses a kind left out. */
const KIND_ORDER: Record<ActivityKind, true> = {
  transfer: true,
  mint: true,
  tap: true,
  app_reward: true,
  validator_reward: true,
  sv_reward: true,
  validator_faucet: true,
  lock: true,
  unlock: true,
  owner_expire_lock: true,
  expire: true,
  traffic_purchase: true,
  unclaimed_reward: true,
  ans_entry: true,
  transfer_command: true,
  transfer_instruction: true,
  allocation: true,
  vote: true,
  vote_result: true,
};
const KINDS = Object.keys(KIND_ORDER) as ActivityKind[];
const REWARD_KINDS: readonly ActivityKind[] = ['app_reward', 'validator_reward', 'sv_reward', 'validator_faucet', 'unclaimed_reward'];

/** A range of days as the API's instants: from the first day's start to the end of the last. */
function filterOf(kinds: readonly ActivityKind[], days: DayRange): ActivityFilter {
  return {
    kinds,
    ...(days.first === '' ? {} : { from: `${days.first}T00:00:00Z` }),
    ...(days.last === '' ? {} : { to: `${addDays(days.last, 1)}T00:00:00Z` }),
  };
}

/** A transfer's leg 0 is its sender; the others receive. */
const direction = (a: Activity) => (a.kind !== 'transfer' ? '—' : a.leg === 0 ? 'sent' : 'received');

function Counterparties({ ids }: { ids: string[] }) {
  if (ids.length === 0) return <>—</>;
  return (
    <>
      {ids.map((id, i) => (
        <span key={id}>
          {i > 0 && ', '}
          <Party id={id} />
        </span>
      ))}
    </>
  );
}

/** One filter's activities, a page at a time by the API's page tokens (kept to go back). */
function ActivityPages({ party, filter, label }: { party: string; filter: ActivityFilter; label: string }) {
  const [tokens, setTokens] = useState<(string | undefined)[]>([undefined]);
  const token = tokens.at(-1);
  const page = useLoad(() => api.partyActivity(party, filter, ACTIVITY_PAGE, token), [party, filter, token]);
  return (
    <Show loaded={page} what={label.toLowerCase()}>
      {(p) =>
        p.activities.length === 0 && tokens.length === 1 ? (
          <p>None in this range.</p>
        ) : (
          <>
            <Table label={label} head={['Record time', 'Kind', 'Direction', 'Amount', 'Fees', 'Counterparties', 'Round', 'Update']}>
              {p.activities.map((a) => (
                <tr key={`${a.event_id}-${a.kind}-${a.leg}`} data-event-id={a.event_id}>
                  <td>{a.record_time}</td>
                  <td>{a.kind}</td>
                  <td>{direction(a)}</td>
                  <td class="num">{amount(a.amount)}</td>
                  <td class="num">{amount(a.fees)}</td>
                  <td>
                    <Counterparties ids={a.counterparties} />
                  </td>
                  <td>{a.round ?? '—'}</td>
                  <td>
                    <a href={`#/activity/${encodeURIComponent(a.update_id)}`} title={a.update_id}>
                      <Id value={a.update_id} keep={8} />
                    </a>
                  </td>
                </tr>
              ))}
            </Table>
            <nav class="pager" aria-label={`${label} pages`}>
              <button type="button" disabled={tokens.length === 1} onClick={() => setTokens(tokens.slice(0, -1))}>
                Previous page
              </button>
              <span>Page {tokens.length}</span>
              <button
                type="button"
                disabled={p.next_page_token === null}
                onClick={() => p.next_page_token !== null && setTokens([...tokens, p.next_page_token])}
              >
                Next page
              </button>
            </nav>
          </>
        )
      }
    </Show>
  );
}

/** Fetches the CSV export of the filter and saves it as a file. */
function CsvDownload({ party, filter }: { party: string; filter: ActivityFilter }) {
  const [state, setState] = useState<{ busy: boolean; error?: unknown }>({ busy: false });
  const download = () => {
    setState({ busy: true });
    api
      .activityCsv(party, filter)
      .then((blob) => {
        const url = URL.createObjectURL(blob);
        const link = document.createElement('a');
        link.href = url;
        link.download = `activity-${partyHint(party)}.csv`;
        document.body.append(link);
        link.click();
        link.remove();
        // After the browser has taken the file.
        setTimeout(() => URL.revokeObjectURL(url), 60_000);
        setState({ busy: false });
      })
      .catch((error: unknown) => setState({ busy: false, error }));
  };
  return (
    <>
      <p class="controls">
        <button type="button" onClick={download} disabled={state.busy}>
          {state.busy ? 'Preparing CSV…' : 'Download CSV'}
        </button>
        <span class="muted">Every activity of the range and kind above, not only this page.</span>
      </p>
      {state.error !== undefined && <ErrorMessage error={state.error} what="the CSV export" />}
    </>
  );
}

export function HistorySection({ party }: { party: string }) {
  const [applied, setApplied] = useState<{ kind: ActivityKind | ''; days: DayRange }>({ kind: '', days: { first: '', last: '' } });
  const [kind, setKind] = useState<ActivityKind | ''>('');
  const filter = filterOf(applied.kind === '' ? [] : [applied.kind], applied.days);
  const key = JSON.stringify(filter);
  return (
    <Section title="Activity history">
      <DayRangeForm id="history" value={applied.days} optional button="Apply" onApply={(days) => setApplied({ kind, days })}>
        <span class="field">
          <label for="history-kind">Kind</label>
          <select id="history-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as ActivityKind | '')}>
            <option value="">All kinds</option>
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </span>
      </DayRangeForm>
      <CsvDownload party={party} filter={filter} />
      <ActivityPages key={key} party={party} filter={filter} label="Activities" />
    </Section>
  );
}

export function RewardsSection({ party }: { party: string }) {
  return (
    <Section title="Rewards">
      <p>Rewards the party claimed (app, validator, SV and validator liveness), newest first.</p>
      <ActivityPages party={party} filter={{ kinds: REWARD_KINDS }} label="Reward claims" />
    </Section>
  );
}
