/** A range of UTC days, first and last inclusive, chosen in two date fields and applied by a button. */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export interface DayRange {
  /** YYYY-MM-DD, or '' when open. */
  first: string;
  last: string;
}

export function DayRangeForm({
  id,
  value,
  onApply,
  button = 'Show',
  optional = false,
  children,
}: {
  /** Prefix of the fields' ids. */
  id: string;
  value: DayRange;
  onApply: (range: DayRange) => void;
  button?: string;
  /** Whether either day may be left empty (an open range). */
  optional?: boolean;
  /** More fields, before the days. */
  children?: ComponentChildren;
}) {
  const [range, setRange] = useState(value);
  useEffect(() => setRange(value), [value.first, value.last]);
  return (
    <form
      class="controls range-form"
      onSubmit={(e) => {
        e.preventDefault();
        onApply(range);
      }}
    >
      {children}
      <span class="field">
        <label for={`${id}-first`}>First day</label>
        <input
          id={`${id}-first`}
          type="date"
          value={range.first}
          required={!optional}
          onInput={(e) => setRange({ ...range, first: e.currentTarget.value })}
        />
      </span>
      <span class="field">
        <label for={`${id}-last`}>Last day</label>
        <input
          id={`${id}-last`}
          type="date"
          value={range.last}
          required={!optional}
          onInput={(e) => setRange({ ...range, last: e.currentTarget.value })}
        />
      </span>
      <button type="submit">{button}</button>
      <span class="muted">UTC days, both included.</span>
    </form>
  );
}
