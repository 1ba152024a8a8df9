/** The reward leaderboards (/api/indexer/v0/leaderboards/rewards): who claimed the most of a reward over a chosen window. */
import { useState } from 'preact/hooks';
import { api, type Reward } from '../api';
import { Figures, Party, Show, Table, useLoad } from '../components';
import { useLedgerDay } from '../days';
import { DayRangeForm, type DayRange } from '../day-range';
import { addDays, amount, count, sumDecimals } from '../format';

const REWARDS: { reward: Reward; label: string }[] = [
  { reward: 'validator', label: 'Validator rewards' },
  { reward: 'validator_faucet', label: 'Validator liveness rewards' },
  { reward: 'app', label: 'App rewards' },
  { reward: 'sv', label: 'SV rewards' },
];
/** The default window: the 30 days up to the newest day of the ledger. */
const DEFAULT_DAYS = 30;
const LEADERS = 20;
/** The API's largest limit. */
const MAX_LEADERS = 100;

export function ValidatorsView() {
  const ledgerDay = useLedgerDay();
  return (
    <>
      <h1>Validators</h1>
      <p>The parties that claimed the most rewards of a kind in a window of record time, across migrations.</p>
      <Show loaded={ledgerDay} what="the newest day of the ledger">
        {(day) => <Leaderboard key={day} newest={day} />}
      </Show>
    </>
  );
}

function Leaderboard({ newest }: { newest: string }) {
  const [chosen, setChosen] = useState<{ reward: Reward; days: DayRange }>({
    reward: 'validator',
    days: { first: addDays(newest, 1 - DEFAULT_DAYS), last: newest },
  });
  const [reward, setReward] = useState<Reward>(chosen.reward);
  const [limit, setLimit] = useState(LEADERS);
  const from = `${chosen.days.first}T00:00:00Z`;
  const to = `${addDays(chosen.days.last, 1)}T00:00:00Z`;
  const board = useLoad(() => api.rewardLeaderboard(chosen.reward, from, to, limit), [chosen.reward, from, to, limit]);
  const label = REWARDS.find((r) => r.reward === chosen.reward)?.label ?? chosen.reward;
  return (
    <>
      <DayRangeForm
        id="leaders"
        value={chosen.days}
        onApply={(days) => {
          setChosen({ reward, days });
          setLimit(LEADERS);
        }}
      >
        <span class="field">
          <label for="leaders-reward">Reward</label>
          <select id="leaders-reward" value={reward} onChange={(e) => setReward(e.currentTarget.value as Reward)}>
            {REWARDS.map((r) => (
              <option key={r.reward} value={r.reward}>
                {r.label}
              </option>
            ))}
          </select>
        </span>
      </DayRangeForm>
      <Show loaded={board} what="the leaderboard">
        {(b) => (
          <>
            <h2>
              {label}, {b.from} to {b.to}
            </h2>
            {b.leaders.length === 0 ? (
              <p>No such reward was claimed in this window.</p>
            ) : (
              <>
                <Figures
                  label="The parties listed"
                  items={[
                    ['Parties listed', count(b.leaders.length)],
                    ['Claimed by them', amount(sumDecimals(b.leaders.map((l) => l.amount)))],
                  ]}
                />
                <Table label="Leaderboard" head={['Rank', 'Party', 'Claimed', 'Claims']}>
                  {b.leaders.map((l) => (
                    <tr key={l.party}>
                      <td>{l.rank}</td>
                      <td>
                        <Party id={l.party} />
                      </td>
                      <td class="num">{amount(l.amount)}</td>
                      <td class="num">{count(l.claims)}</td>
                    </tr>
                  ))}
                </Table>
                {b.leaders.length === limit && limit < MAX_LEADERS && (
                  <button type="button" onClick={() => setLimit(Math.min(MAX_LEADERS, limit + LEADERS))}>
                    Show more parties
                  </button>
                )}
              </>
            )}
          </>
        )}
      </Show>
    </>
  );
}
