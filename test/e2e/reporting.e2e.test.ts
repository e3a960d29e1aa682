import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { compileBody, schemas } from '@acct/contracts';
import { ROOT } from '@acct/stack';
import { accountId } from '@acct/ledger';
import { type E2E, type Keys, bootstrapOrg, client } from './harness';
import { FIRST_DAY, LAST_DAY, type ExtremeRecords, createExtremeDateRecords } from './extreme-dates.helpers';
import {
  type Api,
  createCustomer,
  createOpenInvoice,
  dataCalls,
  expectError,
  invoiceBody,
  expectSchema,
  expectStatus,
  paymentBody,
  payoutBody,
  billBody,
  vendorPaymentBody,
  startReceivablesE2E,
  uid,
  utcDate,
} from './receivables.helpers';

const rep = schemas.reporting;
const run = promisify(execFile);

/**
 * A scripted scenario across 2025 and 2026 (invoices, payments from cash and a processor, a payout,
 * bills, vendor payments, a bill and a payment reversed today) with every report checked to the cent,
 * the trial balance balanced, A/R and A/P equal to the subledgers, and a rebuild giving the same figures.
 */
describe('e2e: ledger and reports through the gateway', () => {
  let e2e: E2E;
  let keys: Keys;
  let api: Api;
  let otherApi: Api;
  const today = utcDate(new Date());
  const ids: Record<string, string> = {};

  const { get, ok } = dataCalls(() => api);
  const vendor = (name: string, over: Record<string, unknown> = {}) => ok('POST', '/api/v1/vendors', { external_vendor_id: uid('ven'), display_name: name, ...over });
  const bill = (vendorId: string, cents: number, issue: string, due: string) => ok('POST', '/api/v1/bills', billBody(vendorId, cents, issue, due));
  const vpay = (vendorId: string, billId: string, cents: number, date: string) => ok('POST', '/api/v1/vendor-payments', vendorPaymentBody(vendorId, billId, cents, date));

  beforeAll(async () => {
    ({ e2e, keys, api, otherApi } = await startReceivablesE2E('Reporting org'));
    // Receivables
    const c1 = await createCustomer(api, 'Alpha');
    const c2 = await createCustomer(api, 'Beta');
    ids.c1 = c1;
    ids.c2 = c2;
    const i1 = await createOpenInvoice(api, c1, 100_000, { issue_date: '2025-11-01', due_date: '2025-12-01' });
    const i2 = await createOpenInvoice(api, c2, 50_000, { issue_date: '2025-12-15', due_date: '2026-01-14' });
    ids.i1 = i1.id;
    await ok('POST', '/api/v1/payments', paymentBody(i1.id, 40_000, { received_at: '2025-12-10' }));
    await ok('POST', '/api/v1/payments', paymentBody(i2.id, 50_000, { received_at: '2026-01-05', source: 'processor', processor: 'stripe' }));
    await ok('POST', '/api/v1/processor-payouts', payoutBody('2026-01-07', 50_000, 1_500));
    await createOpenInvoice(api, c1, 30_000, { issue_date: '2026-02-01', due_date: '2026-03-03' });
    // Payables
    const v1 = await vendor('Contractor', { is_1099_eligible: true, w9_on_file: true });
    const v2 = await vendor('Shop');
    const v3 = await vendor('Late');
    ids.v1 = v1.id;
    ids.v3 = v3.id;
    const b1 = await bill(v1.id, 70_000, '2025-10-01', '2025-10-31');
    const b2 = await bill(v2.id, 20_000, '2025-12-01', '2025-12-31');
    const b3 = await bill(v3.id, 250_000, '2026-01-10', '2026-02-09');
    const b4 = await bill(v1.id, 5_000, '2026-02-01', '2026-03-01');
    const b5 = await bill(v1.id, 100_000, '2026-03-01', '2026-03-31');
    await vpay(v1.id, b1.id, 70_000, '2025-11-15');
    await vpay(v2.id, b2.id, 20_000, '2025-12-20');
    await vpay(v3.id, b3.id, 250_000, '2026-02-15');
    const vp4 = await vpay(v1.id, b5.id, 100_000, '2026-04-01');
    await ok('POST', `/api/v1/bills/${b4.id}/reverse`, { reversal_reason: 'entered twice' });
    await ok('POST', `/api/v1/vendor-payments/${vp4.id}/reverse`, { reversal_reason: 'bounced' });
    // Made 1099-eligible after it was paid; no W-9 yet.
    await ok('PATCH', `/api/v1/vendors/${v3.id}`, { is_1099_eligible: true });
  }, 120_000);
  afterAll(async () => e2e?.stop());

  it('summary: revenue in the period, A/R and A/P at its end', async () => {
    const s25 = await get('/api/v1/reports/summary?from=2025-01-01&to=2025-12-31', compileBody(rep.summaryResponse));
    expect(s25).toEqual({ from: '2025-01-01', to: '2025-12-31', revenue_cents: 150_000, accounts_receivable_cents: 110_000, accounts_payable_cents: 0 });
    const s26 = await get('/api/v1/reports/summary?from=2026-01-01&to=2026-12-31');
    expect(s26).toMatchObject({ revenue_cents: 30_000, accounts_receivable_cents: 90_000, accounts_payable_cents: 100_000 });
  });

  it('accounts receivable: buckets by due date, payment on the as_of day, as_of equal to an issue date', async () => {
    const ye = await get('/api/v1/reports/accounts-receivable?as_of=2025-12-31', compileBody(rep.receivablesReportResponse));
    expect(ye).toMatchObject({ total_open_cents: 110_000, customer_count: 2, aging: { current: 50_000, days_1_30: 60_000, days_31_60: 0, days_61_90: 0, days_over_90: 0 } });
    expect(ye.customers).toEqual([
      { customer_id: ids.c1, display_name: 'Alpha', open_cents: 60_000, aging: { current: 0, days_1_30: 60_000, days_31_60: 0, days_61_90: 0, days_over_90: 0 } },
      { customer_id: ids.c2, display_name: 'Beta', open_cents: 50_000, aging: { current: 50_000, days_1_30: 0, days_31_60: 0, days_61_90: 0, days_over_90: 0 } },
    ]);
    expect((await get('/api/v1/reports/accounts-receivable?as_of=2025-12-10')).total_open_cents).toBe(60_000);
    expect((await get('/api/v1/reports/accounts-receivable?as_of=2025-12-09')).total_open_cents).toBe(100_000);
    expect((await get('/api/v1/reports/accounts-receivable?as_of=2026-02-01')).total_open_cents).toBe(90_000);
    const q1 = await get('/api/v1/reports/accounts-receivable?as_of=2026-03-31');
    expect(q1).toMatchObject({ total_open_cents: 90_000, customer_count: 1, aging: { current: 0, days_1_30: 30_000, days_over_90: 60_000 } });
  });

  it('accounts payable: a reversal counts on its date (today), not before', async () => {
    const q1 = await get('/api/v1/reports/accounts-payable?as_of=2026-03-31', compileBody(rep.payablesReportResponse));
    expect(q1).toMatchObject({ total_open_cents: 105_000, vendor_count: 1, aging: { current: 100_000, days_1_30: 5_000 } });
    expect(q1.vendors).toEqual([expect.objectContaining({ vendor_id: ids.v1, display_name: 'Contractor', open_cents: 105_000 })]);
    const now = await get(`/api/v1/reports/accounts-payable?as_of=${today}`);
    expect(now).toMatchObject({ total_open_cents: 100_000, vendor_count: 1, aging: { days_over_90: 100_000 } });
    expect((await get('/api/v1/reports/accounts-payable?as_of=2025-12-31')).total_open_cents).toBe(0);
  });

  it('A/R and A/P equal the receivables and payables subledgers', async () => {
    const invoices = (await get('/api/v1/invoices?limit=100')) as { balance_due_cents: number }[];
    expect((await get('/api/v1/reports/accounts-receivable')).total_open_cents).toBe(invoices.reduce((s, i) => s + i.balance_due_cents, 0));
    const bills = (await get('/api/v1/bills?limit=100&status=posted')) as { total_cents: number; amount_paid_cents: number }[];
    expect((await get('/api/v1/reports/accounts-payable')).total_open_cents).toBe(bills.reduce((s, b) => s + b.total_cents - b.amount_paid_cents, 0));
  });

  it('1099 summary: threshold by year, W-9, a vendor made eligible later, a reversed payment never counts', async () => {
    const y25 = await get('/api/v1/reports/1099-summary?year=2025', compileBody(rep.form1099Response));
    expect(y25).toMatchObject({ reporting_year: 2025, threshold_cents: 60_000, total_reportable_paid_cents: 70_000, eligible_vendor_count: 1, missing_w9_count: 0 });
    expect(y25.vendors.map((v: { vendor_id: string }) => v.vendor_id)).toEqual([ids.v1]);
    const all25 = await get('/api/v1/reports/1099-summary?year=2025&include_ineligible=true');
    expect(all25.total_reportable_paid_cents).toBe(70_000);
    expect(all25.vendors).toHaveLength(2);
    expect(all25.vendors[1]).toMatchObject({ display_name: 'Shop', is_1099_eligible: false, reportable: false, paid_cents: 20_000 });
    const y26 = await get('/api/v1/reports/1099-summary?year=2026');
    expect(y26).toMatchObject({ threshold_cents: 200_000, total_reportable_paid_cents: 250_000, eligible_vendor_count: 1, missing_w9_count: 1 });
    expect(y26.vendors).toEqual([expect.objectContaining({ vendor_id: ids.v3, paid_cents: 250_000, w9_on_file: false })]);
  });

  it('trial balance: every account to the cent, the columns equal', async () => {
    const tb = await get(`/api/v1/reports/trial-balance?as_of=${today}`, compileBody(rep.trialBalanceResponse));
    const byCode = Object.fromEntries(tb.accounts.map((a: { code: string; debit_cents: number; credit_cents: number }) => [a.code, [a.debit_cents, a.credit_cents]]));
    expect(byCode).toEqual({
      '1000': [0, 300_000],
      '1010': [48_500, 0],
      '1100': [90_000, 0],
      '1200': [0, 0],
      '2000': [0, 100_000],
      '4000': [0, 180_000],
      '5000': [440_000, 0],
      '5200': [1_500, 0],
    });
    expect(tb).toMatchObject({ total_debit_cents: 580_000, total_credit_cents: 580_000, balanced: true });
    const ye = await get('/api/v1/reports/trial-balance?as_of=2025-12-31');
    expect(ye.balanced).toBe(true);
    expect(ye.total_debit_cents).toBe(ye.total_credit_cents);
  });

  it('accounts and journal entries', async () => {
    const accounts = await get('/api/v1/accounts', compileBody(rep.accountListResponse));
    expect(accounts).toHaveLength(8);
    const ar = await get(`/api/v1/accounts/${accountId(keys.organization_id, 'test', '1100')}`, compileBody(rep.accountResponse));
    expect(ar).toMatchObject({ code: '1100', balance_cents: 90_000, debit_total_cents: 180_000, credit_total_cents: 90_000 });
    expectError(await api('GET', `/api/v1/accounts/${accountId(keys.organization_id, 'live', '1100')}`), 404, 'not_found');
    const inv = await get('/api/v1/journal-entries?source_type=invoice', compileBody(rep.journalEntryListResponse));
    expect(inv).toHaveLength(3);
    const one = await get(`/api/v1/journal-entries?source_id=${ids.i1}`);
    expect(one).toHaveLength(1);
    expect(one[0].lines).toEqual([
      expect.objectContaining({ account_code: '1100', side: 'debit', amount_cents: 100_000, customer_id: ids.c1, invoice_id: ids.i1 }),
      expect.objectContaining({ account_code: '4000', side: 'credit', amount_cents: 100_000 }),
    ]);
    const y25 = await get('/api/v1/journal-entries?from=2025-01-01&to=2025-12-31&limit=100');
    expect(y25).toHaveLength(7); // 2 invoices, 1 payment, 2 bills, 2 vendor payments
    // Another organization sees none of it.
    const r = await otherApi('GET', '/api/v1/journal-entries');
    expect(r.json.data).toEqual([]);
  });

  it('refuses bad dates, from after to and unknown years, naming the parameter', async () => {
    const field = (r: { json: any }) => r.json.error.details.map((d: { field: string }) => d.field);
    let r = await api('GET', '/api/v1/reports/summary?from=2026-02-30&to=2026-03-01');
    expectError(r, 400, 'validation_failed');
    expect(field(r).join()).toMatch(/from/);
    r = await api('GET', '/api/v1/reports/summary?from=2026-03-02&to=2026-03-01');
    expectError(r, 400, 'validation_failed');
    expect(field(r)).toEqual(['from']);
    r = await api('GET', '/api/v1/journal-entries?from=2026-03-02&to=2026-03-01');
    expect(field(r)).toEqual(['from']);
    r = await api('GET', '/api/v1/reports/accounts-receivable?as_of=yesterday');
    expect(field(r).join()).toMatch(/as_of/);
    for (const y of ['1899', '26', 'abcd']) {
      r = await api('GET', `/api/v1/reports/1099-summary?year=${y}`);
      expectError(r, 400, 'validation_failed');
      expect(field(r).join()).toMatch(/year/);
    }
  });

  it('npm run admin -- reporting rebuild replays the stream to identical figures', async () => {
    const figures = async () => ({
      tb: await get(`/api/v1/reports/trial-balance?as_of=${today}`),
      ar: await get('/api/v1/reports/accounts-receivable?as_of=2026-03-31'),
      ap: await get('/api/v1/reports/accounts-payable?as_of=2026-03-31'),
      f25: await get('/api/v1/reports/1099-summary?year=2025&include_ineligible=true'),
      f26: await get('/api/v1/reports/1099-summary?year=2026'),
      entries: await get('/api/v1/journal-entries?limit=100'),
    });
    const before = await figures();
    const { stdout } = await run('npm', ['run', '--silent', 'admin', '--', 'reporting', 'rebuild'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: e2e.databaseUrl, NATS_URL: e2e.natsUrl, NATS_PREFIX: e2e.natsPrefix },
    });
    expect(JSON.parse(stdout)).toMatchObject({ applied: expect.any(Number) });
    expect(await figures()).toEqual(before);
  }, 60_000);

  /** Issue 21: one record at an end of the date range made a report a 500 for good. An organization of its own. */
  describe('extreme dates: 1900-01-01 and 9999-12-31 on every dated field', () => {
    let edge: Api;
    let rec: ExtremeRecords;
    const aging = (current: number, d1: number, d31: number, d61: number, over: number) => ({ current, days_1_30: d1, days_31_60: d31, days_61_90: d61, days_over_90: over });
    const edgeGet = async (p: string, validate?: ReturnType<typeof compileBody>): Promise<any> => {
      const r = await edge('GET', p);
      expectStatus(r, 200);
      if (validate) expectSchema(validate, r.json);
      return r.json.data;
    };

    beforeAll(async () => {
      edge = client(e2e.base, (await bootstrapOrg(e2e.databaseUrl, 'Extreme dates org')).test_key);
      rec = await createExtremeDateRecords(edge);
    }, 120_000);

    it('A/P: due 9999-12-31 is current at any as_of, due 1900-01-01 over 90 from 1900-04-02', async () => {
      const validate = compileBody(rep.payablesReportResponse);
      const ap = (asOf: string) => edgeGet(`/api/v1/reports/accounts-payable?as_of=${asOf}`, validate);
      expect(await ap(FIRST_DAY)).toMatchObject({ as_of: FIRST_DAY, total_open_cents: 29_000, vendor_count: 1, aging: aging(29_000, 0, 0, 0, 0) });
      expect((await ap('1900-01-31')).aging).toEqual(aging(20_000, 9_000, 0, 0, 0));
      expect((await ap('1900-04-01')).aging).toEqual(aging(20_000, 0, 0, 9_000, 0)); // 90 days: 1900 is no leap year
      expect((await ap('1900-04-02')).aging).toEqual(aging(20_000, 0, 0, 0, 9_000));
      expect(await ap('2026-03-31')).toMatchObject({ total_open_cents: 109_000, aging: aging(100_000, 0, 0, 0, 9_000) });
      expect(await ap(today)).toMatchObject({ total_open_cents: 109_000, aging: aging(100_000, 0, 0, 0, 9_000) });
      expect(await ap('9999-12-30')).toMatchObject({ total_open_cents: 109_000, aging: aging(100_000, 0, 0, 0, 9_000) });
      const last = await ap(LAST_DAY);
      expect(last).toMatchObject({ as_of: LAST_DAY, total_open_cents: 147_000, vendor_count: 1, aging: aging(138_000, 0, 0, 0, 9_000) });
      expect(last.vendors).toEqual([{ vendor_id: rec.vendorId, display_name: 'Edge vendor', open_cents: 147_000, aging: aging(138_000, 0, 0, 0, 9_000) }]);
      // The default as_of (today) too.
      expect((await edgeGet('/api/v1/reports/accounts-payable')).total_open_cents).toBe(109_000);
    });

    it('A/R: the same for invoices, payments by date and by date-time (UTC date) at both ends', async () => {
      const validate = compileBody(rep.receivablesReportResponse);
      const ar = (asOf: string) => edgeGet(`/api/v1/reports/accounts-receivable?as_of=${asOf}`, validate);
      expect(await ar(FIRST_DAY)).toMatchObject({ total_open_cents: 1_500, customer_count: 1, aging: aging(1_500, 0, 0, 0, 0) });
      expect((await ar('1900-04-01')).aging).toEqual(aging(0, 0, 0, 1_500, 0));
      expect((await ar('1900-04-02')).aging).toEqual(aging(0, 0, 0, 0, 1_500));
      expect(await ar('2026-03-31')).toMatchObject({ total_open_cents: 6_500, aging: aging(5_000, 0, 0, 0, 1_500) });
      expect(await ar('9999-12-30')).toMatchObject({ total_open_cents: 6_500, aging: aging(5_000, 0, 0, 0, 1_500) });
      const last = await ar(LAST_DAY);
      expect(last).toMatchObject({ total_open_cents: 12_500, customer_count: 1, aging: aging(11_000, 0, 0, 0, 1_500) });
      expect(last.customers).toEqual([{ customer_id: rec.customerId, display_name: 'Edge customer', open_cents: 12_500, aging: aging(11_000, 0, 0, 0, 1_500) }]);
      expect((await edgeGet('/api/v1/reports/accounts-receivable')).total_open_cents).toBe(6_500);
    });

    it('trial balance, summary, 1099 summary and journal entries at both ends', async () => {
      const validate = compileBody(rep.trialBalanceResponse);
      const net = (tb: { accounts: { code: string; debit_cents: number; credit_cents: number }[] }) =>
        Object.fromEntries(tb.accounts.map((a) => [a.code, a.debit_cents - a.credit_cents]));
      const first = await edgeGet(`/api/v1/reports/trial-balance?as_of=${FIRST_DAY}`, validate);
      expect(net(first)).toEqual({ '1000': 500, '1010': 990, '1100': 1_500, '1200': -1_000, '2000': -29_000, '4000': -3_000, '5000': 30_000, '5200': 10 });
      expect(first).toMatchObject({ as_of: FIRST_DAY, total_debit_cents: 33_000, total_credit_cents: 33_000, balanced: true });
      const last = await edgeGet(`/api/v1/reports/trial-balance?as_of=${LAST_DAY}`, validate);
      expect(last.balanced).toBe(true);
      expect(net(last)).toMatchObject({ '1010': 2_970, '1100': 12_500, '2000': -147_000, '4000': -15_000, '5000': 150_000, '5200': 30 });

      const validSummary = compileBody(rep.summaryResponse);
      expect(await edgeGet(`/api/v1/reports/summary?from=${FIRST_DAY}&to=${LAST_DAY}`, validSummary)).toEqual({
        from: FIRST_DAY,
        to: LAST_DAY,
        revenue_cents: 15_000,
        accounts_receivable_cents: 12_500,
        accounts_payable_cents: 147_000,
      });
      expect(await edgeGet(`/api/v1/reports/summary?from=${FIRST_DAY}&to=${FIRST_DAY}`)).toMatchObject({
        revenue_cents: 3_000,
        accounts_receivable_cents: 1_500,
        accounts_payable_cents: 29_000,
      });
      expect(await edgeGet(`/api/v1/reports/summary?from=${LAST_DAY}&to=${LAST_DAY}`)).toMatchObject({
        revenue_cents: 7_000,
        accounts_receivable_cents: 12_500,
        accounts_payable_cents: 147_000,
      });

      const validate1099 = compileBody(rep.form1099Response);
      const vendor = (paid: number, reportable: boolean) => [
        { vendor_id: rec.vendorId, display_name: 'Edge vendor', is_1099_eligible: true, w9_on_file: true, paid_cents: paid, reportable },
      ];
      expect(await edgeGet('/api/v1/reports/1099-summary?year=1900', validate1099)).toEqual({
        reporting_year: 1900,
        threshold_cents: 60_000,
        total_reportable_paid_cents: 0,
        eligible_vendor_count: 0,
        missing_w9_count: 0,
        vendors: vendor(1_000, false),
      });
      expect(await edgeGet('/api/v1/reports/1099-summary?year=9999&include_ineligible=true', validate1099)).toMatchObject({
        reporting_year: 9999,
        threshold_cents: 200_000,
        vendors: vendor(2_000, false),
      });

      const dates = async (q: string) =>
        ((await edgeGet(`/api/v1/journal-entries?limit=100&${q}`, compileBody(rep.journalEntryListResponse))) as { entry_date: string }[]).map((e) => e.entry_date);
      expect(await dates(`from=${FIRST_DAY}&to=${FIRST_DAY}`)).toEqual(Array(7).fill(FIRST_DAY)); // invoice, 2 payments, payout, 2 bills, vendor payment
      expect(await dates(`from=${LAST_DAY}&to=${LAST_DAY}`)).toEqual(Array(6).fill(LAST_DAY)); // invoice, 2 payments, payout, bill, vendor payment
      expect(await dates(`from=${FIRST_DAY}&to=${LAST_DAY}`)).toHaveLength(15);
      expect(await dates(`from=${LAST_DAY}`)).toHaveLength(6);
      expect(await dates(`to=${FIRST_DAY}`)).toHaveLength(7);
      const bills = await edgeGet(`/api/v1/bills?limit=100&issue_date_from=${FIRST_DAY}&issue_date_to=${FIRST_DAY}`);
      expect(bills.map((b: { id: string }) => b.id).sort()).toEqual(rec.billIds.slice(0, 2).sort());
      expect(await edgeGet(`/api/v1/bills?limit=100&issue_date_from=${LAST_DAY}&issue_date_to=${LAST_DAY}`)).toHaveLength(1);
    });

    it('a date just outside the range, on every dated field, is a 400 naming the field', async () => {
      const invoice = await edgeGet(`/api/v1/invoices/${rec.invoiceIds[1]}`);
      const bill = await edgeGet(`/api/v1/bills/${rec.billIds[3]}`);
      const names = (r: { json: any }) => r.json.error.details.map((d: { field: string }) => d.field).join();
      const line = [{ description: 'x', quantity: 1, unit_amount_cents: 100 }];
      const bodies: [string, string, (v: string) => Record<string, unknown>][] = [
        ['/api/v1/invoices', 'issue_date', (v) => invoiceBody(rec.customerId, line, { issue_date: v, due_date: LAST_DAY })],
        ['/api/v1/invoices', 'due_date', (v) => invoiceBody(rec.customerId, line, { issue_date: FIRST_DAY, due_date: v })],
        ['/api/v1/payments', 'received_at', (v) => paymentBody(invoice.id, 1, { received_at: v })],
        [
          '/api/v1/processor-payouts',
          'payout_date',
          (v) => ({ external_payout_id: `po-${v}`, processor: 'stripe', payout_date: v, gross_cents: 100, fee_cents: 0, net_cents: 100 }),
        ],
        ['/api/v1/estimates', 'issue_date', (v) => ({ external_estimate_id: `est-${v}`, customer_id: rec.customerId, issue_date: v, line_items: line })],
        ['/api/v1/estimates', 'expiry_date', (v) => ({ external_estimate_id: `est-${v}`, customer_id: rec.customerId, issue_date: FIRST_DAY, expiry_date: v, line_items: line })],
        [`/api/v1/estimates/${rec.invoiceIds[0]}/convert`, 'issue_date', (v) => ({ issue_date: v })],
        [`/api/v1/estimates/${rec.invoiceIds[0]}/convert`, 'due_date', (v) => ({ due_date: v })],
        ['/api/v1/bills', 'issue_date', (v) => ({ external_bill_id: `b-${v}`, vendor_id: rec.vendorId, bill_number: 'B', issue_date: v, due_date: LAST_DAY, line_items: line })],
        ['/api/v1/bills', 'due_date', (v) => ({ external_bill_id: `b-${v}`, vendor_id: rec.vendorId, bill_number: 'B', issue_date: FIRST_DAY, due_date: v, line_items: line })],
        [
          '/api/v1/vendor-payments',
          'payment_date',
          (v) => ({ external_vendor_payment_id: `vp-${v}`, vendor_id: rec.vendorId, amount_cents: 1, payment_date: v, allocations: [{ bill_id: bill.id, amount_cents: 1 }] }),
        ],
      ];
      for (const [path, field, body] of bodies) {
        const outside = ['1899-12-31', '10000-01-01', '0000-01-01'];
        if (field === 'received_at') outside.push('1900-01-01T00:00:00+00:01', '9999-12-31T23:59:59-00:01', '1899-12-31T23:59:59Z');
        for (const v of outside) {
          const r = await edge('POST', path, body(v));
          expect({ path, field, v, status: r.status, code: r.json?.error?.code }).toEqual({ path, field, v, status: 400, code: 'validation_failed' });
          expect(names(r)).toContain(field);
        }
      }
      const queries: [string, string][] = [
        ['/api/v1/reports/accounts-receivable', 'as_of'],
        ['/api/v1/reports/accounts-payable', 'as_of'],
        ['/api/v1/reports/trial-balance', 'as_of'],
        [`/api/v1/reports/summary?to=${LAST_DAY}`, 'from'],
        [`/api/v1/reports/summary?from=${FIRST_DAY}`, 'to'],
        ['/api/v1/journal-entries', 'from'],
        ['/api/v1/journal-entries', 'to'],
        ['/api/v1/bills', 'issue_date_from'],
        ['/api/v1/bills', 'issue_date_to'],
      ];
      for (const [path, field] of queries) {
        for (const v of ['1899-12-31', '10000-01-01', '0000-01-01']) {
          const r = await edge('GET', `${path}${path.includes('?') ? '&' : '?'}${field}=${v}`);
          expect({ path, field, v, status: r.status, code: r.json?.error?.code }).toEqual({ path, field, v, status: 400, code: 'validation_failed' });
          expect(names(r)).toContain(field);
        }
      }
      for (const y of ['1899', '10000', '0000']) {
        const r = await edge('GET', `/api/v1/reports/1099-summary?year=${y}`);
        expectError(r, 400, 'validation_failed');
        expect(names(r)).toContain('year');
      }
      // An event whose received_at leaves the range is refused or stored as failed, never applied.
      const ev = await edge('POST', '/api/v1/events', {
        event_type: 'payment.received',
        external_event_id: uid('evt'),
        payload: { external_payment_id: uid('ch'), external_invoice_id: invoice.external_invoice_id, amount_cents: 1, received_at: '9999-12-31T23:59:59-00:01' },
      });
      expect(ev.status).toBeLessThan(500);
      if (ev.status < 300) expect(ev.json.data.status).not.toBe('processed');
      // Nothing above changed a figure.
      expect((await edgeGet(`/api/v1/reports/accounts-receivable?as_of=${LAST_DAY}`)).total_open_cents).toBe(12_500);
      expect((await edgeGet(`/api/v1/reports/accounts-payable?as_of=${LAST_DAY}`)).total_open_cents).toBe(147_000);
    });
  });

  /** API-DECISIONS §12: the hash-chained journals, verified through the route and the admin command, before and after a change made in SQL. */
  it('GET /ledger/verification and npm run admin -- ledger verify: intact, then broken at an entry changed in the database', async () => {
    const verification = compileBody(rep.ledgerVerificationResponse);
    const v = await get('/api/v1/ledger/verification', verification);
    expect(v.status).toBe('intact');
    expect(v.chains.map((c: { service: string }) => c.service)).toEqual(['receivables', 'payables']);
    for (const c of v.chains) expect(c).toMatchObject({ entries: expect.any(Number), first_broken_entry_id: null, head_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(v.chains.every((c: { entries: number }) => c.entries > 0)).toBe(true);
    expect(v.entries_checked).toBe(v.chains[0].entries + v.chains[1].entries);
    const other = await otherApi('GET', '/api/v1/ledger/verification');
    expectStatus(other, 200);
    expect(other.json.data).toMatchObject({ status: 'intact', entries_checked: 0 });

    const adminEnv = { ...process.env, DATABASE_URL: e2e.databaseUrl };
    const clean = await run('npm', ['run', '--silent', 'admin', '--', 'ledger', 'verify'], { cwd: ROOT, env: adminEnv });
    expect(clean.stdout).toContain('receivables: every chain intact');
    expect(clean.stdout).toContain('payables: every chain intact');

    // A superuser changes the memo of the payables journal's third entry, triggers off.
    const pg = new Client({ connectionString: e2e.databaseUrl });
    await pg.connect();
    let changed: string;
    try {
      await pg.query('SET session_replication_role = replica');
      const { rows } = await pg.query<{ id: string }>(
        `SELECT id FROM payables.journal_entries WHERE organization_id = $1 AND environment = 'test' ORDER BY chain_seq OFFSET 2 LIMIT 1`,
        [keys.organization_id],
      );
      changed = rows[0]!.id;
      await pg.query(`UPDATE payables.journal_entries SET memo = 'tampered' WHERE id = $1`, [changed]);
    } finally {
      await pg.end();
    }
    const after = await get('/api/v1/ledger/verification', verification);
    expect(after).toMatchObject({ status: 'broken', entries_checked: v.chains[0].entries + 3 });
    expect(after.chains).toEqual([{ ...v.chains[0] }, { service: 'payables', entries: 3, head_hash: v.chains[1].head_hash, first_broken_entry_id: changed }]);
    const broken = await run('npm', ['run', '--silent', 'admin', '--', 'ledger', 'verify'], { cwd: ROOT, env: adminEnv }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain(`BROKEN payables organization ${keys.organization_id} environment test: first broken entry ${changed}`);
  }, 60_000);
});
