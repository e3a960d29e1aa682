import { compileBody, schemas } from '@acct/contracts';
import { type Api, type ReceivablesE2E, createCustomer, createDraftInvoice, expectError, expectSchema, expectStatus, startReceivablesE2E } from './receivables.helpers';

/**
 * Cursor pages, created bounds and external-id lookups through the gateway (API-DECISIONS §11): on
 * customers (registerReads) and on two lists of their own (webhook endpoints in webhook-dispatcher,
 * journal entries in reporting); bracketed query names (`created[gte]`) reach the services as sent.
 */
describe('e2e: list cursors, created bounds and lookups', () => {
  let t: ReceivablesE2E;
  beforeAll(async () => {
    t = await startReceivablesE2E('Lists org');
  }, 180_000);
  afterAll(async () => t?.e2e.stop());

  const ids = (r: { json: { data: { id: string }[] } }) => r.json.data.map((x) => x.id);
  /** Every item of a list, walked with starting_after by pages of `limit`; and walked back with ending_before from the last. */
  async function walk(api: Api, path: string, limit: number, sep = '?') {
    const forward: string[] = [];
    let after = '';
    for (;;) {
      const r = await api('GET', `${path}${sep}limit=${limit}${after ? `&starting_after=${after}` : ''}`);
      expectStatus(r, 200);
      forward.push(...ids(r));
      if (!r.json.pagination.has_more) break;
      after = forward[forward.length - 1]!;
    }
    const back: string[] = [forward[forward.length - 1]!];
    for (;;) {
      const r = await api('GET', `${path}${sep}limit=${limit}&ending_before=${back[0]}`);
      expectStatus(r, 200);
      back.unshift(...ids(r));
      if (!r.json.pagination.has_more) break;
    }
    return { forward, back };
  }

  it('customers: both ways by cursor, created bounds, the lookup by external id, and the refusals', async () => {
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.unshift(await createCustomer(t.api, `Lister ${i}`));
    const all = await t.api('GET', '/api/v1/customers?limit=100');
    expectSchema(compileBody(schemas.customers.customerListResponse), all.json);
    expect(ids(all)).toEqual(made);
    const { forward, back } = await walk(t.api, '/api/v1/customers', 3);
    expect(forward).toEqual(made);
    expect(back).toEqual(made);

    const page = await t.api('GET', `/api/v1/customers?limit=2&ending_before=${made[4]}`);
    expect(ids(page)).toEqual([made[2], made[3]]);
    expect(page.json.pagination).toEqual({ limit: 2, offset: 0, count: 2, has_more: true });

    // created[...]: bracketed names arrive as one parameter each; a date is 00:00 UTC.
    const third = all.json.data[2].created_at as string;
    const since = await t.api('GET', `/api/v1/customers?limit=100&created%5Bgte%5D=${encodeURIComponent(third)}`);
    const at = (x: { created_at: string }) => Date.parse(x.created_at);
    type Item = { id: string; created_at: string };
    expect(ids(since)).toEqual((all.json.data as Item[]).filter((x) => at(x) >= Date.parse(third)).map((x) => x.id));
    expect(ids(since)).toEqual(expect.arrayContaining(made.slice(0, 3)));
    const before = await t.api('GET', `/api/v1/customers?limit=100&created[lt]=${encodeURIComponent(third)}`);
    expect(ids(before)).toEqual((all.json.data as Item[]).filter((x) => at(x) < Date.parse(third)).map((x) => x.id));
    expect(ids(await t.api('GET', '/api/v1/customers?created[gte]=9999-12-31'))).toEqual([]);
    expect(ids(await t.api('GET', '/api/v1/customers?created[lt]=1900-01-01'))).toEqual([]);

    const one = await t.api('GET', `/api/v1/customers/${made[5]}`);
    const lookup = await t.api('GET', `/api/v1/customers?external_customer_id=${encodeURIComponent(one.json.data.external_customer_id)}`);
    expect(ids(lookup)).toEqual([made[5]]);
    expect(ids(await t.otherApi('GET', `/api/v1/customers?external_customer_id=${encodeURIComponent(one.json.data.external_customer_id)}`))).toEqual([]);

    const bad = async (q: string, field: string) => {
      const r = await t.api('GET', `/api/v1/customers?${q}`);
      expectError(r, 400, 'validation_failed');
      expect(r.json.error.details.map((d: { field: string }) => d.field)).toContain(field);
    };
    const foreign = await createCustomer(t.otherApi, 'Not yours');
    await bad(`starting_after=${foreign}`, 'starting_after');
    await bad(`ending_before=${foreign}`, 'ending_before');
    await bad(`starting_after=${made[0]}&offset=1`, 'offset');
    await bad(`starting_after=${made[0]}&ending_before=${made[1]}`, 'ending_before');
    await bad('starting_after=not-a-uuid', 'starting_after');
    await bad('created[gte]=9999-99-99', 'created[gte]');
    await bad('created[lt]=2026-01-01T25:00:00Z', 'created[lt]');
    await bad('created[gt]=%00', 'created[gt]');
    await bad('created[lte]=%ED%A0%80', 'created[lte]');
    await bad(`created[gte]=2026-01-01&created[gte]=2026-01-02`, 'created[gte]');
    await bad('created=2026-01-01', 'created');
    await bad('created[eq]=2026-01-01', 'created[eq]');
    await bad(`external_customer_id=${'x'.repeat(256)}`, 'external_customer_id');
  });

  it('webhook endpoints: cursors both ways, created bounds, a foreign cursor refused', async () => {
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await t.api('POST', '/api/v1/webhook-endpoints', { url: `https://192.0.2.${10 + i}/hook`, description: `lists ${i}` });
      expectStatus(r, 201);
      made.unshift(r.json.data.id);
    }
    const { forward, back } = await walk(t.api, '/api/v1/webhook-endpoints', 2);
    expect(forward).toEqual(made);
    expect(back).toEqual(made);
    const all = await t.api('GET', '/api/v1/webhook-endpoints?limit=100');
    const cut = Date.parse(all.json.data[1].created_at);
    const since = await t.api('GET', `/api/v1/webhook-endpoints?created%5Bgt%5D=${encodeURIComponent(all.json.data[1].created_at)}`);
    expect(ids(since)).toEqual(all.json.data.filter((x: { created_at: string }) => Date.parse(x.created_at) > cut).map((x: { id: string }) => x.id));
    const other = await t.otherApi('POST', '/api/v1/webhook-endpoints', { url: 'https://192.0.2.99/hook' });
    expectError(await t.api('GET', `/api/v1/webhook-endpoints?starting_after=${other.json.data.id}`), 400, 'validation_failed');
    // Deliveries: a cursor of another endpoint's list is refused too.
    const test = await t.api('POST', `/api/v1/webhook-endpoints/${made[0]}/test`);
    expectStatus(test, 201);
    const deliveries = await t.api('GET', `/api/v1/webhook-endpoints/${made[0]}/deliveries?starting_after=${test.json.data.id}`);
    expectStatus(deliveries, 200);
    expect(deliveries.json.data).toEqual([]);
    expectError(await t.api('GET', `/api/v1/webhook-endpoints/${made[1]}/deliveries?ending_before=${test.json.data.id}`), 400, 'validation_failed');
  });

  it('journal entries and accounts: cursors both ways; an account cursor of another organization refused; no created bounds on accounts', async () => {
    const customer = await createCustomer(t.api, 'Ledger lister');
    for (let i = 0; i < 4; i++) {
      const draft = await createDraftInvoice(t.api, customer, 1000 + i);
      expectStatus(await t.api('POST', `/api/v1/invoices/${draft.id}/post`), 200);
    }
    const all = await t.api('GET', '/api/v1/journal-entries?limit=100&source_type=invoice');
    expect(all.json.data.length).toBeGreaterThanOrEqual(4);
    const { forward, back } = await walk(t.api, '/api/v1/journal-entries?source_type=invoice', 3, '&');
    expect(forward).toEqual(ids(all));
    expect(back).toEqual(ids(all));
    const since = await t.api('GET', `/api/v1/journal-entries?limit=100&created[gte]=${encodeURIComponent(all.json.data[1].posted_at)}`);
    const cut = Date.parse(all.json.data[1].posted_at);
    expect(ids(since)).toEqual(all.json.data.filter((x: { posted_at: string }) => Date.parse(x.posted_at) >= cut).map((x: { id: string }) => x.id));

    const accounts = await t.api('GET', '/api/v1/accounts?limit=100');
    const codes = (r: { json: { data: { code: string }[] } }) => r.json.data.map((a) => a.code);
    const after = await t.api('GET', `/api/v1/accounts?limit=2&starting_after=${accounts.json.data[2].id}`);
    expect(codes(after)).toEqual(codes(accounts).slice(3, 5));
    const beforeIt = await t.api('GET', `/api/v1/accounts?limit=2&ending_before=${accounts.json.data[2].id}`);
    expect(codes(beforeIt)).toEqual(codes(accounts).slice(0, 2));
    expect(beforeIt.json.pagination.has_more).toBe(false);
    // Accounts have no creation time: a created bound is not a parameter of their list (it would filter nothing).
    for (const q of ['created[lt]=2026-01-01', 'created%5Bgte%5D=1900-01-01']) {
      const r = await t.api('GET', `/api/v1/accounts?${q}`);
      expectError(r, 400, 'validation_failed');
      expect(r.json.error.details.map((d: { field: string }) => d.field)).toContain(decodeURIComponent(q.split('=')[0]!));
    }
    const theirs = await t.otherApi('GET', '/api/v1/accounts?limit=1');
    expectError(await t.api('GET', `/api/v1/accounts?starting_after=${theirs.json.data[0].id}`), 400, 'validation_failed');
    expectError(await t.api('GET', `/api/v1/journal-entries?ending_before=00000000-0000-4000-8000-000000000000`), 400, 'validation_failed');
  });
});
