import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import { Field, PageTitle } from '../../components/ui';
import { useLoad } from '../../hooks';
import { money } from './parts';
import { MoneyChart, ReportForm, ReportNav, ReportState, Tiles } from './report-parts';
import { isDay, startOfYear, todayUtc } from './shaping';
import { ColumnsSelect, StatementTable } from './statement-table';
import { BASES, type Basis, type ColumnKind, periodLabels, type ProfitAndLoss, profitAndLossRows } from './statements';

interface Query {
  from: string;
  to: string;
  columns: ColumnKind;
  basis: Basis;
}

/** Profit and loss (API-DECISIONS §14): revenue and expense accounts per period, their totals and net income. */
export function ProfitAndLossPage() {
  const [draft, setDraft] = useState<Query>({ from: startOfYear(), to: todayUtc(), columns: 'total', basis: 'accrual' });
  const [query, setQuery] = useState(draft);
  const loaded = useLoad(() => api.get<{ data: ProfitAndLoss }>('/v1/reports/profit-and-loss', { ...query }), [query.from, query.to, query.columns, query.basis]);
  return (
    <>
      <PageTitle>Reports</PageTitle>
      <ReportNav current="profit-and-loss" />
      <section aria-labelledby="pl-title">
        <h2 id="pl-title">Profit and loss</h2>
        <ReportForm label="Profit and loss period" onSubmit={() => isDay(draft.from) && isDay(draft.to) && setQuery(draft)}>
          <Field label="From" id="pl-from" type="date" required value={draft.from} onInput={(e) => setDraft({ ...draft, from: e.currentTarget.value })} />
          <Field label="To" id="pl-to" type="date" required value={draft.to} onInput={(e) => setDraft({ ...draft, to: e.currentTarget.value })} />
          <ColumnsSelect id="pl-columns" value={draft.columns} onChange={(columns) => setDraft({ ...draft, columns })} />
          <div class="field">
            <label for="pl-basis">Basis</label>
            <select id="pl-basis" value={draft.basis} onChange={(e) => setDraft({ ...draft, basis: e.currentTarget.value as Basis })}>
              {BASES.map((b) => (
                <option value={b} key={b}>
                  {b === 'cash' ? 'Cash' : 'Accrual'}
                </option>
              ))}
            </select>
          </div>
        </ReportForm>
        <ReportState loaded={loaded} what="the profit and loss">
          {({ data }) => <ProfitAndLossBody pl={data} kind={query.columns} />}
        </ReportState>
      </section>
    </>
  );
}

function ProfitAndLossBody({ pl, kind }: { pl: ProfitAndLoss; kind: ColumnKind }) {
  const { rows, net } = profitAndLossRows(pl);
  const periods = periodLabels(pl.columns, kind);
  const labels = pl.columns.length > 1 ? [...periods, 'Total'] : periods;
  const title = `Profit and loss, ${pl.from} to ${pl.to} (${pl.basis} basis)`;
  return (
    <>
      <Tiles
        items={[
          ['Revenue', money(pl.total_revenue_cents)],
          ['Expenses', money(pl.total_expenses_cents)],
          ['Net income', money(pl.net_income_cents)],
        ]}
      />
      <MoneyChart
        empty="No revenue or expense in this period."
        title={`Revenue and expenses, ${pl.from} to ${pl.to}`}
        type="bar"
        labels={periods}
        series={[
          { label: 'Revenue', data: pl.columns.map((c) => c.total_revenue_cents) },
          { label: 'Expenses', data: pl.columns.map((c) => c.total_expenses_cents) },
          { label: 'Net income', data: pl.columns.map((c) => c.net_income_cents) },
        ]}
      />
      <StatementTable title={title} labels={labels} rows={rows} foot={['Net income', net]} />
    </>
  );
}
