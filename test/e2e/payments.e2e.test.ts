import { randomUUID } from 'node:crypto';
import { compileBody, schemas } from '@acct/contracts';
import type { E2E } from './harness';
import {
  type Api,
  createCustomer,
  createDraftInvoice,
  createOpenInvoice,
  expectError,
  expectNotReplayed,
  expectReplayed,
  expectSchema,
  expectStatus,
  getInvoice,
  paymentBody,
  uid,
  startReceivablesE2E,
} from './receivables.helpers';

const validPayment = compileBody(schemas.receivables.paymentResponse);
const validPaymentList = compileBody(schemas.receivables.paymentListResponse);

/** Payments on invoices: the invoice's status walk, replays, validation, lists and concurrent payments. */
describe('e2e: payments through the gateway', () => {
  let e2e: E2E;
  let api: Api;
  let otherApi: Api;

  beforeAll(async () => {
    ({ e2e, api, otherApi } = await startReceivablesE2E('Receivables org'));
  });
  afterAll(async () => e2e?.stop());

  it('refuses a payment on a draft invoice (409 conflict)', async () => {
    const customerId = await createCustomer(api);
    const inv = await createDraftInvoice(api, customerId, 5000);
    const r = await api('POST', '/api/v1/payments', paymentBody(inv.id, 1000));
    expectError(r, 409, 'conflict');
    const list = await api('GET', `/api/v1/payments?invoice_id=${inv.id}`);
    expect(list.json.data).toEqual([]);
    expect((await getInvoice(api, inv.id)).status).toBe('draft');
  });

  it('walks open → partially_paid → paid, refusing overpayment and payments on a paid invoice', async () => {
    const customerId = await createCustomer(api);
    const inv = await createOpenInvoice(api, customerId, 10000);

    const firstBody = paymentBody(inv.id, 3000);
    const first = await api('POST', '/api/v1/payments', firstBody);
    expectStatus(first, 201);
    expectNotReplayed(first);
    expectSchema(validPayment, first.json);
    expect(first.json.payment).toEqual(first.json.data);
    expect(first.json.data).toMatchObject({
      external_payment_id: firstBody.external_payment_id,
      invoice_id: inv.id,
      amount_cents: 3000,
      received_date: '2026-03-05',
      source: 'manual',
      currency: 'USD',
      status: 'posted',
    });
    expect(await getInvoice(api, inv.id)).toMatchObject({ status: 'partially_paid', amount_paid_cents: 3000, balance_due_cents: 7000, total_cents: 10000 });

    const over = await api('POST', '/api/v1/payments', paymentBody(inv.id, 7001));
    expectError(over, 409, 'conflict');
    expect(over.json.error.details.map((d: { issue: string }) => d.issue)).toContain('exceeds_open_balance');
    expect(await getInvoice(api, inv.id)).toMatchObject({ status: 'partially_paid', amount_paid_cents: 3000, balance_due_cents: 7000 });

    const finalBody = paymentBody(inv.id, 7000);
    const final = await api('POST', '/api/v1/payments', finalBody);
    expectStatus(final, 201);
    expectSchema(validPayment, final.json);
    expect(await getInvoice(api, inv.id)).toMatchObject({ status: 'paid', amount_paid_cents: 10000, balance_due_cents: 0 });

    const onPaid = await api('POST', '/api/v1/payments', paymentBody(inv.id, 1));
    expectError(onPaid, 409, 'conflict');

    // A retry of the payment that paid the invoice is still a replay, not a conflict.
    const retryFinal = await api('POST', '/api/v1/payments', finalBody);
    expectStatus(retryFinal, 200);
    expectReplayed(retryFinal);
    expect(retryFinal.json.data).toEqual(final.json.data);

    const list = await api('GET', `/api/v1/payments?invoice_id=${inv.id}`);
    expect(list.json.data.map((p: { id: string }) => p.id)).toEqual([final.json.data.id, first.json.data.id]);
    expect(await getInvoice(api, inv.id)).toMatchObject({ status: 'paid', amount_paid_cents: 10000 });
  });

  it('400 for amount 0 and other invalid bodies; 404 for an unknown or foreign invoice', async () => {
    const customerId = await createCustomer(api);
    const inv = await createOpenInvoice(api, customerId, 5000);
    const cases: Array<[string, Record<string, unknown>]> = [
      ['amount 0', paymentBody(inv.id, 0)],
      ['negative amount', paymentBody(inv.id, -5)],
      ['fractional amount', paymentBody(inv.id, 10.5)],
      ['bad received_at', paymentBody(inv.id, 100, { received_at: 'yesterday' })],
      ['unknown source', paymentBody(inv.id, 100, { source: 'cheque' })],
      ['currency EUR', paymentBody(inv.id, 100, { currency: 'EUR' })],
      ['missing received_at', paymentBody(inv.id, 100, { received_at: undefined })],
    ];
    for (const [name, body] of cases) {
      const r = await api('POST', '/api/v1/payments', body);
      expect({ name, status: r.status, code: r.json?.error?.code }).toEqual({ name, status: 400, code: 'validation_failed' });
      expectError(r, 400, 'validation_failed');
    }
    expectError(await api('POST', '/api/v1/payments', paymentBody(randomUUID(), 100)), 404, 'not_found');
    expectError(await otherApi('POST', '/api/v1/payments', paymentBody(inv.id, 100)), 404, 'not_found');
    expect(await getInvoice(api, inv.id)).toMatchObject({ status: 'open', amount_paid_cents: 0, balance_due_cents: 5000 });
  });

  it('replays the same external_payment_id with the same content and refuses different content', async () => {
    const customerId = await createCustomer(api);
    const inv = await createOpenInvoice(api, customerId, 9000);
    const body = paymentBody(inv.id, 2000);
    const first = await api('POST', '/api/v1/payments', body);
    expectStatus(first, 201);
    const replay = await api('POST', '/api/v1/payments', body);
    expectStatus(replay, 200);
    expectReplayed(replay);
    expectSchema(validPayment, replay.json);
    expect(replay.json.data).toEqual(first.json.data);

    expectError(await api('POST', '/api/v1/payments', { ...body, amount_cents: 2001 }), 409, 'conflict');
    expectError(await api('POST', '/api/v1/payments', { ...body, received_at: '2026-03-06' }), 409, 'conflict');

    const list = await api('GET', `/api/v1/payments?invoice_id=${inv.id}`);
    expect(list.json.data).toHaveLength(1);
    expect(await getInvoice(api, inv.id)).toMatchObject({ status: 'partially_paid', amount_paid_cents: 2000, balance_due_cents: 7000 });
  });

  it('replays a payment whose received_at is a date-time; records processor payments', async () => {
    const customerId = await createCustomer(api);
    const inv = await createOpenInvoice(api, customerId, 5000);
    const body = paymentBody(inv.id, 1200, { received_at: '2026-03-01T23:30:00-05:00', source: 'processor', processor: 'stripe' });
    const first = await api('POST', '/api/v1/payments', body);
    expectStatus(first, 201);
    expect(first.json.data).toMatchObject({ source: 'processor', processor: 'stripe', received_date: '2026-03-02' });
    const replay = await api('POST', '/api/v1/payments', body);
    expectStatus(replay, 200);
    expectReplayed(replay);
    expect(replay.json.data).toEqual(first.json.data);
  });

  it('a generic Idempotency-Key replays a payment POST and refuses it with another body', async () => {
    const customerId = await createCustomer(api);
    const inv = await createOpenInvoice(api, customerId, 5000);
    const h = { 'idempotency-key': randomUUID() };
    const body = paymentBody(inv.id, 1000);
    const a = await api('POST', '/api/v1/payments', body, h);
    const b = await api('POST', '/api/v1/payments', body, h);
    expect([a.status, b.status]).toEqual([201, 201]);
    expectReplayed(b);
    expect(b.json).toEqual(a.json);
    expectError(await api('POST', '/api/v1/payments', { ...body, amount_cents: 999 }, h), 409, 'conflict');
    expect(await getInvoice(api, inv.id)).toMatchObject({ amount_paid_cents: 1000 });
  });

  it('takes the UTC date of a received_at date-time as received_date', async () => {
    const customerId = await createCustomer(api);
    const inv = await createOpenInvoice(api, customerId, 5000);
    const r = await api('POST', '/api/v1/payments', paymentBody(inv.id, 1000, { received_at: '2026-03-01T23:30:00-05:00' }));
    expectStatus(r, 201);
    expect(r.json.data.received_date).toBe('2026-03-02');
    const r2 = await api('POST', '/api/v1/payments', paymentBody(inv.id, 1000, { received_at: '2026-03-02T01:30:00+02:00' }));
    expectStatus(r2, 201);
    expect(r2.json.data.received_date).toBe('2026-03-01');
  });

  it('lists payments newest first with an invoice_id filter and pagination, and gets one', async () => {
    const customerId = await createCustomer(api);
    const inv1 = await createOpenInvoice(api, customerId, 10000);
    const inv2 = await createOpenInvoice(api, customerId, 10000);
    const p1 = (await api('POST', '/api/v1/payments', paymentBody(inv1.id, 100))).json.data;
    const p2 = (await api('POST', '/api/v1/payments', paymentBody(inv2.id, 200))).json.data;
    const p3 = (await api('POST', '/api/v1/payments', paymentBody(inv1.id, 300))).json.data;

    const l1 = await api('GET', `/api/v1/payments?invoice_id=${inv1.id}`);
    expectStatus(l1, 200);
    expectSchema(validPaymentList, l1.json);
    expect(l1.json.payments).toEqual(l1.json.data);
    expect(l1.json.data.map((p: { id: string }) => p.id)).toEqual([p3.id, p1.id]);
    expect(l1.json.pagination).toEqual({ limit: 25, offset: 0, count: 2, has_more: false });
    const l2 = await api('GET', `/api/v1/payments?invoice_id=${inv2.id}`);
    expect(l2.json.data.map((p: { id: string }) => p.id)).toEqual([p2.id]);

    const page = await api('GET', `/api/v1/payments?invoice_id=${inv1.id}&limit=1&offset=1`);
    expect(page.json.data.map((p: { id: string }) => p.id)).toEqual([p1.id]);
    expect(page.json.pagination).toEqual({ limit: 1, offset: 1, count: 1, has_more: false });

    const all = await api('GET', '/api/v1/payments?limit=3');
    expectSchema(validPaymentList, all.json);
    expect(all.json.data.map((p: { id: string }) => p.id)).toEqual([p3.id, p2.id, p1.id]);

    const got = await api('GET', `/api/v1/payments/${p2.id}`);
    expectStatus(got, 200);
    expectSchema(validPayment, got.json);
    expect(got.json.data).toEqual(p2);
    expect(got.json.payment).toEqual(p2);

    expectError(await api('GET', `/api/v1/payments/${randomUUID()}`), 404, 'not_found');
    expectError(await otherApi('GET', `/api/v1/payments/${p2.id}`), 404, 'not_found');
    const theirs = await otherApi('GET', `/api/v1/payments?invoice_id=${inv1.id}`);
    expectStatus(theirs, 200);
    expect(theirs.json.data).toEqual([]);
  });

  it('two concurrent payments whose sum exceeds the balance: exactly one 201, the other 409', async () => {
    const customerId = await createCustomer(api);
    const inv = await createOpenInvoice(api, customerId, 10000);
    const results = await Promise.all([api('POST', '/api/v1/payments', paymentBody(inv.id, 6000)), api('POST', '/api/v1/payments', paymentBody(inv.id, 7000))]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    const ok = results.find((r) => r.status === 201)!;
    const refused = results.find((r) => r.status === 409)!;
    expectSchema(validPayment, ok.json);
    expectError(refused, 409, 'conflict');
    expect(refused.json.error.details.map((d: { issue: string }) => d.issue)).toContain('exceeds_open_balance');

    const after = await getInvoice(api, inv.id);
    expect(after.amount_paid_cents).toBe(ok.json.data.amount_cents);
    expect(after.amount_paid_cents).toBeLessThanOrEqual(after.total_cents);
    expect(after.balance_due_cents).toBe(after.total_cents - after.amount_paid_cents);
    expect(after.status).toBe('partially_paid');
    const list = await api('GET', `/api/v1/payments?invoice_id=${inv.id}`);
    expect(list.json.data.map((p: { id: string }) => p.id)).toEqual([ok.json.data.id]);
  });

  it('many concurrent payments on one invoice never overpay it', async () => {
    const customerId = await createCustomer(api);
    const inv = await createOpenInvoice(api, customerId, 10000);
    const results = await Promise.all(Array.from({ length: 8 }, () => api('POST', '/api/v1/payments', paymentBody(inv.id, 3000))));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 201, 409, 409, 409, 409, 409]);
    const after = await getInvoice(api, inv.id);
    expect(after).toMatchObject({ amount_paid_cents: 9000, balance_due_cents: 1000, status: 'partially_paid' });
    const list = await api('GET', `/api/v1/payments?invoice_id=${inv.id}`);
    expect(list.json.data).toHaveLength(3);
  });

  it('10 concurrent retries of one external_payment_id: exactly one 201, nine 200, one payment', async () => {
    const customerId = await createCustomer(api);
    const inv = await createOpenInvoice(api, customerId, 10000);
    const body = paymentBody(inv.id, 2500, { external_payment_id: uid('retry') });
    const results = await Promise.all(Array.from({ length: 10 }, () => api('POST', '/api/v1/payments', body)));
    const statuses = results.map((r) => r.status).sort();
    expect({ statuses, bodies: results.filter((r) => r.status >= 300).map((r) => r.json) }).toEqual({
      statuses: [200, 200, 200, 200, 200, 200, 200, 200, 200, 201],
      bodies: [],
    });
    const ids = new Set(results.map((r) => r.json.data.id));
    expect(ids.size).toBe(1);
    for (const r of results.filter((x) => x.status === 200)) expectReplayed(r);
    const list = await api('GET', `/api/v1/payments?invoice_id=${inv.id}`);
    expect(list.json.data).toHaveLength(1);
    expect(list.json.data[0].id).toBe([...ids][0]);
    expect(await getInvoice(api, inv.id)).toMatchObject({ amount_paid_cents: 2500, balance_due_cents: 7500, status: 'partially_paid' });
  });
});
