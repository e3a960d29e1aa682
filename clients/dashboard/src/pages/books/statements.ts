/**
 * The financial statements' answers (API-DECISIONS §14) and their shaping into table rows and
 * chart series: pure, unit-tested in statements.test.ts.
 */

export type ColumnKind = 'total' | 'month' | 'quarter' | 'year';
export type Basis = 'accrual' | 'cash';
export const COLUMN_KINDS: readonly ColumnKind[] = ['total', 'month', 'quarter', 'year'];
export const BASES: readonly Basis[] = ['accrual', 'cash'];

interface Totals {
  total_revenue_cents: number;
  total_expenses_cents: number;
  net_income_cents: number;
}
interface PlRow {
  account_id: string;
  code: string;
  name: string;
  type: 'revenue' | 'expense';
  amounts_cents: number[];
  total_cents: number;
}
export interface ProfitAndLoss extends Totals {
  from: string;
  to: string;
  basis: Basis;
  fiscal_year_start_month: number;
  columns: (Totals & { from: string; to: string })[];
  revenue: PlRow[];
  expenses: PlRow[];
}

interface BsRow {
  account_id: string;
  code: string;
  name: string;
  type: 'asset' | 'liability' | 'equity';
  balances_cents: number[];
}
interface BsTotals {
  total_assets_cents: number;
  total_liabilities_cents: number;
  retained_earnings_cents: number;
  current_year_earnings_cents: number;
  total_equity_cents: number;
}
export interface BalanceSheet extends BsTotals {
  as_of: string;
  fiscal_year_start_month: number;
  columns: (BsTotals & { as_of: string })[];
  assets: BsRow[];
  liabilities: BsRow[];
  equity: BsRow[];
}

export interface LedgerLine {
  entry_date: string;
  entry_id: string;
  line_no: number;
  source_type: string;
  source_id: string;
  memo: string | null;
  debit_cents: number;
  credit_cents: number;
  running_balance_cents: number;
}
export interface GeneralLedger {
  account_id: string;
  code: string;
  name: string;
  normal_balance: 'debit' | 'credit';
  from: string;
  to: string;
  opening_balance_cents: number;
  lines: LedgerLine[];
  closing_balance_cents: number;
  has_more: boolean;
  next_cursor: string | null;
}

/** A statement table's row: an account (with its code) or a total (no code), amounts per column. */
export interface StatementRow {
  id: string;
  code: string;
  label: string;
  /** The account, for a link to its general ledger; null on a total. */
  accountId: string | null;
  amounts: number[];
  total: boolean;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
export const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** Column headings, made unique (a table's columns are keyed by them). */
function unique(labels: string[]): string[] {
  const seen = new Map<string, number>();
  return labels.map((l) => {
    const n = (seen.get(l) ?? 0) + 1;
    seen.set(l, n);
    return n === 1 ? l : `${l} (${n})`;
  });
}

/** A P&L column's heading: `Nov 2026` for a month, `2026-01-01 to 2026-03-31` otherwise, `Total` for one column. */
export function periodLabels(columns: { from: string; to: string }[], kind: ColumnKind): string[] {
  if (columns.length === 1) return ['Total'];
  return unique(
    columns.map((c) => {
      if (kind === 'month') return `${MONTHS[Number(c.from.slice(5, 7)) - 1] ?? ''} ${c.from.slice(0, 4)}`;
      return `${c.from} to ${c.to}`;
    }),
  );
}

/** A balance sheet column's heading: its date. */
export const dateLabels = (columns: { as_of: string }[]): string[] => unique(columns.map((c) => c.as_of));

const accountRow = (r: { account_id: string; code: string; name: string }, amounts: number[]): StatementRow => ({
  id: r.account_id,
  code: r.code,
  label: r.name,
  accountId: r.account_id,
  amounts,
  total: false,
});
const totalRow = (id: string, label: string, amounts: number[]): StatementRow => ({ id, code: '', label, accountId: null, amounts, total: true });

/**
 * The P&L as rows: revenue accounts, total revenue, expense accounts, total expenses (net income is
 * the footer). With more than one column a last Total column is added.
 */
export function profitAndLossRows(pl: ProfitAndLoss): { rows: StatementRow[]; net: number[] } {
  const many = pl.columns.length > 1;
  const withTotal = (amounts: number[], total: number) => (many ? [...amounts, total] : amounts);
  const cols = (get: (c: Totals) => number, total: number) => withTotal(pl.columns.map(get), total);
  return {
    rows: [
      ...pl.revenue.map((r) => accountRow(r, withTotal(r.amounts_cents, r.total_cents))),
      totalRow(
        'total-revenue',
        'Total revenue',
        cols((c) => c.total_revenue_cents, pl.total_revenue_cents),
      ),
      ...pl.expenses.map((r) => accountRow(r, withTotal(r.amounts_cents, r.total_cents))),
      totalRow(
        'total-expenses',
        'Total expenses',
        cols((c) => c.total_expenses_cents, pl.total_expenses_cents),
      ),
    ],
    net: cols((c) => c.net_income_cents, pl.net_income_cents),
  };
}

/**
 * The balance sheet as rows: assets and their total, liabilities and their total, equity accounts,
 * retained earnings, current year earnings and total equity; the footer is liabilities + equity.
 */
export function balanceSheetRows(bs: BalanceSheet): { rows: StatementRow[]; liabilitiesAndEquity: number[] } {
  const per = (get: (c: BsTotals) => number) => bs.columns.map(get);
  return {
    rows: [
      ...bs.assets.map((r) => accountRow(r, r.balances_cents)),
      totalRow(
        'total-assets',
        'Total assets',
        per((c) => c.total_assets_cents),
      ),
      ...bs.liabilities.map((r) => accountRow(r, r.balances_cents)),
      totalRow(
        'total-liabilities',
        'Total liabilities',
        per((c) => c.total_liabilities_cents),
      ),
      ...bs.equity.map((r) => accountRow(r, r.balances_cents)),
      totalRow(
        'retained-earnings',
        'Retained earnings',
        per((c) => c.retained_earnings_cents),
      ),
      totalRow(
        'current-year-earnings',
        'Current year earnings',
        per((c) => c.current_year_earnings_cents),
      ),
      totalRow(
        'total-equity',
        'Total equity',
        per((c) => c.total_equity_cents),
      ),
    ],
    liabilitiesAndEquity: per((c) => c.total_liabilities_cents + c.total_equity_cents),
  };
}

/** Assets = liabilities + equity at every column's date. */
export const balances = (bs: BalanceSheet): boolean =>
  bs.columns.every((c) => c.total_assets_cents === c.total_liabilities_cents + c.total_equity_cents) &&
  bs.total_assets_cents === bs.total_liabilities_cents + bs.total_equity_cents;

/**
 * The general ledger's pages: the cursors that opened each page so far (undefined: the first), so
 * Previous goes back without the server walking backwards.
 */
export const nextPages = (pages: (string | undefined)[], cursor: string | null): (string | undefined)[] => (cursor ? [...pages, cursor] : pages);
export const previousPages = (pages: (string | undefined)[]): (string | undefined)[] => (pages.length > 1 ? pages.slice(0, -1) : pages);
