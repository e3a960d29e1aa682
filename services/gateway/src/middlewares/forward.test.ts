import Router from '@koa/router';
import type { RouteDef, RpcReply } from '@acct/contracts';
import { appOf, fakeRpc, json, principal, serve, withPrincipal, type Served } from '../testing/fakes';
import { forward } from './forward';
import type { Middleware } from './state';

describe('forward', () => {
  let reply: RpcReply;
  const rpc = fakeRpc(() => reply);
  const route = (over: Partial<RouteDef> = {}) => ({ operationId: 'getThing', method: 'POST', path: '/things/{id}', rpc: 'customers.get', ...over }) as RouteDef;
  const validated: Middleware = async (ctx, next) => {
    ctx.state.query = { limit: 5 };
    ctx.state.body = { name: 'N' };
    await next();
  };
  const servers: Served[] = [];
  const serveRoute = async (r: RouteDef) => {
    const router = new Router();
    router.register('/things/:id', ['POST'], [withPrincipal(principal({ environment: 'live' })), validated, forward(r, { rpc })]);
    const app = appOf();
    app.use(router.routes());
    const s = await serve(app);
    servers.push(s);
    return s;
  };
  let served: Served;

  beforeAll(async () => (served = await serveRoute(route())));
  beforeEach(() => {
    rpc.calls.length = 0;
    reply = { ok: true, status: 201, body: { data: { id: 't1' } } };
  });
  afterAll(() => Promise.all(servers.map((s) => s.close())));

  it('sends the trusted context from the key and the validated request to the route’s operation', async () => {
    const r = await served.call('/things/t1', { method: 'POST', headers: { 'idempotency-key': 'not-forwarded' } });
    expect(r.status).toBe(201);
    expect(await json(r)).toEqual({ data: { id: 't1' } });
    expect(rpc.calls).toEqual([
      {
        op: 'customers.get',
        req: {
          ctx: { organizationId: 'org-1', connectedAppId: 'app-1', environment: 'live', apiKeyId: 'key-1', requestId: 'req-test' },
          params: { id: 't1' },
          query: { limit: 5 },
          body: { name: 'N' },
        },
      },
    ]);
  });

  it('marks a replayed reply with Idempotent-Replayed', async () => {
    reply = { ok: true, status: 200, body: {}, replayed: true };
    const r = await served.call('/things/t1', { method: 'POST' });
    expect(r.headers.get('idempotent-replayed')).toBe('true');
  });

  it('answers 202 with the body and 204 without one', async () => {
    reply = { ok: true, status: 202, body: { data: { queued: true } } };
    const accepted = await served.call('/things/t1', { method: 'POST' });
    expect(accepted.status).toBe(202);
    expect(await json(accepted)).toEqual({ data: { queued: true } });
    reply = { ok: true, status: 204, body: { ignored: true } };
    const empty = await served.call('/things/t1', { method: 'POST' });
    expect(empty.status).toBe(204);
    expect(empty.headers.get('content-type')).toBeNull();
    expect(await empty.text()).toBe('');
  });

  it('sends the JSON body of a json route, not the bytes a reply may carry', async () => {
    reply = { ok: true, status: 200, body: { data: 'json' }, bodyBase64: Buffer.from('bytes').toString('base64') };
    const r = await served.call('/things/t1', { method: 'POST' });
    expect(await json(r)).toEqual({ data: 'json' });
    expect(r.headers.get('content-disposition')).toBeNull();
  });

  it('maps an error reply to its status in the envelope', async () => {
    reply = { ok: false, error: { code: 'not_found', message: 'Thing t1 was not found.', details: [] } };
    const r = await served.call('/things/t1', { method: 'POST' });
    expect(r.status).toBe(404);
    expect(await json(r)).toEqual({ error: { code: 'not_found', message: 'Thing t1 was not found.', details: [], request_id: 'req-test' } });
  });

  it('adds Retry-After when the service is unavailable', async () => {
    reply = { ok: false, error: { code: 'service_unavailable', message: 'Later.', details: [] } };
    const r = await served.call('/things/t1', { method: 'POST' });
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('1');
  });

  it('forwards the Idempotency-Key to a route with its own dedupe', async () => {
    const own = await serveRoute(route({ ownIdempotency: true }));
    await own.call('/things/t1', { method: 'POST', headers: { 'idempotency-key': 'own-1' } });
    expect(rpc.calls[0]?.req.ctx.idempotencyKey).toBe('own-1');
  });

  it('cannot be built for a route the gateway serves itself', () => {
    expect(() => forward(route({ rpc: null }), { rpc })).toThrow('route getThing has no rpc operation to forward to');
  });
});
