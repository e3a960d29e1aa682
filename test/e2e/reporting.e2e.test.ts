import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { compileBody, schemas } from '@acct/contracts';
import { ROOT } from '@acct/stack';
import { accountId } from '@acct/ledger';
import type { E2E, Keys } from './harness';
import { type Api, createCustomer, createOpenInvoice, expectError, expectSchema, expectStatus, paymentBody, startReceivablesE2E, uid, utcDate } from './receivables.helpers';

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

  const get = async (p: string, validate?: ReturnType<typeof compileBody>): Promise<any> => {
    const r = await api('GET', p);
    expectStatus(r, 200);
    if (validate) expectSchema(validate, r.json);
    return r.json.data;
  };
  const ok = async (method: string, p: string, body?: unknown): Promise<any> => {
    const r = await api(method, p, body);
    if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(r.json)}`);
    return r.json.data;
  };
  const vendor = (name: string, over: Record<string, unknown> = {}) => ok('POST', '/api/v1/vendors', { external_vendor_id: uid('ven'), display_name: name, ...over });
  const bill = (vendorId: string, cents: number, issue: string, due: string) =>
    ok('POST', '/api/v1/bills', {
      external_bill_id: uid('bill'),
      vendor_id: vendorId,
      bill_number: 'B',
      issue_date: issue,
      due_date: due,
      line_items: [{ description: 'Work', quantity: 1, unit_amount_cents: cents }],
    });
  const vpay = (vendorId: string, billId: string, cents: number, date: string) =>
    ok('POST', '/api/v1/vendor-payments', {
      external_vendor_payment_id: uid('vp'),
      vendor_id: vendorId,
      amount_cents: cents,
      payment_date: date,
      allocations: [{ bill_id: billId, amount_cents: cents }],
    });

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
    await ok('POST', '/api/v1/processor-payouts', {
      external_payout_id: uid('po'),
      processor: 'stripe',
      payout_date: '2026-01-07',
      gross_cents: 50_000,
      fee_cents: 1_500,
      net_cents: 48_500,
    });
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
});
