import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import Stripe from 'stripe';
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
  startReceivablesE2E,
  uid,
} from './receivables.helpers';

const validLock = compileBody(schemas.receivables.booksLockResponse);
const stripe = new Stripe('sk_test_unused');
const unix = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/**
 * The books' lock date through the gateway (API-DECISIONS §12): GET and PUT with their history,
 * bad dates (400), every posting path of receivables and payables refused with 409 period_locked on
 * or before the lock date (nothing stored) and allowed after it, POST /events and the Stripe hook
 * storing the event failed, the other organization untouched, and postings racing a PUT.
 */
describe('e2e: books lock date', () => {
  let e2e: E2E;
  let keys: Keys;
  let api: Api;
  let otherApi: Api;

  beforeAll(async () => {
    ({ e2e, keys, api, otherApi } = await startReceivablesE2E('Lock org'));
  });
  afterAll(async () => e2e?.stop());

  const lock = async (lock_date: string | null, who: Api = api): Promise<any> => {
    const r = await who('PUT', '/api/v1/settings/books-lock', { lock_date });
    expectStatus(r, 200);
    expectSchema(validLock, r.json);
    expect(r.json.books_lock).toEqual(r.json.data);
    return r.json.data;
  };
  const expectLocked = (r: Res) => {
    expectError(r, 409, 'period_locked');
    expect(r.json.error.details[0]).toMatchObject({ issue: 'period_locked' });
  };
  const entryCount = async (who: Api = api): Promise<number> => {
    // Read-your-writes: the journal (reporting's projection) includes every write that answered 2xx.
    const r = await who('GET', '/api/v1/journal-entries?limit=100');
    expectStatus(r, 200);
    return r.json.data.length;
  };
  const vendor = async (): Promise<string> => {
    const r = await api('POST', '/api/v1/vendors', { external_vendor_id: uid('v'), display_name: 'Lock vendor' });
    expectStatus(r, 201);
    return r.json.data.id;
  };
  const billBody = (vendorId: string, issue: string, over: Record<string, unknown> = {}) => ({
    external_bill_id: uid('bill'),
    vendor_id: vendorId,
    bill_number: 'LB-1',
    issue_date: issue,
    due_date: issue,
    line_items: [{ description: 'x', quantity: 1, unit_amount_cents: 5000 }],
    ...over,
  });

  it('starts unlocked; refuses bad dates (400) and takes 1900-01-01 and 9999-12-31; records every change with its key and app, newest first', async () => {
    const r = await api('GET', '/api/v1/settings/books-lock');
    expectStatus(r, 200);
    expectSchema(validLock, r.json);
    expect(r.json.data).toEqual({ lock_date: null, changes: [] });
    for (const body of [
      { lock_date: '2026-02-30' },
      { lock_date: '1899-12-31' },
      { lock_date: '10000-01-01' },
      { lock_date: '2026-1-5' },
      { lock_date: 7 },
      {},
      { lock_date: null, extra: 1 },
    ]) {
      expectError(await api('PUT', '/api/v1/settings/books-lock', body), 400, 'validation_failed');
    }
    expectError(await api('PUT', '/api/v1/settings/books-lock', { lock_date: null, organization_id: keys.organization_id }), 400, 'trusted_scope_field_not_allowed');
    expect((await lock('1900-01-01')).lock_date).toBe('1900-01-01');
    expect((await lock('9999-12-31')).lock_date).toBe('9999-12-31');
    const cleared = await lock(null);
    expect(cleared.lock_date).toBeNull();
    expect(cleared.changes.map((c: any) => [c.previous_lock_date, c.lock_date])).toEqual([
      ['9999-12-31', null],
      ['1900-01-01', '9999-12-31'],
      [null, '1900-01-01'],
    ]);
    expect(cleared.changes[0]).toMatchObject({ connected_app_id: keys.connected_app_id, api_key_id: expect.any(String), changed_at: expect.any(String) });
    expect((await lock(null)).changes).toHaveLength(3); // the same value again records nothing
    // The other organization has its own (none).
    expect((await otherApi('GET', '/api/v1/settings/books-lock')).json.data).toEqual({ lock_date: null, changes: [] });
  });

  it('refuses hostile bodies of PUT books-lock and queries of GET /ledger/verification with 400 in the envelope, and keeps serving', async () => {
    let deep: unknown = '2026-01-01';
    for (let i = 0; i < 200; i++) deep = { lock_date: deep };
    for (const body of [
      { lock_date: '2026-01-01\u0000' },
      { lock_date: '2026-01-0\ud800' },
      '{"lock_date": 9007199254740993}',
      { lock_date: ['2026-01-01'] },
      deep,
      [{ lock_date: null }],
      'null',
    ]) {
      const r = await api('PUT', '/api/v1/settings/books-lock', body);
      expect([r.status, r.json?.error?.code]).toEqual([400, 'validation_failed']);
    }
    for (const q of ['?status=broken', '?limit=9007199254740993', '?x=%00']) {
      const r = await api('GET', `/api/v1/ledger/verification${q}`);
      expect([q, r.status, r.json?.error?.code]).toEqual([q, 400, 'validation_failed']);
    }
    // Nothing recorded, and both routes still answer.
    expectStatus(await api('GET', '/api/v1/settings/books-lock'), 200);
    const v = await api('GET', '/api/v1/ledger/verification');
    expectStatus(v, 200);
    expect(v.json.data.status).toBe('intact');
  });

  it('refuses every posting path on or before the lock date with 409 period_locked, storing nothing, and allows the day after', async () => {
    await lock(null);
    const customerId = await createCustomer(api, 'Lock customer');
    const draft = await createDraftInvoice(api, customerId, 10_000, { issue_date: '2026-01-31', due_date: '2026-02-28' });
    const open = await createOpenInvoice(api, customerId, 10_000, { issue_date: '2026-01-10', due_date: '2026-02-28' });
    const v = await vendor();
    const openBill = await api('POST', '/api/v1/bills', billBody(v, '2026-01-10'));
    expectStatus(openBill, 201);
    await lock('2026-01-31');
    const before = await entryCount();

    expectLocked(await api('POST', `/api/v1/invoices/${draft.id}/post`));
    expectLocked(await api('POST', '/api/v1/payments', { external_payment_id: uid('pay'), invoice_id: open.id, amount_cents: 100, received_at: '2026-01-31T20:00:00Z' }));
    const payout = (date: string) =>
      api('POST', '/api/v1/processor-payouts', { external_payout_id: uid('po'), processor: 'stripe', payout_date: date, gross_cents: 1000, fee_cents: 30, net_cents: 970 });
    expectLocked(await payout('2026-01-31'));
    expectLocked(await api('POST', `/api/v1/invoices/${open.id}/void`, { void_date: '2026-01-31' }));
    const bill = billBody(v, '2026-01-31');
    expectLocked(await api('POST', '/api/v1/bills', bill));
    expectLocked(
      await api('POST', '/api/v1/vendor-payments', {
        external_vendor_payment_id: uid('vp'),
        vendor_id: v,
        amount_cents: 1000,
        payment_date: '2026-01-31',
        allocations: [{ bill_id: openBill.json.data.id, amount_cents: 1000 }],
      }),
    );

    expect(await entryCount()).toBe(before);
    expect((await api('GET', `/api/v1/invoices/${draft.id}`)).json.data.status).toBe('draft');
    expect((await api('GET', `/api/v1/invoices/${open.id}`)).json.data).toMatchObject({ status: 'open', amount_paid_cents: 0 });
    expect((await api('GET', `/api/v1/bills?external_bill_id=${bill.external_bill_id}`)).json.data).toEqual([]);
    expect((await api('GET', `/api/v1/bills/${openBill.json.data.id}`)).json.data).toMatchObject({ amount_paid_cents: 0 });
    expect((await api('GET', '/api/v1/payments')).json.data).toEqual([]);
    expect((await api('GET', '/api/v1/processor-payouts')).json.data).toEqual([]);
    // The other organization is not locked.
    const theirs = await createDraftInvoice(otherApi, await createCustomer(otherApi, 'Other'), 500, { issue_date: '2026-01-31', due_date: '2026-01-31' });
    expectStatus(await otherApi('POST', `/api/v1/invoices/${theirs.id}/post`), 200);

    // The day after the lock date posts.
    expectStatus(await api('POST', '/api/v1/payments', { external_payment_id: uid('pay'), invoice_id: open.id, amount_cents: 100, received_at: '2026-02-01' }), 201);
    expectStatus(await payout('2026-02-01'), 201);
    expectStatus(await api('POST', '/api/v1/bills', billBody(v, '2026-02-01')), 201);
    // Moved earlier: the draft's date posts again.
    await lock('2026-01-30');
    expectStatus(await api('POST', `/api/v1/invoices/${draft.id}/post`), 200);
    expect(await entryCount()).toBe(before + 4);
  });

  it('stores an inbound event (POST /events, the Stripe hook) that would post into the locked period as failed with period_locked', async () => {
    await lock(null);
    const customerId = await createCustomer(api, 'Event customer');
    const inv = await createOpenInvoice(api, customerId, 20_000, { issue_date: '2026-03-01', due_date: '2026-03-31' });
    const secret = `whsec_${randomBytes(24).toString('base64url')}`;
    const proc = await api('PUT', '/api/v1/settings/payment-processor', { provider: 'stripe', signing_secret: secret });
    expectStatus(proc, 200);
    await lock('2026-03-31');
    const before = await entryCount();

    const ev = await api('POST', '/api/v1/events', {
      external_event_id: uid('evt'),
      event_type: 'payment.received',
      payload: { external_payment_id: uid('pay'), external_invoice_id: inv.external_invoice_id, amount_cents: 1000, received_at: '2026-03-15' },
    });
    expectStatus(ev, 201);
    expect(ev.json.data).toMatchObject({ status: 'failed', details: [{ issue: 'period_locked' }] });

    const deliver = async (type: string, object: Record<string, unknown>) => {
      const payload = JSON.stringify({
        id: uid('evt'),
        object: 'event',
        api_version: '2024-06-20',
        created: unix('2026-03-05T12:00:00Z'),
        livemode: false,
        type,
        data: { object },
      });
      const res = await fetch(`${e2e.base}${proc.json.data.webhook_url}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': stripe.webhooks.generateTestHeaderString({ payload, secret }) },
        body: payload,
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { data: Record<string, unknown> }).data;
    };
    const pi = await deliver('payment_intent.succeeded', {
      id: uid('pi'),
      object: 'payment_intent',
      amount: 2000,
      amount_received: 2000,
      currency: 'usd',
      created: unix('2026-03-05T23:30:00Z'),
      status: 'succeeded',
      metadata: { invoice_id: inv.id },
    });
    expect(pi).toMatchObject({ source: 'stripe', status: 'failed', details: [{ issue: 'period_locked' }] });
    const po = await deliver('payout.paid', {
      id: uid('po'),
      object: 'payout',
      amount: 9_700,
      currency: 'usd',
      arrival_date: unix('2026-03-07T00:00:00Z'),
      metadata: { gross_cents: '10000', fee_cents: '300', net_cents: '9700' },
    });
    expect(po).toMatchObject({ source: 'stripe', status: 'failed', details: [{ issue: 'period_locked' }] });

    expect(await entryCount()).toBe(before);
    expect((await api('GET', `/api/v1/invoices/${inv.id}`)).json.data).toMatchObject({ status: 'open', amount_paid_cents: 0 });
    const failed = await api('GET', '/api/v1/events?status=failed&limit=100');
    expect(failed.json.data.filter((e: any) => e.details[0]?.issue === 'period_locked')).toHaveLength(3);
  });

  it('race: invoice posts and bills in flight while PUT runs either committed before it answered or were refused; after it every one is refused', async () => {
    await lock(null);
    const customerId = await createCustomer(api, 'Race customer');
    const v = await vendor();
    const drafts = await Promise.all(Array.from({ length: 8 }, () => createDraftInvoice(api, customerId, 700, { issue_date: '2026-05-10', due_date: '2026-05-31' })));
    const dated = async () => {
      const r = await api('GET', '/api/v1/journal-entries?from=2026-05-01&to=2026-05-31&limit=100');
      expectStatus(r, 200);
      return r.json.data.length as number;
    };
    const before = await dated();
    const inFlight = [
      ...drafts.map((d) => api('POST', `/api/v1/invoices/${d.id}/post`)),
      ...Array.from({ length: 8 }, () => api('POST', '/api/v1/bills', billBody(v, '2026-05-10'))),
    ];
    await lock('2026-05-31');
    // Every posting sent after the answer is refused (the commit order itself is checked on the
    // databases in test/integration/books-lock.int.test.ts; the journal here is a projection).
    const after = await Promise.all([api('POST', '/api/v1/bills', billBody(v, '2026-05-31')), api('POST', '/api/v1/bills', billBody(v, '2026-05-01'))]);
    for (const o of after) expectLocked(o);
    const outcomes = await Promise.all(inFlight);
    for (const o of outcomes) expect([200, 201, 409]).toContain(o.status);
    // Each in-flight posting either committed (one entry) or was refused (nothing stored).
    expect((await dated()) - before).toBe(outcomes.filter((o) => o.status !== 409).length);
    for (const o of outcomes.filter((x) => x.status === 409)) expect(o.json.error.code).toBe('period_locked');
    for (const d of drafts) {
      const again = await api('POST', `/api/v1/invoices/${d.id}/post`);
      expect(again.status === 409 ? again.json.error.code : again.headers.get('idempotent-replayed')).toBe(again.status === 409 ? 'period_locked' : 'true');
    }
  });
  it("reporting takes the lock date's reference event (books_lock.updated) as not its concern: nothing parked or refused", async () => {
    await lock('2001-01-31');
    await lock(null);
    // A posting after the PUTs, read back through reporting (read-your-writes): reporting has taken
    // every event before it in the stream, the two books_lock.updated included.
    const before = await entryCount();
    await createOpenInvoice(api, await createCustomer(api), 1500);
    expect(await entryCount()).toBe(before + 1);
    const pg = new Client({ connectionString: e2e.databaseUrl });
    await pg.connect();
    try {
      const { rows } = await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM reporting.parked_events`);
      expect(rows[0]!.n).toBe(0);
    } finally {
      await pg.end();
    }
  });
});
