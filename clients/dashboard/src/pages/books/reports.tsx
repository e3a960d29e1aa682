import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import type { Column } from '../../components/list';
import { Field, PageTitle } from '../../components/ui';
import { useLoad } from '../../hooks';
import { money, StaticTable, StatusBadge } from './parts';
import { ReportForm, ReportNav, ReportState, REPORTS, Tiles, MoneyChart, monthlyRevenue } from './report-parts';
import { AgingReport, PAYABLE, RECEIVABLE } from './reports-aging';
import { isDay, monthsBetween, startOfYear, todayUtc, trialBalanceRows } from './shaping';
import { Tax1099Report } from './reports-1099';
import { LedgerLink } from './statement-table';
import type { SummaryReport, TrialBalance } from './types';

/** The reports (API-DECISIONS §8), one at a time: `/reports/<report>`, the summary by default. */
export function ReportsPage({ report }: { report?: string }) {
  const current = REPORTS.find((r) => r.key === report) ?? REPORTS[0];
  return (
    <>
      <PageTitle>Reports</PageTitle>
      <ReportNav current={current.key} />
      {current.key === 'summary' ? <Summary /> : null}
      {current.key === 'receivable' ? <AgingReport side={RECEIVABLE} /> : null}
      {current.key === 'payable' ? <AgingReport side={PAYABLE} /> : null}
      {current.key === '1099' ? <Tax1099Report /> : null}
      {current.key === 'trial-balance' ? <TrialBalanceReport /> : null}
    </>
  );
}

type MonthRow = { id: string; label: string; revenue: number };
const MONTH_COLUMNS: Column<MonthRow>[] = [
  { label: 'Month', value: (m) => m.label },
  { label: 'Revenue', value: (m) => m.revenue / 100, render: (m) => money(m.revenue), numeric: true },
];

/** The summary of a period (revenue, A/R and A/P at its end) and its revenue month by month. */
function Summary() {
  const [draft, setDraft] = useState({ from: startOfYear(), to: todayUtc() });
  const [period, setPeriod] = useState(draft);
  const loaded = useLoad(async () => {
    const months = monthsBetween(period.from, period.to);
    const [summary, monthly] = await Promise.all([api.get<{ data: SummaryReport }>('/v1/reports/summary', period), monthlyRevenue(months)]);
    return { summary: summary.data, monthly };
  }, [period.from, period.to]);
  return (
    <section aria-labelledby="summary-title">
      <h2 id="summary-title">Summary</h2>
      <ReportForm label="Summary period" onSubmit={() => isDay(draft.from) && isDay(draft.to) && setPeriod(draft)}>
        <Field label="From" id="summary-from" type="date" required value={draft.from} onInput={(e) => setDraft({ ...draft, from: e.currentTarget.value })} />
        <Field label="To" id="summary-to" type="date" required value={draft.to} onInput={(e) => setDraft({ ...draft, to: e.currentTarget.value })} />
      </ReportForm>
      <ReportState loaded={loaded} what="the summary">
        {({ summary, monthly }) => {
          const rows = monthly.labels.map((label, i) => ({ id: label, label, revenue: monthly.revenue[i] ?? 0 }));
          return (
            <>
              <Tiles
                items={[
                  ['Revenue', money(summary.revenue_cents)],
                  [`Receivable on ${summary.to}`, money(summary.accounts_receivable_cents)],
                  [`Payable on ${summary.to}`, money(summary.accounts_payable_cents)],
                ]}
              />
              <MoneyChart
                empty="No revenue in this period."
                title={`Revenue by month, ${summary.from} to ${summary.to}`}
                type="bar"
                labels={monthly.labels}
                series={[{ label: 'Revenue', data: monthly.revenue }]}
              />
              <StaticTable title={`Revenue by month, ${summary.from} to ${summary.to}`} columns={MONTH_COLUMNS} rows={rows} foot={['Total', money(summary.revenue_cents)]} />
            </>
          );
        }}
      </ReportState>
    </section>
  );
}

type TbRow = TrialBalance['accounts'][number] & { id: string };
const TB_COLUMNS: Column<TbRow>[] = [
  { label: 'Code', value: (a) => a.code, render: (a) => <code>{a.code}</code> },
  { label: 'Account', value: (a) => a.name, render: (a) => <LedgerLink accountId={a.account_id}>{a.name}</LedgerLink> },
  { label: 'Type', value: (a) => a.type },
  { label: 'Debit', value: (a) => a.debit_cents / 100, render: (a) => money(a.debit_cents), numeric: true },
  { label: 'Credit', value: (a) => a.credit_cents / 100, render: (a) => money(a.credit_cents), numeric: true },
];

/** Every account's debit and credit totals as of a date; the two columns are equal. */
function TrialBalanceReport() {
  const [draft, setDraft] = useState(todayUtc());
  const [asOf, setAsOf] = useState(draft);
  const loaded = useLoad(() => api.get<{ data: TrialBalance }>('/v1/reports/trial-balance', { as_of: asOf }), [asOf]);
  return (
    <section aria-labelledby="tb-title">
      <h2 id="tb-title">Trial balance</h2>
      <ReportForm label="Trial balance date" onSubmit={() => isDay(draft) && setAsOf(draft)}>
        <Field label="As of" id="tb-as-of" type="date" required value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
      </ReportForm>
      <ReportState loaded={loaded} what="the trial balance">
        {({ data: tb }) => {
          const rows = trialBalanceRows(tb).map((a) => ({ ...a, id: a.account_id }));
          return (
            <>
              <p>
                <StatusBadge status={tb.balanced ? 'intact' : 'broken'} /> {tb.balanced ? 'Debits equal credits.' : 'Debits and credits differ: the books do not balance.'}
              </p>
              <MoneyChart
                empty={null}
                title={`Trial balance as of ${tb.as_of}`}
                type="bar"
                labels={rows.map((a) => `${a.code} ${a.name}`)}
                series={[
                  { label: 'Debit', data: rows.map((a) => a.debit_cents) },
                  { label: 'Credit', data: rows.map((a) => a.credit_cents) },
                ]}
              />
              <StaticTable
                title={`Trial balance as of ${tb.as_of}`}
                columns={TB_COLUMNS}
                rows={rows}
                foot={['Total', '', '', money(tb.total_debit_cents), money(tb.total_credit_cents)]}
                empty="No account has moved yet."
              />
            </>
          );
        }}
      </ReportState>
    </section>
  );
}
