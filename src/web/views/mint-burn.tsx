/** Amulet minted and burned per UTC day over a chosen range (/api/indexer/v0/network/daily-mint-burn): a chart and its table. */
import { useMemo, useState } from 'preact/hooks';
import { api, type DailyMintBurn } from '../api';
import { TimeChart } from '../chart';
import { Figures, Section, Show, Table, useLoad } from '../components';
import { useLedgerDay } from '../days';
import { DayRangeForm, type DayRange } from '../day-range';
import { addDays, amount, count, sumDecimals } from '../format';

/** The default range: the 30 days up to the newest day of the ledger. */
const DEFAULT_DAYS = 30;

export function MintBurnSection() {
  const ledgerDay = useLedgerDay();
  return (
    <Section title="Daily mint and burn">
      <Show loaded={ledgerDay} what="the newest day of the ledger">
        {(day) => <MintBurn key={day} newest={day} />}
      </Show>
    </Section>
  );
}

function MintBurn({ newest }: { newest: string }) {
  const [range, setRange] = useState<DayRange>({ first: addDays(newest, 1 - DEFAULT_DAYS), last: newest });
  const series = useLoad(() => api.dailyMintBurn(range.first, addDays(range.last, 1)), [range.first, range.last]);
  return (
    <>
      <DayRangeForm id="mint-burn" value={range} onApply={setRange} />
      <Show loaded={series} what="the daily mint and burn">
        {(s) => <MintBurnFigures series={s} />}
      </Show>
    </>
  );
}

function MintBurnFigures({ series }: { series: DailyMintBurn }) {
  const { days } = series;
  const chart = useMemo(
    () => ({
      times: days.map((d) => Date.parse(`${d.day}T00:00:00Z`) / 1000),
      series: [
        { label: 'Minted', values: days.map((d) => Number(d.minted.total)), color: '#047857' },
        { label: 'Burned', values: days.map((d) => Number(d.burned.total)), color: '#b91c1c' },
      ],
    }),
    [days],
  );
  const rewards = (d: DailyMintBurn['days'][number]) =>
    sumDecimals([d.minted.app_reward, d.minted.validator_reward, d.minted.sv_reward, d.minted.validator_faucet]);
  return (
    <>
      <Figures
        label="Mint and burn over the range"
        items={[
          ['Minted in the range', amount(sumDecimals(days.map((d) => d.minted.total)))],
          ['Burned in the range', amount(sumDecimals(days.map((d) => d.burned.total)))],
          ['Transfers in the range', count(days.reduce((n, d) => n + d.transfers, 0))],
        ]}
      />
      <TimeChart label="Amulet minted and burned per UTC day" times={chart.times} series={chart.series} bars />
      <Table
        label="Mint and burn per day"
        head={[
          'Day',
          'Minted',
          'Mints',
          'Taps',
          'Rewards claimed',
          'Burned',
          'Fees',
          'Holding fees',
          'Traffic',
          'Transfers',
          'Transfer volume',
        ]}
      >
        {[...days].reverse().map((d) => (
          <tr key={d.day}>
            <td class="day">{d.day}</td>
            <td class="num">{amount(d.minted.total)}</td>
            <td class="num">{amount(d.minted.mint)}</td>
            <td class="num">{amount(d.minted.tap)}</td>
            <td class="num">{amount(rewards(d))}</td>
            <td class="num">{amount(d.burned.total)}</td>
            <td class="num">{amount(d.burned.fees)}</td>
            <td class="num">{amount(d.burned.holding_fees)}</td>
            <td class="num">{amount(d.burned.traffic)}</td>
            <td class="num">{count(d.transfers)}</td>
            <td class="num">{amount(d.transfer_volume)}</td>
          </tr>
        ))}
      </Table>
    </>
  );
}
