import type { ComponentChildren } from 'preact';
import { ChartFigure, type ChartProps } from '../../components/chart';
import { ErrorNote, Loading } from '../../components/ui';
import type { Loaded } from '../../hooks';
import { money } from './parts';

/** A report's inputs: applied on submit, so a half-typed date does not ask the server. */
export function ReportForm({ label, onSubmit, children }: { label: string; onSubmit: () => void; children: ComponentChildren }) {
  return (
    <form
      class="report-form"
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {children}
      <button type="submit">Show</button>
    </form>
  );
}

/** Headline figures as tiles (a list: each a label and its value). */
export function Tiles({ items }: { items: [string, ComponentChildren][] }) {
  return (
    <ul class="tiles">
      {items.map(([label, value]) => (
        <li class="tile" key={label}>
          <span class="tile-label">{label}</span>
          <span class="tile-value">{value}</span>
        </li>
      ))}
    </ul>
  );
}

/** Loading, the error (message and request id) or the report. */
export function ReportState<T>({ loaded, what, children }: { loaded: Loaded<T>; what: string; children: (data: T) => ComponentChildren }) {
  return (
    <>
      {loaded.loading ? <Loading what={what} /> : null}
      <ErrorNote error={loaded.error} />
      {loaded.data !== undefined && !loaded.error ? children(loaded.data) : null}
    </>
  );
}

/** Cents on a chart's axis and in its table. */
export const chartMoney = (v: number) => money(v);

/**
 * A chart of amounts, or a sentence when every amount is zero (an empty chart's axis says nothing);
 * `empty` null: nothing, when the table below already says so.
 */
export function MoneyChart(props: Omit<ChartProps, 'format'> & { empty: string | null }) {
  const { empty, ...chart } = props;
  if (chart.series.every((s) => s.data.every((v) => v === 0))) return empty ? <p class="empty">{empty}</p> : null;
  return <ChartFigure {...chart} format={chartMoney} />;
}
