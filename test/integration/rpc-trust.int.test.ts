import { randomBytes, randomUUID } from 'node:crypto';
import { encodeJson, decodeJson } from '@acct/kit';
import { rpcSubject } from '@acct/contracts';
import { type TestService, ctx, serviceDefinition, startServiceForTest } from '@acct/testing';

/**
 * The bus is a trust boundary for request/reply too: a request sent to a service by hand (past the
 * gateway, with credentials for the subject) is checked against its operation's schemas, as the
 * gateway checks the route, and gets 400 validation_failed, never a database error turned into a
 * 500; nothing is stored for it, and the service serves the next request.
 */
describe('services check hand-made requests on the bus', () => {
  let rec: TestService;
  let ap: TestService;
  const c = ctx();
  let invoiceId: string;

  beforeAll(async () => {
    rec = await startServiceForTest(serviceDefinition('receivables', { config: { processorSecretKey: randomBytes(32) } }), { poolMax: 4 });
    ap = await startServiceForTest(serviceDefinition('payables'), { nc: rec.nc, prefix: rec.prefix, poolMax: 4 });
    const customer = await rec.ok('customers.create', c, { body: { external_customer_id: randomUUID(), name: 'C' } });
    const inv = await rec.ok('invoices.create', c, {
      body: {
        external_invoice_id: randomUUID(),
        customer_id: customer.id,
        invoice_number: 'T-1',
        issue_date: '2026-01-05',
        due_date: '2026-01-05',
        line_items: [{ description: 'x', quantity: 1, unit_amount_cents: 1000 }],
      },
    });
    invoiceId = inv.id;
  });

  afterAll(async () => {
    await ap?.stop();
    await rec?.stop();
  });

  const refusedIds = [`urn:uuid:${randomUUID()}`, `{${randomUUID()}}`, `${randomUUID()}\u0000`, `${randomUUID().slice(0, 35)}\ud800`, 'x'.repeat(5000), ''];

  it.each(refusedIds.map((id) => [JSON.stringify(id).slice(0, 60), id]))('invoices.get and invoices.post with id %s: 400 validation_failed', async (_, id) => {
    for (const op of ['invoices.get', 'invoices.post'] as const) {
      const r = await rec.call(op, c, { params: { id } });
      expect(r).toMatchObject({ ok: false, error: { code: 'validation_failed' } });
    }
  });

  it('an upper-case id is the same record (lower-cased as at the gateway)', async () => {
    const r = await rec.call('invoices.get', c, { params: { id: invoiceId.toUpperCase() } });
    expect(r).toMatchObject({ ok: true, body: { data: { id: invoiceId } } });
  });

  it.each([
    ['an organization that is not a uuid', { organizationId: 'acme' }],
    ['an organization spelled urn:uuid:', { organizationId: `urn:uuid:${randomUUID()}` }],
    ['an unknown environment', { environment: 'prod' }],
    ['a NUL in the request id', { requestId: 'a\u0000b' }],
    ['a number for the api key', { apiKeyId: 7 }],
  ])('a context with %s: 400, nothing served', async (_, over) => {
    const r = await rec.call('invoices.get', { ...c, ...(over as object) }, { params: { id: invoiceId } });
    expect(r).toMatchObject({ ok: false, error: { code: 'validation_failed' } });
  });

  it('bodies the schema refuses get 400 and store nothing: NUL, a lone surrogate, a string amount, deep nesting, an unknown field', async () => {
    const vendor = await ap.ok('vendors.create', c, { body: { external_vendor_id: randomUUID(), display_name: 'V' } });
    const bill = (over: Record<string, unknown>) => ({
      external_bill_id: randomUUID(),
      vendor_id: vendor.id,
      bill_number: 'B-1',
      issue_date: '2026-03-01',
      due_date: '2026-03-31',
      line_items: [{ description: 'x', quantity: 1, unit_amount_cents: 5000 }],
      ...over,
    });
    let deep: unknown = 'x';
    for (let i = 0; i < 200; i++) deep = { a: deep };
    const bodies = [
      bill({ bill_number: 'B\u0000' }),
      bill({ bill_number: 'B\udc00' }),
      bill({ line_items: [{ description: 'x', quantity: 1, unit_amount_cents: '5000' }] }),
      bill({ metadata: deep }),
      bill({ organization_id: randomUUID() }),
      bill({ vendor_id: `urn:uuid:${vendor.id}` }),
      bill({ issue_date: '2026-02-30' }),
    ];
    for (const body of bodies) {
      const r = await ap.call('bills.create', c, { body });
      expect(r).toMatchObject({ ok: false, error: { code: 'validation_failed' } });
    }
    const [{ n }] = (await ap.sql('SELECT count(*)::int AS n FROM bills')) as [{ n: number }];
    expect(n).toBe(0);
    // And the same service still serves a good one.
    await expect(ap.ok('bills.create', c, { body: bill({}) })).resolves.toMatchObject({ vendor_id: vendor.id });
  });

  it('bytes that are not JSON, and JSON that is not a request, get 400', async () => {
    for (const bytes of [Buffer.from('{"ctx":'), Buffer.from('[]'), Buffer.from('null'), encodeJson({ ctx: c, params: [invoiceId] })]) {
      const reply = decodeJson<{ ok: boolean; error?: { code: string } }>((await rec.nc.request(rpcSubject(rec.prefix, 'invoices.get'), bytes, { timeout: 10_000 })).data);
      expect(reply).toMatchObject({ ok: false, error: { code: 'validation_failed' } });
    }
    await expect(rec.ok('invoices.get', c, { params: { id: invoiceId } })).resolves.toMatchObject({ id: invoiceId });
  });
});
