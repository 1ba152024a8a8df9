/**
 * The amulet supply at the end of each UTC day of a chosen range: one /api/indexer/v0/network/supply
 * per day, at its last microsecond (the API has no daily series of it), a chart and its table.
 */
import { useMemo, useState } from 'preact/hooks';
import { api, type NetworkSupply } from '../api';
import { TimeChart } from '../chart';
import { Section, Show, Table, useLoad } from '../components';
import { useLedgerDay } from '../days';
import { DayRangeForm, type DayRange } from '../day-range';
import { addDays, amount } from '../format';

const DEFAULT_DAYS = 30;
/** One request a day: a longer range is refused here rather than sent as hundreds of requests. */
const MAX_DAYS = 92;
/** Requests in flight at once, so that a range does not crowd out the page's other reads. */
const PARALLEL = 4;

interface SupplyDay extends NetworkSupply {
  day: string;
}

const daysOf = (range: DayRange) => Math.round((Date.parse(range.last) - Date.parse(range.first)) / 86_400_000) + 1;

async function supplyPerDay(range: DayRange): Promise<SupplyDay[]> {
  const count = daysOf(range);
  if (!(count >= 1 && count <= MAX_DAYS)) throw new Error(`Choose from 1 to ${MAX_DAYS} days, the first not after the last.`);
  const days = Array.from({ length: count }, (_, i) => addDays(range.first, i));
  const out: SupplyDay[] = [];
  for (let i = 0; i < days.length; i += PARALLEL) {
    const batch = days.slice(i, i + PARALLEL);
    const answers = await Promise.all(batch.map((day) => api.networkSupply(`${day}T23:59:59.999999Z`)));
    answers.forEach((a, j) => out.push({ ...a, day: batch[j]! }));
  }
  return out;
}

export function SupplyDaysSection() {
  const ledgerDay = useLedgerDay();
  return (
    <Section title="Supply per day">
      <Show loaded={ledgerDay} what="the newest day of the ledger">
        {(day) => <SupplyDays key={day} newest={day} />}
      </Show>
    </Section>
  );
}

function SupplyDays({ newest }: { newest: string }) {
  const [range, setRange] = useState<DayRange>({ first: addDays(newest, 1 - DEFAULT_DAYS), last: newest });
  const supply = useLoad(() => supplyPerDay(range), [range.first, range.last]);
  return (
    <>
      <DayRangeForm id="supply" value={range} onApply={setRange} button="Show supply" />
      <Show loaded={supply} what="the supply per day">
        {(s) => <SupplyFigures days={s} />}
      </Show>
    </>
  );
}

function SupplyFigures({ days }: { days: SupplyDay[] }) {
  const chart = useMemo(
    () => ({
      times: days.map((d) => Date.parse(`${d.day}T00:00:00Z`) / 1000),
      series: [
        { label: 'Unlocked amulet', values: days.map((d) => Number(d.unlocked)), color: '#1d4ed8' },
        { label: 'Locked amulet', values: days.map((d) => Number(d.locked)), color: '#b45309' },
      ],
    }),
    [days],
  );
  return (
    <>
      <p>Initial amounts of the amulets active at each UTC day's end, before holding fees.</p>
      <TimeChart label="Unlocked and locked amulet at each UTC day's end" times={chart.times} series={chart.series} />
      <details>
        <summary>Figures of the {days.length} days</summary>
        <Table label="Supply at each day's end" head={['Day', 'Unlocked', 'Locked', 'Total', 'From snapshot']}>
          {[...days].reverse().map((d) => (
            <tr key={d.day}>
              <td class="day">{d.day}</td>
              <td class="num">{amount(d.unlocked)}</td>
              <td class="num">{amount(d.locked)}</td>
              <td class="num">{amount(d.total)}</td>
              <td>{d.snapshot ?? '—'}</td>
            </tr>
          ))}
        </Table>
      </details>
    </>
  );
}
