import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import { Field, PageTitle } from '../../components/ui';
import { useLoad } from '../../hooks';
import { money, StatusBadge } from './parts';
import { MoneyChart, ReportForm, ReportNav, ReportState, Tiles } from './report-parts';
import { isDay, todayUtc } from './shaping';
import { ColumnsSelect, StatementTable } from './statement-table';
import { balanceSheetRows, balances, type BalanceSheet, type ColumnKind, dateLabels } from './statements';

/** The balance sheet (API-DECISIONS §14): assets, liabilities and equity as of a date (and earlier dates). */
export function BalanceSheetPage() {
  const [draft, setDraft] = useState<{ as_of: string; columns: ColumnKind }>({ as_of: todayUtc(), columns: 'total' });
  const [query, setQuery] = useState(draft);
  const loaded = useLoad(() => api.get<{ data: BalanceSheet }>('/v1/reports/balance-sheet', { ...query }), [query.as_of, query.columns]);
  return (
    <>
      <PageTitle>Reports</PageTitle>
      <ReportNav current="balance-sheet" />
      <section aria-labelledby="bs-title">
        <h2 id="bs-title">Balance sheet</h2>
        <ReportForm label="Balance sheet date" onSubmit={() => isDay(draft.as_of) && setQuery(draft)}>
          <Field label="As of" id="bs-as-of" type="date" required value={draft.as_of} onInput={(e) => setDraft({ ...draft, as_of: e.currentTarget.value })} />
          <ColumnsSelect id="bs-columns" value={draft.columns} onChange={(columns) => setDraft({ ...draft, columns })} />
        </ReportForm>
        <ReportState loaded={loaded} what="the balance sheet">
          {({ data }) => <BalanceSheetBody bs={data} />}
        </ReportState>
      </section>
    </>
  );
}

function BalanceSheetBody({ bs }: { bs: BalanceSheet }) {
  const { rows, liabilitiesAndEquity } = balanceSheetRows(bs);
  const labels = dateLabels(bs.columns);
  const ok = balances(bs);
  return (
    <>
      <p>
        <StatusBadge status={ok ? 'intact' : 'broken'} /> {ok ? 'Assets equal liabilities plus equity.' : 'Assets differ from liabilities plus equity: the books do not balance.'}
      </p>
      <Tiles
        items={[
          ['Total assets', money(bs.total_assets_cents)],
          ['Total liabilities', money(bs.total_liabilities_cents)],
          ['Total equity', money(bs.total_equity_cents)],
        ]}
      />
      <MoneyChart
        empty={null}
        title={`Assets, liabilities and equity as of ${bs.as_of}`}
        type="bar"
        labels={labels}
        series={[
          { label: 'Assets', data: bs.columns.map((c) => c.total_assets_cents) },
          { label: 'Liabilities', data: bs.columns.map((c) => c.total_liabilities_cents) },
          { label: 'Equity', data: bs.columns.map((c) => c.total_equity_cents) },
        ]}
      />
      <StatementTable title={`Balance sheet as of ${bs.as_of}`} labels={labels} rows={rows} foot={['Total liabilities and equity', liabilitiesAndEquity]} />
    </>
  );
}
