import { randomBytes, randomUUID } from 'node:crypto';
import type { RpcReply, TrustedContext } from '@acct/contracts';
import { type TestService, ctx, firstRow, startServiceForTest } from '@acct/testing';
import { receivablesService } from './service';
import { invoiceBody } from './testing/bodies';

const outcome = (r: RpcReply<unknown>): string | number => (r.ok ? r.status : r.error.code);
const detail = (r: RpcReply<unknown>) => (r.ok ? null : r.error.details[0]);

/** create-invoice: one INSERT with its customer's check (invoice_insert_of_customer), against real Postgres and NATS. */
describe('receivables: creating an invoice', () => {
  let svc: TestService;
  const customer = async (c: TrustedContext) => (await svc.ok('customers.create', c, { body: { external_customer_id: randomUUID(), name: 'C' } })).id as string;
  const body = invoiceBody;
  const stored = async (external: string) => firstRow(await svc.sql(`SELECT count(*)::int AS n FROM invoices WHERE external_invoice_id = ?`, [external])).n;

  beforeAll(async () => {
    svc = await startServiceForTest(receivablesService({ config: { processorSecretKey: randomBytes(32) } }));
  });
  afterAll(() => svc.stop());

  it('refuses a customer that is not one of the scope with 404 /customer_id, and stores nothing', async () => {
    const c = ctx();
    const otherOrg = ctx();
    const live: TrustedContext = { ...c, environment: 'live' };
    const theirs = await customer(otherOrg);
    const liveOne = await customer(live);
    for (const customerId of [theirs, liveOne, randomUUID()]) {
      const b = body(customerId);
      const r = await svc.call('invoices.create', c, { body: b });
      expect([outcome(r), detail(r)?.field, detail(r)?.issue]).toEqual(['not_found', '/customer_id', 'not_found']);
      expect(await stored(b.external_invoice_id)).toBe(0);
    }
    // The same bodies in their own scopes are stored.
    expect(outcome(await svc.call('invoices.create', otherOrg, { body: body(theirs) }))).toBe(201);
    expect(outcome(await svc.call('invoices.create', live, { body: body(liveOne) }))).toBe(201);
  });

  it('stores hostile but valid content exactly as sent, at the far dates', async () => {
    const c = ctx();
    const cust = await customer(c);
    const memo = "it's \\N, {}, NULL";
    const b = body(cust, {
      invoice_number: `NULL "q" \\ {b,r} \t\n 😀`,
      memo,
      issue_date: '1900-01-01',
      due_date: '9999-12-31',
      line_items: [{ description: '"", \\, {a}, 𝄞', quantity: 3, unit_amount_cents: 100_000_000_000 / 4 }],
      metadata: JSON.parse('{"__proto__":"p","constructor":"c","k":"{\\"x\\": null}"}') as Record<string, string>,
    });
    const created = await svc.ok('invoices.create', c, { body: b });
    const got = await svc.ok('invoices.get', c, { params: { id: created.id } });
    expect(got).toEqual(created);
    expect([got.invoice_number, got.memo, got.issue_date, got.due_date, got.total_cents]).toEqual([b.invoice_number, memo, '1900-01-01', '9999-12-31', 75_000_000_000]);
    expect(got.line_items[0].description).toBe('"", \\, {a}, 𝄞');
    // Own keys all, Object.prototype's names included (jsonb keeps its own key order).
    expect(Object.entries(got.metadata as object).sort()).toEqual([
      ['__proto__', 'p'],
      ['constructor', 'c'],
      ['k', '{"x": null}'],
    ]);
  });

  it('refuses hand-made bodies on the bus with 400 and stores nothing; an upper-case customer id is the same customer', async () => {
    const c = ctx();
    const cust = await customer(c);
    let deep: unknown = 'x';
    for (let i = 0; i < 200; i++) deep = { a: deep };
    const bodies = [
      body(cust, { invoice_number: 'I\u0000' }),
      body(cust, { memo: 'm\ud800' }),
      body(cust, { customer_id: `urn:uuid:${cust}` }),
      body(cust, { customer_id: `{${cust}}` }),
      body(cust, { line_items: [{ description: 'x', quantity: 1, unit_amount_cents: 2 ** 53 }] }),
      body(cust, { line_items: [{ description: 'x', quantity: 1, unit_amount_cents: '1000' }] }),
      body(cust, { issue_date: '1899-12-31' }),
      body(cust, { due_date: '10000-01-01' }),
      body(cust, { metadata: deep }),
      body(cust, { organization_id: randomUUID() }),
    ];
    for (const b of bodies) {
      const r = await svc.call('invoices.create', c, { body: b });
      expect(r).toMatchObject({ ok: false, error: { code: 'validation_failed' } });
      expect(await stored(b.external_invoice_id)).toBe(0);
    }
    const upper = body(cust.toUpperCase());
    const made = await svc.ok('invoices.create', c, { body: upper });
    expect(made.customer_id).toBe(cust);
    expect(await stored(upper.external_invoice_id)).toBe(1);
  });

  it('stores one invoice when retries of one external id race: one 201, the rest replayed; other content 409', async () => {
    const c = ctx();
    const b = body(await customer(c));
    const replies = await Promise.all(Array.from({ length: 10 }, () => svc.call('invoices.create', c, { body: b })));
    expect(replies.map(outcome).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(replies.filter((r) => r.ok && r.replayed)).toHaveLength(9);
    expect(await stored(b.external_invoice_id)).toBe(1);
    const other = await svc.call('invoices.create', c, { body: { ...b, invoice_number: 'INV-2' } });
    expect([outcome(other), detail(other)?.field]).toEqual(['conflict', '/external_invoice_id']);
  });
});
