/**
 * A time-series chart (uPlot, drawn on a canvas) with the same figures as a table beneath it, so
 * that the numbers are there for screen readers, keyboards and copying.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

const compactFormat = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
const compact = (n: number) => compactFormat.format(n);

export interface ChartSeries {
  label: string;
  /** One value per x, in the chart's unit. */
  values: number[];
  color: string;
}

export function TimeChart({
  label,
  times,
  series,
  bars = false,
}: {
  /** What the chart shows, for its heading and accessible name. */
  label: string;
  /** Seconds since the epoch, ascending. */
  times: number[];
  series: ChartSeries[];
  bars?: boolean;
}) {
  const holder = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = holder.current;
    if (!element || times.length === 0) return undefined;
    const build = () => {
      const width = Math.max(240, element.clientWidth);
      return new uPlot(
        {
          width,
          height: 220,
          // The legend is ours (below), outside the image role.
          legend: { show: false },
          // Every time on the page is UTC, as the API gives it.
          tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
          cursor: { drag: { x: false, y: false } },
          axes: [{ stroke: '#1f2933' }, { stroke: '#1f2933', size: 64, values: (_u, ticks) => ticks.map(compact) }],
          series: [
            {},
            ...series.map((s) => ({
              label: s.label,
              stroke: s.color,
              fill: bars ? s.color : undefined,
              width: 2,
              paths: bars ? uPlot.paths.bars?.({ size: [0.8, 40] }) : undefined,
              points: { show: !bars && times.length < 60 },
            })),
          ],
        },
        [times, ...series.map((s) => s.values)],
        element,
      );
    };
    let plot = build();
    const resized = new ResizeObserver(() => {
      if (Math.abs(element.clientWidth - plot.width) > 8) {
        plot.destroy();
        plot = build();
      }
    });
    resized.observe(element);
    return () => {
      resized.disconnect();
      plot.destroy();
    };
  }, [times, series, bars]);

  if (times.length === 0) return <p>Nothing to chart yet.</p>;
  return (
    <figure class="chart-figure">
      {/* The plotted points as attributes too, so that a test can read what the canvas draws. */}
      <div
        class="chart"
        ref={holder}
        role="img"
        aria-label={`${label} (the figures are in the table below)`}
        data-times={times.join(',')}
      />
      <figcaption class="legend">
        {series.map((s) => (
          <span key={s.label} class="legend-item" data-values={s.values.join(',')}>
            <span class="swatch" style={{ background: s.color }} aria-hidden="true" />
            {s.label}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
