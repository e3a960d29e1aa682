import { ROUTES } from '@acct/contracts';
import { accountId } from '@acct/ledger';
import type { JsonSchema } from '../support/schema-arbitraries';
import { FIXTURES, collectionOf, paramsOf } from './fixtures';
import { type ReceivablesE2E, type Res, createCustomer, createOpenInvoice, expectError, expectStatus, paymentBody, startReceivablesE2E, uid, utcDate } from './receivables.helpers';

/**
 * Ids are UUIDs in one canonical form (lower-case, hyphenated). Other spellings of a UUID
 * (`urn:uuid:…`, braces, no hyphens) are refused with 400 on every path id, list filter and body
 * reference of the route table; an upper-case UUID is the same record, stored and echoed lower-case.
 */
const keyed = ROUTES.filter((r) => r.auth && paramsOf(r.path).includes('id'));

/** Top-level properties of a schema that take a record id. */
function uuidProps(schema: JsonSchema | undefined): string[] {
  const props = (schema?.properties as Record<string, JsonSchema> | undefined) ?? {};
  return Object.entries(props)
    .filter(([, s]) => s.format === 'uuid' || ((s.anyOf as JsonSchema[] | undefined) ?? []).some((b) => b.format === 'uuid'))
    .map(([k]) => k);
}

/** Values of the query parameters a route requires beside the one checked. */
const REQUIRED_VALUES: Record<string, string> = { from: '2026-01-01', to: '2026-12-31' };

const ODD = (id: string): string[] => [`urn:uuid:${id}`, `{${id}}`, id.replace(/-/g, ''), ` ${id}`, `${id}0`];

describe('ids: one canonical form, never a 5xx', () => {
  let t: ReceivablesE2E;
  const mine: Record<string, string> = {};
  beforeAll(async () => {
    t = await startReceivablesE2E('Ids org');
    for (const r of keyed) {
      const c = collectionOf(r.path);
      if (!mine[c]) mine[c] = await FIXTURES[c]!.create(t.api);
    }
  });
  afterAll(async () => t.e2e.stop());

  const is400 = (r: Res, field: string) => {
    expectError(r, 400, 'validation_failed');
    expect(r.json.error.details.map((d: { field: string }) => d.field)).toContain(field);
  };

  it('every route with an {id} refuses other spellings of an existing id with 400 naming id', async () => {
    expect(keyed.length).toBeGreaterThan(25);
    for (const r of keyed) {
      const id = mine[collectionOf(r.path)]!;
      for (const odd of ODD(id)) {
        const res = await t.api(r.method, r.path.replace('{id}', encodeURIComponent(odd)), ['POST', 'PUT', 'PATCH'].includes(r.method) ? {} : undefined);
        expect([r.method, r.path, odd, res.status]).toEqual([r.method, r.path, odd, 400]);
        is400(res, 'id');
      }
    }
  });

  it('every GET with an {id} answers an upper-case id as the record itself', async () => {
    for (const r of keyed.filter((x) => x.method === 'GET' && (x.kind ?? 'json') === 'json')) {
      const id = mine[collectionOf(r.path)]!;
      const lower = await t.api('GET', r.path.replace('{id}', id));
      const upper = await t.api('GET', r.path.replace('{id}', id.toUpperCase()));
      expect([r.path, upper.status]).toEqual([r.path, lower.status]);
      if (lower.status === 200 && !Array.isArray(lower.json.data)) expect(upper.json.data.id).toBe(lower.json.data.id);
    }
  });

  it('every list filter and body reference that takes an id refuses other spellings with 400 naming it', async () => {
    let checked = 0;
    const some = mine['/api/v1/customers']!;
    for (const r of ROUTES.filter((x) => x.auth)) {
      const path = r.path.replace('{id}', mine[collectionOf(r.path)] ?? some);
      // The other parameters the route requires (the general ledger: a period).
      const rest = ((r.query as { required?: string[] } | undefined)?.required ?? [])
        .filter((x) => x !== 'account_id')
        .map((x) => `&${x}=${REQUIRED_VALUES[x]}`)
        .join('');
      for (const q of uuidProps(r.query)) {
        for (const odd of ODD(some)) is400(await t.api(r.method, `${path}?${q}=${encodeURIComponent(odd)}${rest}`), q);
        // A cursor names an item of its own list (API-DECISIONS §11): upper-case, one of this list's ids; an account_id an account.
        const cursor = q === 'starting_after' || q === 'ending_before';
        const own = cursor ? mine[r.path] : q === 'account_id' ? accountId(t.keys.organization_id, 'test', '1000') : some;
        if (own) expectStatus(await t.api(r.method, `${path}?${q}=${own.toUpperCase()}${rest}`), 200);
        checked++;
      }
      if ((r.kind ?? 'json') !== 'json') continue;
      for (const b of uuidProps(r.body)) {
        for (const odd of ODD(some)) is400(await t.api(r.method, path, { [b]: odd }), `/${b}`);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(10);
    // A nested reference: a vendor payment's allocation.
    is400(await t.api('POST', '/api/v1/vendor-payments', { allocations: [{ bill_id: `urn:uuid:${some}`, amount_cents: 1 }] }), '/allocations/0/bill_id');
  });

  it('an upper-case invoice_id pays the invoice: stored lower-case, aged by its due date', async () => {
    const customerId = await createCustomer(t.api, 'Upper-case payer');
    const inv = await createOpenInvoice(t.api, customerId, 10_000, { issue_date: '2026-01-01', due_date: '2026-01-31' });
    const pay = await t.api('POST', '/api/v1/payments', paymentBody(inv.id.toUpperCase(), 100, { received_at: '2026-02-01' }));
    expectStatus(pay, 201);
    expect(pay.json.data.invoice_id).toBe(inv.id);
    const ar = await t.api('GET', `/api/v1/reports/accounts-receivable?as_of=${utcDate(new Date('2026-06-30T00:00:00Z'))}`);
    expectStatus(ar, 200);
    const row = ar.json.data.customers.find((c: { customer_id: string }) => c.customer_id === customerId);
    expect(row).toMatchObject({ open_cents: 9900, aging: { current: 0, days_over_90: 9900 } });
  });

  it('an upper-case vendor_id and bill_id make a vendor payment of that vendor', async () => {
    const v = await t.api('POST', '/api/v1/vendors', { external_vendor_id: uid('ven'), display_name: 'Upper-case vendor' });
    expectStatus(v, 201);
    const vendorId = v.json.data.id as string;
    const bill = await t.api('POST', '/api/v1/bills', {
      external_bill_id: uid('bill'),
      vendor_id: vendorId.toUpperCase(),
      bill_number: 'U-1',
      issue_date: '2026-03-01',
      due_date: '2026-03-31',
      line_items: [{ description: 'Work', quantity: 1, unit_amount_cents: 5000 }],
    });
    expectStatus(bill, 201);
    expect(bill.json.data.vendor_id).toBe(vendorId);
    const vp = await t.api('POST', '/api/v1/vendor-payments', {
      external_vendor_payment_id: uid('vp'),
      vendor_id: vendorId.toUpperCase(),
      amount_cents: 5000,
      payment_date: '2026-03-10',
      allocations: [{ bill_id: (bill.json.data.id as string).toUpperCase(), amount_cents: 5000 }],
    });
    expectStatus(vp, 201);
    expect(vp.json.data).toMatchObject({ vendor_id: vendorId, allocations: [{ bill_id: bill.json.data.id }] });
    const listed = await t.api('GET', `/api/v1/bills?vendor_id=${vendorId.toUpperCase()}`);
    expect(listed.json.data.map((b: { id: string }) => b.id)).toEqual([bill.json.data.id]);
  });
});
