import { randomUUID } from 'node:crypto';
import { compileBody, schemas } from '@acct/contracts';
import { type E2E, type Keys, client } from './harness';
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
  invoiceBody,
  paymentBody,
  uid,
  startReceivablesE2E,
} from './receivables.helpers';

const validInvoice = compileBody(schemas.receivables.invoiceResponse);
const validInvoicePost = compileBody(schemas.receivables.invoicePostResponse);
const validInvoiceList = compileBody(schemas.receivables.invoiceListResponse);
const validPayment = compileBody(schemas.receivables.paymentResponse);
const validPaymentList = compileBody(schemas.receivables.paymentListResponse);

describe('e2e: invoices and payments through the gateway', () => {
  let e2e: E2E;
  let keys: Keys;
  let other: Keys;
  let api: Api;
  let otherApi: Api;

  beforeAll(async () => {
    ({ e2e, keys, other, api, otherApi } = await startReceivablesE2E('Receivables org'));
  });
  afterAll(async () => e2e?.stop());

  describe('invoices', () => {
    it('creates a draft invoice with line amounts rounded half away from zero and their sum as total', async () => {
      const customerId = await createCustomer(api, 'Rounding Ltd');
      const body = invoiceBody(
        customerId,
        [
          { description: 'Consulting', quantity: 1.5, unit_amount_cents: 333 },
          { description: 'Half cent', quantity: 2.5, unit_amount_cents: 1 },
          { description: 'Licence', quantity: 2, unit_amount_cents: 1000 },
        ],
        { memo: 'Thank you' },
      );
      const r = await api('POST', '/api/v1/invoices', body);
      expectStatus(r, 201);
      expectNotReplayed(r);
      expectSchema(validInvoice, r.json);
      expect(r.json.invoice).toEqual(r.json.data);
      const inv = r.json.data;
      expect(inv).toMatchObject({
        external_invoice_id: body.external_invoice_id,
        customer_id: customerId,
        invoice_number: body.invoice_number,
        issue_date: '2026-03-01',
        due_date: '2026-03-31',
        status: 'draft',
        currency: 'USD',
        memo: 'Thank you',
        total_cents: 500 + 3 + 2000,
        amount_paid_cents: 0,
        balance_due_cents: 0,
      });
      expect(inv.line_items).toEqual([
        { description: 'Consulting', quantity: 1.5, unit_amount_cents: 333, amount_cents: 500 },
        { description: 'Half cent', quantity: 2.5, unit_amount_cents: 1, amount_cents: 3 },
        { description: 'Licence', quantity: 2, unit_amount_cents: 1000, amount_cents: 2000 },
      ]);
      expect(inv.posted_at ?? null).toBeNull();
    });

    it('rounds exact decimal products, not binary floating point (1.005 × 100 = 100.5 → 101)', async () => {
      const customerId = await createCustomer(api);
      const r = await api('POST', '/api/v1/invoices', invoiceBody(customerId, [{ description: 'Exact', quantity: 1.005, unit_amount_cents: 100 }]));
      expectStatus(r, 201);
      expect(r.json.data.line_items[0].amount_cents).toBe(101);
      expect(r.json.data.total_cents).toBe(101);
    });

    it('replays the same external_invoice_id with the same content (200) and refuses other content (409)', async () => {
      const customerId = await createCustomer(api);
      const body = invoiceBody(customerId, [{ description: 'Work', quantity: 3, unit_amount_cents: 2500 }]);
      const first = await api('POST', '/api/v1/invoices', body);
      expectStatus(first, 201);
      const replay = await api('POST', '/api/v1/invoices', body);
      expectStatus(replay, 200);
      expectReplayed(replay);
      expectSchema(validInvoice, replay.json);
      expect(replay.json.data).toEqual(first.json.data);

      const conflict = await api('POST', '/api/v1/invoices', { ...body, invoice_number: 'INV-DIFFERENT' });
      expectError(conflict, 409, 'conflict');
      const conflictLines = await api('POST', '/api/v1/invoices', { ...body, line_items: [{ description: 'Work', quantity: 4, unit_amount_cents: 2500 }] });
      expectError(conflictLines, 409, 'conflict');

      // Only the one invoice exists for that customer.
      const list = await api('GET', `/api/v1/invoices?customer_id=${customerId}`);
      expect(list.json.data.map((i: { id: string }) => i.id)).toEqual([first.json.data.id]);
    });

    it('404 for an unknown customer and for a customer of another organization', async () => {
      const unknown = await api('POST', '/api/v1/invoices', invoiceBody(randomUUID(), [{ description: 'x', quantity: 1, unit_amount_cents: 100 }]));
      expectError(unknown, 404, 'not_found');
      const theirs = await createCustomer(otherApi, 'Not yours');
      const foreign = await api('POST', '/api/v1/invoices', invoiceBody(theirs, [{ description: 'x', quantity: 1, unit_amount_cents: 100 }]));
      expectError(foreign, 404, 'not_found');
      // Nor across environments of the same organization.
      const liveCustomer = await createCustomer(client(e2e.base, keys.live_key), 'Live one');
      const crossEnv = await api('POST', '/api/v1/invoices', invoiceBody(liveCustomer, [{ description: 'x', quantity: 1, unit_amount_cents: 100 }]));
      expectError(crossEnv, 404, 'not_found');
    });

    it('400 validation_failed for bad dates, currency, line items and quantities', async () => {
      const customerId = await createCustomer(api);
      const line = { description: 'x', quantity: 1, unit_amount_cents: 100 };
      const cases: Array<[string, Record<string, unknown>]> = [
        ['due_date before issue_date', invoiceBody(customerId, [line], { issue_date: '2026-03-10', due_date: '2026-03-09' })],
        ['currency EUR', invoiceBody(customerId, [line], { currency: 'EUR' })],
        ['no line items', invoiceBody(customerId, [])],
        [
          '501 line items',
          invoiceBody(
            customerId,
            Array.from({ length: 501 }, () => line),
          ),
        ],
        ['quantity with 5 decimals', invoiceBody(customerId, [{ ...line, quantity: 1.00001 }])],
        ['quantity 0', invoiceBody(customerId, [{ ...line, quantity: 0 }])],
        ['negative unit amount', invoiceBody(customerId, [{ ...line, unit_amount_cents: -1 }])],
        ['fractional unit amount', invoiceBody(customerId, [{ ...line, unit_amount_cents: 1.5 }])],
        ['not a calendar date', invoiceBody(customerId, [line], { issue_date: '2026-02-30', due_date: '2026-03-31' })],
        ['unknown field', invoiceBody(customerId, [line], { discount: 5 })],
        ['missing customer_id', invoiceBody(customerId, [line], { customer_id: undefined })],
      ];
      for (const [name, body] of cases) {
        const r = await api('POST', '/api/v1/invoices', body);
        expect({ name, status: r.status, code: r.json?.error?.code }).toEqual({ name, status: 400, code: 'validation_failed' });
        expectError(r, 400, 'validation_failed');
      }
      const eur = await api('POST', '/api/v1/invoices', invoiceBody(customerId, [line], { currency: 'EUR' }));
      expect(eur.json.error.message).toMatch(/USD/);
      // due_date equal to issue_date is fine; a 500-line invoice is fine; 4 decimals are fine.
      expectStatus(await api('POST', '/api/v1/invoices', invoiceBody(customerId, [line], { issue_date: '2026-03-10', due_date: '2026-03-10' })), 201);
      expectStatus(
        await api(
          'POST',
          '/api/v1/invoices',
          invoiceBody(
            customerId,
            Array.from({ length: 500 }, () => line),
          ),
        ),
        201,
      );
      const four = await api('POST', '/api/v1/invoices', invoiceBody(customerId, [{ ...line, quantity: 1.0001, unit_amount_cents: 10000 }], { currency: 'USD' }));
      expectStatus(four, 201);
      expect(four.json.data.total_cents).toBe(10001);
    });

    it('lists newest first with status and customer_id filters and pagination', async () => {
      const customerId = await createCustomer(api, 'Lister');
      const otherCustomer = await createCustomer(api, 'Someone else');
      await createDraftInvoice(api, otherCustomer, 100);
      const a = await createDraftInvoice(api, customerId, 1000);
      const b = await createDraftInvoice(api, customerId, 2000);
      const c = await createDraftInvoice(api, customerId, 3000);
      expectStatus(await api('POST', `/api/v1/invoices/${b.id}/post`), 200);

      const all = await api('GET', `/api/v1/invoices?customer_id=${customerId}`);
      expectStatus(all, 200);
      expectSchema(validInvoiceList, all.json);
      expect(all.json.invoices).toEqual(all.json.data);
      expect(all.json.data.map((i: { id: string }) => i.id)).toEqual([c.id, b.id, a.id]);
      expect(all.json.pagination).toEqual({ limit: 25, offset: 0, count: 3, has_more: false });

      const drafts = await api('GET', `/api/v1/invoices?customer_id=${customerId}&status=draft`);
      expect(drafts.json.data.map((i: { id: string }) => i.id)).toEqual([c.id, a.id]);
      const open = await api('GET', `/api/v1/invoices?status=open&customer_id=${customerId}`);
      expect(open.json.data.map((i: { id: string }) => i.id)).toEqual([b.id]);
      expect(open.json.data[0].status).toBe('open');
      const paid = await api('GET', `/api/v1/invoices?status=paid&customer_id=${customerId}`);
      expect(paid.json.data).toEqual([]);
      expect(paid.json.pagination).toEqual({ limit: 25, offset: 0, count: 0, has_more: false });

      // status alone: every row has that status (other tests' invoices included).
      const anyOpen = await api('GET', '/api/v1/invoices?status=open&limit=100');
      expect(anyOpen.json.data.length).toBeGreaterThanOrEqual(1);
      expect(anyOpen.json.data.every((i: { status: string }) => i.status === 'open')).toBe(true);

      const p1 = await api('GET', `/api/v1/invoices?customer_id=${customerId}&limit=2`);
      expectSchema(validInvoiceList, p1.json);
      expect(p1.json.data.map((i: { id: string }) => i.id)).toEqual([c.id, b.id]);
      expect(p1.json.pagination).toEqual({ limit: 2, offset: 0, count: 2, has_more: true });
      const p2 = await api('GET', `/api/v1/invoices?customer_id=${customerId}&limit=2&offset=2`);
      expect(p2.json.data.map((i: { id: string }) => i.id)).toEqual([a.id]);
      expect(p2.json.pagination).toEqual({ limit: 2, offset: 2, count: 1, has_more: false });

      // The other organization sees none of them.
      const theirs = await otherApi('GET', `/api/v1/invoices?customer_id=${customerId}`);
      expectStatus(theirs, 200);
      expect(theirs.json.data).toEqual([]);

      expectError(await api('GET', '/api/v1/invoices?status=void'), 400, 'validation_failed');
      expectError(await api('GET', '/api/v1/invoices?customer_id=nope'), 400, 'validation_failed');
      expectError(await api('GET', '/api/v1/invoices?limit=101'), 400, 'validation_failed');
    });

    it('gets one invoice; 404 for unknown ids and for another organization', async () => {
      const customerId = await createCustomer(api);
      const inv = await createDraftInvoice(api, customerId, 4200);
      const got = await api('GET', `/api/v1/invoices/${inv.id}`);
      expectStatus(got, 200);
      expectSchema(validInvoice, got.json);
      expect(got.json.data).toEqual(inv);
      expect(got.json.invoice).toEqual(inv);

      expectError(await api('GET', `/api/v1/invoices/${randomUUID()}`), 404, 'not_found');
      expectError(await otherApi('GET', `/api/v1/invoices/${inv.id}`), 404, 'not_found');
      expectError(await client(e2e.base, keys.live_key)('GET', `/api/v1/invoices/${inv.id}`), 404, 'not_found');
      expectError(await api('GET', '/api/v1/invoices/not-a-uuid'), 400, 'validation_failed');
    });

    it('posts a draft to open; a second post replays the same state; unknown id 404', async () => {
      const customerId = await createCustomer(api);
      const inv = await createDraftInvoice(api, customerId, 12345);
      const posted = await api('POST', `/api/v1/invoices/${inv.id}/post`);
      expectStatus(posted, 200);
      expectNotReplayed(posted);
      expectSchema(validInvoicePost, posted.json);
      expect(posted.json.action).toEqual({ type: 'posted', status: 'completed' });
      expect(posted.json.invoice).toEqual(posted.json.data);
      expect(posted.json.data).toMatchObject({ id: inv.id, status: 'open', total_cents: 12345, amount_paid_cents: 0, balance_due_cents: 12345 });
      expect(typeof posted.json.data.posted_at).toBe('string');

      const again = await api('POST', `/api/v1/invoices/${inv.id}/post`);
      expectStatus(again, 200);
      expectReplayed(again);
      expectSchema(validInvoicePost, again.json);
      expect(again.json.data).toEqual(posted.json.data);
      expect(again.json.action).toEqual({ type: 'posted', status: 'completed' });

      expect(await getInvoice(api, inv.id)).toEqual(posted.json.data);

      expectError(await api('POST', `/api/v1/invoices/${randomUUID()}/post`), 404, 'not_found');
      expectError(await otherApi('POST', `/api/v1/invoices/${inv.id}/post`), 404, 'not_found');
    });

    it('posts a zero-total invoice straight to paid', async () => {
      const customerId = await createCustomer(api);
      const inv = await createDraftInvoice(api, customerId, 0);
      expect(inv).toMatchObject({ status: 'draft', total_cents: 0 });
      const posted = await api('POST', `/api/v1/invoices/${inv.id}/post`);
      expectStatus(posted, 200);
      expectSchema(validInvoicePost, posted.json);
      expect(posted.json.action).toEqual({ type: 'posted', status: 'completed' });
      expect(posted.json.data).toMatchObject({ status: 'paid', total_cents: 0, amount_paid_cents: 0, balance_due_cents: 0 });
      const again = await api('POST', `/api/v1/invoices/${inv.id}/post`);
      expectStatus(again, 200);
      expectReplayed(again);
      expect(again.json.data.status).toBe('paid');
      expectError(await api('POST', '/api/v1/payments', paymentBody(inv.id, 1)), 409, 'conflict');
    });

    it('a create replayed after posting returns the same invoice (200) in its current state', async () => {
      const customerId = await createCustomer(api);
      const body = invoiceBody(customerId, [{ description: 'Work', quantity: 1, unit_amount_cents: 700 }]);
      const first = await api('POST', '/api/v1/invoices', body);
      expectStatus(first, 201);
      expectStatus(await api('POST', `/api/v1/invoices/${first.json.data.id}/post`), 200);
      const replay = await api('POST', '/api/v1/invoices', body);
      expectStatus(replay, 200);
      expectReplayed(replay);
      expect(replay.json.data).toMatchObject({ id: first.json.data.id, status: 'open' });
    });

    it('two concurrent posts of one draft: both 200, exactly one not replayed', async () => {
      const customerId = await createCustomer(api);
      const inv = await createDraftInvoice(api, customerId, 2500);
      const rs = await Promise.all([api('POST', `/api/v1/invoices/${inv.id}/post`), api('POST', `/api/v1/invoices/${inv.id}/post`)]);
      expect(rs.map((r) => r.status)).toEqual([200, 200]);
      expect(rs.map((r) => r.headers.get('idempotent-replayed')).sort()).toEqual(['true', null].sort());
      expect(rs.map((r) => r.json.data.status)).toEqual(['open', 'open']);
      expect((await getInvoice(api, inv.id)).balance_due_cents).toBe(2500);
    });

    it('refuses line amounts and totals above the 100,000,000,000-cent amount limit (400, never 500)', async () => {
      const customerId = await createCustomer(api);
      const big = await api('POST', '/api/v1/invoices', invoiceBody(customerId, [{ description: 'Huge', quantity: 1000, unit_amount_cents: 100_000_000_000 }]));
      expectError(big, 400, 'validation_failed');
      const sum = await api(
        'POST',
        '/api/v1/invoices',
        invoiceBody(customerId, [
          { description: 'Half', quantity: 1, unit_amount_cents: 60_000_000_000 },
          { description: 'Half', quantity: 1, unit_amount_cents: 60_000_000_000 },
        ]),
      );
      expectError(sum, 400, 'validation_failed');
      const max = await api('POST', '/api/v1/invoices', invoiceBody(customerId, [{ description: 'Max', quantity: 1, unit_amount_cents: 100_000_000_000 }]));
      expectStatus(max, 201);
      expect(max.json.data.total_cents).toBe(100_000_000_000);
    });

    it('refuses scope fields in the body', async () => {
      const customerId = await createCustomer(api);
      const r = await api(
        'POST',
        '/api/v1/invoices',
        invoiceBody(customerId, [{ description: 'x', quantity: 1, unit_amount_cents: 1 }], { organization_id: other.organization_id }),
      );
      expectError(r, 400, 'trusted_scope_field_not_allowed');
    });
  });

  describe('payments', () => {
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
});
