import type { Column } from '../../components/list';
import { href } from '../../paths';
import { money, StaticTable } from './parts';
import { COLUMN_KINDS, type ColumnKind, type StatementRow } from './statements';

/** A link to an account's general ledger (`/reports/general-ledger?account_id=…`). */
export function LedgerLink({ accountId, children }: { accountId: string; children: string }) {
  return <a href={href(`/reports/general-ledger?account_id=${encodeURIComponent(accountId)}`)}>{children}</a>;
}

function statementColumns(labels: string[]): Column<StatementRow>[] {
  return [
    { label: 'Code', value: (r) => r.code, render: (r) => (r.code ? <code>{r.code}</code> : '') },
    {
      label: 'Account',
      value: (r) => r.label,
      render: (r) => (r.total ? <strong>{r.label}</strong> : r.accountId ? <LedgerLink accountId={r.accountId}>{r.label}</LedgerLink> : r.label),
    },
    ...labels.map((label, i): Column<StatementRow> => ({
      label,
      value: (r) => (r.amounts[i] ?? 0) / 100,
      render: (r) => (r.total ? <strong>{money(r.amounts[i])}</strong> : money(r.amounts[i])),
      numeric: true,
    })),
  ];
}

/** A statement: a row per account and totals, a column per period or date, the footer's total; CSV of the same. */
export function StatementTable({ title, labels, rows, foot }: { title: string; labels: string[]; rows: StatementRow[]; foot: [string, number[]] }) {
  return <StaticTable title={title} columns={statementColumns(labels)} rows={rows} foot={[foot[0], '', ...foot[1].map((c) => money(c))]} />;
}

const KIND_TEXT: Record<ColumnKind, string> = { total: 'Total only', month: 'By month', quarter: 'By quarter', year: 'By year' };

/** The columns select of a statement. */
export function ColumnsSelect({ id, value, onChange }: { id: string; value: ColumnKind; onChange: (v: ColumnKind) => void }) {
  return (
    <div class="field">
      <label for={id}>Columns</label>
      <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value as ColumnKind)}>
        {COLUMN_KINDS.map((k) => (
          <option value={k} key={k}>
            {KIND_TEXT[k]}
          </option>
        ))}
      </select>
    </div>
  );
}
