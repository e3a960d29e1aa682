import { compileBody, schemas } from '@acct/contracts';
import { accountId } from '@acct/ledger';
import { type E2E, type Keys, client } from './harness';
import { type Api, expectError, expectNotReplayed, expectReplayed, expectSchema, expectStatus, startReceivablesE2E, uid } from './receivables.helpers';

const ap = schemas.payables;
const validVendor = compileBody(ap.vendorResponse);
const validVendorList = compileBody(ap.vendorListResponse);
const validBill = compileBody(ap.billResponse);
const validBillList = compileBody(ap.billListResponse);
const validBillPost = compileBody(ap.billPostResponse);
const validBillReverse = compileBody(ap.billReverseResponse);
const validPayment = compileBody(ap.vendorPaymentResponse);
const validPaymentList = compileBody(ap.vendorPaymentListResponse);
const validPaymentPost = compileBody(ap.vendorPaymentPostResponse);
const validPaymentReverse = compileBody(ap.vendorPaymentReverseResponse);

describe('e2e: vendors, bills and vendor payments through the gateway', () => {
  let e2e: E2E;
  let keys: Keys;
  let other: Keys;
  let api: Api;
  let otherApi: Api;
  let liveApi: Api;
  const account = (code: string) => accountId(keys.organization_id, 'test', code);

  beforeAll(async () => {
    ({ e2e, keys, other, api, otherApi } = await startReceivablesE2E('Payables org'));
    liveApi = client(e2e.base, keys.live_key);
  });
  afterAll(async () => e2e?.stop());

  const createVendor = async (over: Record<string, unknown> = {}): Promise<any> => {
    const r = await api('POST', '/api/v1/vendors', { external_vendor_id: uid('ven'), display_name: 'Vendor', ...over });
    expectStatus(r, 201);
    return r.json.data;
  };
  const billBody = (vendorId: string, cents: number, over: Record<string, unknown> = {}) => ({
    external_bill_id: uid('bill'),
    vendor_id: vendorId,
    bill_number: 'B-1',
    issue_date: '2026-03-01',
    due_date: '2026-03-31',
    line_items: [{ description: 'Work', quantity: 1, unit_amount_cents: cents }],
    ...over,
  });
  const createBill = async (vendorId: string, cents: number, over: Record<string, unknown> = {}): Promise<any> => {
    const r = await api('POST', '/api/v1/bills', billBody(vendorId, cents, over));
    expectStatus(r, 201);
    return r.json.data;
  };
  const paymentBody = (vendorId: string, allocations: { bill_id: string; amount_cents: number }[], over: Record<string, unknown> = {}) => ({
    external_vendor_payment_id: uid('vp'),
    vendor_id: vendorId,
    amount_cents: allocations.reduce((s, a) => s + a.amount_cents, 0),
    payment_date: '2026-03-10',
    allocations,
    ...over,
  });
  const issues = (r: { json: any }) => r.json.error.details.map((d: { field: string; issue: string }) => `${d.field}:${d.issue}`);

  describe('vendors', () => {
    it('creates (201), replays the same body (200, Idempotent-Replayed) and refuses other content (409)', async () => {
      const body = { external_vendor_id: uid('ven'), display_name: 'Grace Hopper LLC', vendor_type: 'contractor', email: 'ap@hopper.example', is_1099_eligible: true };
      const r = await api('POST', '/api/v1/vendors', body);
      expectStatus(r, 201);
      expectNotReplayed(r);
      expectSchema(validVendor, r.json);
      expect(r.json.vendor).toEqual(r.json.data);
      expect(r.json.data).toMatchObject({ ...body, w9_on_file: false });
      const again = await api('POST', '/api/v1/vendors', body);
      expectStatus(again, 200);
      expectReplayed(again);
      expect(again.json.data).toEqual(r.json.data);
      const conflict = await api('POST', '/api/v1/vendors', { ...body, is_1099_eligible: false });
      expectError(conflict, 409, 'conflict');
      expect(issues(conflict)).toEqual(['/external_vendor_id:already_used']);
    });

    it('refuses invalid bodies with 400 naming the field', async () => {
      const missing = await api('POST', '/api/v1/vendors', { external_vendor_id: uid('ven') });
      expectError(missing, 400, 'validation_failed');
      expect(issues(missing)).toContain('/display_name:required');
      const email = await api('POST', '/api/v1/vendors', { external_vendor_id: uid('ven'), display_name: 'V', email: 'not-an-email' });
      expect(issues(email)).toContain('/email:invalid_format');
      const type = await api('POST', '/api/v1/vendors', { external_vendor_id: uid('ven'), display_name: 'V', vendor_type: 'alien' });
      expect(issues(type)).toContain('/vendor_type:invalid_value');
      const unknown = await api('POST', '/api/v1/vendors', { external_vendor_id: uid('ven'), display_name: 'V', tax_id: '1' });
      expect(issues(unknown)).toContain('/tax_id:unknown_field');
      const scope = await api('POST', '/api/v1/vendors', { external_vendor_id: uid('ven'), display_name: 'V', organization_id: other.organization_id });
      expectError(scope, 400, 'trusted_scope_field_not_allowed');
    });

    it('lists with filters and pagination, gets one, and hides them from other organizations and environments', async () => {
      const tag = uid('list');
      const eligible = await createVendor({ display_name: `${tag} A`, is_1099_eligible: true, vendor_type: 'business' });
      const plain = await createVendor({ display_name: `${tag} B` });
      const page = await api('GET', '/api/v1/vendors?limit=1&offset=0');
      expectStatus(page, 200);
      expectSchema(validVendorList, page.json);
      expect(page.json.data.map((v: { id: string }) => v.id)).toEqual([plain.id]);
      expect(page.json.pagination).toMatchObject({ limit: 1, offset: 0, count: 1, has_more: true });
      const filtered = await api('GET', '/api/v1/vendors?vendor_type=business&is_1099_eligible=true&limit=100');
      expect(filtered.json.vendors.map((v: { id: string }) => v.id)).toContain(eligible.id);
      expect(filtered.json.vendors.map((v: { id: string }) => v.id)).not.toContain(plain.id);
      expectError(await api('GET', '/api/v1/vendors?is_1099_eligible=maybe'), 400, 'validation_failed');
      const one = await api('GET', `/api/v1/vendors/${eligible.id}`);
      expectStatus(one, 200);
      expectSchema(validVendor, one.json);
      expectError(await otherApi('GET', `/api/v1/vendors/${eligible.id}`), 404, 'not_found');
      expectError(await liveApi('GET', `/api/v1/vendors/${eligible.id}`), 404, 'not_found');
      expectError(await api('GET', '/api/v1/vendors/not-a-uuid'), 400, 'validation_failed');
    });

    it('PATCH updates display_name, email, is_1099_eligible and w9_on_file', async () => {
      const v = await createVendor({ email: 'old@example.com' });
      const r = await api('PATCH', `/api/v1/vendors/${v.id}`, { display_name: 'Renamed', email: null, is_1099_eligible: true, w9_on_file: true });
      expectStatus(r, 200);
      expectSchema(validVendor, r.json);
      expect(r.json.data).toMatchObject({ id: v.id, display_name: 'Renamed', email: null, is_1099_eligible: true, w9_on_file: true, external_vendor_id: v.external_vendor_id });
      expect((await api('GET', `/api/v1/vendors/${v.id}`)).json.data).toEqual(r.json.data);
      expect(issues(await api('PATCH', `/api/v1/vendors/${v.id}`, {}))).toEqual(['/:invalid']);
      expect(issues(await api('PATCH', `/api/v1/vendors/${v.id}`, { vendor_type: 'business' }))).toContain('/vendor_type:unknown_field');
      expectError(await api('PATCH', `/api/v1/vendors/${v.id}`, 'w9_on_file=true', { 'content-type': 'text/plain' }), 415, 'validation_failed');
      expectError(await otherApi('PATCH', `/api/v1/vendors/${v.id}`, { w9_on_file: false }), 404, 'not_found');
      expect((await api('GET', `/api/v1/vendors/${v.id}`)).json.data.w9_on_file).toBe(true);
    });
  });

  describe('bills', () => {
    let vendorId: string;
    beforeAll(async () => {
      vendorId = (await createVendor()).id;
    });

    it('creates a posted bill (201) with its open balance, replays it (200) and refuses other content (409)', async () => {
      const body = billBody(vendorId, 10_000, {
        line_items: [
          { description: 'Design', quantity: 1.5, unit_amount_cents: 333 },
          { description: 'Hosting', quantity: 2, unit_amount_cents: 1000 },
        ],
      });
      const r = await api('POST', '/api/v1/bills', body);
      expectStatus(r, 201);
      expectSchema(validBill, r.json);
      expect(r.json.data).toMatchObject({
        status: 'posted',
        total_cents: 2500,
        amount_paid_cents: 0,
        open_balance_cents: 2500,
        expense_account_id: account('5000'),
        currency: 'USD',
      });
      const again = await api('POST', '/api/v1/bills', body);
      expectStatus(again, 200);
      expectReplayed(again);
      expect(again.json.data.id).toBe(r.json.data.id);
      expectError(await api('POST', '/api/v1/bills', { ...body, bill_number: 'other' }), 409, 'conflict');
    });

    it('posts a draft with POST /post (replay on repeat) and reverses it (replay on repeat)', async () => {
      const draft = await createBill(vendorId, 700, { status: 'draft', expense_account_id: account('5200') });
      expect(draft).toMatchObject({ status: 'draft', open_balance_cents: 0, expense_account_id: account('5200') });
      const posted = await api('POST', `/api/v1/bills/${draft.id}/post`);
      expectStatus(posted, 200);
      expectSchema(validBillPost, posted.json);
      expect(posted.json.action).toEqual({ type: 'posted', status: 'completed' });
      expect(posted.json.bill).toMatchObject({ status: 'posted', open_balance_cents: 700 });
      expectReplayed(await api('POST', `/api/v1/bills/${draft.id}/post`));
      const reversed = await api('POST', `/api/v1/bills/${draft.id}/reverse`, { reversal_reason: 'Entered twice' });
      expectStatus(reversed, 200);
      expectSchema(validBillReverse, reversed.json);
      expect(reversed.json.data).toMatchObject({ status: 'reversed', open_balance_cents: 0, reversal_reason: 'Entered twice' });
      expect(reversed.json.action).toEqual({ type: 'reversed', status: 'completed' });
      const again = await api('POST', `/api/v1/bills/${draft.id}/reverse`, { reversal_reason: 'Entered twice' });
      expectStatus(again, 200);
      expectReplayed(again);
      expectError(await api('POST', `/api/v1/bills/${draft.id}/post`), 409, 'conflict');
    });

    it('answers 409 for a state conflict: reversing a draft, or a bill with a payment on it', async () => {
      const draft = await createBill(vendorId, 100, { status: 'draft' });
      const r = await api('POST', `/api/v1/bills/${draft.id}/reverse`, { reversal_reason: 'x' });
      expectError(r, 409, 'conflict');
      expect(issues(r)).toEqual(['/status:bill_draft']);
      const paid = await createBill(vendorId, 100);
      expectStatus(await api('POST', '/api/v1/vendor-payments', paymentBody(vendorId, [{ bill_id: paid.id, amount_cents: 40 }])), 201);
      const withPayment = await api('POST', `/api/v1/bills/${paid.id}/reverse`, { reversal_reason: 'x' });
      expectError(withPayment, 409, 'conflict');
      expect(issues(withPayment)).toEqual(['/status:bill_has_payments']);
      expect(issues(await api('POST', `/api/v1/bills/${paid.id}/reverse`, {}))).toEqual(['/reversal_reason:required']);
    });

    it.each([
      ['an amount past 100,000,000,000', { line_items: [{ description: 'x', quantity: 1, unit_amount_cents: 100_000_000_001 }] }, '/line_items/0/unit_amount_cents'],
      ['an amount past 2^53', { line_items: [{ description: 'x', quantity: 1, unit_amount_cents: 2 ** 53 + 2 }] }, '/line_items/0/unit_amount_cents'],
      ['a line past the limit', { line_items: [{ description: 'x', quantity: 2, unit_amount_cents: 60_000_000_000 }] }, '/line_items/0'],
      [
        'a total past the limit',
        {
          line_items: [
            { description: 'x', quantity: 1, unit_amount_cents: 60_000_000_000 },
            { description: 'y', quantity: 1, unit_amount_cents: 60_000_000_000 },
          ],
        },
        '/line_items',
      ],
      ['an impossible date', { issue_date: '2026-02-30' }, '/issue_date'],
      ['a due date before the issue date', { due_date: '2026-02-01' }, '/due_date'],
      ['another currency', { currency: 'EUR' }, '/currency'],
      ['no line items', { line_items: [] }, '/line_items'],
      ['a bad status', { status: 'paid' }, '/status'],
    ])('refuses %s', async (_what, over, field) => {
      const r = await api('POST', '/api/v1/bills', billBody(vendorId, 100, over));
      expectError(r, 400, 'validation_failed');
      expect(r.json.error.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it('checks the expense account against the chart of the organization and environment', async () => {
      const liability = await api('POST', '/api/v1/bills', billBody(vendorId, 100, { expense_account_id: account('2000') }));
      expectError(liability, 400, 'validation_failed');
      expect(issues(liability)).toEqual(['/expense_account_id:invalid_account_type']);
      const foreign = await api('POST', '/api/v1/bills', billBody(vendorId, 100, { expense_account_id: accountId(other.organization_id, 'test', '5000') }));
      expectError(foreign, 404, 'not_found');
      expect(issues(foreign)).toEqual(['/expense_account_id:not_found']);
    });

    it("answers 404 for another organization's or environment's vendor and bill", async () => {
      const b = await createBill(vendorId, 100);
      expectError(await otherApi('POST', '/api/v1/bills', billBody(vendorId, 100)), 404, 'not_found');
      expectError(await liveApi('POST', '/api/v1/bills', billBody(vendorId, 100)), 404, 'not_found');
      for (const [method, path, body] of [
        ['GET', `/api/v1/bills/${b.id}`, undefined],
        ['POST', `/api/v1/bills/${b.id}/post`, undefined],
        ['POST', `/api/v1/bills/${b.id}/reverse`, { reversal_reason: 'x' }],
      ] as const) {
        expectError(await otherApi(method, path, body), 404, 'not_found');
        expectError(await liveApi(method, path, body), 404, 'not_found');
      }
    });

    it('lists by status, vendor_id and issue date range, and gets one', async () => {
      const v = (await createVendor()).id;
      const jan = await createBill(v, 100, { issue_date: '2026-01-05', due_date: '2026-01-31' });
      const feb = await createBill(v, 100, { issue_date: '2026-02-05', due_date: '2026-02-28', status: 'draft' });
      const ids = async (q: string) => {
        const r = await api('GET', `/api/v1/bills?vendor_id=${v}&${q}`);
        expectStatus(r, 200);
        expectSchema(validBillList, r.json);
        return r.json.bills.map((b: { id: string }) => b.id);
      };
      expect(await ids('limit=10')).toEqual([feb.id, jan.id]);
      expect(await ids('status=draft')).toEqual([feb.id]);
      expect(await ids('issue_date_from=2026-01-06')).toEqual([feb.id]);
      expect(await ids('issue_date_to=2026-01-31')).toEqual([jan.id]);
      expectError(await api('GET', '/api/v1/bills?issue_date_from=2026-13-01'), 400, 'validation_failed');
      const one = await api('GET', `/api/v1/bills/${jan.id}`);
      expectSchema(validBill, one.json);
      expect(one.json.bill.open_balance_cents).toBe(100);
    });
  });

  describe('vendor payments', () => {
    let vendorId: string;
    let otherVendorId: string;
    beforeAll(async () => {
      vendorId = (await createVendor()).id;
      otherVendorId = (await createVendor()).id;
    });

    it('pays bills (201): open balances drop; replays (200); reverse restores them (200, replay on repeat)', async () => {
      const [b1, b2] = [await createBill(vendorId, 1000), await createBill(vendorId, 500)];
      const body = paymentBody(
        vendorId,
        [
          { bill_id: b1.id, amount_cents: 600 },
          { bill_id: b2.id, amount_cents: 500 },
        ],
        { cash_account_id: account('1010') },
      );
      const r = await api('POST', '/api/v1/vendor-payments', body);
      expectStatus(r, 201);
      expectSchema(validPayment, r.json);
      expect(r.json.vendor_payment).toMatchObject({ status: 'posted', amount_cents: 1100, cash_account_id: account('1010') });
      expect((await api('GET', `/api/v1/bills/${b1.id}`)).json.data).toMatchObject({ amount_paid_cents: 600, open_balance_cents: 400 });
      const again = await api('POST', '/api/v1/vendor-payments', body);
      expectStatus(again, 200);
      expectReplayed(again);
      expectError(await api('POST', '/api/v1/vendor-payments', { ...body, payment_date: '2026-03-11' }), 409, 'conflict');
      const reversed = await api('POST', `/api/v1/vendor-payments/${r.json.data.id}/reverse`, { reversal_reason: 'Bounced' });
      expectStatus(reversed, 200);
      expectSchema(validPaymentReverse, reversed.json);
      expect(reversed.json.action).toEqual({ type: 'reversed', status: 'completed' });
      expect((await api('GET', `/api/v1/bills/${b1.id}`)).json.data.open_balance_cents).toBe(1000);
      expect((await api('GET', `/api/v1/bills/${b2.id}`)).json.data.open_balance_cents).toBe(500);
      expectReplayed(await api('POST', `/api/v1/vendor-payments/${r.json.data.id}/reverse`, { reversal_reason: 'Bounced' }));
      expectError(await api('POST', `/api/v1/vendor-payments/${r.json.data.id}/post`), 409, 'conflict');
    });

    it('defers a ready payment to POST /post (replay on repeat); a ready payment cannot be reversed', async () => {
      const b = await createBill(vendorId, 300);
      const r = await api('POST', '/api/v1/vendor-payments', paymentBody(vendorId, [{ bill_id: b.id, amount_cents: 300 }], { status: 'ready' }));
      expectStatus(r, 201);
      expect(r.json.data.status).toBe('ready');
      expect((await api('GET', `/api/v1/bills/${b.id}`)).json.data.open_balance_cents).toBe(300);
      expectError(await api('POST', `/api/v1/vendor-payments/${r.json.data.id}/reverse`, { reversal_reason: 'x' }), 409, 'conflict');
      const posted = await api('POST', `/api/v1/vendor-payments/${r.json.data.id}/post`);
      expectStatus(posted, 200);
      expectSchema(validPaymentPost, posted.json);
      expect(posted.json.data.status).toBe('posted');
      expectReplayed(await api('POST', `/api/v1/vendor-payments/${r.json.data.id}/post`));
      expect((await api('GET', `/api/v1/bills/${b.id}`)).json.data.open_balance_cents).toBe(0);
    });

    it('enforces the allocation rules of API-DECISIONS §5 with 400, 404 and 409', async () => {
      const b = await createBill(vendorId, 1000);
      const theirs = await createBill(otherVendorId, 1000);
      const draft = await createBill(vendorId, 1000, { status: 'draft' });
      const reversed = await createBill(vendorId, 1000);
      expectStatus(await api('POST', `/api/v1/bills/${reversed.id}/reverse`, { reversal_reason: 'x' }), 200);
      const send = (allocations: { bill_id: string; amount_cents: number }[], over: Record<string, unknown> = {}) =>
        api('POST', '/api/v1/vendor-payments', paymentBody(vendorId, allocations, over));
      const cases: [string, Promise<any>, number, string][] = [
        ['no allocation', send([]), 400, '/allocations:too_few'],
        ['101 allocations', send(Array.from({ length: 101 }, () => ({ bill_id: b.id, amount_cents: 1 }))), 400, '/allocations:too_many'],
        ['100 allocations to one bill', send(Array.from({ length: 100 }, () => ({ bill_id: b.id, amount_cents: 1 }))), 400, '/allocations/1/bill_id:duplicate_bill'],
        ['a sum that is not amount_cents', send([{ bill_id: b.id, amount_cents: 10 }], { amount_cents: 11 }), 400, '/allocations:allocation_sum_mismatch'],
        ["another vendor's bill", send([{ bill_id: theirs.id, amount_cents: 10 }]), 400, '/allocations/0/bill_id:vendor_mismatch'],
        ['more than the open balance', send([{ bill_id: b.id, amount_cents: 1001 }]), 409, '/allocations/0/amount_cents:exceeds_open_balance'],
        ['a draft bill', send([{ bill_id: draft.id, amount_cents: 10 }]), 409, '/allocations/0/bill_id:bill_draft'],
        ['a reversed bill', send([{ bill_id: reversed.id, amount_cents: 10 }]), 409, '/allocations/0/bill_id:bill_reversed'],
        ['an unknown bill', send([{ bill_id: '7d9f6c1e-2b1a-4f3e-9c8d-0a1b2c3d4e5f', amount_cents: 10 }]), 404, '/allocations/0/bill_id:not_found'],
        [
          'a cash account that is not cash, bank or clearing',
          send([{ bill_id: b.id, amount_cents: 10 }], { cash_account_id: account('5000') }),
          400,
          '/cash_account_id:invalid_account_type',
        ],
        ['an amount past 100,000,000,000', send([{ bill_id: b.id, amount_cents: 100_000_000_001 }]), 400, '/amount_cents:out_of_range'],
        ['an amount past 2^53', send([{ bill_id: b.id, amount_cents: 2 ** 53 + 2 }]), 400, '/amount_cents:out_of_range'],
        ['a zero amount', send([{ bill_id: b.id, amount_cents: 0 }]), 400, '/amount_cents:out_of_range'],
        ['an impossible payment date', send([{ bill_id: b.id, amount_cents: 10 }], { payment_date: '2026-02-29' }), 400, '/payment_date:invalid_format'],
      ];
      for (const [what, pending, status, issue] of cases) {
        const r = await pending;
        expect({ what, status: r.status, code: r.json?.error?.code }).toEqual({
          what,
          status,
          code: status === 400 ? 'validation_failed' : status === 404 ? 'not_found' : 'conflict',
        });
        expect({ what, issues: issues(r) }).toEqual({ what, issues: expect.arrayContaining([issue]) });
      }
      expect((await api('GET', `/api/v1/bills/${b.id}`)).json.data.open_balance_cents).toBe(1000);
      const unknownVendor = await api('POST', '/api/v1/vendor-payments', paymentBody('7d9f6c1e-2b1a-4f3e-9c8d-0a1b2c3d4e5f', [{ bill_id: b.id, amount_cents: 1 }]));
      expectError(unknownVendor, 404, 'not_found');
    });

    it("lists by vendor_id and status, gets one, and answers 404 for another organization's or environment's payment", async () => {
      const v = (await createVendor()).id;
      const b = await createBill(v, 1000);
      const posted = (await api('POST', '/api/v1/vendor-payments', paymentBody(v, [{ bill_id: b.id, amount_cents: 100 }]))).json.data;
      const ready = (await api('POST', '/api/v1/vendor-payments', paymentBody(v, [{ bill_id: b.id, amount_cents: 100 }], { status: 'ready' }))).json.data;
      const list = await api('GET', `/api/v1/vendor-payments?vendor_id=${v}`);
      expectStatus(list, 200);
      expectSchema(validPaymentList, list.json);
      expect(list.json.vendor_payments.map((p: { id: string }) => p.id)).toEqual([ready.id, posted.id]);
      expect((await api('GET', `/api/v1/vendor-payments?vendor_id=${v}&status=ready`)).json.data.map((p: { id: string }) => p.id)).toEqual([ready.id]);
      const one = await api('GET', `/api/v1/vendor-payments/${posted.id}`);
      expectSchema(validPayment, one.json);
      for (const other_ of [otherApi, liveApi]) {
        expectError(await other_('GET', `/api/v1/vendor-payments/${posted.id}`), 404, 'not_found');
        expectError(await other_('POST', `/api/v1/vendor-payments/${ready.id}/post`), 404, 'not_found');
        expectError(await other_('POST', `/api/v1/vendor-payments/${posted.id}/reverse`, { reversal_reason: 'x' }), 404, 'not_found');
        expectError(await other_('POST', '/api/v1/vendor-payments', paymentBody(v, [{ bill_id: b.id, amount_cents: 1 }])), 404, 'not_found');
      }
    });

    it('never over-allocates a bill when 20 payments race for it over HTTP', async () => {
      const b = await createBill(vendorId, 1000);
      const replies = await Promise.all(Array.from({ length: 20 }, () => api('POST', '/api/v1/vendor-payments', paymentBody(vendorId, [{ bill_id: b.id, amount_cents: 150 }]))));
      expect(replies.filter((r) => r.status === 201)).toHaveLength(6);
      expect(replies.filter((r) => r.status === 409)).toHaveLength(14);
      expect((await api('GET', `/api/v1/bills/${b.id}`)).json.data).toMatchObject({ amount_paid_cents: 900, open_balance_cents: 100 });
    });
  });

  it('documents every payables route in the OpenAPI document, PATCH included', async () => {
    const r = await api('GET', '/developers/openapi.yaml');
    expectStatus(r, 200);
    for (const path of ['/api/v1/vendors/{id}:', '/api/v1/bills/{id}/reverse:', '/api/v1/vendor-payments/{id}/post:']) expect(r.text).toContain(path);
    expect(r.text).toContain('operationId: updateVendor');
  });
});
