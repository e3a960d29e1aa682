import type { ComponentChildren } from 'preact';
import { ChartFigure, type ChartProps } from '../../components/chart';
import { ErrorNote, Loading } from '../../components/ui';
import type { Loaded } from '../../hooks';
import { href } from '../../paths';
import { api } from '../../api/client';
import { money } from './parts';
import type { MonthPeriod } from './shaping';
import type { SummaryReport } from './types';

/**
 * Revenue month by month (the overview's chart, the summary): the summary report asked once per
 * month, all at once (the API has no monthly series; twelve small reads of reporting's projection).
 * Here rather than a module of its own, which made a chunk too small to be compressed.
 */
export async function monthlyRevenue(months: readonly MonthPeriod[]): Promise<{ labels: string[]; revenue: number[] }> {
  const answers = await Promise.all(months.map((m) => api.get<{ data: SummaryReport }>('/v1/reports/summary', { from: m.from, to: m.to })));
  return { labels: months.map((m) => m.label), revenue: answers.map((a) => a.data.revenue_cents) };
}

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

/** Every report, each at `/reports/<key>` (the statements are pages of their own, in their own chunks). */
export const REPORTS = [
  { key: 'summary', label: 'Summary' },
  { key: 'profit-and-loss', label: 'Profit and loss' },
  { key: 'balance-sheet', label: 'Balance sheet' },
  { key: 'receivable', label: 'Accounts receivable' },
  { key: 'payable', label: 'Accounts payable' },
  { key: '1099', label: '1099 summary' },
  { key: 'trial-balance', label: 'Trial balance' },
  { key: 'general-ledger', label: 'General ledger' },
] as const;

/** The reports' navigation, the current one marked. */
export function ReportNav({ current }: { current: string }) {
  return (
    <nav class="report-nav" aria-label="Reports">
      <ul>
        {REPORTS.map((r) => (
          <li key={r.key}>
            <a href={href(`/reports/${r.key}`)} aria-current={r.key === current ? 'page' : undefined}>
              {r.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
