/**
 * The OpenAPI document against the server: a workflow that calls every operation of the route table,
 * then error cases on every route (400, 404, 405, 409), all through a checker of the document as
 * served at /developers/openapi.yaml (see conformance.ts). A route added to ROUTES and not called
 * here fails the last test.
 */
import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import { ROUTES, type RouteDef, buildOpenApi } from '@acct/contracts';
import fs from 'node:fs';
import path from 'node:path';
import { waitFor } from '@acct/testing';
import { Conformance, type OpenApiDoc, type RecordedExample, shapeOf } from './conformance';
import { FIXTURES, paramsOf } from './fixtures';
import { type E2E, bootstrapOrg, startE2E } from './harness';
import { type Api, E2E_ENV, createDraftInvoice, createOpenInvoice, expectStatus, invoiceBody, paymentBody, uid } from './receivables.helpers';

const stripe = new Stripe('sk_test_unused');
const line = { description: 'Work', quantity: 2, unit_amount_cents: 1250 };

describe('e2e: the OpenAPI document against the server', () => {
  let e2e: E2E;
  let conf: Conformance;
  let api: Api;
  let anon: Api;
  let testKey: string;
  /** Ids made by the workflow, for the error cases that need a real record. */
  const made: Record<string, string> = {};

  beforeAll(async () => {
    e2e = await startE2E(E2E_ENV);
    const keys = await bootstrapOrg(e2e.databaseUrl, 'Conformance org');
    conf = await Conformance.load(e2e.base);
    api = conf.client(e2e.base, keys.test_key);
    testKey = keys.test_key;
    anon = conf.client(e2e.base);
  });
  afterAll(async () => e2e?.stop());

  const ok = async (p: Promise<Awaited<ReturnType<Api>>>, status = 200) => {
    const r = await p;
    expectStatus(r, status);
    return r;
  };

  it('the document, the key, customers and invoices', async () => {
    await ok(anon('GET', '/developers/openapi.yaml'));
    await ok(anon('GET', '/developers/openapi.json'));
    await ok(anon('GET', '/developers'));
    await ok(anon('GET', '/developers/redoc.js'));
    await ok(api('GET', '/api/v1/auth/check'));

    const ext = uid('cus');
    const c = await ok(api('POST', '/api/v1/customers', { external_customer_id: ext, name: 'Conformance customer', email: 'c@example.com' }), 201);
    made.customer = c.json.data.id;
    await ok(api('POST', '/api/v1/customers', { external_customer_id: ext, name: 'Conformance customer', email: 'c@example.com' }), 200);
    await ok(api('POST', '/api/v1/customers', { external_customer_id: ext, name: 'Another name' }), 409);
    await ok(api('GET', '/api/v1/customers?limit=2&offset=0'));
    await ok(api('GET', `/api/v1/customers/${made.customer}`));
    // Cursor pages, created bounds and the external-id lookup (API-DECISIONS §11).
    await ok(api('GET', `/api/v1/customers?limit=1&starting_after=${made.customer}`));
    await ok(api('GET', `/api/v1/customers?limit=1&ending_before=${made.customer}&created%5Bgte%5D=2026-01-01&created%5Blt%5D=9999-12-31T00:00:00Z`));
    await ok(api('GET', `/api/v1/customers?external_customer_id=${ext}`));
    await conf.expectingRule('conflicts', () => ok(api('GET', `/api/v1/customers?starting_after=${made.customer}&ending_before=${made.customer}`), 400));
    await conf.expectingRule('conflicts', () => ok(api('GET', `/api/v1/customers?starting_after=${made.customer}&offset=1`), 400));
    await conf.expectingRule('not_found', () => ok(api('GET', `/api/v1/customers?starting_after=${randomUUID()}`), 400));
    await ok(api('GET', '/api/v1/customers?created%5Bgte%5D=9999-99-99'), 400);
    await ok(api('PATCH', `/api/v1/customers/${made.customer}`, { name: 'Conformance customer, renamed', email: null, metadata: { crm: '1' } }));
    await ok(api('PATCH', `/api/v1/customers/${made.customer}`, {}));
    await ok(api('PATCH', `/api/v1/customers/${made.customer}`, { metadata: { 'a[b]': 'x' } }), 400);
    await ok(api('PATCH', `/api/v1/customers/${randomUUID()}`, { name: 'Nobody' }), 404);
    const full = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
    const crowded = (await ok(api('POST', '/api/v1/customers', { external_customer_id: uid('cus'), name: 'Crowded', metadata: full }), 201)).json.data.id as string;
    await conf.expectingRule('too_many', () => ok(api('PATCH', `/api/v1/customers/${crowded}`, { metadata: { one_more: 'x' } }), 400));

    const draft = await createDraftInvoice(api, made.customer!, 5000);
    await ok(api('GET', `/api/v1/invoices?status=draft&customer_id=${made.customer}`));
    await ok(api('GET', `/api/v1/invoices/${draft.id}`));
    await ok(api('PATCH', `/api/v1/invoices/${draft.id}`, { memo: 'Patched', line_items: [line, line], metadata: { order: 'o-1' } }));
    await conf.expectingRule('before_issue_date', () => ok(api('PATCH', `/api/v1/invoices/${draft.id}`, { due_date: '2026-02-01' }), 400));
    await ok(api('PATCH', `/api/v1/invoices/${draft.id}`, { customer_id: randomUUID() }), 404);
    await ok(api('POST', `/api/v1/invoices/${draft.id}/post`)); // no body
    await ok(api('POST', `/api/v1/invoices/${draft.id}/post`, {})); // replay, with {}
    await ok(api('PATCH', `/api/v1/invoices/${draft.id}`, { memo: 'Too late' }), 409);
    await ok(api('PATCH', `/api/v1/invoices/${draft.id}`, { metadata: { order: '' } }));
    made.invoice = draft.id;
    made.draftInvoice = (await createDraftInvoice(api, made.customer!, 100)).id;
    // Rules the document states in prose (or as a pattern/enum) are refused as it says.
    await conf.expectingRule('before_issue_date', () => ok(api('POST', '/api/v1/invoices', invoiceBody(made.customer!, [line], { due_date: '2026-02-01' })), 400));
    await conf.expectingRule('invalid_format', () => ok(api('POST', '/api/v1/invoices', invoiceBody(made.customer!, [{ ...line, quantity: 1.23456 }])), 400));
    await ok(api('POST', '/api/v1/invoices', invoiceBody(made.customer!, [{ ...line, quantity: 1.2345 }])), 201);
    await ok(api('POST', '/api/v1/invoices', invoiceBody(made.customer!, [line], { currency: 'EUR' })), 400);
    await ok(api('POST', '/api/v1/invoices', invoiceBody(made.customer!, [line], { issue_date: '1899-12-31' })), 400);
    await ok(api('POST', '/api/v1/invoices', invoiceBody(made.customer!, [line], { invoice_number: 'A\u0000B' })), 400);
    await ok(api('POST', '/api/v1/invoices', invoiceBody(randomUUID(), [line])), 404);
    // Void (API-DECISIONS §11): an open invoice on a date, its replay without a body, a draft with {}, then the refusals.
    const toVoid = await createOpenInvoice(api, made.customer!, 700);
    await ok(api('POST', `/api/v1/invoices/${toVoid.id}/void`, { void_date: '2026-03-10' }));
    await ok(api('POST', `/api/v1/invoices/${toVoid.id}/void`));
    await ok(api('POST', `/api/v1/invoices/${(await createDraftInvoice(api, made.customer!, 300)).id}/void`, {}));
    const notVoided = await createOpenInvoice(api, made.customer!, 900);
    await conf.expectingRule('before_issue_date', () => ok(api('POST', `/api/v1/invoices/${notVoided.id}/void`, { void_date: '2026-02-28' }), 400));
    await ok(api('POST', `/api/v1/invoices/${notVoided.id}/void`, { void_date: '9999-99-99' }), 400);
    await ok(api('POST', '/api/v1/payments', paymentBody(notVoided.id, 100)), 201);
    await ok(api('POST', `/api/v1/invoices/${notVoided.id}/void`), 409);
  });

  it('payments and processor payouts', async () => {
    const p = await ok(api('POST', '/api/v1/payments', paymentBody(made.invoice!, 1000)), 201);
    await ok(api('GET', `/api/v1/payments?invoice_id=${made.invoice}`));
    await ok(api('GET', `/api/v1/payments/${p.json.data.id}`));
    await ok(api('POST', '/api/v1/payments', paymentBody(made.draftInvoice!, 50)), 409);
    await ok(api('POST', '/api/v1/payments', paymentBody(made.invoice!, 999_999)), 409);
    await ok(api('POST', '/api/v1/payments', paymentBody(made.invoice!, 10, { received_at: '2026-03-05T10:00:00+02:00' })), 201);

    const payout = await FIXTURES['/api/v1/processor-payouts']!.create(api);
    await ok(api('GET', '/api/v1/processor-payouts?processor=stripe'));
    await ok(api('GET', `/api/v1/processor-payouts/${payout}`));
    const bad = { external_payout_id: uid('po'), processor: 'stripe', payout_date: '2026-03-10', gross_cents: 100, fee_cents: 3, net_cents: 90 };
    await conf.expectingRule('net_mismatch', () => ok(api('POST', '/api/v1/processor-payouts', bad), 400));
  });

  it('estimates: create, status, convert', async () => {
    const id = await FIXTURES['/api/v1/estimates']!.create(api);
    await ok(api('GET', '/api/v1/estimates?status=draft'));
    await ok(api('GET', `/api/v1/estimates/${id}`));
    await ok(api('PATCH', `/api/v1/estimates/${id}`, { expiry_date: '2026-04-01', memo: null, metadata: { quote: 'q-1' } }));
    await ok(api('POST', `/api/v1/estimates/${id}/convert`), 409); // a draft cannot be converted
    await ok(api('POST', `/api/v1/estimates/${id}/status`, { status: 'sent' }));
    await ok(api('PATCH', `/api/v1/estimates/${id}`, { line_items: [line] }), 409);
    await ok(api('PATCH', `/api/v1/estimates/${id}`, { metadata: { won: 'yes' } }));
    await ok(api('POST', `/api/v1/estimates/${id}/status`, { status: 'accepted' }));
    await ok(api('POST', `/api/v1/estimates/${id}/status`, { status: 'draft' }), 409);
    await ok(api('POST', `/api/v1/estimates/${id}/convert`)); // no body: every default
    await ok(api('POST', `/api/v1/estimates/${id}/convert`, {})); // replay
    const other = await FIXTURES['/api/v1/estimates']!.create(api);
    await ok(api('POST', `/api/v1/estimates/${other}/status`, { status: 'accepted' }));
    await conf.expectingRule('before_issue_date', () => ok(api('POST', `/api/v1/estimates/${other}/convert`, { issue_date: '2026-04-10', due_date: '2026-04-01' }), 400));
    await ok(api('POST', `/api/v1/estimates/${other}/convert`, { issue_date: '2026-04-10', due_date: '2026-05-01', invoice_number: uid('E') }));
  });

  it('inbound events', async () => {
    const body = { event_type: 'customer.created', external_event_id: uid('evt'), payload: { id: 'c1', nested: { list: [1, 'two'] } } };
    const first = await ok(api('POST', '/api/v1/events', body), 201);
    await ok(api('POST', '/api/v1/events', body), 200);
    await ok(api('POST', '/api/v1/events', { ...body, payload: { other: true } }), 409);
    await ok(api('POST', '/api/v1/events', { ...body, external_event_id: uid('evt'), payload: { k: 'a\u0000b' } }), 400);
    await ok(api('GET', '/api/v1/events?source=api&status=stored'));
    await ok(api('GET', `/api/v1/events/${first.json.data.event_id}`));
  });

  it('the payment processor and its signed Stripe input', async () => {
    await ok(api('GET', '/api/v1/settings/payment-processor'), 404);
    await ok(api('DELETE', '/api/v1/settings/payment-processor'), 404);
    const secret = `whsec_${randomUUID().replace(/-/g, '')}`;
    const put = await ok(api('PUT', '/api/v1/settings/payment-processor', { provider: 'stripe', signing_secret: secret }));
    await ok(api('GET', '/api/v1/settings/payment-processor'));
    const hook = put.json.data.webhook_url as string;
    const inv = await createOpenInvoice(api, made.customer!, 3000);
    const event = JSON.stringify({
      id: uid('evt'),
      object: 'event',
      created: 1772712000,
      type: 'payment_intent.succeeded',
      data: { object: { id: uid('pi'), object: 'payment_intent', amount: 3000, amount_received: 3000, currency: 'usd', created: 1772712000, metadata: { invoice_id: inv.id } } },
    });
    const signature = stripe.webhooks.generateTestHeaderString({ payload: event, secret });
    await ok(anon('POST', hook, event, { 'stripe-signature': signature }));
    await ok(anon('POST', hook, event, { 'stripe-signature': signature })); // a replay
    await conf.expectingRule('signature_invalid', () => ok(anon('POST', hook, event, { 'stripe-signature': 't=1,v1=00' }), 400));
    await ok(api('DELETE', '/api/v1/settings/payment-processor'));
    await ok(anon('POST', hook, event, { 'stripe-signature': signature }), 404);
  });

  it('vendors, bills and vendor payments', async () => {
    const vendor = await FIXTURES['/api/v1/vendors']!.create(api);
    await ok(api('GET', '/api/v1/vendors?vendor_type=contractor&is_1099_eligible=false'));
    await ok(api('GET', `/api/v1/vendors/${vendor}`));
    await ok(api('PATCH', `/api/v1/vendors/${vendor}`, { w9_on_file: true, is_1099_eligible: true }));
    await ok(api('PATCH', `/api/v1/vendors/${vendor}`, {}), 400);

    const billBody = (over: Record<string, unknown> = {}) => ({
      external_bill_id: uid('bill'),
      vendor_id: vendor,
      bill_number: 'B-1',
      issue_date: '2026-03-01',
      due_date: '2026-03-31',
      line_items: [line],
      ...over,
    });
    const posted = (await ok(api('POST', '/api/v1/bills', billBody()), 201)).json.data.id as string;
    const draft = (await ok(api('POST', '/api/v1/bills', billBody({ status: 'draft' })), 201)).json.data.id as string;
    await ok(api('GET', `/api/v1/bills?status=posted&vendor_id=${vendor}&issue_date_from=2026-01-01&issue_date_to=2026-12-31`));
    await ok(api('GET', `/api/v1/bills/${posted}`));
    await ok(api('PATCH', `/api/v1/bills/${draft}`, { bill_number: 'B-1a', line_items: [line, line], metadata: { po: 'PO-1' } }));
    await ok(api('PATCH', `/api/v1/bills/${draft}`, { status: 'posted' }), 400);
    await ok(api('PATCH', `/api/v1/bills/${posted}`, { memo: 'Too late' }), 409);
    await ok(api('PATCH', `/api/v1/bills/${posted}`, { metadata: { po: 'PO-2' } }));
    await ok(api('PATCH', `/api/v1/vendors/${vendor}`, { metadata: { tax_id: 't-1' } }));
    await ok(api('POST', `/api/v1/bills/${draft}/reverse`, { reversal_reason: 'Entered twice' }), 409);
    await ok(api('POST', `/api/v1/bills/${draft}/post`));
    await conf.expectingRule('before_issue_date', () => ok(api('POST', '/api/v1/bills', billBody({ due_date: '2026-02-01' })), 400));

    const vp = {
      external_vendor_payment_id: uid('vp'),
      vendor_id: vendor,
      amount_cents: 1000,
      payment_date: '2026-03-10',
      allocations: [{ bill_id: posted, amount_cents: 1000 }],
      status: 'ready',
    };
    const pay = (await ok(api('POST', '/api/v1/vendor-payments', vp), 201)).json.data.id as string;
    await conf.expectingRule('allocation_sum_mismatch', () => ok(api('POST', '/api/v1/vendor-payments', { ...vp, external_vendor_payment_id: uid('vp'), amount_cents: 999 }), 400));
    await ok(api('GET', `/api/v1/vendor-payments?vendor_id=${vendor}&status=ready`));
    await ok(api('GET', `/api/v1/vendor-payments/${pay}`));
    await ok(api('POST', `/api/v1/vendor-payments/${pay}/post`));
    await ok(api('POST', `/api/v1/bills/${posted}/reverse`, { reversal_reason: 'x' }), 409); // has a payment
    await ok(api('POST', `/api/v1/vendor-payments/${pay}/reverse`, { reversal_reason: 'Paid twice' }));
    await ok(api('POST', `/api/v1/vendor-payments/${pay}/post`), 409);
    await ok(api('POST', `/api/v1/bills/${posted}/reverse`, { reversal_reason: 'Entered twice' }));
  });

  it('webhook endpoints and deliveries', async () => {
    const id = await FIXTURES['/api/v1/webhook-endpoints']!.create(api);
    await ok(api('GET', '/api/v1/webhook-endpoints?limit=5'));
    await ok(api('GET', `/api/v1/webhook-endpoints/${id}`));
    const delivery = await ok(api('POST', `/api/v1/webhook-endpoints/${id}/test`), 201);
    // The list and the retry below are recorded once the test delivery's first attempt is: wait for
    // it off the record. attempt_count counts an attempt when it starts (its lease), its row comes
    // when it ends: how soon depends on the machine's network (192.0.2.10 answers nothing), and an
    // answer with no attempt yet recorded another shape than the examples.
    await waitFor(async () => {
      const r = await fetch(`${e2e.base}/api/v1/webhook-endpoints/${id}/deliveries`, { headers: { Authorization: `Bearer ${testKey}` } });
      const list = (await r.json()) as { data: { id: string; attempts: unknown[] }[] };
      return list.data.some((d) => d.id === delivery.json.data.id && d.attempts.length > 0);
    }, 30_000);
    await ok(api('GET', `/api/v1/webhook-endpoints/${id}/deliveries`));
    // API-DECISIONS §11: PATCH, rotate-secret, retry of a delivery.
    await ok(api('PATCH', `/api/v1/webhook-endpoints/${id}`, { description: 'Conformance', metadata: { k: 'v' } }));
    await ok(api('PATCH', `/api/v1/webhook-endpoints/${id}`, { metadata: { 'a[b]': 'v' } }), 400);
    await ok(api('POST', `/api/v1/webhook-endpoints/${id}/rotate-secret`)); // no body: 24 h
    await ok(api('POST', `/api/v1/webhook-endpoints/${id}/rotate-secret`, { expire_current_in_hours: 0 }));
    await ok(api('POST', `/api/v1/webhook-endpoints/${id}/rotate-secret`, { expire_current_in_hours: -1 }), 400);
    const retryPath = `/api/v1/webhook-endpoints/${id}/deliveries/${delivery.json.data.id as string}/retry`;
    await ok(api('POST', retryPath), 202);
    await ok(api('POST', `/api/v1/webhook-endpoints/${id}/deliveries/${randomUUID()}/retry`), 404);
    await ok(api('PATCH', `/api/v1/webhook-endpoints/${id}`, { enabled: false }));
    await ok(api('POST', retryPath), 409);
    await ok(api('DELETE', `/api/v1/webhook-endpoints/${id}`));
  });

  it('documents, shares, renders and the portal', async () => {
    const doc = await FIXTURES['/api/v1/documents']!.create(api);
    await ok(api('GET', '/api/v1/documents?document_type=receipt&status=uploaded'));
    await ok(api('GET', `/api/v1/documents/${doc}`));
    const dl = await ok(api('GET', `/api/v1/documents/${doc}/download`));
    expect(dl.headers.get('content-type')).toMatch(/^text\/plain/);
    await ok(api('POST', `/api/v1/documents/${doc}/link`, { record_type: 'customer', record_id: made.customer }));
    await ok(api('POST', `/api/v1/documents/${doc}/link`, { record_type: 'invoice', record_id: randomUUID() }), 404);

    const share = (await ok(api('POST', '/api/v1/document-shares', { record_type: 'invoice', record_id: made.invoice }), 201)).json.data;
    await ok(api('GET', `/api/v1/document-shares/${share.id}`));
    await ok(api('GET', `/api/v1/document-renders/${share.render_id}`));
    await ok(api('GET', `/api/v1/document-renders/${share.render_id}/download`));
    const page = new URL(share.url as string).pathname;
    await ok(anon('GET', page, undefined, { accept: 'text/html' }));
    await ok(anon('GET', `${page}/pdf`));
    await ok(api('DELETE', `/api/v1/document-shares/${share.id}`));
    await ok(api('DELETE', `/api/v1/document-shares/${share.id}`)); // again: nothing changes
    await ok(anon('GET', page, undefined, { accept: 'text/html' }), 404);
    await ok(anon('GET', page), 404);
    await ok(anon('GET', `${page}/pdf`), 404);
  });

  it('settings', async () => {
    await ok(api('GET', '/api/v1/settings/capabilities'));
    for (const [path, body] of [
      ['document-branding', { business_name: 'Conformance Inc', primary_color: '#112233' }],
      ['invoice-defaults', { payment_terms_days: 15, default_terms: 'Net 15' }],
      ['estimate-defaults', { validity_days: 20 }],
    ] as const) {
      await ok(api('GET', `/api/v1/settings/${path}`));
      await ok(api('PUT', `/api/v1/settings/${path}`, body));
      await ok(api('PUT', `/api/v1/settings/${path}`)); // no body: nothing changes
      await ok(api('PUT', `/api/v1/settings/${path}`, { nope: 1 }), 400);
    }
    // The books' lock date: set at the first day of any books (nothing here is dated then), cleared.
    await ok(api('GET', '/api/v1/settings/books-lock'));
    await ok(api('PUT', '/api/v1/settings/books-lock', { lock_date: '1900-01-01' }));
    await ok(api('PUT', '/api/v1/settings/books-lock', { lock_date: '2026-02-30' }), 400);
    await ok(api('PUT', '/api/v1/settings/books-lock', { lock_date: null }));
  });

  it('the ledger and the reports', async () => {
    const accounts = await ok(api('GET', '/api/v1/accounts?limit=100'));
    await ok(api('GET', `/api/v1/accounts/${accounts.json.data[0].id}`));
    await ok(api('GET', `/api/v1/accounts?limit=2&starting_after=${accounts.json.data[0].id}`));
    await ok(api('GET', '/api/v1/journal-entries?source_type=invoice&from=2026-01-01&to=2026-12-31'));
    await conf.expectingRule('invalid', () => ok(api('GET', '/api/v1/journal-entries?from=2026-02-01&to=2026-01-01'), 400));
    // The tamper-evident journal (API-DECISIONS §12): every chain of the key's scope re-computed.
    const verification = await ok(api('GET', '/api/v1/ledger/verification'));
    expect(verification.json.data.status).toBe('intact');
    await ok(api('GET', '/api/v1/reports/summary?from=2026-01-01&to=2026-12-31'));
    await conf.expectingRule('invalid', () => ok(api('GET', '/api/v1/reports/summary?from=2026-12-31&to=2026-01-01'), 400));
    await ok(api('GET', '/api/v1/reports/summary?from=1899-12-31&to=2026-01-01'), 400);
    await ok(api('GET', '/api/v1/reports/accounts-receivable?as_of=2026-06-30'));
    await ok(api('GET', '/api/v1/reports/accounts-payable'));
    await ok(api('GET', '/api/v1/reports/1099-summary?year=2026&include_ineligible=true'));
    await ok(api('GET', '/api/v1/reports/trial-balance?as_of=2026-12-31'));
    // The financial statements and their fiscal year (API-DECISIONS §14).
    await ok(api('GET', '/api/v1/settings/fiscal-year'));
    await ok(api('PUT', '/api/v1/settings/fiscal-year', { fiscal_year_start_month: 1 }));
    await ok(api('PUT', '/api/v1/settings/fiscal-year', { fiscal_year_start_month: 13 }), 400);
    await ok(api('GET', '/api/v1/reports/profit-and-loss?from=2026-01-01&to=2026-12-31&columns=quarter'));
    await ok(api('GET', '/api/v1/reports/profit-and-loss?from=2026-01-01&to=2026-12-31&basis=cash'));
    await conf.expectingRule('invalid', () => ok(api('GET', '/api/v1/reports/profit-and-loss?from=2026-12-31&to=2026-01-01'), 400));
    await ok(api('GET', '/api/v1/reports/balance-sheet?as_of=2026-12-31&columns=quarter'));
    const receivable = (accounts.json.data as { id: string; code: string }[]).find((a) => a.code === '1100')!.id;
    await ok(api('GET', `/api/v1/reports/general-ledger?account_id=${receivable}&from=2026-01-01&to=2026-12-31&limit=2`));
  });

  /** A request to a route with made-up path values: a random uuid, or a token no share has. */
  const pathOf = (route: RouteDef, value = () => randomUUID()) => route.path.replace(/\{([^}]+)\}/g, (_m, name: string) => (name === 'token' ? 'no-such-token' : value()));
  /** The smallest body each route with an id takes, so its 404 is about the id. */
  const BODIES: Record<string, unknown> = {
    setEstimateStatus: { status: 'sent' },
    updateVendor: { w9_on_file: true },
    updateWebhookEndpoint: { description: 'x' },
    reverseBill: { reversal_reason: 'x' },
    reverseVendorPayment: { reversal_reason: 'x' },
    linkDocument: { record_type: 'customer', record_id: randomUUID() },
  };
  const send = (route: RouteDef, p: string, body?: unknown) => {
    const who = route.auth ? api : anon;
    if (route.kind === 'raw') return who(route.method, p, '{}', { 'stripe-signature': 't=1,v1=00' });
    const needsBody = ['POST', 'PUT', 'PATCH'].includes(route.method) && route.kind !== 'upload';
    return who(route.method, p, body ?? (needsBody ? {} : undefined));
  };

  it('refuses an unknown query parameter on every route (400)', async () => {
    for (const route of ROUTES) {
      const r = await send(route, `${pathOf(route)}?zz_unknown=1`, BODIES[route.operationId]);
      expect({ op: route.operationId, status: r.status }).toEqual({ op: route.operationId, status: 400 });
    }
  });

  it('answers 404 for a record that is not there on every route with an id', async () => {
    for (const route of ROUTES.filter((r) => paramsOf(r.path).length > 0)) {
      const r = await send(route, pathOf(route), BODIES[route.operationId]);
      expect({ op: route.operationId, status: r.status }).toEqual({ op: route.operationId, status: 404 });
    }
  });

  it('answers 405 with Allow for a method a path lacks, 404 for a path the document lacks', async () => {
    const paths = [...new Set(ROUTES.map((r) => r.path))];
    for (const path of paths) {
      const has = ROUTES.filter((r) => r.path === path).map((r) => r.method as string);
      const method = ['DELETE', 'PATCH', 'PUT', 'POST', 'GET'].find((m) => !has.includes(m))!;
      const route = ROUTES.find((r) => r.path === path)!;
      const r = await (route.auth ? api : anon)(method, pathOf(route));
      expect({ path, method, status: r.status }).toEqual({ path, method, status: 405 });
    }
    expect((await api('GET', '/api/v1/nothing-here')).status).toBe(404);
    expect((await anon('GET', '/nowhere')).status).toBe(404);
    expect((await anon('DELETE', '/api/v1/customers')).status).toBe(401); // the key first under /api/v1
  });

  it('answers 409 for an Idempotency-Key used again with another body', async () => {
    const key = uid('idem');
    await ok(api('POST', '/api/v1/customers', { external_customer_id: uid('cus'), name: 'A' }, { 'idempotency-key': key }), 201);
    await ok(api('POST', '/api/v1/customers', { external_customer_id: uid('cus'), name: 'B' }, { 'idempotency-key': key }), 409);
  });

  it('saw no mismatch with the document, and called every operation with a success and an error', () => {
    expect(conf.problems).toEqual([]);
    const all = ROUTES.map((r) => r.operationId);
    expect(all.filter((id) => !conf.exercised.has(id))).toEqual([]);
    const statuses = (id: string) => [...(conf.exercised.get(id) ?? [])];
    expect(all.filter((id) => !statuses(id).some((s) => s < 300))).toEqual([]);
    expect(all.filter((id) => !statuses(id).some((s) => s >= 400))).toEqual([]);
    expect(conf.counts.methodNotAllowed).toBeGreaterThanOrEqual(new Set(ROUTES.map((r) => r.path)).size);
    // The document's examples are this run's traffic (issue #24): kept in libs/contracts, and this test
    // fails when the server's shapes leave them behind, so they cannot rot.
    const examples = conf.examples();
    if (process.env.UPDATE_OPENAPI_EXAMPLES === '1') {
      fs.writeFileSync(RECORDED, `${JSON.stringify(examples, null, 2)}\n`);
    } else {
      const kept = JSON.parse(fs.readFileSync(RECORDED, 'utf8')) as Record<string, RecordedExample>;
      const shapes = (x: Record<string, RecordedExample>) =>
        Object.fromEntries(
          Object.entries(x).map(([id, e]) => [
            id,
            { request: shapeOf(e.request ?? null), response: [e.response.status, shapeOf(e.response.body ?? null)], error: e.error && [e.error.status, shapeOf(e.error.body)] },
          ]),
        );
      // On a difference: UPDATE_OPENAPI_EXAMPLES=1 npx jest --selectProjects e2e --runTestsByPath test/e2e/openapi-conformance.e2e.test.ts, then npm run sdk:gen.
      expect(shapes(kept)).toEqual(shapes(examples));
    }
    process.stdout.write(
      `openapi conformance: ${Object.keys(examples).length} operations with recorded examples, ${all.length} operations, ${conf.counts.exchanges} exchanges, ${conf.counts.bodiesValidated} bodies validated, ` +
        `${conf.counts.methodNotAllowed} 405s, ${conf.counts.unknownPath} unknown paths\n`,
    );
  });
});

/** Where the document's examples are kept (libs/contracts builds them in). */
const RECORDED = path.resolve(__dirname, '..', '..', 'libs', 'contracts', 'src', 'openapi-recorded.json');

describe('the conformance checker itself (no server)', () => {
  const fake = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    return { status, headers: new Headers({ 'content-type': 'application/json', ...headers }), json: typeof body === 'string' ? undefined : body, text };
  };
  const envelope = (code: string) => ({ error: { code, message: 'm', details: [{ field: '/x', issue: 'invalid', message: 'm' }], request_id: 'r' } });
  const id = randomUUID();
  const problemsOf = (method: string, p: string, res: ReturnType<typeof fake>, body?: unknown) => {
    const conf = new Conformance(buildOpenApi() as unknown as OpenApiDoc);
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    conf.check(method, p, headers, body === undefined ? undefined : JSON.stringify(body), res);
    return conf.problems;
  };

  it('flags an undeclared status, media type or body, a valid request refused, an invalid one accepted, a bad 405', () => {
    expect(problemsOf('GET', '/api/v1/customers', fake(200, { data: [] }))).toEqual([expect.stringMatching(/^response body/)]);
    expect(problemsOf('GET', '/api/v1/customers', fake(404, envelope('not_found')))).toEqual([expect.stringMatching(/^undeclared status/)]);
    expect(problemsOf('GET', `/api/v1/documents/${id}/download`, fake(200, 'x', { 'content-type': 'application/zip' }))).toEqual([expect.stringMatching(/^undeclared media type/)]);
    expect(problemsOf('GET', `/api/v1/documents/${id}/download`, fake(200, 'x', { 'content-type': 'text/csv; charset=utf-8' }))).toEqual([]);
    expect(problemsOf('GET', `/api/v1/customers/${id}`, fake(400, envelope('validation_failed')))).toEqual([expect.stringMatching(/^valid request refused/)]);
    expect(problemsOf('GET', `/api/v1/customers/${id}?nope=1`, fake(400, envelope('validation_failed')))).toEqual([]);
    expect(problemsOf('POST', `/api/v1/invoices/${id}/post`, fake(400, envelope('validation_failed')), { x: 1 })).toEqual([]);
    expect(problemsOf('POST', '/api/v1/customers', fake(201, {}), { name: 'no external id' })).toEqual(
      expect.arrayContaining([expect.stringMatching(/^invalid request accepted/)]),
    );
    expect(problemsOf('DELETE', '/api/v1/customers', fake(405, envelope('validation_failed'), { allow: 'GET' }))).toEqual([expect.stringMatching(/^Allow header/)]);
    expect(problemsOf('DELETE', '/api/v1/customers', fake(405, envelope('validation_failed'), { allow: 'HEAD, GET, POST' }))).toEqual([]);
    expect(problemsOf('DELETE', '/api/v1/customers', fake(404, envelope('not_found')))).toEqual([expect.stringMatching(/^method not allowed/)]);
    expect(problemsOf('GET', '/api/v1/nothing', fake(200, {}))).toEqual(expect.arrayContaining([expect.stringMatching(/^unknown path/)]));
  });
});
