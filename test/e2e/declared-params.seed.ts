/**
 * The data set of declared-params.e2e.test.ts, made through the API with one key: every list holds
 * at least three items, made one after the other (so their creation times differ), and every
 * filter's field takes at least two values, so that each declared parameter has something to
 * exclude. The report cases use the parties named here.
 */
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { multipart } from './documents.helpers';
import { type Api, createCustomer, createDraftInvoice, createOpenInvoice, expectStatus, paymentBody, uid } from './receivables.helpers';

export interface Seed {
  /** Customers whose only open invoice is issued on 2026-03-01 (early) or 2026-05-01 (late). */
  earlyCustomer: string;
  lateCustomer: string;
  /** Vendors with a posted bill partly paid: A eligible (bill and payment 2025), B eligible (2026), C not eligible (2025). */
  vendorA: string;
  vendorB: string;
  vendorC: string;
  /** The endpoint whose deliveries are listed (three webhook.test deliveries). */
  endpoint: string;
}

async function ok(api: Api, method: string, path: string, body?: unknown, status = 201): Promise<any> {
  const r = await api(method, path, body);
  expectStatus(r, status);
  return r.json.data;
}

async function seedReceivables(api: Api): Promise<Pick<Seed, 'earlyCustomer' | 'lateCustomer'>> {
  const earlyCustomer = await createCustomer(api, 'Early customer');
  const lateCustomer = await createCustomer(api, 'Late customer');
  const third = await createCustomer(api, 'Third customer');
  await createOpenInvoice(api, earlyCustomer, 10_000, { issue_date: '2026-03-01', due_date: '2026-03-31' });
  await createOpenInvoice(api, lateCustomer, 20_000, { issue_date: '2026-05-01', due_date: '2026-05-31' });
  await createDraftInvoice(api, third, 5000);
  const paid = await createOpenInvoice(api, third, 4000);
  const partial = await createOpenInvoice(api, third, 6000);
  await ok(api, 'POST', '/api/v1/payments', paymentBody(paid.id, 4000));
  await ok(api, 'POST', '/api/v1/payments', paymentBody(partial.id, 1000, { received_at: '2026-03-20' }));
  await ok(api, 'POST', '/api/v1/payments', paymentBody(partial.id, 500, { received_at: '2026-03-25' }));
  for (const processor of ['stripe', 'adyen', 'stripe']) {
    await ok(api, 'POST', '/api/v1/processor-payouts', {
      external_payout_id: uid('po'),
      processor,
      payout_date: '2026-03-10',
      gross_cents: 10_000,
      fee_cents: 300,
      net_cents: 9700,
    });
  }
  const lines = [{ description: 'Estimate work', quantity: 1, unit_amount_cents: 900 }];
  for (const customer of [earlyCustomer, lateCustomer, third]) {
    await ok(api, 'POST', '/api/v1/estimates', { external_estimate_id: uid('est'), customer_id: customer, issue_date: '2026-03-01', line_items: lines });
  }
  const estimates = await ok(api, 'GET', '/api/v1/estimates?limit=1', undefined, 200);
  await ok(api, 'POST', `/api/v1/estimates/${estimates[0].id}/status`, { status: 'sent' }, 200);
  return { earlyCustomer, lateCustomer };
}

/** Inbound events: stored (api), failed (api, no such invoice) and one from Stripe (stored as it is). */
async function seedEvents(api: Api, base: string): Promise<void> {
  await ok(api, 'POST', '/api/v1/events', { event_type: 'customer.created', external_event_id: uid('evt'), payload: { id: uid('cus') } });
  const received = { external_payment_id: uid('pay'), external_invoice_id: uid('none'), amount_cents: 100, received_at: '2026-03-05' };
  await ok(api, 'POST', '/api/v1/events', { event_type: 'payment.received', external_event_id: uid('evt'), payload: received });
  const secret = `whsec_${randomBytes(24).toString('base64url')}`;
  const hook = await ok(api, 'PUT', '/api/v1/settings/payment-processor', { provider: 'stripe', signing_secret: secret }, 200);
  const payload = JSON.stringify({
    id: uid('evt'),
    object: 'event',
    created: 1_772_000_000,
    livemode: false,
    type: 'customer.subscription.created',
    data: { object: { id: uid('sub') } },
  });
  const header = new Stripe('sk_test_unused').webhooks.generateTestHeaderString({ payload, secret });
  const res = await fetch(`${base}${hook.webhook_url as string}`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': header }, body: payload });
  expect(res.status).toBe(200);
}

async function seedPayables(api: Api): Promise<Pick<Seed, 'vendorA' | 'vendorB' | 'vendorC'>> {
  const vendor = async (name: string, over: Record<string, unknown>) =>
    (await ok(api, 'POST', '/api/v1/vendors', { external_vendor_id: uid('ven'), display_name: name, ...over })).id as string;
  const vendorA = await vendor('Vendor A', { vendor_type: 'contractor', is_1099_eligible: true });
  const vendorB = await vendor('Vendor B', { vendor_type: 'contractor', is_1099_eligible: true });
  const vendorC = await vendor('Vendor C', { vendor_type: 'business', is_1099_eligible: false });
  const bill = async (vendorId: string, issue: string, over: Record<string, unknown> = {}) =>
    (
      await ok(api, 'POST', '/api/v1/bills', {
        external_bill_id: uid('bill'),
        vendor_id: vendorId,
        bill_number: 'B-1',
        issue_date: issue,
        due_date: issue,
        line_items: [{ description: 'Work', quantity: 1, unit_amount_cents: 30_000 }],
        ...over,
      })
    ).id as string;
  const billA = await bill(vendorA, '2025-01-10');
  const billB = await bill(vendorB, '2026-02-01');
  const billC = await bill(vendorC, '2025-02-01');
  await bill(vendorA, '2026-06-01', { status: 'draft' });
  const reversed = await bill(vendorB, '2026-03-01');
  await ok(api, 'POST', `/api/v1/bills/${reversed}/reverse`, { reversal_reason: 'Entered twice' }, 200);
  const pay = (vendorId: string, billId: string, date: string, cents: number, over: Record<string, unknown> = {}) =>
    ok(api, 'POST', '/api/v1/vendor-payments', {
      external_vendor_payment_id: uid('vp'),
      vendor_id: vendorId,
      amount_cents: cents,
      payment_date: date,
      allocations: [{ bill_id: billId, amount_cents: cents }],
      ...over,
    });
  await pay(vendorA, billA, '2025-03-01', 10_000);
  await pay(vendorB, billB, '2026-03-01', 10_000);
  await pay(vendorC, billC, '2025-03-01', 10_000);
  await pay(vendorA, billA, '2025-04-01', 1000, { status: 'ready' });
  return { vendorA, vendorB, vendorC };
}

/** Three endpoints, three test deliveries of the first; three documents, two types, one linked. */
async function seedWebhooksAndDocuments(api: Api, linkTo: string): Promise<string> {
  const endpoints: string[] = [];
  for (let i = 0; i < 3; i++) endpoints.push((await ok(api, 'POST', '/api/v1/webhook-endpoints', { url: `https://192.0.2.${20 + i}/hook` })).id);
  for (let i = 0; i < 3; i++) await ok(api, 'POST', `/api/v1/webhook-endpoints/${endpoints[0]}/test`);
  const docs: string[] = [];
  for (const type of ['receipt', 'other', 'receipt']) {
    const m = multipart({ name: `${type}.txt`, type: 'text/plain', bytes: Buffer.from(`A ${type}`) }, { document_type: type });
    const r = await api('POST', '/api/v1/documents', m.body.toString('utf8'), { 'content-type': m.contentType });
    expectStatus(r, 201);
    docs.push(r.json.data.id);
  }
  await ok(api, 'POST', `/api/v1/documents/${docs[2]}/link`, { record_type: 'customer', record_id: linkTo }, 200);
  return endpoints[0]!;
}

export async function seed(api: Api, base: string): Promise<Seed> {
  const receivables = await seedReceivables(api);
  await seedEvents(api, base);
  const payables = await seedPayables(api);
  const endpoint = await seedWebhooksAndDocuments(api, receivables.earlyCustomer);
  return { ...receivables, ...payables, endpoint };
}
