import { randomUUID } from 'node:crypto';
import { compileBody, schemas } from '@acct/contracts';
import { type E2E, type Keys, client } from './harness';
import {
  type Api,
  createCustomer,
  createDraftInvoice,
  expectError,
  expectNotReplayed,
  expectReplayed,
  expectSchema,
  expectStatus,
  getInvoice,
  invoiceBody,
  paymentBody,
  startReceivablesE2E,
} from './receivables.helpers';

const validInvoice = compileBody(schemas.receivables.invoiceResponse);
const validInvoicePost = compileBody(schemas.receivables.invoicePostResponse);
const validInvoiceList = compileBody(schemas.receivables.invoiceListResponse);

/** Invoices: create, replay, validation, list, get and post. Their payments: payments.e2e.test.ts. */
describe('e2e: invoices through the gateway', () => {
  let e2e: E2E;
  let keys: Keys;
  let other: Keys;
  let api: Api;
  let otherApi: Api;

  beforeAll(async () => {
    ({ e2e, keys, other, api, otherApi } = await startReceivablesE2E('Receivables org'));
  });
  afterAll(async () => e2e?.stop());

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

    expectError(await api('GET', '/api/v1/invoices?status=cancelled'), 400, 'validation_failed');
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
    const r = await api('POST', '/api/v1/invoices', invoiceBody(customerId, [{ description: 'x', quantity: 1, unit_amount_cents: 1 }], { organization_id: other.organization_id }));
    expectError(r, 400, 'trusted_scope_field_not_allowed');
  });
});
