import { randomBytes, randomUUID } from 'node:crypto';
import { type RpcReply, type TrustedContext, compileBody, schemas } from '@acct/contracts';
import { catalogueErrors } from '@acct/posting';
import { type TestService, bookedCents, ctx, firstRow, startServiceForTest } from '@acct/testing';
import { receivablesService } from './service';
import { invoiceBody } from './testing/bodies';

const validCustomer = compileBody(schemas.customers.customerResponse);
const validInvoice = compileBody(schemas.receivables.invoiceResponse);
const validEstimate = compileBody(schemas.receivables.estimateResponse);
const outcome = (r: RpcReply<unknown>): string => (r.ok ? 'ok' : r.error.code);
const detail = (r: RpcReply<unknown>) => (r.ok ? null : r.error.details[0]);
const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));

/** metadata on every receivables record and the PATCH routes (API-DECISIONS §11), against real Postgres and NATS. */
describe('receivables: metadata and PATCH', () => {
  let svc: TestService;
  const customer = async (c: TrustedContext, over: Record<string, unknown> = {}) =>
    svc.ok('customers.create', c, { body: { external_customer_id: randomUUID(), name: 'C', ...over } });
  const estimateBody = (customerId: string, over: Record<string, unknown> = {}) => ({
    external_estimate_id: randomUUID(),
    customer_id: customerId,
    issue_date: '2026-01-10',
    line_items: [{ description: 'Work', quantity: 1, unit_amount_cents: 1000 }],
    ...over,
  });

  beforeAll(async () => {
    svc = await startServiceForTest(receivablesService({ config: { processorSecretKey: randomBytes(32) } }));
  });
  afterAll(() => svc.stop());

  it('stores metadata on create, answers it on get and list, and compares it on an external-id replay', async () => {
    const c = ctx();
    // Keys that name Object.prototype members stay plain keys all the way through.
    const metadata = JSON.parse('{"crm":"42","__proto__":"p","constructor":"c","empty":""}') as Record<string, string>;
    const body = { external_customer_id: randomUUID(), name: 'Ada', metadata };
    const created = await svc.call('customers.create', c, { body });
    expect(created.ok ? created.status : created.error).toBe(201);
    expect(validCustomer(created.ok && created.body)).toBe(true);
    const stored = JSON.parse('{"crm":"42","__proto__":"p","constructor":"c"}') as Record<string, string>;
    const data = created.ok ? created.body.data : null;
    expect(JSON.stringify(data.metadata)).toBe(JSON.stringify(stored));
    const got = await svc.ok('customers.get', c, { params: { id: data.id } });
    expect(JSON.stringify(got.metadata)).toBe(JSON.stringify(stored));
    const listed = await svc.ok('customers.list', c, { query: { limit: 5, offset: 0 } });
    expect(listed[0].metadata).toEqual(got.metadata);
    // Same content (keys in another order, "" dropped as on create) → replay; other metadata → 409.
    const replay = await svc.call('customers.create', c, { body: { ...body, metadata: JSON.parse('{"constructor":"c","__proto__":"p","crm":"42"}') } });
    expect(replay.ok && [replay.status, replay.replayed]).toEqual([200, true]);
    const other = await svc.call('customers.create', c, { body: { ...body, metadata: { crm: '43' } } });
    expect(outcome(other)).toBe('conflict');
    const none = await svc.call('customers.create', c, { body: { ...body, metadata: undefined } });
    expect(outcome(none)).toBe('conflict');
    // No metadata given: {}.
    expect((await customer(c)).metadata).toEqual({});
    // A PATCH merges such keys too (MikroORM's flush sees them), and removes them with "".
    const patched = await svc.ok('customers.update', c, { params: { id: data.id }, body: { metadata: JSON.parse('{"constructor":"d","__proto__":"","valueOf":"v"}') } });
    expect(JSON.stringify(patched.metadata)).toBe('{"crm":"42","constructor":"d","valueOf":"v"}');
    const inv = await svc.ok('invoices.create', c, { body: invoiceBody(data.id, { metadata: JSON.parse('{"constructor":"c"}') }) });
    expect(JSON.stringify((await svc.ok('invoices.list', c, { query: { limit: 1, offset: 0 } }))[0].metadata)).toBe('{"constructor":"c"}');
    expect(JSON.stringify((await svc.ok('invoices.update', c, { params: { id: inv.id }, body: { memo: 'm', metadata: { constructor: '' } } })).metadata)).toBe('{}');
  });

  it('keeps metadata on invoices, estimates, payments and payouts, compared on replay', async () => {
    const c = ctx();
    const cus = await customer(c);
    const inv = invoiceBody(cus.id, { metadata: { order: 'A-1' } });
    const created = await svc.ok('invoices.create', c, { body: inv });
    expect(created.metadata).toEqual({ order: 'A-1' });
    expect(outcome(await svc.call('invoices.create', c, { body: { ...inv, metadata: { order: 'A-2' } } }))).toBe('conflict');
    expect((await svc.call('invoices.create', c, { body: inv })).ok).toBe(true);
    const posted = await svc.call('invoices.post', c, { params: { id: created.id } });
    expect(validInvoice(posted.ok && { data: posted.body.data, invoice: posted.body.invoice })).toBe(true);
    expect(posted.ok && posted.body.data.metadata).toEqual({ order: 'A-1' });

    const pay = { external_payment_id: randomUUID(), invoice_id: created.id, amount_cents: 400, received_at: '2026-01-12', metadata: { bank_ref: 'r1' } };
    expect((await svc.ok('payments.create', c, { body: pay })).metadata).toEqual({ bank_ref: 'r1' });
    expect(outcome(await svc.call('payments.create', c, { body: { ...pay, metadata: {} } }))).toBe('conflict');
    const replay = await svc.call('payments.create', c, { body: pay });
    expect(replay.ok && [replay.status, replay.replayed, replay.body.data.metadata]).toEqual([200, true, { bank_ref: 'r1' }]);

    const est = estimateBody(cus.id, { metadata: { quote: 'q' } });
    expect((await svc.ok('estimates.create', c, { body: est })).metadata).toEqual({ quote: 'q' });
    expect(outcome(await svc.call('estimates.create', c, { body: { ...est, metadata: undefined } }))).toBe('conflict');

    const payout = { external_payout_id: randomUUID(), processor: 'stripe', payout_date: '2026-01-15', gross_cents: 100, fee_cents: 3, net_cents: 97, metadata: { batch: '7' } };
    expect((await svc.ok('payouts.create', c, { body: payout })).metadata).toEqual({ batch: '7' });
    expect(outcome(await svc.call('payouts.create', c, { body: { ...payout, metadata: { batch: '8' } } }))).toBe('conflict');
    expect((await svc.ok('payouts.list', c, { query: { limit: 5, offset: 0 } }))[0].metadata).toEqual({ batch: '7' });

    // The events written meanwhile are still events of the catalogue (posting sources carry the record, metadata included).
    const rows = await svc.sql(`SELECT subject, payload FROM outbox WHERE payload->>'organization_id' = ?`, [c.organizationId]);
    expect(catalogueErrors(svc.prefix, rows as { subject: string; payload: unknown }[])).toEqual([]);
    const posting = rows.find((r: { subject: string }) => r.subject.endsWith('posting.receivables')) as { payload: { source: { invoice: { metadata: unknown } } } };
    expect(posting.payload.source.invoice.metadata).toEqual({ order: 'A-1' });
    const outbound = rows.filter((r: { subject: string }) => r.subject.includes('.outbound.')) as { payload: { data: Record<string, unknown> } }[];
    expect(outbound.length).toBeGreaterThan(0);
    for (const o of outbound) expect(o.payload.data).not.toHaveProperty('metadata');
  });

  describe('PATCH /customers/{id}', () => {
    it('changes the named fields, merges metadata, emits customer.updated only on a change, 404s across scopes', async () => {
      const c = ctx();
      const cus = await customer(c, { email: 'a@b.example', metadata: { a: '1', b: '2' } });
      const same = await svc.call('customers.update', c, { params: { id: cus.id }, body: {} });
      expect(validCustomer(same.ok && same.body)).toBe(true);
      expect(same.ok && same.body.data).toEqual(cus);
      const updated = await svc.ok('customers.update', c, { params: { id: cus.id }, body: { name: 'Ada King', email: null, metadata: { a: '', c: '3' } } });
      expect(updated).toMatchObject({ id: cus.id, name: 'Ada King', email: null, metadata: { b: '2', c: '3' } });
      expect(updated.updated_at > cus.updated_at).toBe(true);
      expect(await svc.ok('customers.get', c, { params: { id: cus.id } })).toEqual(updated);
      await svc.ok('customers.update', c, { params: { id: cus.id }, body: { name: 'Ada King', metadata: { b: '2' } } }); // no change
      const events = await svc.sql(`SELECT payload FROM outbox WHERE subject = ? AND payload->'data'->>'id' = ?`, [`${svc.prefix}.events.reference.customer.updated`, cus.id]);
      expect(events).toHaveLength(1);
      expect((firstRow(events).payload as { data: unknown }).data).toEqual(updated);
      for (const other of [ctx(), ctx({ organizationId: c.organizationId, environment: 'live' })]) {
        expect(outcome(await svc.call('customers.update', other, { params: { id: cus.id }, body: { name: 'X' } }))).toBe('not_found');
      }
      expect(outcome(await svc.call('customers.update', c, { params: { id: randomUUID() }, body: {} }))).toBe('not_found');
    });

    it('refuses a merge that leaves more than 50 keys (400 on /metadata) and changes nothing', async () => {
      const c = ctx();
      const cus = await customer(c, { metadata: fifty });
      const r = await svc.call('customers.update', c, { params: { id: cus.id }, body: { name: 'New', metadata: { one_more: 'x' } } });
      expect(outcome(r)).toBe('validation_failed');
      expect(detail(r)).toMatchObject({ field: '/metadata', issue: 'too_many' });
      expect((await svc.ok('customers.get', c, { params: { id: cus.id } })).name).toBe('C');
      const swapped = await svc.ok('customers.update', c, { params: { id: cus.id }, body: { metadata: { k0: '', one_more: 'x' } } });
      expect(Object.keys(swapped.metadata)).toHaveLength(50);
    });

    it('loses no key when PATCHes of one customer race (each merges into what the previous one left)', async () => {
      const c = ctx();
      const cus = await customer(c);
      await Promise.all(Array.from({ length: 10 }, (_, i) => svc.ok('customers.update', c, { params: { id: cus.id }, body: { metadata: { [`k${i}`]: `${i}` } } })));
      const got = await svc.ok('customers.get', c, { params: { id: cus.id } });
      expect(Object.keys(got.metadata).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `k${i}`).sort());
    });

    it('gives each of many racing renames its own, growing updated_at', async () => {
      const c = ctx();
      const cus = await customer(c);
      await Promise.all(Array.from({ length: 8 }, (_, i) => svc.ok('customers.update', c, { params: { id: cus.id }, body: { name: `N${i}` } })));
      const events = await svc.sql(`SELECT payload->'data'->>'updated_at' AS at FROM outbox WHERE subject = ? AND payload->'data'->>'id' = ? ORDER BY seq`, [
        `${svc.prefix}.events.reference.customer.updated`,
        cus.id,
      ]);
      const ats = events.map((e: { at: string }) => e.at);
      expect(new Set(ats).size).toBe(8);
    });
  });

  describe('PATCH /invoices/{id}', () => {
    it('changes any create field of a draft, pricing the lines as create does', async () => {
      const c = ctx();
      const [a, b] = [await customer(c), await customer(c)];
      const inv = await svc.ok('invoices.create', c, { body: invoiceBody(a.id, { memo: 'm', metadata: { x: '1' } }) });
      const r = await svc.call('invoices.update', c, {
        params: { id: inv.id },
        body: {
          customer_id: b.id,
          line_items: [
            { description: 'Half', quantity: 0.5, unit_amount_cents: 3 },
            { description: 'Two', quantity: 2, unit_amount_cents: 250 },
          ],
          memo: null,
          due_date: '2026-03-01',
          metadata: { y: '2' },
        },
      });
      expect(validInvoice(r.ok && r.body)).toBe(true);
      const updated = r.ok ? r.body.data : null;
      expect(updated).toMatchObject({ id: inv.id, customer_id: b.id, total_cents: 502, memo: null, due_date: '2026-03-01', status: 'draft', metadata: { x: '1', y: '2' } });
      expect(updated.line_items[0]).toEqual({ description: 'Half', quantity: 0.5, unit_amount_cents: 3, amount_cents: 2 });
      expect(await svc.ok('invoices.get', c, { params: { id: inv.id } })).toEqual(updated);
      expect(await svc.ok('invoices.update', c, { params: { id: inv.id }, body: {} })).toEqual(updated);
      // Posting books the patched total.
      const posted = await svc.ok('invoices.post', c, { params: { id: inv.id } });
      expect(posted.total_cents).toBe(502);
      expect(await bookedCents(svc, inv.id, 'debit')).toBe(502);
    });

    it('checks a draft as create does: customer (404), dates and currency (400), a taken external id (409)', async () => {
      const c = ctx();
      const cus = await customer(c);
      const inv = await svc.ok('invoices.create', c, { body: invoiceBody(cus.id) });
      const taken = await svc.ok('invoices.create', c, { body: invoiceBody(cus.id) });
      const patch = (body: Record<string, unknown>) => svc.call('invoices.update', c, { params: { id: inv.id }, body });
      const foreign = await customer(ctx());
      expect([outcome(await patch({ customer_id: foreign.id })), detail(await patch({ customer_id: foreign.id }))?.field]).toEqual(['not_found', '/customer_id']);
      expect(detail(await patch({ due_date: '2026-01-01' }))).toMatchObject({ field: '/due_date' });
      expect(outcome(await patch({ currency: 'EUR' }))).toBe('validation_failed');
      expect(outcome(await patch({ line_items: [{ description: 'x', quantity: 1.23456, unit_amount_cents: 1 }] }))).toBe('validation_failed');
      const dup = await patch({ external_invoice_id: taken.external_invoice_id });
      expect([outcome(dup), detail(dup)]).toEqual(['conflict', expect.objectContaining({ field: '/external_invoice_id', issue: 'already_used' })]);
      const fresh = randomUUID();
      expect((await svc.ok('invoices.update', c, { params: { id: inv.id }, body: { external_invoice_id: fresh } })).external_invoice_id).toBe(fresh);
      expect(await svc.ok('invoices.get', c, { params: { id: inv.id } })).toMatchObject({ external_invoice_id: fresh, total_cents: 1000, customer_id: cus.id });
    });

    it('takes only metadata once posted (409 naming the field), merging and removing keys', async () => {
      const c = ctx();
      const cus = await customer(c);
      const inv = await svc.ok('invoices.create', c, { body: invoiceBody(cus.id, { metadata: { a: '1' } }) });
      await svc.ok('invoices.post', c, { params: { id: inv.id } });
      const r = await svc.call('invoices.update', c, { params: { id: inv.id }, body: { memo: 'late', metadata: { b: '2' } } });
      expect([outcome(r), detail(r)]).toEqual(['conflict', expect.objectContaining({ field: '/memo', issue: 'invoice_open' })]);
      // Even the value it already has: only metadata once posted.
      expect(outcome(await svc.call('invoices.update', c, { params: { id: inv.id }, body: { invoice_number: inv.invoice_number } }))).toBe('conflict');
      const updated = await svc.ok('invoices.update', c, { params: { id: inv.id }, body: { metadata: { a: '', b: '2' } } });
      expect(updated).toMatchObject({ status: 'open', total_cents: 1000, metadata: { b: '2' } });
      const full = await svc.ok('invoices.create', c, { body: invoiceBody(cus.id, { metadata: fifty }) });
      expect(detail(await svc.call('invoices.update', c, { params: { id: full.id }, body: { metadata: { extra: 'x' } } }))).toMatchObject({
        field: '/metadata',
        issue: 'too_many',
      });
      expect(outcome(await svc.call('invoices.update', ctx(), { params: { id: inv.id }, body: {} }))).toBe('not_found');
    });

    it('never lets a PATCH racing a post change the amounts of a posted invoice', async () => {
      const c = ctx();
      const cus = await customer(c);
      for (let i = 0; i < 6; i++) {
        const inv = await svc.ok('invoices.create', c, { body: invoiceBody(cus.id) });
        const [patched, posted] = await Promise.all([
          svc.call('invoices.update', c, { params: { id: inv.id }, body: { line_items: [{ description: 'More', quantity: 1, unit_amount_cents: 5000 }] } }),
          svc.call('invoices.post', c, { params: { id: inv.id } }),
        ]);
        expect(posted.ok).toBe(true);
        const booked = await bookedCents(svc, inv.id, 'debit');
        const now = await svc.ok('invoices.get', c, { params: { id: inv.id } });
        // Either the PATCH went first (and the post booked its total) or it was refused: the books match the invoice.
        expect(booked).toBe(now.total_cents);
        expect(patched.ok ? now.total_cents : 1000).toBe(now.total_cents);
        if (!patched.ok) expect(patched.error.code).toBe('conflict');
      }
    });
  });

  describe('PATCH /estimates/{id}', () => {
    it('changes a draft as create would, and only metadata once sent', async () => {
      const c = ctx();
      const cus = await customer(c);
      const est = await svc.ok('estimates.create', c, { body: estimateBody(cus.id, { expiry_date: '2026-02-01', memo: 'm' }) });
      const r = await svc.call('estimates.update', c, {
        params: { id: est.id },
        body: { expiry_date: null, memo: null, line_items: [{ description: 'y', quantity: 3, unit_amount_cents: 7 }] },
      });
      expect(validEstimate(r.ok && r.body)).toBe(true);
      expect(r.ok && r.body.data).toMatchObject({ expiry_date: null, memo: null, total_cents: 21, status: 'draft' });
      expect(detail(await svc.call('estimates.update', c, { params: { id: est.id }, body: { expiry_date: '2026-01-01' } }))).toMatchObject({ field: '/expiry_date' });
      await svc.ok('estimates.status', c, { params: { id: est.id }, body: { status: 'sent' } });
      const refused = await svc.call('estimates.update', c, { params: { id: est.id }, body: { line_items: [{ description: 'z', quantity: 1, unit_amount_cents: 1 }] } });
      expect([outcome(refused), detail(refused)]).toEqual(['conflict', expect.objectContaining({ field: '/line_items', issue: 'estimate_sent' })]);
      expect((await svc.ok('estimates.update', c, { params: { id: est.id }, body: { metadata: { won: 'yes' } } })).metadata).toEqual({ won: 'yes' });
      expect(outcome(await svc.call('estimates.update', ctx(), { params: { id: est.id }, body: {} }))).toBe('not_found');
    });
  });
});
