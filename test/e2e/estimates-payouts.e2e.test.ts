import { randomUUID } from 'node:crypto';
import { compileBody, schemas } from '@acct/contracts';
import type { E2E } from './harness';
import {
  type Api,
  type LineIn,
  createCustomer,
  expectError,
  expectNotReplayed,
  expectReplayed,
  expectSchema,
  expectStatus,
  getInvoice,
  uid,
  utcDate,
  startReceivablesE2E,
} from './receivables.helpers';

const validEstimate = compileBody(schemas.receivables.estimateResponse);
const validEstimateList = compileBody(schemas.receivables.estimateListResponse);
const validEstimateStatus = compileBody(schemas.receivables.estimateStatusResponse);
const validConvert = compileBody(schemas.receivables.estimateConvertResponse);
const validInvoice = compileBody(schemas.receivables.invoiceResponse);
const validPayout = compileBody(schemas.receivables.payoutResponse);
const validPayoutList = compileBody(schemas.receivables.payoutListResponse);

const LINES: LineIn[] = [
  { description: 'Design', quantity: 1.5, unit_amount_cents: 333 },
  { description: 'Build', quantity: 10, unit_amount_cents: 12000 },
];
const LINES_OUT = [
  { description: 'Design', quantity: 1.5, unit_amount_cents: 333, amount_cents: 500 },
  { description: 'Build', quantity: 10, unit_amount_cents: 12000, amount_cents: 120000 },
];
const LINES_TOTAL = 120500;

function estimateBody(customerId: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return { external_estimate_id: uid('est'), customer_id: customerId, issue_date: '2026-04-01', line_items: LINES, ...over };
}

describe('e2e: estimates and processor payouts through the gateway', () => {
  let e2e: E2E;
  let api: Api;
  let otherApi: Api;

  beforeAll(async () => {
    ({ e2e, api, otherApi } = await startReceivablesE2E('Estimates org'));
  });
  afterAll(async () => e2e?.stop());

  async function createEstimate(customerId: string, over: Record<string, unknown> = {}): Promise<any> {
    const r = await api('POST', '/api/v1/estimates', estimateBody(customerId, over));
    expectStatus(r, 201);
    return r.json.data;
  }

  async function setStatus(id: string, status: string) {
    return api('POST', `/api/v1/estimates/${id}/status`, { status });
  }

  async function acceptedEstimate(customerId: string, over: Record<string, unknown> = {}): Promise<any> {
    const est = await createEstimate(customerId, over);
    expectStatus(await setStatus(est.id, 'sent'), 200);
    expectStatus(await setStatus(est.id, 'accepted'), 200);
    return est;
  }

  describe('estimates', () => {
    it('creates a draft estimate with rounded line amounts; replays and refuses other content', async () => {
      const customerId = await createCustomer(api, 'Estimate customer');
      const body = estimateBody(customerId, { expiry_date: '2026-05-01', memo: 'Valid 30 days' });
      const r = await api('POST', '/api/v1/estimates', body);
      expectStatus(r, 201);
      expectNotReplayed(r);
      expectSchema(validEstimate, r.json);
      expect(r.json.estimate).toEqual(r.json.data);
      expect(r.json.data).toMatchObject({
        external_estimate_id: body.external_estimate_id,
        customer_id: customerId,
        issue_date: '2026-04-01',
        expiry_date: '2026-05-01',
        status: 'draft',
        total_cents: LINES_TOTAL,
        currency: 'USD',
        memo: 'Valid 30 days',
      });
      expect(r.json.data.line_items).toEqual(LINES_OUT);
      expect(r.json.data.invoice_id ?? null).toBeNull();

      const replay = await api('POST', '/api/v1/estimates', body);
      expectStatus(replay, 200);
      expectReplayed(replay);
      expect(replay.json.data).toEqual(r.json.data);
      expectError(await api('POST', '/api/v1/estimates', { ...body, issue_date: '2026-04-02' }), 409, 'conflict');
    });

    it('rejects invalid estimate bodies and unknown or foreign customers', async () => {
      const customerId = await createCustomer(api);
      const cases: Array<[string, Record<string, unknown>, number, string]> = [
        ['no lines', estimateBody(customerId, { line_items: [] }), 400, 'validation_failed'],
        ['quantity 5 decimals', estimateBody(customerId, { line_items: [{ description: 'x', quantity: 0.00001, unit_amount_cents: 1 }] }), 400, 'validation_failed'],
        ['currency EUR', estimateBody(customerId, { currency: 'EUR' }), 400, 'validation_failed'],
        ['bad date', estimateBody(customerId, { issue_date: '01/04/2026' }), 400, 'validation_failed'],
        ['unknown field', estimateBody(customerId, { status: 'sent' }), 400, 'validation_failed'],
        ['unknown customer', estimateBody(randomUUID()), 404, 'not_found'],
      ];
      for (const [name, body, status, code] of cases) {
        const r = await api('POST', '/api/v1/estimates', body);
        expect({ name, status: r.status, code: r.json?.error?.code }).toEqual({ name, status, code });
        expectError(r, status, code);
      }
      const theirs = await createCustomer(otherApi);
      expectError(await api('POST', '/api/v1/estimates', estimateBody(theirs)), 404, 'not_found');
    });

    it('moves draft → sent → accepted; same status again replays; other moves 409; unknown status 400', async () => {
      const customerId = await createCustomer(api);
      const est = await createEstimate(customerId);

      const sent = await setStatus(est.id, 'sent');
      expectStatus(sent, 200);
      expectNotReplayed(sent);
      expectSchema(validEstimateStatus, sent.json);
      expect(sent.json.data).toEqual({ id: est.id, status: 'sent' });
      expect(sent.json.estimate).toEqual(sent.json.data);

      const sentAgain = await setStatus(est.id, 'sent');
      expectStatus(sentAgain, 200);
      expectReplayed(sentAgain);
      expect(sentAgain.json.data).toEqual({ id: est.id, status: 'sent' });

      const accepted = await setStatus(est.id, 'accepted');
      expectStatus(accepted, 200);
      expect(accepted.json.data).toEqual({ id: est.id, status: 'accepted' });
      const acceptedAgain = await setStatus(est.id, 'accepted');
      expectStatus(acceptedAgain, 200);
      expectReplayed(acceptedAgain);

      // accepted is final until convert.
      expectError(await setStatus(est.id, 'declined'), 409, 'conflict');
      expectError(await setStatus(est.id, 'sent'), 409, 'conflict');
      expect((await api('GET', `/api/v1/estimates/${est.id}`)).json.data.status).toBe('accepted');

      const other1 = await createEstimate(customerId);
      expectError(await setStatus(other1.id, 'declined'), 409, 'conflict');
      expectError(await setStatus(other1.id, 'expired'), 409, 'conflict');
      expect((await api('GET', `/api/v1/estimates/${other1.id}`)).json.data.status).toBe('draft');
      // draft → accepted is allowed.
      const direct = await setStatus(other1.id, 'accepted');
      expectStatus(direct, 200);
      expect(direct.json.data.status).toBe('accepted');

      const other2 = await createEstimate(customerId);
      expectStatus(await setStatus(other2.id, 'sent'), 200);
      expectStatus(await setStatus(other2.id, 'declined'), 200);
      expectError(await setStatus(other2.id, 'accepted'), 409, 'conflict');
      const other3 = await createEstimate(customerId);
      expectStatus(await setStatus(other3.id, 'sent'), 200);
      expectStatus(await setStatus(other3.id, 'expired'), 200);

      for (const bad of ['bogus', '']) {
        expectError(await setStatus(est.id, bad), 400, 'validation_failed');
      }
      // A real status the estimate may not move to is a conflict (API-DECISIONS §1), not a bad request.
      for (const notAllowed of ['converted', 'draft']) {
        const r = await setStatus(est.id, notAllowed);
        expectError(r, 409, 'conflict');
        expect(r.json.error.details[0]).toMatchObject({ field: '/status', issue: 'invalid_transition' });
      }
      const sentOnly = await createEstimate(customerId);
      expectStatus(await setStatus(sentOnly.id, 'sent'), 200);
      expectError(await setStatus(sentOnly.id, 'draft'), 409, 'conflict');
      expectError(await setStatus(sentOnly.id, 'converted'), 409, 'conflict');
      expect((await api('GET', `/api/v1/estimates/${sentOnly.id}`)).json.data.status).toBe('sent');
      expectError(await api('POST', `/api/v1/estimates/${est.id}/status`, {}), 400, 'validation_failed');
      expectError(await setStatus(randomUUID(), 'sent'), 404, 'not_found');
      expectError(await otherApi('POST', `/api/v1/estimates/${other3.id}/status`, { status: 'sent' }), 404, 'not_found');
    });

    it('refuses to convert an estimate that is not accepted (409)', async () => {
      const customerId = await createCustomer(api);
      const draft = await createEstimate(customerId);
      expectError(await api('POST', `/api/v1/estimates/${draft.id}/convert`), 409, 'conflict');
      const sent = await createEstimate(customerId);
      expectStatus(await setStatus(sent.id, 'sent'), 200);
      expectError(await api('POST', `/api/v1/estimates/${sent.id}/convert`), 409, 'conflict');
      const declined = await createEstimate(customerId);
      expectStatus(await setStatus(declined.id, 'sent'), 200);
      expectStatus(await setStatus(declined.id, 'declined'), 200);
      expectError(await api('POST', `/api/v1/estimates/${declined.id}/convert`), 409, 'conflict');
      expectError(await api('POST', `/api/v1/estimates/${randomUUID()}/convert`), 404, 'not_found');
      // Nothing was created for that customer.
      const invoices = await api('GET', `/api/v1/invoices?customer_id=${customerId}`);
      expect(invoices.json.data).toEqual([]);
    });

    it('converts an accepted estimate into a draft invoice with its customer and lines; a second convert replays', async () => {
      const customerId = await createCustomer(api, 'Convert customer');
      const est = await acceptedEstimate(customerId);

      const before = new Date();
      const conv = await api('POST', `/api/v1/estimates/${est.id}/convert`);
      const after = new Date();
      expectStatus(conv, 200);
      expectNotReplayed(conv);
      expectSchema(validConvert, conv.json);
      expect(conv.json.data).toEqual({ estimate_id: est.id, invoice_id: expect.any(String), invoice_status: 'draft' });
      const invoiceId = conv.json.data.invoice_id;

      const got = await api('GET', `/api/v1/invoices/${invoiceId}`);
      expectStatus(got, 200);
      expectSchema(validInvoice, got.json);
      const inv = got.json.data;
      expect(inv).toMatchObject({
        id: invoiceId,
        status: 'draft',
        customer_id: customerId,
        total_cents: LINES_TOTAL,
        currency: 'USD',
        amount_paid_cents: 0,
        estimate_id: est.id,
        external_invoice_id: `estimate-${est.id}`,
        invoice_number: est.external_estimate_id,
      });
      expect(inv.line_items).toEqual(LINES_OUT);
      // issue_date defaults to today (UTC), due_date to issue_date + 30 days.
      expect([utcDate(before), utcDate(after)]).toContain(inv.issue_date);
      expect(inv.due_date).toBe(utcDate(new Date(`${inv.issue_date}T00:00:00Z`), 30));

      const again = await api('POST', `/api/v1/estimates/${est.id}/convert`);
      expectStatus(again, 200);
      expectReplayed(again);
      expectSchema(validConvert, again.json);
      expect(again.json.data).toEqual(conv.json.data);

      const estNow = await api('GET', `/api/v1/estimates/${est.id}`);
      expectSchema(validEstimate, estNow.json);
      expect(estNow.json.data).toMatchObject({ status: 'converted', invoice_id: invoiceId });
      // converted is final.
      expectError(await setStatus(est.id, 'declined'), 409, 'conflict');

      // One invoice for that customer, still a draft (converting does not post).
      const invoices = await api('GET', `/api/v1/invoices?customer_id=${customerId}`);
      expect(invoices.json.data.map((i: { id: string }) => i.id)).toEqual([invoiceId]);
      expect((await getInvoice(api, invoiceId)).status).toBe('draft');
      // It posts like any draft invoice.
      const posted = await api('POST', `/api/v1/invoices/${invoiceId}/post`);
      expectStatus(posted, 200);
      expect(posted.json.data).toMatchObject({ status: 'open', balance_due_cents: LINES_TOTAL });
    });

    it('two concurrent converts give one invoice; a create replayed after status changes is still a replay', async () => {
      const customerId = await createCustomer(api);
      const body = estimateBody(customerId);
      const created = await api('POST', '/api/v1/estimates', body);
      expectStatus(created, 201);
      const id = created.json.data.id;
      expectStatus(await setStatus(id, 'accepted'), 200);
      const replay = await api('POST', '/api/v1/estimates', body);
      expectStatus(replay, 200);
      expectReplayed(replay);
      expect(replay.json.data).toMatchObject({ id, status: 'accepted' });

      const rs = await Promise.all([api('POST', `/api/v1/estimates/${id}/convert`), api('POST', `/api/v1/estimates/${id}/convert`)]);
      expect(rs.map((r) => r.status)).toEqual([200, 200]);
      expect(rs[0].json.data.invoice_id).toBe(rs[1].json.data.invoice_id);
      expect(rs.map((r) => r.headers.get('idempotent-replayed')).sort()).toEqual(['true', null].sort());
      const invoices = await api('GET', `/api/v1/invoices?customer_id=${customerId}`);
      expect(invoices.json.data.map((i: { id: string }) => i.id)).toEqual([rs[0].json.data.invoice_id]);
    });

    it('converts with the optional body fields', async () => {
      const customerId = await createCustomer(api);
      const est = await acceptedEstimate(customerId);
      const body = { external_invoice_id: uid('conv'), invoice_number: 'INV-FROM-EST-1', issue_date: '2026-04-10', due_date: '2026-04-20' };
      const conv = await api('POST', `/api/v1/estimates/${est.id}/convert`, body);
      expectStatus(conv, 200);
      expect(conv.json.data.invoice_status).toBe('draft');
      const inv = await getInvoice(api, conv.json.data.invoice_id);
      expect(inv).toMatchObject({ ...body, status: 'draft', customer_id: customerId, total_cents: LINES_TOTAL });
      expectError(await api('POST', `/api/v1/estimates/${est.id}/convert`, { bogus: 1 }), 400, 'validation_failed');
    });

    it('lists estimates newest first with status and customer_id filters; gets one; 404 across organizations', async () => {
      const customerId = await createCustomer(api, 'Estimate lister');
      const otherCustomer = await createCustomer(api);
      await createEstimate(otherCustomer);
      const a = await createEstimate(customerId);
      const b = await createEstimate(customerId);
      const c = await createEstimate(customerId);
      expectStatus(await setStatus(b.id, 'sent'), 200);

      const all = await api('GET', `/api/v1/estimates?customer_id=${customerId}`);
      expectStatus(all, 200);
      expectSchema(validEstimateList, all.json);
      expect(all.json.estimates).toEqual(all.json.data);
      expect(all.json.data.map((e: { id: string }) => e.id)).toEqual([c.id, b.id, a.id]);
      expect(all.json.pagination).toEqual({ limit: 25, offset: 0, count: 3, has_more: false });

      const drafts = await api('GET', `/api/v1/estimates?customer_id=${customerId}&status=draft`);
      expect(drafts.json.data.map((e: { id: string }) => e.id)).toEqual([c.id, a.id]);
      const sent = await api('GET', `/api/v1/estimates?status=sent&customer_id=${customerId}`);
      expect(sent.json.data.map((e: { id: string }) => e.id)).toEqual([b.id]);

      const p1 = await api('GET', `/api/v1/estimates?customer_id=${customerId}&limit=2`);
      expect(p1.json.pagination).toEqual({ limit: 2, offset: 0, count: 2, has_more: true });
      const p2 = await api('GET', `/api/v1/estimates?customer_id=${customerId}&limit=2&offset=2`);
      expect(p2.json.data.map((e: { id: string }) => e.id)).toEqual([a.id]);
      expect(p2.json.pagination).toEqual({ limit: 2, offset: 2, count: 1, has_more: false });

      const got = await api('GET', `/api/v1/estimates/${a.id}`);
      expectStatus(got, 200);
      expectSchema(validEstimate, got.json);
      expect(got.json.data).toEqual(a);

      expectError(await api('GET', `/api/v1/estimates/${randomUUID()}`), 404, 'not_found');
      expectError(await otherApi('GET', `/api/v1/estimates/${a.id}`), 404, 'not_found');
      expectError(await otherApi('POST', `/api/v1/estimates/${a.id}/convert`), 404, 'not_found');
      const theirs = await otherApi('GET', `/api/v1/estimates?customer_id=${customerId}`);
      expect(theirs.json.data).toEqual([]);
      expectError(await api('GET', '/api/v1/estimates?status=pending'), 400, 'validation_failed');
    });
  });

  describe('processor payouts', () => {
    function payoutBody(over: Record<string, unknown> = {}): Record<string, unknown> {
      return { external_payout_id: uid('po'), processor: 'stripe', payout_date: '2026-03-10', gross_cents: 10000, fee_cents: 320, net_cents: 9680, ...over };
    }

    it('creates a payout (201, status created); replays (200); refuses other content (409)', async () => {
      const body = payoutBody();
      const r = await api('POST', '/api/v1/processor-payouts', body);
      expectStatus(r, 201);
      expectNotReplayed(r);
      expectSchema(validPayout, r.json);
      expect(r.json.processor_payout).toEqual(r.json.data);
      expect(r.json.data).toMatchObject({ ...body, status: 'created', currency: 'USD', net_cents: 9680 });

      const replay = await api('POST', '/api/v1/processor-payouts', body);
      expectStatus(replay, 200);
      expectReplayed(replay);
      expectSchema(validPayout, replay.json);
      expect(replay.json.data).toEqual(r.json.data);

      expectError(await api('POST', '/api/v1/processor-payouts', { ...body, fee_cents: 300, net_cents: 9700 }), 409, 'conflict');
      expectError(await api('POST', '/api/v1/processor-payouts', { ...body, payout_date: '2026-03-11' }), 409, 'conflict');
    });

    it('400 when gross − fee ≠ net and for other invalid bodies', async () => {
      const cases: Array<[string, Record<string, unknown>]> = [
        ['gross - fee != net', payoutBody({ net_cents: 9681 })],
        ['fee above gross', payoutBody({ gross_cents: 100, fee_cents: 200, net_cents: 0 })],
        ['negative fee', payoutBody({ fee_cents: -1, net_cents: 10001 })],
        ['missing processor', payoutBody({ processor: undefined })],
        ['bad date', payoutBody({ payout_date: '2026-13-01' })],
        ['currency EUR', payoutBody({ currency: 'EUR' })],
      ];
      for (const [name, body] of cases) {
        const r = await api('POST', '/api/v1/processor-payouts', body);
        expect({ name, status: r.status, code: r.json?.error?.code }).toEqual({ name, status: 400, code: 'validation_failed' });
        expectError(r, 400, 'validation_failed');
      }
      // A zero fee is fine.
      expectStatus(await api('POST', '/api/v1/processor-payouts', payoutBody({ fee_cents: 0, net_cents: 10000 })), 201);
    });

    it('lists newest first with a processor filter; gets one; 404 for unknown and foreign ids', async () => {
      const proc = `proc-${randomUUID().slice(0, 8)}`;
      const a = (await api('POST', '/api/v1/processor-payouts', payoutBody({ processor: proc }))).json.data;
      const x = (await api('POST', '/api/v1/processor-payouts', payoutBody({ processor: `${proc}-other` }))).json.data;
      const b = (await api('POST', '/api/v1/processor-payouts', payoutBody({ processor: proc, gross_cents: 5000, fee_cents: 0, net_cents: 5000 }))).json.data;

      const l = await api('GET', `/api/v1/processor-payouts?processor=${encodeURIComponent(proc)}`);
      expectStatus(l, 200);
      expectSchema(validPayoutList, l.json);
      expect(l.json.processor_payouts).toEqual(l.json.data);
      expect(l.json.data.map((p: { id: string }) => p.id)).toEqual([b.id, a.id]);
      expect(l.json.pagination).toEqual({ limit: 25, offset: 0, count: 2, has_more: false });

      const page = await api('GET', `/api/v1/processor-payouts?processor=${encodeURIComponent(proc)}&limit=1`);
      expect(page.json.data.map((p: { id: string }) => p.id)).toEqual([b.id]);
      expect(page.json.pagination).toEqual({ limit: 1, offset: 0, count: 1, has_more: true });

      const all = await api('GET', '/api/v1/processor-payouts?limit=3');
      expectSchema(validPayoutList, all.json);
      expect(all.json.data.map((p: { id: string }) => p.id)).toEqual([b.id, x.id, a.id]);

      const got = await api('GET', `/api/v1/processor-payouts/${a.id}`);
      expectStatus(got, 200);
      expectSchema(validPayout, got.json);
      expect(got.json.data).toEqual(a);

      expectError(await api('GET', `/api/v1/processor-payouts/${randomUUID()}`), 404, 'not_found');
      expectError(await otherApi('GET', `/api/v1/processor-payouts/${a.id}`), 404, 'not_found');
      const theirs = await otherApi('GET', `/api/v1/processor-payouts?processor=${encodeURIComponent(proc)}`);
      expect(theirs.json.data).toEqual([]);
    });
  });
});
