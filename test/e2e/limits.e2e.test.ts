import { limits } from '@acct/contracts';
import { type ReceivablesE2E, createCustomer, expectError, expectStatus, invoiceBody, startReceivablesE2E, uid } from './receivables.helpers';

/**
 * Payloads at the documented limits travel through the gateway and the bus, however large the
 * NATS message limit (1 MiB by default) makes them: no crash, no retryable 503 for a valid request.
 */
describe('payloads at the limits', () => {
  let t: ReceivablesE2E;
  beforeAll(async () => {
    t = await startReceivablesE2E('Limits org');
  });
  afterAll(async () => t.e2e.stop());

  /** 500 lines of 1,000 characters each: every limit of an invoice at once (~0.5 MB, ~1 MB as a reply). */
  const maxLines = () =>
    Array.from({ length: limits.line_items_max }, (_, i) => ({ description: `${i}`.padEnd(limits.description_length_max, 'x'), quantity: 1, unit_amount_cents: 1 }));

  it('stores, posts, reads and lists invoices of the maximum size, and the service stays up', async () => {
    const customerId = await createCustomer(t.api);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await t.api('POST', '/api/v1/invoices', invoiceBody(customerId, maxLines()));
      expectStatus(r, 201);
      expect(r.json.data.line_items).toHaveLength(limits.line_items_max);
      expect(r.json.invoice.total_cents).toBe(limits.line_items_max);
      ids.push(r.json.data.id);
    }
    const posted = await t.api('POST', `/api/v1/invoices/${ids[0]}/post`);
    expectStatus(posted, 200);
    const got = await t.api('GET', `/api/v1/invoices/${ids[0]}`);
    expectStatus(got, 200);
    expect(got.json.data.status).toBe('open');
    expect(got.json.data.line_items[limits.line_items_max - 1].description).toHaveLength(limits.description_length_max);
    // A page of large invoices is bounded in bytes: fewer items than asked, has_more, and the next
    // page (by offset) goes on where it stopped.
    const seen: string[] = [];
    let offset = 0;
    for (;;) {
      const page = await t.api('GET', `/api/v1/invoices?limit=100&offset=${offset}&customer_id=${customerId}`);
      expectStatus(page, 200);
      expect(page.json.data.length).toBeGreaterThan(0);
      seen.push(...page.json.data.map((x: { id: string }) => x.id));
      if (!page.json.pagination.has_more) break;
      expect(page.json.data.length).toBeLessThan(100);
      offset += page.json.pagination.count;
    }
    expect(seen.sort()).toEqual([...ids].sort());
    expect((await t.api('GET', '/api/v1/auth/check')).status).toBe(200);
  });

  it('takes a valid invoice whose body is just under 1 MiB (more than one bus message once wrapped)', async () => {
    const customerId = await createCustomer(t.api);
    // 960 two-byte and 40 three-byte characters: 1,000 characters, 2,040 bytes a line.
    const lines = Array.from({ length: limits.line_items_max }, () => ({ description: 'é'.repeat(960) + '€'.repeat(40), quantity: 1, unit_amount_cents: 1 }));
    const body = JSON.stringify(invoiceBody(customerId, lines));
    const bytes = Buffer.byteLength(body);
    expect(bytes).toBeGreaterThan(1_047_000);
    expect(bytes).toBeLessThanOrEqual(limits.json_body_bytes_max);
    const r = await t.api('POST', '/api/v1/invoices', body);
    expectStatus(r, 201);
    const got = await t.api('GET', `/api/v1/invoices/${r.json.data.id}`);
    expectStatus(got, 200);
    expect(got.json.data.line_items[499].description).toBe(lines[499]!.description);
  });

  it('answers a body just under the limit with a 4xx of its own, not a retryable 503', async () => {
    const pad = 'x'.repeat(1_048_500 - 100);
    const body = JSON.stringify({ external_customer_id: uid('cus'), name: 'N', pad });
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(limits.json_body_bytes_max);
    const r = await t.api('POST', '/api/v1/customers', body);
    expectError(r, 400, 'validation_failed');
    expect(r.json.error.details.map((d: { field: string }) => d.field)).toContain('/pad');
  });

  it('refuses a body over the limit with 413', async () => {
    const body = JSON.stringify({ external_customer_id: uid('cus'), name: 'x'.repeat(limits.json_body_bytes_max) });
    expectError(await t.api('POST', '/api/v1/customers', body), 413, 'validation_failed');
  });
});
