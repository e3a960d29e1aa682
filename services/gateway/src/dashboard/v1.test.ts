import type { RpcReply } from '@acct/contracts';
import { type GatewayDeps, createGatewayApp } from '../app';
import { TokenBuckets } from '../rate-limit';
import { TEST_MEMBER_HEADER, fakeDashboard, fakeScopes, member, orgScope } from '../testing/dashboard';
import { TEST_KEY, fakeGatewayDeps, fakeIdempotency, fakeKeys, fakeRpc, json, principal, serve, type Served } from '../testing/fakes';

/** /dashboard/api/v1 through the whole gateway app (contracts' ROUTES), with fake stores and RPC. */
const ORG = '0a000000-0000-4000-8000-000000000001';
const APP = '0b000000-0000-4000-8000-000000000001';
const APP2 = '0b000000-0000-4000-8000-000000000002';
const OFF = '0b000000-0000-4000-8000-000000000003';
const ENDPOINT = '0e000000-0000-4000-8000-000000000001';
const owner = member(ORG, 'owner');
const developer = member(ORG, 'developer');
const accountant = member(ORG, 'accountant');
const viewer = member(ORG, 'viewer');

describe('/dashboard/api/v1 through the gateway app', () => {
  let reply: (op: string) => RpcReply;
  const rpc = fakeRpc((op) => reply(op));
  const scopes = fakeScopes({
    [ORG]: orgScope([
      { id: APP, active: true },
      { id: APP2, active: true },
      { id: OFF, active: false },
    ]),
  });
  const dashboard = fakeDashboard([owner, developer, accountant, viewer], scopes);
  const keyPrincipal = principal({ organizationId: ORG, connectedAppId: APP, enabledModules: new Set(['customers', 'webhooks', 'embedded_settings', 'documents']) });
  let served: Served;

  const start = async (over: Partial<GatewayDeps> = {}) => {
    const deps = fakeGatewayDeps({ rpc, dashboard, keys: fakeKeys({ [TEST_KEY]: keyPrincipal }), idempotency: fakeIdempotency(), ...over });
    served = await serve(createGatewayApp(deps).app);
  };
  const as = (m: { id: string } | undefined, headers: Record<string, string> = {}) => ({ headers: { ...(m ? { [TEST_MEMBER_HEADER]: m.id } : {}), ...headers } });

  beforeEach(async () => {
    reply = () => ({ ok: true, status: 200, body: { data: [], customers: [], pagination: { has_more: false } } });
    rpc.calls.length = 0;
    dashboard.audits.length = 0;
    await start();
  });
  afterEach(() => served.close());

  it('answers a GET like /api/v1 with a key, the member standing in for the key', async () => {
    const byKey = await served.call('/api/v1/customers?limit=5', { key: TEST_KEY });
    const byMember = await served.call('/dashboard/api/v1/customers?limit=5', as(viewer));
    expect(byMember.status).toBe(byKey.status);
    expect(await json(byMember)).toEqual(await json(byKey));
    const [k, m] = rpc.calls;
    expect(m!.op).toBe(k!.op);
    expect(m!.req.query).toEqual(k!.req.query);
    const { apiKeyId, requestId, ...scope } = m!.req.ctx as unknown as Record<string, string>;
    expect(scope).toEqual({ organizationId: ORG, connectedAppId: APP, environment: 'test' });
    expect(apiKeyId).toBe(viewer.id);
    expect(requestId).toBe(byMember.headers.get('request-id'));
    expect(byMember.headers.get('ratelimit-limit')).toBe('1000');
  });

  it('scopes by Dashboard-Environment and Dashboard-App (auth/check answers what it acts on)', async () => {
    const r = await served.call('/dashboard/api/v1/auth/check', as(viewer, { 'dashboard-environment': 'live', 'dashboard-app': APP2.toUpperCase() }));
    expect(r.status).toBe(200);
    expect((await json(r)).data).toEqual({ authenticated: true, environment: 'live', connected_app_id: APP2, organization_id: ORG });
  });

  it.each([
    ['dashboard-environment', 'production', 400, 'validation_failed'],
    ['dashboard-environment', 'LIVE', 400, 'validation_failed'],
    ['dashboard-app', 'not-an-id', 400, 'validation_failed'],
    ['dashboard-app', '0b000000-0000-4000-8000-0000000000ff', 404, 'not_found'],
    ['dashboard-app', OFF, 403, 'forbidden'],
  ])('refuses %s: %s with %i', async (header, value, status, code) => {
    const r = await served.call('/dashboard/api/v1/customers', as(viewer, { [header]: value }));
    expect(r.status).toBe(status);
    const { error } = await json(r);
    expect(error.code).toBe(code);
    if (status === 400) expect(error.details[0].field).toBe(header.replace(/(^|-)(\w)/g, (_: string, d: string, c: string) => d + c.toUpperCase()));
    expect(rpc.calls).toEqual([]);
  });

  it('answers 401 without a session, on known and unknown paths alike', async () => {
    for (const path of ['/dashboard/api/v1/customers', '/dashboard/api/v1/nothing-here', '/dashboard/api/v1']) {
      const r = await served.call(path, as(undefined));
      expect([path, r.status, (await json(r)).error.code]).toEqual([path, 401, 'unauthorized']);
    }
    expect(rpc.calls).toEqual([]);
  });

  it('answers an unknown path 404 and an unknown method 405 after the session check, in the envelope', async () => {
    const unknown = await served.call('/dashboard/api/v1/nothing-here', as(viewer));
    expect(unknown.status).toBe(404);
    expect((await json(unknown)).error).toMatchObject({ code: 'not_found', request_id: unknown.headers.get('request-id') });
    const wrong = await served.call('/dashboard/api/v1/customers', { method: 'DELETE', ...as(owner) });
    expect(wrong.status).toBe(405);
    const byKey = await served.call('/api/v1/customers', { method: 'DELETE', key: TEST_KEY });
    expect(wrong.headers.get('allow')).toBe(byKey.headers.get('allow'));
    expect(wrong.headers.get('allow')).toContain('POST');
    expect((await json(wrong)).error.code).toBe('validation_failed');
  });

  it('refuses a viewer POST with 403 before anything is forwarded', async () => {
    const r = await served.call('/dashboard/api/v1/customers', { method: 'POST', json: { external_customer_id: 'e1', name: 'N' }, ...as(viewer) });
    expect(r.status).toBe(403);
    expect((await json(r)).error).toMatchObject({ code: 'forbidden', message: 'A viewer may only read: POST /api/v1/customers is not allowed.' });
    expect(rpc.calls).toEqual([]);
  });

  it('keeps webhook endpoints, reads too, from accountants and viewers', async () => {
    for (const m of [accountant, viewer]) {
      const r = await served.call('/dashboard/api/v1/webhook-endpoints', as(m));
      expect(r.status).toBe(403);
    }
    expect((await served.call('/dashboard/api/v1/webhook-endpoints', as(developer))).status).toBe(200);
  });

  it('forwards an accountant PUT of the lock date and records it in the audit log', async () => {
    reply = () => ({ ok: true, status: 200, body: { data: { lock_date: '2026-01-31' } } });
    const r = await served.call('/dashboard/api/v1/settings/books-lock', { method: 'PUT', json: { lock_date: '2026-01-31' }, ...as(accountant) });
    expect(r.status).toBe(200);
    expect(rpc.calls.map((c) => [c.op, c.req.body])).toEqual([['settings.books_lock.put', { lock_date: '2026-01-31' }]]);
    expect(dashboard.audits).toEqual([
      { organizationId: ORG, actor: { memberId: accountant.id, email: accountant.email }, action: 'books_lock.updated', target: '2026-01-31', address: '127.0.0.1' },
    ]);
  });

  it('lets an accountant upload a document, the upload handler getting the member as the key', async () => {
    await served.close();
    const uploaded: string[] = [];
    await start({
      uploads: {
        uploadDocument: async (req) => {
          req.stream.resume();
          uploaded.push(req.ctx.apiKeyId);
          return { ok: true, status: 201, body: { data: { id: 'd1' } } };
        },
      },
    });
    const r = await served.call('/dashboard/api/v1/documents', {
      method: 'POST',
      body: 'x',
      headers: { 'content-type': 'multipart/form-data; boundary=b', [TEST_MEMBER_HEADER]: accountant.id },
    });
    expect(r.status).toBe(201);
    expect(uploaded).toEqual([accountant.id]);
    expect((await served.call('/dashboard/api/v1/documents', { method: 'POST', body: 'x', ...as(viewer) })).status).toBe(403);
  });

  it('writes an audit row after each 2xx webhook endpoint change, and none after a refusal or an error', async () => {
    reply = (op) =>
      op === 'webhook_endpoints.update'
        ? { ok: false, error: { code: 'not_found', message: 'No such endpoint.', details: [] } }
        : { ok: true, status: 201, body: { data: { id: ENDPOINT } } };
    const ep = `/dashboard/api/v1/webhook-endpoints/${ENDPOINT}`;
    await served.call('/dashboard/api/v1/webhook-endpoints', { method: 'POST', json: { url: 'https://example.com/h' }, ...as(developer) });
    await served.call(`${ep}/rotate-secret`, { method: 'POST', json: {}, ...as(owner) });
    await served.call(ep, { method: 'DELETE', ...as(owner) });
    expect((await served.call(ep, { method: 'PATCH', json: { enabled: false }, ...as(owner) })).status).toBe(404);
    expect((await served.call(ep, { method: 'DELETE', ...as(accountant) })).status).toBe(403);
    expect((await served.call(`${ep}/test`, { method: 'POST', json: {}, ...as(owner) })).status).toBe(201); // not audited
    expect(dashboard.audits.map((a) => [a.action, a.target, a.actor === 'admin-cli' ? a.actor : a.actor.memberId])).toEqual([
      ['webhook_endpoint.created', ENDPOINT, developer.id],
      ['webhook_endpoint.secret_rotated', ENDPOINT, owner.id],
      ['webhook_endpoint.deleted', ENDPOINT, owner.id],
    ]);
  });

  it('keeps an audit failure from changing the answer', async () => {
    await served.close();
    await start({ dashboard: { ...dashboard, audit: () => Promise.reject(new Error('database down')) } });
    reply = () => ({ ok: true, status: 200, body: { data: { lock_date: null } } });
    const r = await served.call('/dashboard/api/v1/settings/books-lock', { method: 'PUT', json: { lock_date: null }, ...as(owner) });
    expect(r.status).toBe(200);
  });

  it('replays an Idempotency-Key per member, and never across environments', async () => {
    reply = () => ({ ok: true, status: 201, body: { data: { id: 'c1' } } });
    const create = (m: { id: string }, headers: Record<string, string> = {}) =>
      served.call('/dashboard/api/v1/customers', { method: 'POST', json: { external_customer_id: 'e1', name: 'N' }, ...as(m, { 'idempotency-key': 'k-1', ...headers }) });
    const first = await create(owner);
    const again = await create(owner);
    expect([first.status, again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 201, 'true']);
    expect(rpc.calls).toHaveLength(1);
    expect((await create(developer)).headers.get('idempotent-replayed')).toBeNull(); // another member's key
    expect(rpc.calls).toHaveLength(2);
    const live = await create(owner, { 'dashboard-environment': 'live' });
    expect(live.status).toBe(409);
    expect((await json(live)).error.details[0].issue).toBe('reused_with_different_request');
    expect(rpc.calls.map((c) => (c.req.ctx as { apiKeyId: string }).apiKeyId)).toEqual([owner.id, developer.id]);
  });

  it('rate-limits per member', async () => {
    await served.close();
    await start({ buckets: new TokenBuckets(0.001, 2) });
    const statuses = async (m: { id: string }) => Promise.all([1, 2, 3].map(() => served.call('/dashboard/api/v1/customers', as(m)).then((r) => r.status)));
    expect((await statuses(viewer)).sort()).toEqual([200, 200, 429]);
    expect((await statuses(accountant)).sort()).toEqual([200, 200, 429]);
  });
});

describe('the gateway without dashboard deps', () => {
  it('serves no /dashboard/api/v1 and leaves the public router as it was', async () => {
    const { app, router } = createGatewayApp(fakeGatewayDeps());
    const s = await serve(app);
    expect((await s.call('/dashboard/api/v1/customers', { headers: { [TEST_MEMBER_HEADER]: 'x' } })).status).toBe(404);
    await s.close();
    const withDashboard = createGatewayApp(fakeGatewayDeps({ dashboard: fakeDashboard([], fakeScopes({})) }));
    const paths = (r: typeof router) => r.stack.map((l) => `${l.methods.join(',')} ${String(l.path)} ${l.stack.length}`);
    expect(paths(withDashboard.router)).toEqual(paths(router));
    expect(paths(router).some((p) => p.includes('/dashboard'))).toBe(false);
  });
});
