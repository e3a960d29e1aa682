import { balanceSheetRows, balances, type BalanceSheet, dateLabels, nextPages, periodLabels, previousPages, type ProfitAndLoss, profitAndLossRows } from './statements';

const col = (from: string, to: string, rev: number, exp: number) => ({ from, to, total_revenue_cents: rev, total_expenses_cents: exp, net_income_cents: rev - exp });

const PL: ProfitAndLoss = {
  from: '2026-01-15',
  to: '2026-02-10',
  basis: 'accrual',
  fiscal_year_start_month: 1,
  columns: [col('2026-01-15', '2026-01-31', 10_000, 2_500), col('2026-02-01', '2026-02-10', 5_001, 0)],
  revenue: [
    { account_id: 'r1', code: '4000', name: 'Sales', type: 'revenue', amounts_cents: [10_500, 5_001], total_cents: 15_501 },
    { account_id: 'r2', code: '4900', name: 'Sales returns', type: 'revenue', amounts_cents: [-500, 0], total_cents: -500 },
  ],
  expenses: [{ account_id: 'e1', code: '5000', name: 'Expenses', type: 'expense', amounts_cents: [2_500, 0], total_cents: 2_500 }],
  total_revenue_cents: 15_001,
  total_expenses_cents: 2_500,
  net_income_cents: 12_501,
};

describe('profit and loss rows', () => {
  it('lists revenue, total revenue, expenses and total expenses, with a Total column after the periods', () => {
    const { rows, net } = profitAndLossRows(PL);
    expect(rows.map((r) => [r.code, r.label, r.amounts, r.total])).toEqual([
      ['4000', 'Sales', [10_500, 5_001, 15_501], false],
      ['4900', 'Sales returns', [-500, 0, -500], false],
      ['', 'Total revenue', [10_000, 5_001, 15_001], true],
      ['5000', 'Expenses', [2_500, 0, 2_500], false],
      ['', 'Total expenses', [2_500, 0, 2_500], true],
    ]);
    expect(net).toEqual([7_500, 5_001, 12_501]);
    expect(rows.filter((r) => r.total).every((r) => r.accountId === null)).toBe(true);
  });

  it('has no extra Total column when the statement has one column', () => {
    const one = { ...PL, columns: [col('2026-01-15', '2026-02-10', 15_001, 2_500)], revenue: [], expenses: [] };
    expect(profitAndLossRows(one).net).toEqual([12_501]);
    expect(periodLabels(one.columns, 'total')).toEqual(['Total']);
  });

  it('heads month columns by month, others by their dates', () => {
    expect(periodLabels(PL.columns, 'month')).toEqual(['Jan 2026', 'Feb 2026']);
    expect(periodLabels(PL.columns, 'quarter')).toEqual(['2026-01-15 to 2026-01-31', '2026-02-01 to 2026-02-10']);
  });
});

const bsCol = (as_of: string, assets: number, liabilities: number, retained: number, current: number, equityAccounts = 0) => ({
  as_of,
  total_assets_cents: assets,
  total_liabilities_cents: liabilities,
  retained_earnings_cents: retained,
  current_year_earnings_cents: current,
  total_equity_cents: equityAccounts + retained + current,
});

const BS: BalanceSheet = {
  as_of: '2026-11-28',
  fiscal_year_start_month: 1,
  columns: [bsCol('2025-12-31', 1_000, 400, 0, 600), bsCol('2026-11-28', 2_345, 345, 600, 1_400)],
  assets: [{ account_id: 'a1', code: '1000', name: 'Cash', type: 'asset', balances_cents: [1_000, 2_345] }],
  liabilities: [{ account_id: 'l1', code: '2000', name: 'A/P', type: 'liability', balances_cents: [400, 345] }],
  equity: [],
  total_assets_cents: 2_345,
  total_liabilities_cents: 345,
  retained_earnings_cents: 600,
  current_year_earnings_cents: 1_400,
  total_equity_cents: 2_000,
};

describe('balance sheet rows', () => {
  it('lists assets, liabilities and equity with retained and current year earnings and the totals', () => {
    const { rows, liabilitiesAndEquity } = balanceSheetRows(BS);
    expect(rows.map((r) => [r.label, r.amounts])).toEqual([
      ['Cash', [1_000, 2_345]],
      ['Total assets', [1_000, 2_345]],
      ['A/P', [400, 345]],
      ['Total liabilities', [400, 345]],
      ['Retained earnings', [0, 600]],
      ['Current year earnings', [600, 1_400]],
      ['Total equity', [600, 2_000]],
    ]);
    expect(liabilitiesAndEquity).toEqual([1_000, 2_345]);
    expect(dateLabels(BS.columns)).toEqual(['2025-12-31', '2026-11-28']);
    expect(dateLabels([{ as_of: '2026-11-28' }, { as_of: '2026-11-28' }])).toEqual(['2026-11-28', '2026-11-28 (2)']);
  });

  it('says whether assets equal liabilities plus equity at every date', () => {
    expect(balances(BS)).toBe(true);
    expect(balances({ ...BS, columns: [bsCol('2025-12-31', 1_001, 400, 0, 600), BS.columns[1]!] })).toBe(false);
  });
});

describe('general ledger pages', () => {
  it('walks forward by cursor and back by the cursors seen', () => {
    let pages: (string | undefined)[] = [undefined];
    pages = nextPages(pages, 'c1');
    pages = nextPages(pages, 'c2');
    expect(pages).toEqual([undefined, 'c1', 'c2']);
    expect(nextPages(pages, null)).toBe(pages);
    pages = previousPages(pages);
    expect(pages).toEqual([undefined, 'c1']);
    expect(previousPages([undefined])).toEqual([undefined]);
  });
});
