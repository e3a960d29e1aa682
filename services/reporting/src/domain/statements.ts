import type { BalanceSheetDto, Basis, ProfitAndLossDto } from '@acct/contracts';
import { type AccountDef, DEFAULT_CHART, type LedgerEnvironment, accountId } from '@acct/ledger';
import { type Period, previousFiscalYearEnd, sortedEnds } from './periods';

/** The statements' arithmetic (API-DECISIONS §14) over totals per account and day bucket: pure. */

/**
 * Debit and credit totals of one account over one bucket of days: bucket b holds the days after
 * ends[b − 1] up to ends[b] (bucket 0: every day up to ends[0] that the query reads).
 */
export interface BucketTotals {
  code: string;
  bucket: number;
  debitCents: number;
  creditCents: number;
}

/** The chart's accounts and any other code seen (an asset, as chartWithTotals shows it), by code. */
export function accountsOf(codes: Iterable<string>): AccountDef[] {
  const known = new Map(DEFAULT_CHART.map((a) => [a.code, a]));
  for (const code of codes) if (!known.has(code)) known.set(code, { code, name: `Account ${code}`, type: 'asset', subtype: null });
  return [...known.values()].sort((a, b) => a.code.localeCompare(b.code));
}

const creditNormal = (type: AccountDef['type']) => type === 'liability' || type === 'equity' || type === 'revenue';
/** Debits − credits as an amount on the account's normal side. */
const onNormalSide = (a: AccountDef, net: number) => (creditNormal(a.type) ? 0 - net : net);

/** Per code, the debits − credits of each bucket. */
function netByBucket(rows: readonly BucketTotals[], buckets: number): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const r of rows) {
    let a = out.get(r.code);
    if (!a) out.set(r.code, (a = new Array<number>(buckets).fill(0)));
    a[r.bucket] = (a[r.bucket] ?? 0) + r.debitCents - r.creditCents;
  }
  return out;
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
const plus = (a: readonly number[], b: readonly number[]) => a.map((x, i) => x + (b[i] ?? 0));

interface Scope {
  organizationId: string;
  environment: LedgerEnvironment;
}

/** The profit and loss: rows bucketed by column (bucket i = column i). */
export function profitAndLoss(s: Scope, period: Period & { basis: Basis }, columns: readonly Period[], startMonth: number, rows: readonly BucketTotals[]): ProfitAndLossDto {
  const nets = netByBucket(rows, columns.length);
  const zero = columns.map(() => 0);
  const rowsOf = (type: 'revenue' | 'expense') =>
    accountsOf(nets.keys())
      .filter((a) => a.type === type)
      .map((a) => {
        const amounts = (nets.get(a.code) ?? zero).map((net) => onNormalSide(a, net));
        return { account_id: accountId(s.organizationId, s.environment, a.code), code: a.code, name: a.name, type, amounts_cents: amounts, total_cents: sum(amounts) };
      });
  const revenue = rowsOf('revenue');
  const expenses = rowsOf('expense');
  const rev = revenue.reduce((acc, r) => plus(acc, r.amounts_cents), zero);
  const exp = expenses.reduce((acc, r) => plus(acc, r.amounts_cents), zero);
  return {
    from: period.from,
    to: period.to,
    basis: period.basis,
    fiscal_year_start_month: startMonth,
    columns: columns.map((c, i) => ({ ...c, total_revenue_cents: rev[i]!, total_expenses_cents: exp[i]!, net_income_cents: rev[i]! - exp[i]! })),
    revenue,
    expenses,
    total_revenue_cents: sum(rev),
    total_expenses_cents: sum(exp),
    net_income_cents: sum(rev) - sum(exp),
  };
}

/** The codes of the chart's revenue and expense accounts (the P&L's rows). */
export const PL_CODES: readonly string[] = DEFAULT_CHART.filter((a) => a.type === 'revenue' || a.type === 'expense').map((a) => a.code);

/** The bucket ends a balance sheet's query needs: each column's date and the end of the fiscal year before it. */
export function balanceSheetEnds(dates: readonly string[], startMonth: number): string[] {
  return sortedEnds([...dates, ...dates.map((d) => previousFiscalYearEnd(d, startMonth))]);
}

type BsColumn = BalanceSheetDto['columns'][number];

/** The balance sheet at each date (ascending; the last is as_of), from every line up to the last date bucketed by `ends` (balanceSheetEnds). */
export function balanceSheet(s: Scope, dates: readonly string[], startMonth: number, ends: readonly string[], rows: readonly BucketTotals[]): BalanceSheetDto {
  const nets = netByBucket(rows, ends.length);
  const accounts = accountsOf(nets.keys());
  /** Debits − credits of a code over every day up to d. */
  const netUpTo = (code: string, d: string) => sum((nets.get(code) ?? []).filter((_, b) => ends[b]! <= d));
  /** Net income (credits − debits of revenue and expense accounts) over every day up to d. */
  const earningsUpTo = (d: string) => 0 - sum(accounts.filter((a) => a.type === 'revenue' || a.type === 'expense').map((a) => netUpTo(a.code, d)));
  const rowsOf = (type: 'asset' | 'liability' | 'equity') =>
    accounts
      .filter((a) => a.type === type)
      .map((a) => ({
        account_id: accountId(s.organizationId, s.environment, a.code),
        code: a.code,
        name: a.name,
        type,
        balances_cents: dates.map((d) => onNormalSide(a, netUpTo(a.code, d))),
      }));
  const assets = rowsOf('asset');
  const liabilities = rowsOf('liability');
  const equity = rowsOf('equity');
  const columnTotal = (rs: typeof assets, i: number) => sum(rs.map((r) => r.balances_cents[i]!));
  const columns: BsColumn[] = dates.map((d, i) => {
    const retained = earningsUpTo(previousFiscalYearEnd(d, startMonth));
    const current = earningsUpTo(d) - retained;
    return {
      as_of: d,
      total_assets_cents: columnTotal(assets, i),
      total_liabilities_cents: columnTotal(liabilities, i),
      retained_earnings_cents: retained,
      current_year_earnings_cents: current,
      total_equity_cents: columnTotal(equity, i) + retained + current,
    };
  });
  const last = columns[columns.length - 1]!;
  return {
    as_of: last.as_of,
    fiscal_year_start_month: startMonth,
    columns,
    assets,
    liabilities,
    equity,
    total_assets_cents: last.total_assets_cents,
    total_liabilities_cents: last.total_liabilities_cents,
    retained_earnings_cents: last.retained_earnings_cents,
    current_year_earnings_cents: last.current_year_earnings_cents,
    total_equity_cents: last.total_equity_cents,
  };
}
