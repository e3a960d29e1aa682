import { balanceSheetDates } from './periods';
import { type BucketTotals, balanceSheet, balanceSheetEnds, profitAndLoss } from './statements';

const s = { organizationId: '00000000-0000-4000-8000-000000000001', environment: 'test' as const };
const t = (code: string, bucket: number, debitCents: number, creditCents: number): BucketTotals => ({ code, bucket, debitCents, creditCents });

describe('profit and loss arithmetic', () => {
  it('revenue is credits − debits, expenses debits − credits, per column and in total', () => {
    const cols = [
      { from: '2026-01-01', to: '2026-01-31' },
      { from: '2026-02-01', to: '2026-02-28' },
    ];
    const pl = profitAndLoss(s, { from: '2026-01-01', to: '2026-02-28', basis: 'accrual' }, cols, 1, [
      t('4000', 0, 0, 10_000),
      t('4000', 1, 500, 2_000), // a void of 500 in February
      t('5000', 1, 3_000, 0),
      t('1100', 0, 10_000, 0), // not a P&L account: no row
    ]);
    expect(pl.revenue.map((r) => [r.code, r.amounts_cents, r.total_cents])).toEqual([['4000', [10_000, 1_500], 11_500]]);
    expect(pl.expenses.map((r) => [r.code, r.amounts_cents])).toEqual([
      ['5000', [0, 3_000]],
      ['5200', [0, 0]],
    ]);
    expect(pl.columns.map((c) => c.net_income_cents)).toEqual([10_000, -1_500]);
    expect(pl).toMatchObject({ total_revenue_cents: 11_500, total_expenses_cents: 3_000, net_income_cents: 8_500 });
  });
});

describe('balance sheet arithmetic', () => {
  it('retained earnings close at each fiscal year end, and every column balances', () => {
    const dates = balanceSheetDates('2026-03-31', 'quarter', 4); // fiscal year from April: 2025-06-30 … 2025-12-31, then as_of
    const ends = balanceSheetEnds(dates, 4);
    expect(ends).toEqual(['2025-03-31', '2025-06-30', '2025-09-30', '2025-12-31', '2026-03-31']);
    // 1000 against 4000 before the fiscal year (bucket 0), then each quarter; 2000 against 5000 in the last.
    const rows = [t('1000', 0, 7_000, 0), t('4000', 0, 0, 7_000), t('1000', 2, 1_000, 0), t('4000', 2, 0, 1_000), t('5000', 4, 400, 0), t('2000', 4, 0, 400)];
    const bs = balanceSheet(s, dates, 4, ends, rows);
    expect(bs.columns.map((c) => [c.as_of, c.total_assets_cents, c.total_liabilities_cents, c.retained_earnings_cents, c.current_year_earnings_cents])).toEqual([
      ['2025-06-30', 7_000, 0, 7_000, 0],
      ['2025-09-30', 8_000, 0, 7_000, 1_000],
      ['2025-12-31', 8_000, 0, 7_000, 1_000],
      ['2026-03-31', 8_000, 400, 7_000, 600],
    ]);
    for (const c of bs.columns) expect(c.total_assets_cents).toBe(c.total_liabilities_cents + c.total_equity_cents);
    expect(bs.liabilities.find((r) => r.code === '2000')!.balances_cents).toEqual([0, 0, 0, 400]);
  });

  it('an account outside the chart shows as an asset, and zero balances are 0, never -0', () => {
    const bs = balanceSheet(s, ['2026-01-31'], 1, ['2025-12-31', '2026-01-31'], [t('1999', 1, 50, 0), t('2000', 1, 0, 50), t('2000', 1, 50, 50)]);
    expect(bs.assets.find((r) => r.code === '1999')!.balances_cents).toEqual([50]);
    expect(Object.is(bs.retained_earnings_cents, 0)).toBe(true);
    expect(Object.is(bs.current_year_earnings_cents, 0)).toBe(true);
  });
});
