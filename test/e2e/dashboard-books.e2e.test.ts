import type { Browser, Locator, Page } from 'playwright-core';
import { checkPage, dashboardUrl, launchDashboardBrowser, signedInMember } from '../support/dashboard-browser';
import { bootstrapOrg, client, startE2E, type E2E, type Keys } from './harness';
import { type Api, E2E_ENV, expectStatus, uid, utcDate } from './receivables.helpers';

/** Cents as the books pages write them: `1,234.56`, `-5.00` (en-US grouping, two decimals). */
const amount = (cents: number) => (cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

interface Table {
  head: string[];
  body: string[][];
  foot: string[];
}

/** A table's cells as text (whitespace collapsed; visually hidden text included, as a screen reader reads it). */
const readTable = (table: Locator): Promise<Table> =>
  table.evaluate((el) => {
    const t = el.tagName === 'TABLE' ? el : el.querySelector('table')!;
    const text = (c: { textContent: string | null }) => (c.textContent ?? '').replace(/\s+/g, ' ').trim();
    const rows = (sel: string) => [...t.querySelectorAll(sel)].map((r) => [...r.children].map(text));
    // Only this table's rows: a cell may hold a table of its own (a journal entry's lines).
    return { head: rows(':scope > thead > tr')[0] ?? [], body: rows(':scope > tbody > tr'), foot: rows(':scope > tfoot > tr')[0] ?? [] };
  });

/** A table's rows as objects keyed by the column headers. */
const records = (t: Table) => t.body.map((r) => Object.fromEntries(t.head.map((h, i) => [h, r[i] ?? ''])));
const footOf = (t: Table) => Object.fromEntries(t.head.map((h, i) => [h, t.foot[i] ?? '']));

/** Label → value of the headline tiles (or a record's facts) under `scope`. */
const pairs = (scope: Locator, item: string, label: string, value: string): Promise<Record<string, string>> =>
  scope.evaluate(
    (el, sel) => {
      const text = (c: { textContent: string | null } | null) => (c?.textContent ?? '').replace(/\s+/g, ' ').trim();
      if (sel.item === 'dl') {
        const out: Record<string, string> = {};
        for (const dt of el.querySelectorAll('dl.facts > dt')) out[text(dt)] = text(dt.nextElementSibling);
        return out;
      }
      return Object.fromEntries([...el.querySelectorAll(sel.item)].map((li) => [text(li.querySelector(sel.label)), text(li.querySelector(sel.value))]));
    },
    { item, label, value },
  );
const tiles = (scope: Locator) => pairs(scope, '.tiles > li', '.tile-label', '.tile-value');
const facts = (scope: Locator) => pairs(scope, 'dl', 'dt', 'dd');

/**
 * The dashboard's books pages in Chromium against the whole stack (issue #44): after a posted
 * invoice, a payment, a posted bill and a posted vendor payment made with a key through the public
 * API, the overview, the report pages, the lists and the record pages show the same figures as the
 * public reports (`/api/v1/reports/*`) and records, to the cent.
 */
describe('e2e: dashboard books pages in Chromium show the public reports’ figures', () => {
  let e2e: E2E;
  let keys: Keys;
  let api: Api;
  let browser: Browser;
  let page: Page;
  let dash: string;
  const today = utcDate(new Date());
  const yearStart = `${today.slice(0, 4)}-01-01`;
  // Odd cents and thousands separators on purpose: 1,234,567.89 invoiced, 3,456.78 received; 98,765.43 billed, 8,765.42 paid.
  const INVOICE = 123_456_789;
  const PAYMENT = 345_678;
  const BILL = 9_876_543;
  const VENDOR_PAYMENT = 876_542;
  let invoice: any;
  let payment: any;
  let bill: any;
  let vendorPayment: any;
  let customerId: string;
  let vendorId: string;

  const get = async (p: string): Promise<any> => {
    const r = await api('GET', p);
    expectStatus(r, 200);
    return r.json.data;
  };

  /** The public reports once the reporting projection has applied the four postings (polled: it follows the event stream). */
  const reportsCaughtUp = async (ms = 30_000) => {
    const end = Date.now() + ms;
    for (;;) {
      const summary = await get(`/api/v1/reports/summary?from=${yearStart}&to=${today}`);
      if (summary.revenue_cents === INVOICE && summary.accounts_receivable_cents === INVOICE - PAYMENT && summary.accounts_payable_cents === BILL - VENDOR_PAYMENT) return summary;
      if (Date.now() > end) throw new Error(`the reports did not catch up: ${JSON.stringify(summary)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  beforeAll(async () => {
    e2e = await startE2E(E2E_ENV);
    keys = await bootstrapOrg(e2e.databaseUrl, 'Dashboard books org');
    api = client(e2e.base, keys.test_key);
    dash = dashboardUrl(e2e.base);

    const c = await api('POST', '/api/v1/customers', { external_customer_id: uid('cus'), name: 'Ada Books Ltd', email: 'ap@ada.example' });
    expectStatus(c, 201);
    customerId = c.json.data.id;
    const draft = await api('POST', '/api/v1/invoices', {
      external_invoice_id: uid('inv'),
      customer_id: customerId,
      invoice_number: 'INV-DASH-1',
      issue_date: today,
      due_date: utcDate(new Date(), 30),
      line_items: [{ description: 'Consulting', quantity: 1, unit_amount_cents: INVOICE }],
    });
    expectStatus(draft, 201);
    const posted = await api('POST', `/api/v1/invoices/${draft.json.data.id}/post`);
    expectStatus(posted, 200);
    invoice = posted.json.data;
    const p = await api('POST', '/api/v1/payments', { external_payment_id: uid('pay'), invoice_id: invoice.id, amount_cents: PAYMENT, received_at: today });
    expectStatus(p, 201);
    payment = p.json.data;

    const v = await api('POST', '/api/v1/vendors', { external_vendor_id: uid('ven'), display_name: 'Grace Supplies LLC' });
    expectStatus(v, 201);
    vendorId = v.json.data.id;
    const b = await api('POST', '/api/v1/bills', {
      external_bill_id: uid('bill'),
      vendor_id: vendorId,
      bill_number: 'BILL-DASH-1',
      issue_date: today,
      due_date: utcDate(new Date(), 30),
      line_items: [{ description: 'Paper', quantity: 1, unit_amount_cents: BILL }],
    });
    expectStatus(b, 201);
    bill = b.json.data;
    expect(bill.status).toBe('posted');
    const vp = await api('POST', '/api/v1/vendor-payments', {
      external_vendor_payment_id: uid('vp'),
      vendor_id: vendorId,
      amount_cents: VENDOR_PAYMENT,
      payment_date: today,
      allocations: [{ bill_id: bill.id, amount_cents: VENDOR_PAYMENT }],
    });
    expectStatus(vp, 201);
    vendorPayment = vp.json.data;
    expect(vendorPayment.status).toBe('posted');
    await reportsCaughtUp();

    browser = await launchDashboardBrowser();
    ({ page } = await signedInMember(browser, { base: e2e.base, databaseUrl: e2e.databaseUrl, organizationId: keys.organization_id, role: 'owner' }));
  });
  afterAll(async () => {
    await browser?.close();
    await e2e?.stop();
  });

  const section = (heading: string) => page.locator('section', { has: page.getByRole('heading', { name: heading, exact: true }) });
  /** A chart's data table (beside the canvas, for screen readers) by its caption. */
  const chartTable = (caption: string) => page.getByRole('table', { name: caption, exact: true });

  it('the overview: receivable, payable and cash tiles, the aging and revenue charts’ figures', async () => {
    const ar = await get('/api/v1/reports/accounts-receivable');
    const ap = await get('/api/v1/reports/accounts-payable');
    const month = await get(`/api/v1/reports/summary?from=${today.slice(0, 8)}01&to=${today}`);
    const accounts = (await get('/api/v1/accounts?limit=100')) as Array<{ type: string; subtype: string | null; balance_cents: number }>;
    expect(ar.total_open_cents).toBe(INVOICE - PAYMENT);
    expect(ap.total_open_cents).toBe(BILL - VENDOR_PAYMENT);

    await page.goto(`${dash}/`);
    const aging = section('Receivable and payable aging');
    await aging.locator('.tiles').waitFor();
    expect(await tiles(aging)).toEqual({ Receivable: amount(ar.total_open_cents), Payable: amount(ap.total_open_cents) });
    expect(await tiles(aging)).toEqual({ Receivable: '1,231,111.11', Payable: '90,000.01' });

    const agingTable = records(await readTable(chartTable(`Aging as of ${ar.as_of}`)));
    const buckets = ['current', 'days_1_30', 'days_31_60', 'days_61_90', 'days_over_90'];
    expect(agingTable.map((r) => [r.Receivable, r.Payable])).toEqual(buckets.map((b) => [amount(ar.aging[b]), amount(ap.aging[b])]));

    // Cash on hand: the money accounts (cash, bank) of the chart of accounts; in transit: clearing.
    const cash = section('Cash');
    await cash.locator('.tiles').waitFor();
    const sum = (subtypes: string[]) => accounts.filter((a) => a.type === 'asset' && subtypes.includes(a.subtype ?? '')).reduce((s, a) => s + a.balance_cents, 0);
    expect(sum(['cash', 'bank'])).toBe(PAYMENT - VENDOR_PAYMENT);
    expect(await tiles(cash)).toEqual({ 'Cash and bank': amount(sum(['cash', 'bank'])), 'In transit from processors': amount(sum(['clearing'])) });

    const revenue = section('Revenue by month');
    await revenue.locator('figure').waitFor();
    const months = records(await readTable(chartTable('Revenue by month, last 12 months')));
    expect(months).toHaveLength(12);
    expect(months[11]!.Revenue).toBe(amount(month.revenue_cents));
    expect(months[11]!.Revenue).toBe('1,234,567.89');
    await checkPage(page, 'overview');
  });

  it('the summary, receivable, payable and trial balance report pages', async () => {
    const summary = await get(`/api/v1/reports/summary?from=${yearStart}&to=${today}`);
    await page.goto(`${dash}/reports/summary`);
    const s = section('Summary');
    await s.locator('.tiles').waitFor();
    expect(await tiles(s)).toEqual({
      Revenue: amount(summary.revenue_cents),
      [`Receivable on ${today}`]: amount(summary.accounts_receivable_cents),
      [`Payable on ${today}`]: amount(summary.accounts_payable_cents),
    });
    const byMonth = await readTable(s.getByRole('region', { name: `Revenue by month, ${yearStart} to ${today}` }));
    expect(footOf(byMonth)).toEqual({ Month: 'Total', Revenue: amount(summary.revenue_cents) });
    await checkPage(page, 'report-summary');

    for (const side of [
      { key: 'receivable', title: 'Accounts receivable', path: 'accounts-receivable', party: 'Customer', list: 'customers', id: 'customer_id', name: 'Ada Books Ltd' },
      { key: 'payable', title: 'Accounts payable', path: 'accounts-payable', party: 'Vendor', list: 'vendors', id: 'vendor_id', name: 'Grace Supplies LLC' },
    ]) {
      const report = await get(`/api/v1/reports/${side.path}?as_of=${today}`);
      await page.goto(`${dash}/reports/${side.key}`);
      const sec = section(side.title);
      await sec.locator('.tiles').waitFor();
      expect(await tiles(sec)).toEqual({
        'Open balance': amount(report.total_open_cents),
        [`${side.party}s with a balance`]: String(report[`${side.list.slice(0, -1)}_count`]),
        'As of': today,
      });
      const t = await readTable(sec.getByRole('region', { name: `${side.title} by ${side.party.toLowerCase()} as of ${today}` }));
      const rows = records(t);
      expect(rows).toHaveLength(report[side.list].length);
      const party = report[side.list].find((p: any) => p[side.id] === (side.key === 'receivable' ? customerId : vendorId));
      expect(rows.find((r) => r[side.party] === side.name)).toMatchObject({
        Current: amount(party.aging.current),
        'Over 90 days': amount(party.aging.days_over_90),
        Open: amount(party.open_cents),
      });
      expect(footOf(t)).toMatchObject({ [side.party]: 'Total', Current: amount(report.aging.current), Open: amount(report.total_open_cents) });
    }

    const tb = await get(`/api/v1/reports/trial-balance?as_of=${today}`);
    expect(tb.balanced).toBe(true);
    await page.goto(`${dash}/reports/trial-balance`);
    const tbSection = section('Trial balance');
    const region = tbSection.getByRole('region', { name: `Trial balance as of ${today}` });
    await region.waitFor();
    const t = await readTable(region);
    const moved = (tb.accounts as any[]).filter((a) => a.debit_cents !== 0 || a.credit_cents !== 0);
    expect(moved.length).toBeGreaterThanOrEqual(5); // A/R, revenue, cash or bank, A/P, expense
    expect(
      records(t)
        .map((r) => [r.Code, r.Debit, r.Credit])
        .sort(),
    ).toEqual(moved.map((a) => [a.code, amount(a.debit_cents), amount(a.credit_cents)]).sort());
    expect(footOf(t)).toMatchObject({ Code: 'Total', Debit: amount(tb.total_debit_cents), Credit: amount(tb.total_credit_cents) });
    await tbSection.getByText('Debits equal credits.').waitFor();
    await checkPage(page, 'report-trial-balance');
  });

  it('the profit and loss and balance sheet pages show the public statements to the cent', async () => {
    const pl = await get(`/api/v1/reports/profit-and-loss?from=${yearStart}&to=${today}`);
    expect(pl.net_income_cents).toBe(INVOICE - BILL);
    await page.goto(`${dash}/reports/profit-and-loss`);
    const p = section('Profit and loss');
    const plRegion = p.getByRole('region', { name: `Profit and loss, ${yearStart} to ${today} (accrual basis)` });
    await plRegion.waitFor();
    expect(await tiles(p)).toEqual({ Revenue: amount(pl.total_revenue_cents), Expenses: amount(pl.total_expenses_cents), 'Net income': amount(pl.net_income_cents) });
    const plTable = await readTable(plRegion);
    expect(footOf(plTable)).toEqual({ Code: 'Net income', Account: '', Total: amount(pl.net_income_cents) });
    const plRows = records(plTable);
    expect(plRows.find((r) => r.Account === 'Total revenue')).toMatchObject({ Total: amount(pl.total_revenue_cents) });
    expect(plRows.find((r) => r.Account === 'Total expenses')).toMatchObject({ Total: amount(pl.total_expenses_cents) });
    await checkPage(page, 'report-profit-and-loss');

    // By month: the last month's column and the Total column hold the API's figures.
    const monthly = await get(`/api/v1/reports/profit-and-loss?from=${yearStart}&to=${today}&columns=month`);
    await p.getByLabel('Columns').selectOption('month');
    await p.getByRole('button', { name: 'Show' }).click();
    // The first month's heading (when the year has more than one month so far): the new columns are in.
    if (monthly.columns.length > 1) await p.getByRole('columnheader', { name: `Jan ${today.slice(0, 4)}`, exact: true }).waitFor();
    const byMonth = await readTable(plRegion);
    const last = monthly.columns.length - 1;
    const foot = footOf(byMonth);
    expect(byMonth.head.length).toBe(2 + monthly.columns.length + (monthly.columns.length > 1 ? 1 : 0));
    expect(byMonth.foot[2 + last]).toBe(amount(monthly.columns[last].net_income_cents));
    expect(foot.Total).toBe(amount(monthly.net_income_cents));

    const bs = await get(`/api/v1/reports/balance-sheet?as_of=${today}`);
    expect(bs.total_assets_cents).toBe(bs.total_liabilities_cents + bs.total_equity_cents);
    await page.goto(`${dash}/reports/balance-sheet`);
    const b = section('Balance sheet');
    const bsRegion = b.getByRole('region', { name: `Balance sheet as of ${today}` });
    await bsRegion.waitFor();
    expect(await tiles(b)).toEqual({
      'Total assets': amount(bs.total_assets_cents),
      'Total liabilities': amount(bs.total_liabilities_cents),
      'Total equity': amount(bs.total_equity_cents),
    });
    const bsTable = await readTable(bsRegion);
    const bsRows = records(bsTable);
    const row = (label: string) => bsRows.find((r) => r.Account === label)?.[today];
    expect([row('Total assets'), row('Total liabilities'), row('Retained earnings'), row('Current year earnings'), row('Total equity')]).toEqual(
      [bs.total_assets_cents, bs.total_liabilities_cents, bs.retained_earnings_cents, bs.current_year_earnings_cents, bs.total_equity_cents].map(amount),
    );
    expect(footOf(bsTable)).toEqual({ Code: 'Total liabilities and equity', Account: '', [today]: amount(bs.total_liabilities_cents + bs.total_equity_cents) });
    await b.getByText('Assets equal liabilities plus equity.').waitFor();
    await checkPage(page, 'report-balance-sheet');
  });

  it('the trial balance links each account to its general ledger', async () => {
    const tb = await get(`/api/v1/reports/trial-balance?as_of=${today}`);
    const ar = (tb.accounts as any[]).find((a) => a.code === '1100');
    const gl = await get(`/api/v1/reports/general-ledger?account_id=${ar.account_id}&from=${yearStart}&to=${today}`);
    await page.goto(`${dash}/reports/trial-balance`);
    await section('Trial balance').getByRole('link', { name: ar.name, exact: true }).click();
    const g = section('General ledger');
    const region = g.getByRole('region', { name: `General ledger of ${gl.code} ${gl.name}, ${yearStart} to ${today}, page 1` });
    await region.waitFor();
    expect(await tiles(g)).toEqual({
      [`Opening balance on ${yearStart}`]: amount(gl.opening_balance_cents),
      [`Closing balance on ${today}`]: amount(gl.closing_balance_cents),
      'Normal balance': 'Debit',
    });
    const rows = records(await readTable(region));
    expect(rows.map((r) => [r.Debit, r.Credit, r.Balance])).toEqual(
      (gl.lines as any[]).map((l) => [l.debit_cents ? amount(l.debit_cents) : '', l.credit_cents ? amount(l.credit_cents) : '', amount(l.running_balance_cents)]),
    );
    expect(
      await g
        .getByRole('link', { name: /^invoice /i })
        .first()
        .getAttribute('href'),
    ).toBe(`/dashboard/invoices/${invoice.id}`);
    await checkPage(page, 'report-general-ledger');
  });

  it('the invoice, payment, bill and vendor payment lists', async () => {
    const inv = await get(`/api/v1/invoices/${invoice.id}`);
    const b = await get(`/api/v1/bills/${bill.id}`);
    expect(inv).toMatchObject({ total_cents: INVOICE, amount_paid_cents: PAYMENT, balance_due_cents: INVOICE - PAYMENT });
    expect(b).toMatchObject({ total_cents: BILL, amount_paid_cents: VENDOR_PAYMENT, open_balance_cents: BILL - VENDOR_PAYMENT });
    const lists: Array<{ route: string; title: string; key: string; want: Record<string, string> }> = [
      { route: 'invoices', title: 'Invoices', key: 'INV-DASH-1', want: { Total: amount(inv.total_cents), 'Balance due': amount(inv.balance_due_cents) } },
      { route: 'payments', title: 'Payments', key: payment.external_payment_id, want: { Amount: amount(payment.amount_cents) } },
      { route: 'bills', title: 'Bills', key: 'BILL-DASH-1', want: { Total: amount(b.total_cents), 'Open balance': amount(b.open_balance_cents) } },
      { route: 'vendor-payments', title: 'Vendor payments', key: vendorPayment.external_vendor_payment_id, want: { Amount: amount(vendorPayment.amount_cents) } },
    ];
    for (const l of lists) {
      await page.goto(`${dash}/${l.route}`);
      const region = page.getByRole('region', { name: l.title, exact: true });
      await region.getByText(l.key).waitFor();
      const row = records(await readTable(region)).find((r) => Object.values(r).includes(l.key));
      expect({ list: l.route, row }).toMatchObject({ list: l.route, row: l.want });
      if (l.route === 'invoices') await checkPage(page, 'invoices');
    }
  });

  it('the invoice and bill pages', async () => {
    const inv = await get(`/api/v1/invoices/${invoice.id}`);
    await page.goto(`${dash}/invoices/${invoice.id}`);
    await page.getByRole('heading', { name: 'Invoice INV-DASH-1' }).waitFor();
    const main = page.locator('main');
    const cur = (inv.currency as string).toUpperCase();
    expect(await facts(main)).toMatchObject({
      Total: `${cur} ${amount(inv.total_cents)}`,
      Paid: `${cur} ${amount(inv.amount_paid_cents)}`,
      'Balance due': `${cur} ${amount(inv.balance_due_cents)}`,
    });
    expect((await facts(main))['Balance due']).toBe(`${cur} 1,231,111.11`);
    const items = await readTable(main.getByRole('table', { name: 'Line items', exact: true }));
    expect(footOf(items)).toMatchObject({ Description: 'Total', Amount: `${cur} ${amount(inv.total_cents)}` });
    const paid = main.getByRole('table', { name: 'Payments', exact: true });
    await paid.getByText(payment.external_payment_id).waitFor();
    expect(records(await readTable(paid))[0]).toMatchObject({ Amount: amount(PAYMENT) });
    // The journal entry drill-down: the invoice's entry, its amount and its lines as the public journal has them.
    const entries = (await get(`/api/v1/journal-entries?source_id=${invoice.id}`)) as Array<{ lines: Array<{ account_code: string; side: string; amount_cents: number }> }>;
    expect(entries).toHaveLength(1);
    const journal = main.getByRole('table', { name: 'Journal entries', exact: true });
    await journal.waitFor();
    const [entryRow, ...more] = records(await readTable(journal));
    expect(more).toEqual([]);
    expect(entryRow!.Amount).toBe(amount(INVOICE));
    await journal.locator('summary').click();
    const lines = records(await readTable(journal.getByRole('table', { name: /^Lines of entry / })));
    expect(lines.map((l) => [l.Account!.split(' ')[0], l.Debit, l.Credit]).sort()).toEqual(
      entries[0]!.lines.map((l) => [l.account_code, l.side === 'debit' ? amount(l.amount_cents) : '', l.side === 'credit' ? amount(l.amount_cents) : '']).sort(),
    );
    await checkPage(page, 'invoice');

    const b = await get(`/api/v1/bills/${bill.id}`);
    await page.goto(`${dash}/bills/${bill.id}`);
    await page.getByRole('heading', { name: /BILL-DASH-1/ }).waitFor();
    const bcur = (b.currency as string).toUpperCase();
    expect(await facts(main)).toMatchObject({
      Total: `${bcur} ${amount(b.total_cents)}`,
      Paid: `${bcur} ${amount(b.amount_paid_cents)}`,
      'Open balance': `${bcur} ${amount(b.open_balance_cents)}`,
    });
    await checkPage(page, 'bill');
  });

  it('the fiscal year on the settings page: an owner saves the start month (restored afterwards)', async () => {
    await page.goto(`${dash}/settings`);
    const f = section('Fiscal year');
    const month = f.getByLabel('Fiscal year starts in');
    await f.locator('#fiscal-month:enabled').waitFor(); // enabled once the current setting is read
    expect(await month.inputValue()).toBe('1');
    await month.selectOption({ label: 'April' });
    await f.getByRole('button', { name: 'Save the fiscal year' }).click();
    await f.getByText('The fiscal year now starts on 1 April.').waitFor();
    expect(await get('/api/v1/settings/fiscal-year')).toMatchObject({ fiscal_year_start_month: 4 });
    expectStatus(await api('PUT', '/api/v1/settings/fiscal-year', { fiscal_year_start_month: 1 }), 200);
  });
});
