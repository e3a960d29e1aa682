/**
 * The gateway takes a request body only as the media type the OpenAPI document declares for its
 * route (contracts' requestMediaType), in UTF-8: every other type or charset is 415 (API-DECISIONS
 * §1), whatever the route, before anything is forwarded.
 */
import { ROUTES, type RouteDef, requestMediaType } from '@acct/contracts';
import { createGatewayApp } from './app';
import { TEST_KEY, fakeGatewayDeps, fakeRpc, json, serve, type Served } from './testing/fakes';

const ID = '3f1c1f7e-6a61-4c57-9a57-6f0f3c1c9f00';
const pathOf = (r: RouteDef) => r.path.replace(/\{[^}]+\}/g, ID);
const withBody = ROUTES.filter((r) => requestMediaType(r));

/** Types each route must refuse: any other than its own, a +json one included, and JSON in another charset. */
const refusedTypes = (r: RouteDef): string[] =>
  requestMediaType(r) === 'application/json'
    ? [
        'text/plain',
        'application/json-patch+json',
        'application/merge-patch+json',
        'multipart/form-data; boundary=x',
        'application/json; charset=utf-16',
        'application/json; charset=latin1',
      ]
    : ['application/json', 'text/plain'];

describe('request media types, derived from the route table', () => {
  const rpc = fakeRpc(() => ({ ok: true, status: 201, body: { data: { id: ID } } }));
  let served: Served;
  beforeAll(async () => {
    served = await serve(createGatewayApp(fakeGatewayDeps({ rpc })).app);
  });
  afterAll(() => served.close());
  beforeEach(() => {
    rpc.calls.length = 0;
  });

  it('covers routes of each body-taking kind', () => {
    expect(new Set(withBody.map((r) => requestMediaType(r)))).toEqual(new Set(['application/json', 'multipart/form-data']));
    expect(withBody.some((r) => r.kind === 'raw')).toBe(true);
    expect(withBody.some((r) => r.method === 'PATCH')).toBe(true);
  });

  it.each(withBody.map((r) => [`${r.method} ${r.path}`, r] as const))('%s refuses a body of another media type or charset with 415', async (_, r) => {
    for (const type of refusedTypes(r)) {
      const res = await served.call(pathOf(r), { method: r.method, key: TEST_KEY, body: '{}', headers: { 'content-type': type } });
      const body = await json(res);
      expect({ type, status: res.status, code: body.error?.code, issue: body.error?.details?.[0]?.issue }).toEqual({
        type,
        status: 415,
        code: 'validation_failed',
        issue: 'unsupported_media_type',
      });
    }
    expect(rpc.calls).toHaveLength(0);
  });

  it.each([['application/json'], ['application/json; charset=utf-8'], ['application/json; charset="UTF-8"'], ['APPLICATION/JSON;CHARSET=utf-8']])(
    'takes a create sent as %s',
    async (type) => {
      const body = JSON.stringify({ external_customer_id: 'c-1', name: 'Ada' });
      const res = await served.call('/api/v1/customers', { method: 'POST', key: TEST_KEY, body, headers: { 'content-type': type } });
      expect(res.status).toBe(201);
      expect(rpc.calls).toMatchObject([{ op: 'customers.create', req: { body: { external_customer_id: 'c-1', name: 'Ada' } } }]);
    },
  );
});
