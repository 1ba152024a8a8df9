/**
 * A party: its holdings summary and amulets at an announced snapshot of its choice, its balance at
 * each day's end, its activity history and reward claims, its ANS name, and its featured-app right and
 * transfer preapproval where it has them.
 */
import { useState } from 'preact/hooks';
import { api, ApiError, type AcsSnapshot } from '../api';
import { ErrorMessage, ExternalLink, Figures, Id, Party, SearchForm, Section, Show, Table, useLoad } from '../components';
import { amount, templateName } from '../format';
import { snapshotKey, useSnapshots } from '../snapshots';
import { HistorySection, RewardsSection } from './party-activity';
import { BalanceSection } from './party-balance';

const HOLDINGS_PAGE = 10;

export function PartyView({ party }: { party: string | undefined }) {
  return (
    <>
      <h1>Party</h1>
      <SearchForm view="party" id="party-id" label="Party id" button="Show" value={party} placeholder="name::1220…" />
      {party ? <PartyDetails key={party} party={party} /> : <p>Enter a party id, or follow a party's link from another view.</p>}
    </>
  );
}

function PartyDetails({ party }: { party: string }) {
  return (
    <>
      <p class="party-heading">
        <code class="id wrap" data-testid="party-id">
          {party}
        </code>
      </p>
      <HoldingsSection party={party} />
      <BalanceSection party={party} />
      <HistorySection party={party} />
      <RewardsSection party={party} />
      <NamesAndRights party={party} />
    </>
  );
}

function HoldingsSection({ party }: { party: string }) {
  const snapshots = useSnapshots();
  const [chosen, setChosen] = useState<string | undefined>(undefined);
  const selected = snapshots.snapshots.find((s) => snapshotKey(s) === chosen) ?? snapshots.snapshots[0];
  return (
    <Section title="Holdings">
      <Show loaded={snapshots.first} what="the ACS snapshots">
        {() =>
          selected === undefined ? (
            <p>No ACS snapshot has been taken yet, so there are no holdings to show: they are taken every 3 hours of ledger time.</p>
          ) : (
            <>
              <p class="controls">
                <label for="snapshot">Snapshot</label>
                <select id="snapshot" value={snapshotKey(selected)} onChange={(e) => setChosen(e.currentTarget.value)}>
                  {snapshots.snapshots.map((s) => (
                    <option key={snapshotKey(s)} value={snapshotKey(s)}>
                      {s.record_time} (migration {s.migration_id})
                    </option>
                  ))}
                </select>
                {snapshots.next !== null && (
                  <button type="button" onClick={snapshots.more}>
                    Older snapshots
                  </button>
                )}
              </p>
              {snapshots.error !== undefined && <ErrorMessage error={snapshots.error} what="older snapshots" />}
              <Summary party={party} snapshot={selected} />
              <Amulets key={snapshotKey(selected)} party={party} snapshot={selected} />
            </>
          )
        }
      </Show>
    </Section>
  );
}

function Summary({ party, snapshot }: { party: string; snapshot: AcsSnapshot }) {
  const summary = useLoad(
    () => api.holdingsSummary(snapshot.migration_id, snapshot.record_time, party),
    [party, snapshot.migration_id, snapshot.record_time],
  );
  return (
    <Show loaded={summary} what="the holdings summary">
      {(s) => {
        const mine = s.summaries[0];
        if (!mine) return <p>This party holds no amulet at this snapshot.</p>;
        return (
          <Figures
            label="Holdings summary"
            items={[
              ['Total holdings', amount(mine.total_coin_holdings)],
              ['Unlocked', amount(mine.total_unlocked_coin)],
              ['Locked', amount(mine.total_locked_coin)],
              ['Holding fees accrued', amount(mine.accumulated_holding_fees_total)],
              ['Available (unlocked less fees)', amount(mine.total_available_coin)],
              ['Fees computed as of round', s.computed_as_of_round],
            ]}
          />
        );
      }}
    </Show>
  );
}

/** The party's amulets, a page at a time, by the API's page tokens (kept to go back). */
function Amulets({ party, snapshot }: { party: string; snapshot: AcsSnapshot }) {
  const [tokens, setTokens] = useState<(string | undefined)[]>([undefined]);
  const token = tokens.at(-1);
  const page = useLoad(
    () => api.holdings(snapshot.migration_id, snapshot.record_time, party, HOLDINGS_PAGE, token),
    [party, snapshot.migration_id, snapshot.record_time, token],
  );
  return (
    <>
      <h3>Amulets</h3>
      <Show loaded={page} what="the amulets">
        {(p) =>
          p.created_events.length === 0 && tokens.length === 1 ? (
            <p>No amulet at this snapshot.</p>
          ) : (
            <>
              <Table label="Amulets" head={['Contract', 'Template', 'Initial amount', 'Created in round', 'Created at', 'Lock expires']}>
                {p.created_events.map((c) => {
                  const args = c.create_arguments;
                  const amt = args.amount ?? args.amulet?.amount;
                  return (
                    <tr key={c.contract_id}>
                      <td>
                        <Id value={c.contract_id} keep={8} />
                      </td>
                      <td>{templateName(c.template_id)}</td>
                      <td class="num">{amt ? amount(amt.initialAmount) : '—'}</td>
                      <td>{amt?.createdAt.number ?? '—'}</td>
                      <td>{c.created_at}</td>
                      <td>{args.lock?.expiresAt ?? '—'}</td>
                    </tr>
                  );
                })}
              </Table>
              <nav class="pager" aria-label="Amulet pages">
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
    </>
  );
}

/** A 404 means "has none" for these look-ups; any other failure is an error to show. */
async function orNone<T>(load: Promise<T>): Promise<T | null> {
  try {
    return await load;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

function NamesAndRights({ party }: { party: string }) {
  const ans = useLoad(() => orNone(api.ansByParty(party)), [party]);
  const featured = useLoad(() => api.featuredApp(party), [party]);
  const preapproval = useLoad(() => orNone(api.preapproval(party)), [party]);
  return (
    <Section title="Name and rights">
      <h3>ANS name</h3>
      <Show loaded={ans} what="the ANS name">
        {(a) =>
          a === null ? (
            <p>No ANS name.</p>
          ) : (
            <Figures
              label="ANS name"
              items={[
                ['Name', a.entry.name],
                ['URL', a.entry.url ? <ExternalLink url={a.entry.url} /> : '—'],
                ['Description', a.entry.description || '—'],
                ['Expires at', a.entry.expires_at ?? 'never'],
              ]}
            />
          )
        }
      </Show>
      <h3>Featured-app right</h3>
      <Show loaded={featured} what="the featured-app right">
        {(f) =>
          f.featured_app_right === null ? (
            <p>Not a featured app.</p>
          ) : (
            <Figures
              label="Featured-app right"
              items={[
                ['Contract', <Id value={f.featured_app_right.contract_id} />],
                ['Granted at', f.featured_app_right.created_at],
              ]}
            />
          )
        }
      </Show>
      <h3>Transfer preapproval</h3>
      <Show loaded={preapproval} what="the transfer preapproval">
        {(p) =>
          p === null ? (
            <p>No transfer preapproval.</p>
          ) : (
            <Figures
              label="Transfer preapproval"
              items={[
                ['Provider', <Party id={p.transfer_preapproval.contract.payload.provider} />],
                ['Last renewed at', p.transfer_preapproval.contract.payload.lastRenewedAt],
                ['Expires at', p.transfer_preapproval.contract.payload.expiresAt],
              ]}
            />
          )
        }
      </Show>
    </Section>
  );
}
