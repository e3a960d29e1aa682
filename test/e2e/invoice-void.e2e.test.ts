import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { compileBody, schemas } from '@acct/contracts';
import { pdfTextOf } from '@acct/testing';
import { type E2E, type Keys, bootstrapOrg, client, startE2E } from './harness';
import {
  type Api,
  E2E_ENV,
  createCustomer,
  createDraftInvoice,
  createOpenInvoice,
  expectError,
  expectNotReplayed,
  expectReplayed,
  expectSchema,
  expectStatus,
  paymentBody,
  utcDate,
} from './receivables.helpers';

const validVoid = compileBody(schemas.receivables.invoiceVoidResponse);
const rep = schemas.reporting;

/**
 * POST /invoices/{id}/void through the gateway (API-DECISIONS §11): the reply, its replay, the
 * refusals, every report on both sides of the void date, invoice.voided at a webhook endpoint, and
 * the customer portal showing the invoice void.
 */
describe('e2e: voiding invoices', () => {
  let e2e: E2E;
  let keys: Keys;
  let api: Api;
  let otherApi: Api;
  let receiver: http.Server;
  let hookUrl: string;
  const hits: { type: string; data: Record<string, unknown> }[] = [];
  let customerId: string;
  let voided: any; // open, then void on 2026-04-10
  let kept: any; // open all along
  let shareUrl: string;

  const get = async (p: string, validate?: ReturnType<typeof compileBody>): Promise<any> => {
    const r = await api('GET', p);
    expectStatus(r, 200);
    if (validate) expectSchema(validate, r.json);
    return r.json.data;
  };
  const voidIt = (id: string, body?: unknown, a: Api = api) => a('POST', `/api/v1/invoices/${id}/void`, body);

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        hits.push(JSON.parse(raw));
        res.writeHead(204);
        res.end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/void`;
    e2e = await startE2E({ ...E2E_ENV, WEBHOOK_RETRY_SCHEDULE: '1s,2s,3s', WEBHOOK_POLL_INTERVAL_MS: '100' });
    keys = await bootstrapOrg(e2e.databaseUrl, 'Void org');
    api = client(e2e.base, keys.test_key);
    otherApi = client(e2e.base, (await bootstrapOrg(e2e.databaseUrl, 'Other void org')).test_key);
    expectStatus(await api('POST', '/api/v1/webhook-endpoints', { url: hookUrl, event_types: ['invoice.voided'] }), 201);
    customerId = await createCustomer(api, 'Void Co');
    voided = await createOpenInvoice(api, customerId, 100_000, { issue_date: '2026-03-01', due_date: '2026-03-31' });
    kept = await createOpenInvoice(api, customerId, 30_000, { issue_date: '2026-03-01', due_date: '2026-03-31' });
    // Shared while open: the portal page reads the invoice live.
    const share = await api('POST', '/api/v1/document-shares', { record_type: 'invoice', record_id: voided.id });
    expectStatus(share, 201);
    shareUrl = share.json.data.url;
  }, 120_000);
  afterAll(async () => {
    await e2e?.stop();
    receiver?.closeAllConnections();
    await new Promise((r) => receiver?.close(r));
  });

  it('voids an open invoice on void_date with a reversing entry, and replays a repeat with no second entry', async () => {
    const r = await voidIt(voided.id, { void_date: '2026-04-10' });
    expectStatus(r, 200);
    expectNotReplayed(r);
    expectSchema(validVoid, r.json);
    expect(r.json.invoice).toEqual(r.json.data);
    expect(r.json.action).toEqual({ type: 'voided', status: 'completed' });
    expect(r.json.data).toMatchObject({ id: voided.id, status: 'void', void_date: '2026-04-10', total_cents: 100_000, amount_paid_cents: 0, balance_due_cents: 0 });
    expect(typeof r.json.data.voided_at).toBe('string');

    const again = await voidIt(voided.id);
    expectStatus(again, 200);
    expectReplayed(again);
    expect(again.json.data).toEqual(r.json.data);
    expect((await get(`/api/v1/invoices/${voided.id}`)).status).toBe('void');
    expect((await get(`/api/v1/invoices?status=void`)).map((i: { id: string }) => i.id)).toEqual([voided.id]);

    const entries = await get(`/api/v1/journal-entries?source_id=${voided.id}`);
    expect(entries).toHaveLength(2);
    const reversal = entries.find((e: { reverses_entry_id: string | null }) => e.reverses_entry_id !== null);
    expect(reversal).toMatchObject({ entry_date: '2026-04-10', source_type: 'invoice', source_id: voided.id });
    expect(reversal.reverses_entry_id).toBe(entries.find((e: { reverses_entry_id: string | null }) => e.reverses_entry_id === null).id);
    expect(reversal.lines).toEqual([
      expect.objectContaining({ account_code: '1100', side: 'credit', amount_cents: 100_000, invoice_id: voided.id, customer_id: customerId }),
      expect.objectContaining({ account_code: '4000', side: 'debit', amount_cents: 100_000 }),
    ]);
  });

  it('A/R: the void invoice is open the day before the void date, and gone from it on', async () => {
    const before = await get('/api/v1/reports/accounts-receivable?as_of=2026-04-09', compileBody(rep.receivablesReportResponse));
    expect(before).toMatchObject({ total_open_cents: 130_000, customer_count: 1, aging: { current: 0, days_1_30: 130_000, days_31_60: 0, days_61_90: 0, days_over_90: 0 } });
    expect(before.customers).toEqual([expect.objectContaining({ customer_id: customerId, open_cents: 130_000 })]);
    for (const asOf of ['2026-04-10', '2026-05-31', utcDate(new Date())]) {
      const after = await get(`/api/v1/reports/accounts-receivable?as_of=${asOf}`);
      expect({ asOf, total: after.total_open_cents, customers: after.customers.map((c: { open_cents: number }) => c.open_cents) }).toEqual({
        asOf,
        total: 30_000,
        customers: [30_000],
      });
    }
    // Aged in the bucket of its own due date on both sides: as of 2026-05-31 the kept invoice is 61 days overdue.
    expect((await get('/api/v1/reports/accounts-receivable?as_of=2026-05-31')).aging).toEqual({ current: 0, days_1_30: 0, days_31_60: 0, days_61_90: 30_000, days_over_90: 0 });
    // Before the invoices were issued there was nothing.
    expect((await get('/api/v1/reports/accounts-receivable?as_of=2026-02-28')).total_open_cents).toBe(0);
  });

  it('summary: revenue and A/R include the invoice up to the day before the void date; the void takes them back on it', async () => {
    expect(await get('/api/v1/reports/summary?from=2026-03-01&to=2026-04-09', compileBody(rep.summaryResponse))).toMatchObject({
      revenue_cents: 130_000,
      accounts_receivable_cents: 130_000,
    });
    expect(await get('/api/v1/reports/summary?from=2026-03-01&to=2026-04-10')).toMatchObject({ revenue_cents: 30_000, accounts_receivable_cents: 30_000 });
    // The void is booked on its date: a period holding it alone shows the revenue taken back.
    expect(await get('/api/v1/reports/summary?from=2026-04-10&to=2026-04-30')).toMatchObject({ revenue_cents: -100_000, accounts_receivable_cents: 30_000 });
  });

  it('trial balance: A/R and revenue with the invoice before the void date, without it from then on, balanced both sides', async () => {
    const tb = async (asOf: string) => {
      const t = await get(`/api/v1/reports/trial-balance?as_of=${asOf}`, compileBody(rep.trialBalanceResponse));
      const byCode = Object.fromEntries(t.accounts.map((a: { code: string; debit_cents: number; credit_cents: number }) => [a.code, [a.debit_cents, a.credit_cents]]));
      return { ar: byCode['1100'], revenue: byCode['4000'], balanced: t.balanced, equal: t.total_debit_cents === t.total_credit_cents };
    };
    expect(await tb('2026-04-09')).toEqual({ ar: [130_000, 0], revenue: [0, 130_000], balanced: true, equal: true });
    expect(await tb('2026-04-10')).toEqual({ ar: [30_000, 0], revenue: [0, 30_000], balanced: true, equal: true });
  });

  it('delivers invoice.voided to a subscribed webhook endpoint, once', async () => {
    const end = Date.now() + 20_000;
    while (!hits.some((h) => h.data.invoice_id === voided.id) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    const mine = hits.filter((h) => h.data.invoice_id === voided.id);
    expect(mine.map((h) => ({ type: h.type, data: h.data }))).toEqual([{ type: 'invoice.voided', data: { invoice_id: voided.id, total_cents: 100_000, currency: 'USD' } }]);
    // The endpoint subscribes to invoice.voided only: the posts of the setup were not delivered to it.
    expect(hits.every((h) => h.type === 'invoice.voided')).toBe(true);
  });

  it('shows the invoice as void on the customer portal; a share made after the void renders a PDF that says so', async () => {
    const page = await fetch(shareUrl);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('data-status="Void"');
    expect(html).toContain('<strong data-field="balance_due">$0.00</strong>');
    expect(html).toContain('2026-04-10');
    const share = await api('POST', '/api/v1/document-shares', { record_type: 'invoice', record_id: voided.id });
    expectStatus(share, 201);
    const pdf = await fetch(`${share.json.data.url}/pdf`);
    expect(pdf.status).toBe(200);
    const text = await pdfTextOf(Buffer.from(await pdf.arrayBuffer()));
    expect(text).toContain('Status: Void');
    expect(text).toContain('Void date: 2026-04-10');
  });

  it('voids a draft with no journal entry (today by default); a void invoice is not posted and takes no payment (409)', async () => {
    const draft = await createDraftInvoice(api, customerId, 5_000, { issue_date: '2026-01-01', due_date: '2026-01-31' });
    const r = await voidIt(draft.id);
    expectStatus(r, 200);
    expect(r.json.data).toMatchObject({ status: 'void', void_date: utcDate(new Date()), balance_due_cents: 0 });
    expect(await get(`/api/v1/journal-entries?source_id=${draft.id}`)).toEqual([]);
    expectError(await api('POST', `/api/v1/invoices/${draft.id}/post`), 409, 'conflict');
    const pay = await api('POST', '/api/v1/payments', paymentBody(voided.id, 100));
    expectError(pay, 409, 'conflict');
    expect(pay.json.error.details).toEqual([expect.objectContaining({ field: '/invoice_id', issue: 'invoice_void' })]);
  });

  it('refuses a partially paid and a paid invoice (409), and writes no entry', async () => {
    for (const [amount, status] of [
      [400, 'partially_paid'],
      [1_000, 'paid'],
    ] as const) {
      const inv = await createOpenInvoice(api, customerId, 1_000, { issue_date: '2026-01-01', due_date: '2026-01-31' });
      expectStatus(await api('POST', '/api/v1/payments', paymentBody(inv.id, amount, { received_at: '2026-01-05' })), 201);
      const r = await voidIt(inv.id, { void_date: '2026-01-20' });
      expectError(r, 409, 'conflict');
      expect(r.json.error.details).toEqual([expect.objectContaining({ field: '/status', issue: `invoice_${status}` })]);
      expect((await get(`/api/v1/journal-entries?source_id=${inv.id}`)).length).toBe(1);
    }
  });

  it('refuses a void_date before issue_date, and bad input, with 400 naming void_date; takes the extreme dates', async () => {
    const inv = await createOpenInvoice(api, customerId, 2_000, { issue_date: '2026-02-01', due_date: '2026-02-28' });
    const before = await voidIt(inv.id, { void_date: '2026-01-31' });
    expectError(before, 400, 'validation_failed');
    expect(before.json.error.details).toEqual([expect.objectContaining({ field: '/void_date', issue: 'before_issue_date' })]);
    for (const void_date of ['9999-99-99', '2026-02-30', '1899-12-31', '10000-01-01', '2026-3-1', 'today', '2026-03-01\u0000', '\ud800', 20260301, null]) {
      const r = await voidIt(inv.id, { void_date });
      expectError(r, 400, 'validation_failed');
      expect(r.json.error.details.map((d: { field: string }) => d.field)).toContain('/void_date');
    }
    expectError(await voidIt(inv.id, { void_date: '2026-03-01', reason: 'x' }), 400, 'validation_failed');
    expectError(await voidIt(inv.id, ['2026-03-01']), 400, 'validation_failed');
    expectError(await voidIt(inv.id, { organization_id: keys.organization_id }), 400, 'trusted_scope_field_not_allowed');
    expect((await get(`/api/v1/invoices/${inv.id}`)).status).toBe('open');
    // The last date there is, and an invoice of the first date voided on it.
    expect((await voidIt(inv.id, { void_date: '9999-12-31' })).json.data).toMatchObject({ status: 'void', void_date: '9999-12-31' });
    const first = await createOpenInvoice(api, customerId, 3_000, { issue_date: '1900-01-01', due_date: '1900-01-01' });
    expect((await voidIt(first.id, { void_date: '1900-01-01' })).json.data).toMatchObject({ status: 'void', void_date: '1900-01-01' });
  });

  it("answers another organization's invoice, the live environment's and an unknown id as 404, a malformed id as 400", async () => {
    const inv = await createOpenInvoice(api, customerId, 2_500, { issue_date: '2026-02-01', due_date: '2026-02-28' });
    expectError(await voidIt(inv.id, {}, otherApi), 404, 'not_found');
    expectError(await voidIt(inv.id, {}, client(e2e.base, keys.live_key)), 404, 'not_found');
    expectError(await voidIt(randomUUID()), 404, 'not_found');
    expectError(await voidIt('not-a-uuid'), 400, 'validation_failed');
    expect((await get(`/api/v1/invoices/${inv.id}`)).status).toBe('open');
  });

  it('keeps A/R equal to the open invoices after all of it (a void dated later still open until then)', async () => {
    const today = utcDate(new Date());
    const ar = await get(`/api/v1/reports/accounts-receivable?as_of=${today}`);
    type Inv = { status: string; issue_date: string; void_date?: string | null; total_cents: number; balance_due_cents: number; posted_at?: string | null };
    const all: Inv[] = await get('/api/v1/invoices?limit=100');
    const openToday = (i: Inv) => (i.status === 'void' ? (i.posted_at && i.void_date! > today ? i.total_cents : 0) : i.balance_due_cents);
    expect(ar.total_open_cents).toBe(all.filter((i) => i.issue_date <= today).reduce((s, i) => s + openToday(i), 0));
    expect(all.some((i) => i.status === 'void' && i.void_date === '9999-12-31')).toBe(true);
    expect((await get(`/api/v1/invoices/${kept.id}`)).status).toBe('open');
  });
});
