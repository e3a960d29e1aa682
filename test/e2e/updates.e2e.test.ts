import { compileBody, schemas } from '@acct/contracts';
import {
  type Api,
  type ReceivablesE2E,
  createCustomer,
  createDraftInvoice,
  createOpenInvoice,
  expectError,
  expectReplayed,
  expectStatus,
  startReceivablesE2E,
  uid,
} from './receivables.helpers';

const validCustomer = compileBody(schemas.customers.customerResponse);
const validInvoice = compileBody(schemas.receivables.invoiceResponse);
const validEstimate = compileBody(schemas.receivables.estimateResponse);
const validBill = compileBody(schemas.payables.billResponse);
const line = { description: 'Work', quantity: 2, unit_amount_cents: 1250 };

/** metadata and the PATCH routes through the gateway (API-DECISIONS §11), and a rename reaching the reports. */
describe('e2e: metadata and PATCH', () => {
  let s: ReceivablesE2E;
  let api: Api;
  let otherApi: Api;

  beforeAll(async () => {
    s = await startReceivablesE2E('Updates org');
    ({ api, otherApi } = s);
  });
  afterAll(async () => s?.e2e.stop());

  it('PATCH /customers/{id}: 200 with the customer, {} unchanged, metadata merged; the A/R report shows the new name', async () => {
    const customerId = await createCustomer(api, 'Old name');
    await createOpenInvoice(api, customerId, 4200);
    const ar = async () =>
      ((await api('GET', '/api/v1/reports/accounts-receivable?as_of=2099-12-31')).json.data.customers as { customer_id: string; display_name: string }[]).find(
        (c) => c.customer_id === customerId,
      );
    expect((await ar())?.display_name).toBe('Old name');

    const same = await api('PATCH', `/api/v1/customers/${customerId}`, {});
    expectStatus(same, 200);
    const noBody = await api('PATCH', `/api/v1/customers/${customerId}`);
    expectStatus(noBody, 200);
    expect(noBody.json.data).toEqual(same.json.data);
    expect(validCustomer(same.json)).toBe(true);
    expect(same.json.customer).toEqual(same.json.data);
    const renamed = await api('PATCH', `/api/v1/customers/${customerId}`, { name: 'New name', metadata: { crm: '7', tier: 'gold' } });
    expectStatus(renamed, 200);
    expect(renamed.json.data).toMatchObject({ name: 'New name', metadata: { crm: '7', tier: 'gold' } });
    expect((await api('PATCH', `/api/v1/customers/${customerId}`, { metadata: { tier: '' } })).json.data.metadata).toEqual({ crm: '7' });
    expect((await api('GET', `/api/v1/customers/${customerId}`)).json.data).toMatchObject({ name: 'New name', metadata: { crm: '7' } });

    // Reporting applies customer.updated; its reads wait for the consumer to catch up (read-your-writes).
    expect(await ar()).toMatchObject({ display_name: 'New name', open_cents: 4200 });
    // Another organization's key cannot see or change it.
    expectError(await otherApi('PATCH', `/api/v1/customers/${customerId}`, { name: 'Stolen' }), 404, 'not_found');
  });

  it('PATCH /invoices/{id}: any field while draft (totals recomputed), only metadata once posted (409)', async () => {
    const customerId = await createCustomer(api);
    const draft = await createDraftInvoice(api, customerId, 1000, { metadata: { order: 'A' } });
    expect(draft.metadata).toEqual({ order: 'A' });
    const r = await api('PATCH', `/api/v1/invoices/${draft.id}`, { line_items: [line, { ...line, quantity: 0.5 }], memo: 'Patched', metadata: { ref: 'r' } });
    expectStatus(r, 200);
    expect(validInvoice(r.json)).toBe(true);
    expect(r.json.invoice).toMatchObject({ total_cents: 3125, memo: 'Patched', status: 'draft', metadata: { order: 'A', ref: 'r' } });
    expectStatus(await api('POST', `/api/v1/invoices/${draft.id}/post`), 200);
    const late = await api('PATCH', `/api/v1/invoices/${draft.id}`, { memo: 'late', metadata: { x: '1' } });
    expectError(late, 409, 'conflict');
    expect(late.json.error.details[0]).toMatchObject({ field: '/memo', issue: 'invoice_open' });
    const meta = await api('PATCH', `/api/v1/invoices/${draft.id}`, { metadata: { order: '' } });
    expectStatus(meta, 200);
    expect(meta.json.data).toMatchObject({ status: 'open', total_cents: 3125, balance_due_cents: 3125, metadata: { ref: 'r' } });
    expectError(await api('PATCH', `/api/v1/invoices/${draft.id}`, { status: 'paid' }), 400, 'validation_failed');
    expectError(await otherApi('PATCH', `/api/v1/invoices/${draft.id}`, { metadata: { a: 'b' } }), 404, 'not_found');
  });

  it('PATCH /estimates/{id}: while draft any field, once sent only metadata', async () => {
    const customerId = await createCustomer(api);
    const created = await api('POST', '/api/v1/estimates', { external_estimate_id: uid('est'), customer_id: customerId, issue_date: '2026-03-01', line_items: [line] });
    expectStatus(created, 201);
    const id = created.json.data.id as string;
    const r = await api('PATCH', `/api/v1/estimates/${id}`, { expiry_date: '2026-04-01', line_items: [{ ...line, quantity: 4 }] });
    expectStatus(r, 200);
    expect(validEstimate(r.json)).toBe(true);
    expect(r.json.estimate).toMatchObject({ expiry_date: '2026-04-01', total_cents: 5000 });
    expectStatus(await api('POST', `/api/v1/estimates/${id}/status`, { status: 'sent' }), 200);
    expectError(await api('PATCH', `/api/v1/estimates/${id}`, { memo: 'x' }), 409, 'conflict');
    expect((await api('PATCH', `/api/v1/estimates/${id}`, { metadata: { won: 'no' } })).json.data.metadata).toEqual({ won: 'no' });
  });

  it('PATCH /bills/{id}: while draft any field but status, once posted only metadata', async () => {
    const vendor = await api('POST', '/api/v1/vendors', { external_vendor_id: uid('ven'), display_name: 'V', metadata: { k: 'v' } });
    expectStatus(vendor, 201);
    expect(vendor.json.data.metadata).toEqual({ k: 'v' });
    const body = {
      external_bill_id: uid('bill'),
      vendor_id: vendor.json.data.id,
      bill_number: 'B',
      issue_date: '2026-03-01',
      due_date: '2026-03-31',
      line_items: [line],
      status: 'draft',
    };
    const draft = await api('POST', '/api/v1/bills', body);
    expectStatus(draft, 201);
    const id = draft.json.data.id as string;
    const r = await api('PATCH', `/api/v1/bills/${id}`, { bill_number: 'B-2', line_items: [line, line], metadata: { po: '1' } });
    expectStatus(r, 200);
    expect(validBill(r.json)).toBe(true);
    expect(r.json.bill).toMatchObject({ bill_number: 'B-2', total_cents: 5000, status: 'draft', metadata: { po: '1' } });
    expectError(await api('PATCH', `/api/v1/bills/${id}`, { status: 'posted' }), 400, 'validation_failed');
    expectStatus(await api('POST', `/api/v1/bills/${id}/post`), 200);
    expectError(await api('PATCH', `/api/v1/bills/${id}`, { bill_number: 'B-3' }), 409, 'conflict');
    expect((await api('PATCH', `/api/v1/bills/${id}`, { metadata: { po: '2' } })).json.data).toMatchObject({ status: 'posted', total_cents: 5000, metadata: { po: '2' } });
  });

  it('Idempotency-Key works on PATCH as on POST: a repeat replays, other content is 409', async () => {
    const customerId = await createCustomer(api);
    const key = uid('idem');
    const first = await api('PATCH', `/api/v1/customers/${customerId}`, { name: 'Keyed' }, { 'idempotency-key': key });
    expectStatus(first, 200);
    const again = await api('PATCH', `/api/v1/customers/${customerId}`, { name: 'Keyed' }, { 'idempotency-key': key });
    expectStatus(again, 200);
    expectReplayed(again);
    expect(again.json.data).toEqual(first.json.data);
    expectError(await api('PATCH', `/api/v1/customers/${customerId}`, { name: 'Other' }, { 'idempotency-key': key }), 409, 'conflict');
  });

  it('refuses hostile metadata with 400 in the error envelope, never 5xx', async () => {
    const customerId = await createCustomer(api);
    const draft = await createDraftInvoice(api, customerId, 1000);
    const many = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, 'v']));
    const hostile: unknown[] = [
      { a: 'x\u0000y' },
      { 'a\u0000': 'x' },
      { a: 'x'.repeat(501) },
      { ['k'.repeat(41)]: 'x' },
      { '': 'x' },
      { 'a[0]': 'x' },
      { a: 1e308 },
      { a: null },
      { a: { b: 'c' } },
      ['a'],
      'a',
      many,
    ];
    for (const metadata of hostile) {
      for (const [method, path] of [
        ['PATCH', `/api/v1/customers/${customerId}`],
        ['PATCH', `/api/v1/invoices/${draft.id}`],
        ['POST', '/api/v1/customers'],
      ] as const) {
        const body = method === 'POST' ? { external_customer_id: uid('cus'), name: 'H', metadata } : { metadata };
        const r = await api(method, path, body);
        expect([method, path, r.status, r.json?.error?.code]).toEqual([method, path, 400, 'validation_failed']);
      }
    }
    // A lone surrogate in a key, sent as raw JSON text.
    const raw = await api('PATCH', `/api/v1/customers/${customerId}`, '{"metadata":{"a\\ud800":"x"}}');
    expectError(raw, 400, 'validation_failed');
    expectError(await api('PATCH', `/api/v1/invoices/${draft.id}`, { line_items: [{ ...line, unit_amount_cents: 1e20 }] }), 400, 'validation_failed');
    expectError(await api('PATCH', `/api/v1/invoices/${draft.id}`, { due_date: '9999-99-99' }), 400, 'validation_failed');
    expect((await api('GET', `/api/v1/customers/${customerId}`)).json.data.metadata).toEqual({});
  });
});
