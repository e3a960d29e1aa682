import { randomUUID } from 'node:crypto';
import { compileBody, schemas } from '@acct/contracts';
import type { E2E, Keys } from './harness';
import {
  type Api,
  type Res,
  createCustomer,
  createDraftInvoice,
  createOpenInvoice,
  expectError,
  expectSchema,
  expectStatus,
  getInvoice,
  paymentBody,
  uid,
  startReceivablesE2E,
} from './receivables.helpers';

const validEvent = compileBody(schemas.receivables.eventResponse);
const validPayment = compileBody(schemas.receivables.paymentResponse);

describe('e2e: inbound events through the gateway', () => {
  let e2e: E2E;
  let other: Keys;
  let api: Api;
  let otherApi: Api;

  beforeAll(async () => {
    ({ e2e, other, api, otherApi } = await startReceivablesE2E('Events org'));
  });
  afterAll(async () => e2e?.stop());

  function send(type: string, payload: Record<string, unknown>, externalEventId = uid('evt'), headers: Record<string, string> = {}, who: Api = api): Promise<Res> {
    return who('POST', '/api/v1/events', { event_type: type, external_event_id: externalEventId, payload }, headers);
  }

  function received(externalInvoiceId: string, amountCents: number, over: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      external_payment_id: uid('ch'),
      external_invoice_id: externalInvoiceId,
      amount_cents: amountCents,
      currency: 'USD',
      processor: 'stripe',
      received_at: '2026-03-05',
      ...over,
    };
  }

  /** A valid event body with the given status; returns data. */
  function expectEvent(r: Res, status: number, eventStatus: string, duplicate: boolean): any {
    expectStatus(r, status);
    expectSchema(validEvent, r.json);
    expect(r.json.event).toEqual(r.json.data);
    expect(r.json.data).toMatchObject({ status: eventStatus, duplicate });
    return r.json.data;
  }

  async function paymentsOf(invoiceId: string): Promise<any[]> {
    const r = await api('GET', `/api/v1/payments?invoice_id=${invoiceId}`);
    expectStatus(r, 200);
    return r.json.data;
  }

  it('payment.received matching an open invoice is processed into a payment', async () => {
    const customerId = await createCustomer(api, 'Event customer');
    const inv = await createOpenInvoice(api, customerId, 10000);
    const extEvent = uid('evt');
    const payload = received(inv.external_invoice_id, 4000, { received_at: '2026-03-01T23:30:00-05:00' });
    const r = await send('payment.received', payload, extEvent);
    const ev = expectEvent(r, 201, 'processed', false);
    expect(ev).toMatchObject({ event_type: 'payment.received', external_event_id: extEvent });
    expect(typeof ev.payment_id).toBe('string');

    expect(await getInvoice(api, inv.id)).toMatchObject({ status: 'partially_paid', amount_paid_cents: 4000, balance_due_cents: 6000 });
    const pays = await paymentsOf(inv.id);
    expect(pays.map((p) => p.id)).toEqual([ev.payment_id]);
    const pay = await api('GET', `/api/v1/payments/${ev.payment_id}`);
    expectStatus(pay, 200);
    expectSchema(validPayment, pay.json);
    expect(pay.json.data).toMatchObject({
      id: ev.payment_id,
      external_payment_id: payload.external_payment_id,
      invoice_id: inv.id,
      amount_cents: 4000,
      received_date: '2026-03-02',
      status: 'posted',
      event_id: ev.event_id,
    });

    // The rest of the balance via a second event: paid.
    const r2 = await send('payment.received', received(inv.external_invoice_id, 6000));
    const ev2 = expectEvent(r2, 201, 'processed', false);
    expect(ev2.event_id).not.toBe(ev.event_id);
    expect(await getInvoice(api, inv.id)).toMatchObject({ status: 'paid', amount_paid_cents: 10000, balance_due_cents: 0 });
    expect((await paymentsOf(inv.id)).map((p) => p.id)).toEqual([ev2.payment_id, ev.payment_id]);
  });

  it('a repeated external_event_id is a duplicate (200, same event); with another payload 409', async () => {
    const customerId = await createCustomer(api);
    const inv = await createOpenInvoice(api, customerId, 10000);
    const extEvent = uid('evt');
    const payload = received(inv.external_invoice_id, 2500);
    const first = expectEvent(await send('payment.received', payload, extEvent), 201, 'processed', false);

    const repeat = await send('payment.received', payload, extEvent);
    const dup = expectEvent(repeat, 200, 'processed', true);
    expect(dup.event_id).toBe(first.event_id);
    expect(dup.payment_id).toBe(first.payment_id);
    expect(await getInvoice(api, inv.id)).toMatchObject({ amount_paid_cents: 2500, status: 'partially_paid' });
    expect(await paymentsOf(inv.id)).toHaveLength(1);

    expectError(await send('payment.received', { ...payload, amount_cents: 2600 }, extEvent), 409, 'conflict');
    expectError(await send('customer.created', payload, extEvent), 409, 'conflict');
    expect(await getInvoice(api, inv.id)).toMatchObject({ amount_paid_cents: 2500 });
    expect(await paymentsOf(inv.id)).toHaveLength(1);
  });

  it('the same Idempotency-Key with another external_event_id but the same type and payload is a duplicate', async () => {
    const customerId = await createCustomer(api);
    const inv = await createOpenInvoice(api, customerId, 10000);
    const key = randomUUID();
    const payload = received(inv.external_invoice_id, 1500);
    const first = expectEvent(await send('payment.received', payload, uid('evt'), { 'idempotency-key': key }), 201, 'processed', false);

    const again = await send('payment.received', payload, uid('evt'), { 'idempotency-key': key });
    const dup = expectEvent(again, 200, 'processed', true);
    expect(dup.event_id).toBe(first.event_id);
    expect(await paymentsOf(inv.id)).toHaveLength(1);
    expect(await getInvoice(api, inv.id)).toMatchObject({ amount_paid_cents: 1500 });

    expectError(await send('payment.received', { ...payload, amount_cents: 1 }, uid('evt'), { 'idempotency-key': key }), 409, 'conflict');
    expect(await paymentsOf(inv.id)).toHaveLength(1);

    // Stored-only types dedupe on the key too.
    const k2 = randomUUID();
    const s1 = expectEvent(await send('invoice.created', { id: 'x' }, uid('evt'), { 'idempotency-key': k2 }), 201, 'stored', false);
    const s2 = expectEvent(await send('invoice.created', { id: 'x' }, uid('evt'), { 'idempotency-key': k2 }), 200, 'stored', true);
    expect(s2.event_id).toBe(s1.event_id);
  });

  it('10 concurrent deliveries of one event: one 201, nine 200 duplicates, one payment', async () => {
    const customerId = await createCustomer(api);
    const inv = await createOpenInvoice(api, customerId, 10000);
    const extEvent = uid('evt');
    const payload = received(inv.external_invoice_id, 3000);
    const rs = await Promise.all(Array.from({ length: 10 }, () => send('payment.received', payload, extEvent)));
    expect({ statuses: rs.map((r) => r.status).sort(), errors: rs.filter((r) => r.status >= 300).map((r) => r.json) }).toEqual({
      statuses: [200, 200, 200, 200, 200, 200, 200, 200, 200, 201],
      errors: [],
    });
    expect(new Set(rs.map((r) => r.json.data.event_id)).size).toBe(1);
    expect(rs.filter((r) => r.json.data.duplicate === true)).toHaveLength(9);
    for (const r of rs) expect(r.json.data.status).toBe('processed');
    expect(await paymentsOf(inv.id)).toHaveLength(1);
    expect(await getInvoice(api, inv.id)).toMatchObject({ amount_paid_cents: 3000, status: 'partially_paid' });
  });

  it('payment.received for an unknown external_invoice_id is stored as failed with details', async () => {
    const r = await send('payment.received', received(uid('no-such-invoice'), 1000));
    const ev = expectEvent(r, 201, 'failed', false);
    expect(Array.isArray(ev.details)).toBe(true);
    expect(ev.details.length).toBeGreaterThan(0);
    expect(ev.payment_id ?? null).toBeNull();

    // Its repeat reports the first (failed) result.
    const extEvent = uid('evt');
    const payload = received(uid('no-such-invoice'), 1000);
    const a = expectEvent(await send('payment.received', payload, extEvent), 201, 'failed', false);
    const b = expectEvent(await send('payment.received', payload, extEvent), 200, 'failed', true);
    expect(b.event_id).toBe(a.event_id);
  });

  it("payment.received for another organization's invoice fails and pays nothing", async () => {
    const theirCustomer = await createCustomer(otherApi);
    const theirs = await createOpenInvoice(otherApi, theirCustomer, 5000);
    const ev = expectEvent(await send('payment.received', received(theirs.external_invoice_id, 1000)), 201, 'failed', false);
    expect(ev.details.length).toBeGreaterThan(0);
    expect(await getInvoice(otherApi, theirs.id)).toMatchObject({ status: 'open', amount_paid_cents: 0 });
  });

  it('payment.received with an invalid payload is stored as failed with details naming the field', async () => {
    const customerId = await createCustomer(api);
    const inv = await createOpenInvoice(api, customerId, 5000);
    const { amount_cents: _omit, ...noAmount } = received(inv.external_invoice_id, 1000);
    const ev = expectEvent(await send('payment.received', noAmount), 201, 'failed', false);
    expect(ev.details.length).toBeGreaterThan(0);
    expect(ev.details.map((d: { field: string }) => d.field).join(' ')).toMatch(/amount_cents/);

    const bad = expectEvent(await send('payment.received', received(inv.external_invoice_id, 0)), 201, 'failed', false);
    expect(bad.details.length).toBeGreaterThan(0);
    expect(await getInvoice(api, inv.id)).toMatchObject({ status: 'open', amount_paid_cents: 0 });
    expect(await paymentsOf(inv.id)).toEqual([]);
  });

  it('payment.received that cannot be paid (draft invoice, over the balance) fails without a payment', async () => {
    const customerId = await createCustomer(api);
    const draft = await createDraftInvoice(api, customerId, 5000);
    const d = expectEvent(await send('payment.received', received(draft.external_invoice_id, 1000)), 201, 'failed', false);
    expect(d.details.length).toBeGreaterThan(0);
    expect(await paymentsOf(draft.id)).toEqual([]);

    const open = await createOpenInvoice(api, customerId, 5000);
    const o = expectEvent(await send('payment.received', received(open.external_invoice_id, 5001)), 201, 'failed', false);
    expect(o.details.length).toBeGreaterThan(0);
    expect(await getInvoice(api, open.id)).toMatchObject({ status: 'open', amount_paid_cents: 0 });
  });

  it('stored-only types are stored (201) and create nothing', async () => {
    const before = await api('GET', '/api/v1/customers?limit=100');
    const types = ['customer.created', 'customer.updated', 'invoice.created', 'invoice.voided', 'credit.applied', 'expense.created'];
    for (const type of types) {
      const ev = expectEvent(await send(type, { external_customer_id: uid('cus'), name: 'Should not exist' }), 201, 'stored', false);
      expect(ev.event_type).toBe(type);
      expect(ev.payment_id ?? null).toBeNull();
    }
    const after = await api('GET', '/api/v1/customers?limit=100');
    expect(after.json.data.map((c: { id: string }) => c.id)).toEqual(before.json.data.map((c: { id: string }) => c.id));
  });

  it('planned and unknown event types are 400 validation_failed; bad bodies too', async () => {
    for (const type of ['bill.posted', 'estimate.created', 'vendor.created', 'vendor_payment.posted', 'document.uploaded', 'made.up', 'payment.received.v2']) {
      const r = await send(type, { a: 1 });
      expect({ type, status: r.status, code: r.json?.error?.code }).toEqual({ type, status: 400, code: 'validation_failed' });
      expectError(r, 400, 'validation_failed');
    }
    // A rejected type is not stored: the same external_event_id can then be used for a valid event.
    const ext = uid('evt');
    expectError(await send('bill.posted', { a: 1 }, ext), 400, 'validation_failed');
    expectEvent(await send('customer.created', { a: 1 }, ext), 201, 'stored', false);

    expectError(await api('POST', '/api/v1/events', { event_type: 'customer.created', external_event_id: uid('e') }), 400, 'validation_failed');
    expectError(await api('POST', '/api/v1/events', { event_type: 'customer.created', external_event_id: uid('e'), payload: [1] }), 400, 'validation_failed');
    expectError(await api('POST', '/api/v1/events', { event_type: 'customer.created', external_event_id: uid('e'), payload: {}, extra: 1 }), 400, 'validation_failed');
    expectError(
      await api('POST', '/api/v1/events', { event_type: 'customer.created', external_event_id: uid('e'), payload: {}, organization_id: other.organization_id }),
      400,
      'trusted_scope_field_not_allowed',
    );
  });

  it('events are scoped to the organization: the same external_event_id in another org is a new event', async () => {
    const ext = uid('evt');
    const mine = expectEvent(await send('customer.created', { a: 1 }, ext), 201, 'stored', false);
    const theirs = expectEvent(await send('customer.created', { a: 1 }, ext, {}, otherApi), 201, 'stored', false);
    expect(theirs.event_id).not.toBe(mine.event_id);
  });

  it('payment.refunded of the full amount of an event-created payment reverses it and reopens the invoice', async () => {
    const customerId = await createCustomer(api);
    const inv = await createOpenInvoice(api, customerId, 5000);
    const payload = received(inv.external_invoice_id, 5000);
    const paid = expectEvent(await send('payment.received', payload), 201, 'processed', false);
    expect(await getInvoice(api, inv.id)).toMatchObject({ status: 'paid', amount_paid_cents: 5000 });

    const refundEvent = uid('evt');
    const refundPayload = { external_payment_id: payload.external_payment_id, amount_cents: 5000, external_refund_id: uid('re') };
    const refund = expectEvent(await send('payment.refunded', refundPayload, refundEvent), 201, 'processed', false);
    expect(refund.event_type).toBe('payment.refunded');

    expect(await getInvoice(api, inv.id)).toMatchObject({ status: 'open', amount_paid_cents: 0, balance_due_cents: 5000 });
    const pay = await api('GET', `/api/v1/payments/${paid.payment_id}`);
    expectStatus(pay, 200);
    expectSchema(validPayment, pay.json);
    expect(pay.json.data.status).toBe('refunded');

    // The repeat is a duplicate and reverses nothing twice.
    const dup = expectEvent(await send('payment.refunded', refundPayload, refundEvent), 200, 'processed', true);
    expect(dup.event_id).toBe(refund.event_id);
    expect(await getInvoice(api, inv.id)).toMatchObject({ status: 'open', amount_paid_cents: 0, balance_due_cents: 5000 });

    // Another refund event of the refunded payment is stored, saying why, and reverses nothing.
    const second = expectEvent(await send('payment.refunded', { ...refundPayload, external_refund_id: uid('re') }), 201, 'stored', false);
    expect(second.details).toEqual([expect.objectContaining({ field: '/payload/external_payment_id', issue: 'already_refunded' })]);
    expect(await getInvoice(api, inv.id)).toMatchObject({ status: 'open', amount_paid_cents: 0, balance_due_cents: 5000 });

    // The reopened invoice can be paid again.
    const again = await api('POST', '/api/v1/payments', paymentBody(inv.id, 5000));
    expectStatus(again, 201);
    expect(await getInvoice(api, inv.id)).toMatchObject({ status: 'paid', amount_paid_cents: 5000 });
  });

  it("a full refund of a partially paid invoice's event payment restores the balance", async () => {
    const customerId = await createCustomer(api);
    const inv = await createOpenInvoice(api, customerId, 8000);
    await api('POST', '/api/v1/payments', paymentBody(inv.id, 1000));
    const payload = received(inv.external_invoice_id, 3000);
    const paid = expectEvent(await send('payment.received', payload), 201, 'processed', false);
    expect(await getInvoice(api, inv.id)).toMatchObject({ status: 'partially_paid', amount_paid_cents: 4000 });
    expectEvent(await send('payment.refunded', { external_payment_id: payload.external_payment_id, amount_cents: 3000 }), 201, 'processed', false);
    expect(await getInvoice(api, inv.id)).toMatchObject({ status: 'partially_paid', amount_paid_cents: 1000, balance_due_cents: 7000 });
    expect((await api('GET', `/api/v1/payments/${paid.payment_id}`)).json.data.status).toBe('refunded');
  });

  it('payment.refunded of a partial amount is only stored; the invoice and payment are unchanged', async () => {
    const customerId = await createCustomer(api);
    const inv = await createOpenInvoice(api, customerId, 5000);
    const payload = received(inv.external_invoice_id, 5000);
    const paid = expectEvent(await send('payment.received', payload), 201, 'processed', false);
    const before = await getInvoice(api, inv.id);
    expect(before).toMatchObject({ status: 'paid', amount_paid_cents: 5000 });

    const partial = expectEvent(await send('payment.refunded', { external_payment_id: payload.external_payment_id, amount_cents: 2000 }), 201, 'stored', false);
    expect(Array.isArray(partial.details)).toBe(true);
    expect(partial.details.length).toBeGreaterThan(0);
    expect(await getInvoice(api, inv.id)).toEqual(before);
    expect((await api('GET', `/api/v1/payments/${paid.payment_id}`)).json.data.status).toBe('posted');
  });

  it('payment.refunded of a manual (non-event) payment or an unknown payment is only stored', async () => {
    const customerId = await createCustomer(api);
    const inv = await createOpenInvoice(api, customerId, 5000);
    const manual = await api('POST', '/api/v1/payments', paymentBody(inv.id, 5000));
    expectStatus(manual, 201);
    const before = await getInvoice(api, inv.id);
    const r = expectEvent(await send('payment.refunded', { external_payment_id: manual.json.data.external_payment_id, amount_cents: 5000 }), 201, 'stored', false);
    expect(r.details.length).toBeGreaterThan(0);
    expect(await getInvoice(api, inv.id)).toEqual(before);
    expect((await api('GET', `/api/v1/payments/${manual.json.data.id}`)).json.data.status).toBe('posted');

    const unknown = expectEvent(await send('payment.refunded', { external_payment_id: uid('nope'), amount_cents: 100 }), 201, 'stored', false);
    expect(unknown.details.length).toBeGreaterThan(0);
  });
});
