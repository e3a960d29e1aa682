import Router from '@koa/router';
import { ROUTES } from '@acct/contracts';
import { appOf, json, serve, type Served } from '../testing/fakes';
import { parseJson } from './body';
import { validate } from './validate';

const route = (id: string) => ROUTES.find((r) => r.operationId === id)!;
const UUID = '6f1d1c7e-3f43-4a5e-9a39-2bb9b1d1b1a1';

describe('validate', () => {
  let served: Served;

  beforeAll(async () => {
    const router = new Router();
    for (const r of [route('listCustomers'), route('getCustomer'), route('createCustomer')]) {
      router.register(
        r.path.replace(/\{(\w+)\}/g, ':$1'),
        [r.method],
        [
          parseJson,
          validate(r),
          async (ctx) => {
            ctx.body = { query: ctx.state.query, body: ctx.state.body ?? null };
          },
        ],
      );
    }
    const app = appOf();
    app.use(router.routes());
    served = await serve(app);
  });
  afterAll(() => served.close());

  it('leaves the typed query, with defaults, in the state', async () => {
    const r = await served.call('/api/v1/customers?limit=5');
    expect(r.status).toBe(200);
    expect(await json(r)).toEqual({ query: { limit: 5, offset: 0 }, body: null });
  });

  it('leaves a valid body in the state', async () => {
    const r = await served.call('/api/v1/customers', { method: 'POST', json: { external_customer_id: 'e', name: 'N' } });
    expect(r.status).toBe(200);
    expect((await json(r)).body).toEqual({ external_customer_id: 'e', name: 'N' });
  });

  it.each([
    ['environment', '?environment=live', 'environment'],
    ['organization_id', '?organization_id=x', 'organization_id'],
  ])('refuses the scope field %s in the query', async (_f, qs, field) => {
    const r = await served.call(`/api/v1/customers${qs}`);
    expect(r.status).toBe(400);
    expect((await json(r)).error).toMatchObject({ code: 'trusted_scope_field_not_allowed', details: [{ field, issue: 'not_allowed' }] });
  });

  it('refuses a scope field in the body, with a JSON pointer', async () => {
    const r = await served.call('/api/v1/customers', { method: 'POST', json: { external_customer_id: 'e', name: 'N', connected_app_id: 'x' } });
    expect(r.status).toBe(400);
    expect((await json(r)).error).toMatchObject({ code: 'trusted_scope_field_not_allowed', details: [{ field: '/connected_app_id' }] });
  });

  it('refuses a query parameter given twice', async () => {
    const r = await served.call('/api/v1/customers?limit=1&limit=2');
    expect((await json(r)).error).toMatchObject({ code: 'validation_failed', details: [{ field: 'limit', issue: 'repeated' }] });
  });

  it.each([['?limit=0'], ['?limit=abc'], ['?colour=red']])('refuses the query %s', async (qs) => {
    const r = await served.call(`/api/v1/customers${qs}`);
    expect(r.status).toBe(400);
    expect((await json(r)).error.message).toBe('The query string is invalid.');
  });

  it.each([['0x10'], ['%20%205'], ['5%20'], ['1e1'], ['%2B5'], ['-1'], ['05'], ['5.0'], ['']])('refuses limit=%s: query integers are plain decimal digits', async (v) => {
    const r = await served.call(`/api/v1/customers?limit=${v}`);
    expect(r.status).toBe(400);
    expect((await json(r)).error).toMatchObject({ code: 'validation_failed', details: [{ field: 'limit', issue: expect.any(String) }] });
  });

  it('takes plain decimal query integers, 0 included', async () => {
    const r = await served.call('/api/v1/customers?limit=10&offset=0');
    expect(r.status).toBe(200);
    expect((await json(r)).query).toEqual({ limit: 10, offset: 0 });
  });

  it('refuses a bad path parameter', async () => {
    const r = await served.call('/api/v1/customers/not-a-uuid');
    expect(r.status).toBe(400);
    expect((await json(r)).error.details[0]).toMatchObject({ field: 'id', issue: 'invalid_format' });
    expect((await served.call(`/api/v1/customers/${UUID}`)).status).toBe(200);
  });

  it('refuses a body that is not a JSON object', async () => {
    const r = await served.call('/api/v1/customers', { method: 'POST', json: [1, 2] });
    expect((await json(r)).error).toMatchObject({ code: 'validation_failed', details: [{ field: '/', issue: 'invalid_type' }] });
  });

  it('refuses a body against the schema, naming the fields', async () => {
    const r = await served.call('/api/v1/customers', { method: 'POST', json: { external_customer_id: 'e', nmae: 'typo' } });
    const fields = (await json(r)).error.details.map((d: { field: string }) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['/name', '/nmae']));
  });

  it('takes a POST without a body as {}', async () => {
    const r = await served.call('/api/v1/customers', { method: 'POST' });
    expect((await json(r)).error.details.map((d: { field: string }) => d.field)).toContain('/name');
  });
});
