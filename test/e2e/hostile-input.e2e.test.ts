import { limits } from '@acct/contracts';
import {
  type ReceivablesE2E,
  type Res,
  createCustomer,
  createOpenInvoice,
  expectError,
  expectStatus,
  invoiceBody,
  paymentBody,
  startReceivablesE2E,
  uid,
} from './receivables.helpers';

/**
 * Input a well-meaning client never sends, through the gateway: always a 4xx in the error envelope
 * naming the field, never a 5xx, and nothing stored.
 */
describe('hostile input', () => {
  let t: ReceivablesE2E;
  beforeAll(async () => {
    t = await startReceivablesE2E('Hostile input org');
  });
  afterAll(async () => t.e2e.stop());

  const fields = (r: Res): string[] => (r.json?.error?.details ?? []).map((d: { field: string }) => d.field);
  function expect400(r: Res, field: string, issue?: string): void {
    expectError(r, 400, 'validation_failed');
    expect(fields(r)).toContain(field);
    if (issue) expect(r.json.error.details.find((d: { field: string }) => d.field === field).issue).toBe(issue);
  }
  const event = (payload: unknown, type = 'customer.created') => ({ event_type: type, external_event_id: uid('evt'), payload });
  /** POST raw bytes as application/json with the test key. */
  const postBytes = (path: string, bytes: Buffer) =>
    fetch(`${t.e2e.base}${path}`, { method: 'POST', body: bytes, headers: { authorization: `Bearer ${t.keys.test_key}`, 'content-type': 'application/json' } });

  describe('NUL characters (U+0000)', () => {
    it('in a body string, a query value, a path parameter and an event payload key: 400 naming the field', async () => {
      const ext = uid('cus');
      expect400(await t.api('POST', '/api/v1/customers', { external_customer_id: `${ext}\u0000`, name: 'N' }), '/external_customer_id', 'invalid_character');
      expect400(await t.api('POST', '/api/v1/customers', { external_customer_id: ext, name: 'Ada\u0000' }), '/name', 'invalid_character');
      expect400(await t.api('GET', '/api/v1/processor-payouts?processor=%00'), 'processor', 'invalid_character');
      expect400(await t.api('GET', '/api/v1/customers/%00'), 'id', 'invalid_character');
      expect400(await t.api('POST', '/api/v1/events', event({ nested: { 'k\u0000': 1 } })), '/payload/nested/k\\u0000', 'invalid_character');
      expect400(await t.api('POST', '/api/v1/events', event({ list: ['ok', 'v\u0000'] })), '/payload/list/1', 'invalid_character');
      // Nothing was stored: the external id is still free.
      expectStatus(await t.api('POST', '/api/v1/customers', { external_customer_id: ext, name: 'N' }), 201);
    });
  });

  describe('text that is not Unicode', () => {
    it('refuses lone surrogates in strings and keys, so "x\\ud800" and "x\\udfff" never become the same id', async () => {
      const ext = uid('cus');
      for (const bad of [`${ext}\ud800`, `${ext}\udfff`]) {
        expect400(await t.api('POST', '/api/v1/customers', { external_customer_id: bad, name: 'N' }), '/external_customer_id', 'invalid_character');
      }
      expect400(await t.api('POST', '/api/v1/events', event({ ['\udc00']: 1 })), '/payload/\\udc00', 'invalid_character');
      expectStatus(await t.api('POST', '/api/v1/customers', { external_customer_id: ext, name: 'N' }), 201);
    });

    it('refuses body bytes that are not UTF-8 instead of turning them into U+FFFD', async () => {
      const ext = uid('cus');
      for (const bad of [Buffer.from([0xff]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xc3])]) {
        const bytes = Buffer.concat([Buffer.from(`{"external_customer_id":"${ext}`), bad, Buffer.from('","name":"N"}')]);
        const r = await postBytes('/api/v1/customers', bytes);
        expect(r.status).toBe(400);
        const body = (await r.json()) as { error: { code: string; details: Array<{ field: string; issue: string }> } };
        expect(body.error.code).toBe('validation_failed');
        expect(body.error.details[0]).toMatchObject({ field: '/', issue: 'invalid_encoding' });
      }
      expect((await t.api('GET', '/api/v1/customers?limit=100')).json.data.map((c: { external_customer_id: string }) => c.external_customer_id)).not.toContain(`${ext}\ufffd`);
    });

    it('refuses percent-encoded bytes that are not UTF-8 in the query string', async () => {
      expect400(await t.api('GET', '/api/v1/processor-payouts?processor=%FF'), 'processor', 'invalid_encoding');
      expect400(await t.api('GET', '/api/v1/processor-payouts?processor=%ED%A0%80'), 'processor', 'invalid_encoding');
      expectStatus(await t.api('GET', '/api/v1/processor-payouts?processor=%C3%A9'), 200);
    });
  });

  describe('amounts', () => {
    it('refuses a line amount past 2^53 or past the amount limit with 400 naming the line', async () => {
      const customerId = await createCustomer(t.api);
      const ok = { description: 'ok', quantity: 1, unit_amount_cents: 100 };
      for (const line of [
        { description: 'huge', quantity: 100_000, unit_amount_cents: limits.amount_cents_max }, // 10^16 cents
        { description: 'over', quantity: 2, unit_amount_cents: limits.amount_cents_max },
      ]) {
        expect400(await t.api('POST', '/api/v1/invoices', invoiceBody(customerId, [ok, line])), '/line_items/1', 'out_of_range');
        const estimate = { external_estimate_id: uid('est'), customer_id: customerId, issue_date: '2026-03-01', line_items: [line] };
        expect400(await t.api('POST', '/api/v1/estimates', estimate), '/line_items/0', 'out_of_range');
      }
    });
  });

  describe('dates', () => {
    it(`takes dates from ${limits.date_min} to ${limits.date_max} and refuses the rest with 400`, async () => {
      const customerId = await createCustomer(t.api);
      const line = [{ description: 'x', quantity: 1, unit_amount_cents: 100 }];
      for (const [issue_date, due_date] of [
        ['0000-01-01', '2026-01-01'],
        ['0001-01-01', '2026-01-01'],
        ['0099-12-31', '2026-01-01'],
        ['1899-12-31', '2026-01-01'],
        ['2026-01-01', '10000-01-01'],
      ]) {
        const r = await t.api('POST', '/api/v1/invoices', invoiceBody(customerId, line, { issue_date, due_date }));
        expect400(r, issue_date! < limits.date_min ? '/issue_date' : '/due_date', 'invalid_format');
      }
      const edges = await t.api('POST', '/api/v1/invoices', invoiceBody(customerId, line, { issue_date: limits.date_min, due_date: limits.date_max }));
      expectStatus(edges, 201);
      expectStatus(await t.api('POST', `/api/v1/invoices/${edges.json.data.id}/post`), 200);
    });

    it('refuses a received_at whose UTC date leaves the range, and takes one that stays in it', async () => {
      const customerId = await createCustomer(t.api);
      const inv = await createOpenInvoice(t.api, customerId, 1000);
      for (const received_at of ['9999-12-31T23:59:59-14:00', '1900-01-01T00:00:00+01:00', '0000-01-01T00:00:00Z', '0050-06-01']) {
        expect400(await t.api('POST', '/api/v1/payments', paymentBody(inv.id, 100, { received_at })), '/received_at');
      }
      const r = await t.api('POST', '/api/v1/payments', paymentBody(inv.id, 100, { received_at: '9999-12-31T23:59:59+14:00' }));
      expectStatus(r, 201);
      expect(r.json.data.received_date).toBe('9999-12-31');
    });

    it('stores a payment.received event with an out-of-range received_at as failed, not a 500', async () => {
      const customerId = await createCustomer(t.api);
      const inv = await createOpenInvoice(t.api, customerId, 1000);
      const payload = { external_payment_id: uid('pay'), external_invoice_id: inv.external_invoice_id, amount_cents: 100, received_at: '9999-12-31T23:59:59-14:00' };
      const r = await t.api('POST', '/api/v1/events', { event_type: 'payment.received', external_event_id: uid('evt'), payload });
      expectStatus(r, 201);
      expect(r.json.data.status).toBe('failed');
      expect(r.json.data.details.map((d: { field: string }) => d.field)).toContain('/payload/received_at');
    });
  });

  describe('nesting', () => {
    /** The event body as text: {"a":{"a":…1…}} with `levels` objects (JSON.stringify would recurse that deep). */
    const nestedEvent = (levels: number): string =>
      `{"event_type":"customer.created","external_event_id":"${uid('evt')}","payload":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}`;

    it(`takes an event payload up to ${limits.json_depth_max} levels with the body, and refuses deeper ones (3,000 and 5,000 too) with 400`, async () => {
      // The body is one level and the payload object another: 30 more fit.
      expectStatus(await t.api('POST', '/api/v1/events', nestedEvent(limits.json_depth_max - 1)), 201);
      for (const levels of [limits.json_depth_max, 3000, 5000]) {
        const r = await t.api('POST', '/api/v1/events', nestedEvent(levels));
        expectError(r, 400, 'validation_failed');
        expect(r.json.error.details[0].issue).toBe('too_deep');
      }
      expectStatus(await t.api('GET', '/api/v1/auth/check'), 200); // the services are still up
    });
  });

  describe('free-form payloads', () => {
    it.each(['payment.received', 'payment.refunded', 'customer.created'])(
      'stores a %s event whose payload has keys like constructor, __proto__ and toString, as sent',
      async (type) => {
        const payload = JSON.parse('{"constructor":-5.79e81,"__proto__":{"x":1},"toString":"s","hasOwnProperty":[1],"valueOf":{"constructor":2}}');
        const r = await t.api('POST', '/api/v1/events', { event_type: type, external_event_id: uid('evt'), payload });
        expect(r.status).toBeLessThan(500);
        expect([200, 201]).toContain(r.status);
        // A resend of the same event is its duplicate: the stored payload hashes the same.
        const again = await t.api('POST', '/api/v1/events', { event_type: type, external_event_id: r.json.data.external_event_id, payload });
        expect(again.status).toBe(200);
      },
    );
  });

  describe('query integers', () => {
    it.each(['0x10', '%20%205', '1e1', '%2B5', '05'])('refuses limit=%s with 400 (plain decimal digits only)', async (v) => {
      expect400(await t.api('GET', `/api/v1/customers?limit=${v}`), 'limit');
    });
  });

  describe('unknown paths', () => {
    it('authenticates before answering 404: no or bad key 401, a valid key 404', async () => {
      const anonymous = async (path: string, key?: string) =>
        fetch(`${t.e2e.base}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
      for (const path of ['/api/v1/ledgers', '/api/v1/customers/x/y']) {
        const none = await anonymous(path);
        expect(none.status).toBe(401);
        expect(none.body.error.code).toBe('unauthorized');
        expect((await anonymous(path, `svc_test_${'Q'.repeat(40)}`)).status).toBe(401);
        expectError(await t.api('GET', path), 404, 'not_found');
      }
    });
  });
});
