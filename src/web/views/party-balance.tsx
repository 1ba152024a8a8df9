/**
 * A party's unlocked and locked amulet at the end of each UTC day of a chosen range
 * (/api/indexer/v0/parties/{party}/balances/daily): a chart and its table. The server computes each
 * day's balance from the snapshot before it and the holdings changed since, holding fees included,
 * which a running sum of the activities could not give.
 */
import { useMemo, useState } from 'preact/hooks';
import { api, type PartyDailyBalances } from '../api';
import { TimeChart } from '../chart';
import { Section, Show, Table, useLoad } from '../components';
import { useLedgerDay } from '../days';
import { DayRangeForm, type DayRange } from '../day-range';
import { addDays, amount } from '../format';

/** The default range: the 30 days up to the newest day of the ledger. */
const DEFAULT_DAYS = 30;

export function BalanceSection({ party }: { party: string }) {
  const ledgerDay = useLedgerDay();
  return (
    <Section title="Balance per day">
      <Show loaded={ledgerDay} what="the newest day of the ledger">
        {(day) => <Balances key={day} party={party} newest={day} />}
      </Show>
    </Section>
  );
}

function Balances({ party, newest }: { party: string; newest: string }) {
  const [range, setRange] = useState<DayRange>({ first: addDays(newest, 1 - DEFAULT_DAYS), last: newest });
  const balances = useLoad(() => api.partyDailyBalances(party, range.first, addDays(range.last, 1)), [party, range.first, range.last]);
  return (
    <>
      <DayRangeForm id="balance" value={range} onApply={setRange} button="Show balances" />
      <Show loaded={balances} what="the daily balances">
        {(b) => <BalanceFigures balances={b} />}
      </Show>
    </>
  );
}

function BalanceFigures({ balances }: { balances: PartyDailyBalances }) {
  const { days } = balances;
  const chart = useMemo(
    () => ({
      times: days.map((d) => Date.parse(`${d.day}T00:00:00Z`) / 1000),
      series: [
        { label: 'Unlocked', values: days.map((d) => Number(d.total_unlocked_coin)), color: '#1d4ed8' },
        { label: 'Locked', values: days.map((d) => Number(d.total_locked_coin)), color: '#b45309' },
      ],
    }),
    [days],
  );
  return (
    <>
      <TimeChart label="Unlocked and locked amulet at each UTC day's end" times={chart.times} series={chart.series} />
      <details>
        <summary>Figures of the {days.length} days</summary>
        <Table label="Balance at each day's end" head={['Day', 'Unlocked', 'Locked', 'Holding fees accrued', 'Available', 'Holdings']}>
          {[...days].reverse().map((d) => (
            <tr key={d.day}>
              <td class="day">{d.day}</td>
              <td class="num">{amount(d.total_unlocked_coin)}</td>
              <td class="num">{amount(d.total_locked_coin)}</td>
              <td class="num">{amount(d.accumulated_holding_fees_total)}</td>
              <td class="num">{amount(d.total_available_coin)}</td>
              <td class="num">{d.holdings}</td>
            </tr>
          ))}
        </Table>
      </details>
    </>
  );
}
