/**
 * The amulet supply at the end of each UTC day of a chosen range (its last microsecond): the `supply` of
 * each day of one /api/indexer/v0/network/series?interval=day answer, a chart and its table.
 */
import { useMemo, useState } from 'preact/hooks';
import { api, type NetworkSeries } from '../api';
import { TimeChart } from '../chart';
import { Section, Show, Table, useLoad } from '../components';
import { useLedgerDay } from '../days';
import { DayRangeForm, type DayRange } from '../day-range';
import { addDays, amount } from '../format';

const DEFAULT_DAYS = 30;
/** The longest range the series answers by day. */
const MAX_DAYS = 92;

type Supply = NonNullable<NetworkSeries['periods'][number]['supply']>;
type SupplyDay = Pick<Supply, 'unlocked' | 'locked' | 'total' | 'snapshot'> & { day: string };

/** A day that ends before every migration holds no amulet, as /network/supply answers there. */
const NONE = { unlocked: '0.0000000000', locked: '0.0000000000', total: '0.0000000000', snapshot: null };

const daysOf = (range: DayRange) => Math.round((Date.parse(range.last) - Date.parse(range.first)) / 86_400_000) + 1;

async function supplyPerDay(range: DayRange): Promise<SupplyDay[]> {
  const count = daysOf(range);
  if (!(count >= 1 && count <= MAX_DAYS)) throw new Error(`Choose from 1 to ${MAX_DAYS} days, the first not after the last.`);
  const series = await api.networkSeries('day', `${range.first}T00:00:00Z`, `${addDays(range.last, 1)}T00:00:00Z`);
  return series.periods.map((p) => {
    const s = p.supply ?? NONE;
    return { day: p.start.slice(0, 10), unlocked: s.unlocked, locked: s.locked, total: s.total, snapshot: s.snapshot };
  });
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
