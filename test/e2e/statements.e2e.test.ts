import { compileBody, schemas } from '@acct/contracts';
import { accountId } from '@acct/ledger';
import type { E2E, Keys } from './harness';
import {
  type Api,
  createCustomer,
  createOpenInvoice,
  dataCalls,
  expectError,
  paymentBody,
  payoutBody,
  billBody,
  vendorPaymentBody,
  startReceivablesE2E,
  uid,
} from './receivables.helpers';

const rep = schemas.reporting;

/**
 * The financial statements through the gateway (API-DECISIONS §14): invoices paid in cash and through
 * a processor with its payout and fee, a bill and its vendor payment; the P&L by month, the balance
 * sheet, the general ledger's pages and the fiscal year setting, read right after the writes, each
 * checked to the cent and against its schema; bad input is 400, never 5xx.
 */
describe('e2e: financial statements through the gateway', () => {
  let e2e: E2E;
  let keys: Keys;
  let api: Api;

  const { get, ok } = dataCalls(() => api);

  beforeAll(async () => {
    ({ e2e, keys, api } = await startReceivablesE2E('Statements org'));
    const c1 = await createCustomer(api, 'Alpha');
    const i1 = await createOpenInvoice(api, c1, 100_000, { issue_date: '2026-01-05', due_date: '2026-02-04' });
    await ok('POST', '/api/v1/payments', paymentBody(i1.id, 60_000, { received_at: '2026-01-20' }));
    const i2 = await createOpenInvoice(api, c1, 50_000, { issue_date: '2026-02-01', due_date: '2026-03-03' });
    await ok('POST', '/api/v1/payments', paymentBody(i2.id, 50_000, { received_at: '2026-02-10', source: 'processor', processor: 'stripe' }));
    await ok('POST', '/api/v1/processor-payouts', payoutBody('2026-02-12', 50_000, 1_500));
    const v = await ok('POST', '/api/v1/vendors', { external_vendor_id: uid('ven'), display_name: 'Supplier' });
    const b = await ok('POST', '/api/v1/bills', billBody(v.id, 20_000, '2026-01-15', '2026-02-14', 'B1'));
    await ok('POST', '/api/v1/vendor-payments', vendorPaymentBody(v.id, b.id, 20_000, '2026-02-20'));
  }, 120_000);
  afterAll(async () => e2e?.stop());

  it('profit and loss by month: January 100000 − 20000, February 50000 − the 1500 fee', async () => {
    const pl = await get('/api/v1/reports/profit-and-loss?from=2026-01-01&to=2026-02-28&columns=month', compileBody(rep.profitAndLossResponse));
    expect(pl.columns.map((c: any) => [c.total_revenue_cents, c.total_expenses_cents, c.net_income_cents])).toEqual([
      [100_000, 20_000, 80_000],
      [50_000, 1_500, 48_500],
    ]);
    expect(pl).toMatchObject({ total_revenue_cents: 150_000, total_expenses_cents: 21_500, net_income_cents: 128_500 });
  });

  it('cash basis by month: what was paid (60000 of I1, all of I2), the fee at the payout, the bill when paid', async () => {
    const pl = await get('/api/v1/reports/profit-and-loss?from=2026-01-01&to=2026-02-28&columns=month&basis=cash', compileBody(rep.profitAndLossResponse));
    expect(pl.columns.map((c: any) => [c.total_revenue_cents, c.total_expenses_cents, c.net_income_cents])).toEqual([
      [60_000, 0, 60_000],
      [50_000, 21_500, 28_500],
    ]);
    // Accrual less cash: the 40000 of I1 still open.
    expect(pl).toMatchObject({ basis: 'cash', total_revenue_cents: 110_000, total_expenses_cents: 21_500, net_income_cents: 88_500 });
    expectError(await api('GET', '/api/v1/reports/profit-and-loss?from=2026-01-01&to=2026-02-28&basis=cashflow'), 400, 'validation_failed');
  });

  it('balance sheet: cash 40000, bank 48500, A/R 40000; assets = liabilities + equity', async () => {
    const bs = await get('/api/v1/reports/balance-sheet?as_of=2026-02-28&columns=month', compileBody(rep.balanceSheetResponse));
    const bal = Object.fromEntries(bs.assets.map((r: any) => [r.code, r.balances_cents.at(-1)]));
    expect(bal).toEqual({ '1000': 40_000, '1010': 48_500, '1100': 40_000, '1200': 0 });
    expect(bs).toMatchObject({
      total_assets_cents: 128_500,
      total_liabilities_cents: 0,
      retained_earnings_cents: 0,
      current_year_earnings_cents: 128_500,
      total_equity_cents: 128_500,
    });
    for (const c of bs.columns) expect(c.total_assets_cents).toBe(c.total_liabilities_cents + c.total_equity_cents);
  });

  it('general ledger of A/R in pages of 3: running balances 100000, 40000, 90000, 40000', async () => {
    const q = `/api/v1/reports/general-ledger?account_id=${accountId(keys.organization_id, 'test', '1100')}&from=2026-01-01&to=2026-02-28&limit=3`;
    const p1 = await get(q, compileBody(rep.generalLedgerResponse));
    expect(p1.lines.map((l: any) => l.running_balance_cents)).toEqual([100_000, 40_000, 90_000]);
    expect(p1).toMatchObject({ opening_balance_cents: 0, closing_balance_cents: 40_000, has_more: true });
    const p2 = await get(`${q}&cursor=${p1.next_cursor}`);
    expect(p2.lines.map((l: any) => [l.source_type, l.credit_cents, l.running_balance_cents])).toEqual([['payment', 50_000, 40_000]]);
    expect(p2.next_cursor).toBeNull();
  });

  it('the fiscal year setting: default 1, set to 2, refused out of 1–12', async () => {
    expect(await get('/api/v1/settings/fiscal-year', compileBody(rep.fiscalYearResponse))).toEqual({ fiscal_year_start_month: 1 });
    expect(await ok('PUT', '/api/v1/settings/fiscal-year', { fiscal_year_start_month: 2 })).toEqual({ fiscal_year_start_month: 2 });
    // January 2026 is now the last month of the fiscal year ended 2026-01-31: retained earnings.
    const bs = await get('/api/v1/reports/balance-sheet?as_of=2026-02-28');
    expect(bs).toMatchObject({ retained_earnings_cents: 80_000, current_year_earnings_cents: 48_500 });
    for (const bad of [0, 13, 1.5, '3', null]) expectError(await api('PUT', '/api/v1/settings/fiscal-year', { fiscal_year_start_month: bad }), 400, 'validation_failed');
    await ok('PUT', '/api/v1/settings/fiscal-year', { fiscal_year_start_month: 1 });
  });

  it('edge dates answer 200; bad periods, columns and dates are 400, never 5xx', async () => {
    expect((await get('/api/v1/reports/profit-and-loss?from=1900-01-01&to=9999-12-31')).net_income_cents).toBe(128_500);
    expect((await get('/api/v1/reports/balance-sheet?as_of=9999-12-31&columns=year')).total_assets_cents).toBe(128_500);
    expect((await get('/api/v1/reports/balance-sheet?as_of=1900-01-01&columns=month')).total_assets_cents).toBe(0);
    const acct = accountId(keys.organization_id, 'test', '4000');
    expect((await get(`/api/v1/reports/general-ledger?account_id=${acct}&from=1900-01-01&to=9999-12-31`)).closing_balance_cents).toBe(150_000);
    for (const p of [
      '/api/v1/reports/profit-and-loss?from=2026-02-01&to=2026-01-01',
      '/api/v1/reports/profit-and-loss?from=1900-01-01&to=9999-12-31&columns=month',
      '/api/v1/reports/profit-and-loss?from=2026-01-01&to=2026-02-30',
      '/api/v1/reports/profit-and-loss?from=2026-01-01&to=2026-01-31&columns=week',
      '/api/v1/reports/balance-sheet?as_of=10000-01-01',
      '/api/v1/reports/balance-sheet?as_of=1899-12-31',
      `/api/v1/reports/general-ledger?account_id=${acct}&from=2026-02-01&to=2026-01-01`,
      `/api/v1/reports/general-ledger?account_id=${acct}&from=2026-01-01&to=2026-01-31&cursor=x`,
      `/api/v1/reports/general-ledger?account_id=${accountId(keys.organization_id, 'live', '4000')}&from=2026-01-01&to=2026-01-31`,
    ])
      expectError(await api('GET', p), 400, 'validation_failed');
  });
});
