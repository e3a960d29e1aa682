import type { Member } from './types';
import { dashboardV1Deps } from './v1';
import { TEST_MEMBER_HEADER, member, testSignedIn } from '../testing/dashboard';
import { json } from '../testing/fakes';
import { gatewayBed } from '../testing/int-gateway';

/** /dashboard/api/v1 against real Postgres (scopes, Idempotency-Key records, the audit log) and NATS. */
const bed = gatewayBed();
const { call, received } = bed;
const members: Member[] = [];
const byRole = (role: Member['role']) => members.find((m) => m.role === role)!;
const as = (m: Member | undefined, headers: Record<string, string> = {}) => ({ headers: { ...(m ? { [TEST_MEMBER_HEADER]: m.id } : {}), ...headers } });

describe('/dashboard/api/v1, against real Postgres and NATS', () => {
  let base: string;

  beforeAll(async () => {
    for (const role of ['owner', 'developer', 'accountant', 'viewer'] as const) members.push(member(bed.org.organization_id, role));
    ({ base } = await bed.gateway({ dashboard: dashboardV1Deps(bed.orm, testSignedIn(members), 200) }));
  });

  it('answers a GET like /api/v1 with the test key of the same app', async () => {
    const byKey = await call(base, '/api/v1/customers?limit=3', { key: bed.org.test_key });
    const byMember = await call(base, '/dashboard/api/v1/customers?limit=3', as(byRole('viewer')));
    expect(byMember.status).toBe(200);
    expect(await json(byMember)).toEqual(await json(byKey));
    const [k, m] = received;
    const scope = (r: typeof k) => ({ org: r!.ctx.organizationId, app: r!.ctx.connectedAppId, env: r!.ctx.environment, query: r!.query });
    expect(scope(m)).toEqual(scope(k));
    expect(scope(m)).toMatchObject({ org: bed.org.organization_id, app: bed.org.connected_app_id, env: 'test' });
    expect(m!.ctx.apiKeyId).toBe(byRole('viewer').id);
  });

  it('answers 401 without a session and 400 for a bad Dashboard-Environment, forwarding nothing', async () => {
    const none = await call(base, '/dashboard/api/v1/customers', as(undefined));
    expect([none.status, (await json(none)).error.code]).toEqual([401, 'unauthorized']);
    const bad = await call(base, '/dashboard/api/v1/customers', as(byRole('viewer'), { 'dashboard-environment': 'staging' }));
    expect([bad.status, (await json(bad)).error.code]).toEqual([400, 'validation_failed']);
    expect(received).toEqual([]);
  });

  it("answers 404 for another organization's app in Dashboard-App", async () => {
    const r = await call(base, '/dashboard/api/v1/customers', as(byRole('owner'), { 'dashboard-app': bed.other.connected_app_id }));
    expect([r.status, (await json(r)).error.code]).toEqual([404, 'not_found']);
  });

  it('refuses a viewer POST with 403', async () => {
    const r = await call(base, '/dashboard/api/v1/customers', { method: 'POST', json: { external_customer_id: 'v1', name: 'N' }, ...as(byRole('viewer')) });
    expect([r.status, (await json(r)).error.code]).toEqual([403, 'forbidden']);
    expect(received).toEqual([]);
  });

  it('forwards an accountant PUT of the lock date and writes its audit row once the service answered', async () => {
    bed.handlers['settings.books_lock.put'] = async (r) => ({ ok: true, status: 200, body: { data: { lock_date: (r.body as { lock_date: string }).lock_date } } });
    const accountant = byRole('accountant');
    const r = await call(base, '/dashboard/api/v1/settings/books-lock', {
      method: 'PUT',
      json: { lock_date: '2026-03-31' },
      ...as(accountant, { 'dashboard-environment': 'live' }),
    });
    expect(r.status).toBe(200);
    expect(received.map((x) => [x.ctx.environment, x.ctx.apiKeyId, x.body])).toEqual([['live', accountant.id, { lock_date: '2026-03-31' }]]);
    const rows: Array<Record<string, unknown>> = await bed.orm.em
      .getConnection()
      .execute(`SELECT organization_id, actor_member_id, actor_email, action, target, address FROM audit_log WHERE actor_member_id = ?`, [accountant.id]);
    expect(rows).toEqual([
      {
        organization_id: bed.org.organization_id,
        actor_member_id: accountant.id,
        actor_email: accountant.email,
        action: 'books_lock.updated',
        target: '2026-03-31',
        address: '127.0.0.1',
      },
    ]);
  });

  it('replays an Idempotency-Key per member and refuses it in another environment', async () => {
    const create = (m: Member, headers: Record<string, string> = {}) =>
      call(base, '/dashboard/api/v1/customers', { method: 'POST', json: { external_customer_id: 'k1', name: 'N' }, ...as(m, { 'idempotency-key': 'dash-key-1', ...headers }) });
    const owner = byRole('owner');
    const first = await create(owner);
    const again = await create(owner);
    expect([first.status, again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 201, 'true']);
    expect(await json(again)).toEqual(await json(first));
    expect(received).toHaveLength(1);
    const other = await create(byRole('developer'));
    expect([other.status, other.headers.get('idempotent-replayed')]).toEqual([201, null]);
    expect(received).toHaveLength(2);
    const live = await create(owner, { 'dashboard-environment': 'live' });
    expect([live.status, (await json(live)).error.code]).toEqual([409, 'conflict']);
    expect(received.map((x) => x.ctx.apiKeyId)).toEqual([owner.id, byRole('developer').id]);
  });
});
