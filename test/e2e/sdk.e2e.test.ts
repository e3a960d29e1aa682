import { randomUUID } from 'node:crypto';
import { Client, ConflictError, InvalidRequestError, NotFoundError } from '../../clients/typescript/src';
import { type E2E, type Keys, bootstrapOrg, startE2E } from './harness';
import { E2E_ENV, uid } from './receivables.helpers';

/**
 * The SDK (clients/typescript) against the whole stack: a customer billed, the invoice posted and
 * paid, the books read back; a list walked page by page; typed 404 and 409. Through the SDK's typed
 * methods, so the SDK cannot drift from the server without this failing.
 */
describe('e2e: the TypeScript SDK', () => {
  let e2e: E2E;
  let keys: Keys;
  let api: Client;

  beforeAll(async () => {
    e2e = await startE2E(E2E_ENV);
    keys = await bootstrapOrg(e2e.databaseUrl, 'SDK org');
    api = new Client({ apiKey: keys.test_key, baseUrl: e2e.base });
  }, 180_000);
  afterAll(async () => {
    await e2e?.stop();
  });

  it('customer → invoice → post → payment → reports', async () => {
    const { data: customer } = await api.POST('/api/v1/customers', { body: { external_customer_id: uid('cus'), name: 'Ada Lovelace', email: 'ada@example.com' } });
    expect(customer.name).toBe('Ada Lovelace');

    const { data: draft } = await api.POST('/api/v1/invoices', {
      body: {
        external_invoice_id: uid('inv'),
        customer_id: customer.id,
        invoice_number: 'SDK-1',
        issue_date: '2026-03-01',
        due_date: '2026-03-31',
        line_items: [{ description: 'Consulting', quantity: 2, unit_amount_cents: 15_000 }],
      },
    });
    expect(draft).toMatchObject({ status: 'draft', total_cents: 30_000 });

    const { data: open } = await api.POST('/api/v1/invoices/{id}/post', { params: { path: { id: draft.id } } });
    expect(open.status).toBe('open');

    const { data: payment } = await api.POST('/api/v1/payments', {
      body: { external_payment_id: uid('pay'), invoice_id: draft.id, amount_cents: 10_000, received_at: '2026-03-05' },
    });
    expect(payment.amount_cents).toBe(10_000);

    const { data: invoice } = await api.GET('/api/v1/invoices/{id}', { params: { path: { id: draft.id } } });
    expect(invoice).toMatchObject({ status: 'partially_paid', balance_due_cents: 20_000 });

    const { data: ar } = await api.GET('/api/v1/reports/accounts-receivable', { params: { query: { as_of: '2026-03-31' } } });
    expect(ar.total_open_cents).toBe(20_000);
    expect(ar.customers).toEqual([expect.objectContaining({ customer_id: customer.id, open_cents: 20_000 })]);

    const { data: summary } = await api.GET('/api/v1/reports/summary', { params: { query: { from: '2026-01-01', to: '2026-12-31' } } });
    expect(summary).toMatchObject({ revenue_cents: 30_000, accounts_receivable_cents: 20_000 });
  });

  it('a repeated POST with the same Idempotency-Key replays instead of creating twice', async () => {
    const key = randomUUID();
    const body = { external_customer_id: uid('cus'), name: 'Replayed' };
    const first = await api.POST('/api/v1/customers', { body, idempotencyKey: key });
    const again = await api.raw.POST('/api/v1/customers', { body, headers: { 'Idempotency-Key': key } });
    expect(again.data?.data.id).toBe(first.data.id);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
  });

  it('iterates a list of several pages with starting_after', async () => {
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { data } = await api.POST('/api/v1/customers', { body: { external_customer_id: uid('page'), name: `Paged ${i}`, metadata: { batch: 'paged' } } });
      created.push(data.id);
    }
    const everyone = await api.GET('/api/v1/customers', { params: { query: { limit: 100 } } });
    const seen: string[] = [];
    for await (const c of api.list('/api/v1/customers', { limit: 2 })) seen.push(c.id);
    // Same items in the same order as one big page: newest first.
    expect(seen).toEqual(everyone.data.map((c) => c.id));
    expect(seen.length).toBeGreaterThan(4);
    expect(seen.slice(0, 5)).toEqual([...created].reverse());
    expect(new Set(seen).size).toBe(seen.length);
    // Backward from the oldest: every newer customer, nearest first, i.e. the list reversed.
    const oldest = seen[seen.length - 1]!;
    const back: string[] = [];
    for await (const c of api.list('/api/v1/customers', { limit: 2, ending_before: oldest })) back.push(c.id);
    expect(back).toEqual(seen.slice(0, -1).reverse());
  });

  it('throws typed errors: 404 not_found, 409 conflict, 400 validation_failed', async () => {
    const missing = await api.GET('/api/v1/customers/{id}', { params: { path: { id: randomUUID() } } }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });
    expect((missing as NotFoundError).request_id).toEqual(expect.any(String));

    const body = { external_customer_id: uid('cus'), name: 'Grace' };
    await api.POST('/api/v1/customers', { body });
    const conflict = await api.POST('/api/v1/customers', { body: { ...body, name: 'Not Grace' } }).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(conflict).toMatchObject({ status: 409, code: 'conflict' });

    const invalid = await api.GET('/api/v1/customers', { params: { query: { limit: 2, starting_after: randomUUID() } } }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(InvalidRequestError);
    expect(invalid).toMatchObject({ status: 400, code: 'validation_failed' });
    expect((invalid as InvalidRequestError).details).toBeDefined();
  });
});
