import { randomUUID } from 'node:crypto';
import { type RpcReply, compileBody, schemas } from '@acct/contracts';
import { accountId } from '@acct/ledger';
import { catalogueErrors } from '@acct/posting';
import { type TestService, bookedCents, ctx, outcome, payablesCalls, startServiceForTest } from '@acct/testing';
import { payablesService } from './service';

const validBill = compileBody(schemas.payables.billResponse);
const validVendor = compileBody(schemas.payables.vendorResponse);
const detail = (r: RpcReply<unknown>) => (r.ok ? null : r.error.details[0]);
const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));

/** metadata on vendors, bills and vendor payments, PATCH /bills/{id} and metadata on PATCH /vendors/{id} (API-DECISIONS §11). */
describe('payables: metadata and PATCH', () => {
  let svc: TestService;
  const { call, vendor, bill, billBody, payBody } = payablesCalls(() => svc);

  beforeAll(async () => {
    svc = await startServiceForTest(payablesService());
  });
  afterAll(() => svc.stop());

  it('stores metadata on create, answers it on get and list, and compares it on an external-id replay', async () => {
    const c = ctx();
    const vBody = { external_vendor_id: randomUUID(), display_name: 'V', metadata: JSON.parse('{"constructor":"c","tax":"x","gone":""}') };
    const v = await call('vendors.create', c, { body: vBody });
    expect(validVendor(v.ok && v.body)).toBe(true);
    const vendorId = v.ok ? v.body.data.id : '';
    expect(JSON.stringify(v.ok && v.body.data.metadata)).toBe('{"constructor":"c","tax":"x"}');
    expect((await call('vendors.create', c, { body: { ...vBody, metadata: { tax: 'x', constructor: 'c' } } })).ok).toBe(true);
    expect(outcome(await call('vendors.create', c, { body: { ...vBody, metadata: {} } }))).toBe('conflict');

    const b = billBody(vendorId, 1000, { metadata: { po: 'PO-1' } });
    const created = await svc.ok('bills.create', c, { body: b });
    expect(created.metadata).toEqual({ po: 'PO-1' });
    expect(outcome(await call('bills.create', c, { body: { ...b, metadata: { po: 'PO-2' } } }))).toBe('conflict');
    const replay = await call('bills.create', c, { body: b });
    expect(replay.ok && [replay.status, replay.body.data.metadata]).toEqual([200, { po: 'PO-1' }]);
    expect((await svc.ok('bills.get', c, { params: { id: created.id } })).metadata).toEqual({ po: 'PO-1' });
    expect((await svc.ok('bills.list', c, { query: { limit: 5, offset: 0 } }))[0].metadata).toEqual({ po: 'PO-1' });
    expect((await svc.ok('bills.post', c, { params: { id: created.id } })).metadata).toEqual({ po: 'PO-1' });

    const p = payBody(vendorId, [{ bill_id: created.id, amount_cents: 400 }], { metadata: { check: '1001' } });
    expect((await svc.ok('vendor_payments.create', c, { body: p })).metadata).toEqual({ check: '1001' });
    expect(outcome(await call('vendor_payments.create', c, { body: { ...p, metadata: undefined } }))).toBe('conflict');
    expect((await svc.ok('vendor_payments.list', c, { query: { limit: 5, offset: 0 } }))[0].metadata).toEqual({ check: '1001' });

    const rows = await svc.sql(`SELECT subject, payload FROM outbox WHERE payload->>'organization_id' = ?`, [c.organizationId]);
    expect(catalogueErrors(svc.prefix, rows as { subject: string; payload: unknown }[])).toEqual([]);
  });

  it('PATCH /vendors/{id} merges metadata (400 past 50 keys) and emits vendor.updated for it', async () => {
    const c = ctx();
    const id = await vendor(c, { metadata: { a: '1' } });
    const updated = await svc.ok('vendors.update', c, { params: { id }, body: { metadata: { a: '', b: '2' } } });
    expect(updated.metadata).toEqual({ b: '2' });
    const events = await svc.sql(`SELECT payload FROM outbox WHERE subject = ? AND payload->'data'->>'id' = ?`, [`${svc.prefix}.events.reference.vendor.updated`, id]);
    expect(events).toHaveLength(1);
    const full = await vendor(c, { metadata: fifty });
    expect(detail(await call('vendors.update', c, { params: { id: full }, body: { metadata: { more: 'x' } } }))).toMatchObject({ field: '/metadata', issue: 'too_many' });
  });

  describe('PATCH /bills/{id}', () => {
    it('changes any create field of a draft as create does, and posting books the new total', async () => {
      const c = ctx();
      const [v1, v2] = [await vendor(c), await vendor(c)];
      const draft = await bill(c, v1, 1000, { status: 'draft', memo: 'm', metadata: { a: '1' } });
      const same = await call('bills.update', c, { params: { id: draft.id }, body: {} });
      expect(validBill(same.ok && same.body)).toBe(true);
      expect(same.ok && same.body.data).toEqual(draft);
      const expense = accountId(c.organizationId, c.environment, '5000');
      const r = await call('bills.update', c, {
        params: { id: draft.id },
        body: { vendor_id: v2, line_items: [{ description: 'x', quantity: 2.5, unit_amount_cents: 3 }], memo: null, expense_account_id: expense, metadata: { b: '2' } },
      });
      expect(validBill(r.ok && r.body)).toBe(true);
      expect(r.ok && r.body.data).toMatchObject({ vendor_id: v2, total_cents: 8, memo: null, status: 'draft', metadata: { a: '1', b: '2' } });
      const posted = await svc.ok('bills.post', c, { params: { id: draft.id } });
      expect(posted).toMatchObject({ status: 'posted', total_cents: 8, vendor_id: v2 });
      expect(await bookedCents(svc, draft.id, 'credit')).toBe(8);
    });

    it('checks a draft as create does: vendor (404), dates (400), expense account, a taken external id (409)', async () => {
      const c = ctx();
      const v = await vendor(c);
      const draft = await bill(c, v, 1000, { status: 'draft' });
      const other = await bill(c, v, 1000, { status: 'draft' });
      const patch = (body: Record<string, unknown>) => call('bills.update', c, { params: { id: draft.id }, body });
      const foreign = await vendor(ctx());
      expect([outcome(await patch({ vendor_id: foreign })), detail(await patch({ vendor_id: foreign }))?.field]).toEqual(['not_found', '/vendor_id']);
      expect(detail(await patch({ due_date: '2026-01-01' }))).toMatchObject({ field: '/due_date' });
      expect(outcome(await patch({ expense_account_id: accountId(c.organizationId, c.environment, '1000') }))).toBe('validation_failed');
      expect(outcome(await patch({ expense_account_id: randomUUID() }))).toBe('not_found');
      const dup = await patch({ external_bill_id: other.external_bill_id });
      expect([outcome(dup), detail(dup)]).toEqual(['conflict', expect.objectContaining({ field: '/external_bill_id', issue: 'already_used' })]);
      expect(await svc.ok('bills.get', c, { params: { id: draft.id } })).toEqual(draft);
    });

    it('takes only metadata once posted or reversed (409 naming the field), merge and removal; 404 across scopes', async () => {
      const c = ctx();
      const v = await vendor(c);
      const posted = await bill(c, v, 1000, { metadata: fifty });
      const refused = await call('bills.update', c, { params: { id: posted.id }, body: { bill_number: 'B2', metadata: {} } });
      expect([outcome(refused), detail(refused)]).toEqual(['conflict', expect.objectContaining({ field: '/bill_number', issue: 'bill_posted' })]);
      expect(detail(await call('bills.update', c, { params: { id: posted.id }, body: { metadata: { extra: 'x' } } }))).toMatchObject({ field: '/metadata', issue: 'too_many' });
      const swapped = await svc.ok('bills.update', c, { params: { id: posted.id }, body: { metadata: { k0: '', extra: 'x' } } });
      expect(Object.keys(swapped.metadata)).toHaveLength(50);
      expect(swapped).toMatchObject({ status: 'posted', total_cents: 1000, open_balance_cents: 1000 });
      await svc.ok('bills.reverse', c, { params: { id: posted.id }, body: { reversal_reason: 'dup' } });
      expect(outcome(await call('bills.update', c, { params: { id: posted.id }, body: { memo: 'x' } }))).toBe('conflict');
      expect((await svc.ok('bills.update', c, { params: { id: posted.id }, body: { metadata: { extra: '' } } })).status).toBe('reversed');
      for (const other of [ctx(), ctx({ organizationId: c.organizationId, environment: 'live' })]) {
        expect(outcome(await call('bills.update', other, { params: { id: posted.id }, body: {} }))).toBe('not_found');
      }
    });

    it('never lets a PATCH racing a post change the amounts of a posted bill', async () => {
      const c = ctx();
      const v = await vendor(c);
      for (let i = 0; i < 6; i++) {
        const draft = await bill(c, v, 1000, { status: 'draft' });
        const [patched, posted] = await Promise.all([
          call('bills.update', c, { params: { id: draft.id }, body: { line_items: [{ description: 'more', quantity: 1, unit_amount_cents: 5000 }] } }),
          call('bills.post', c, { params: { id: draft.id } }),
        ]);
        expect(posted.ok).toBe(true);
        const now = await svc.ok('bills.get', c, { params: { id: draft.id } });
        expect(await bookedCents(svc, draft.id, 'credit')).toBe(now.total_cents);
        if (!patched.ok) expect(patched.error.code).toBe('conflict');
        else expect(now.total_cents).toBe(5000);
      }
    });
  });
});
