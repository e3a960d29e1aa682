import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import { type Orm, migrate } from '@acct/kit';
import { type TestDatabase, freshDatabase, waitFor } from '@acct/testing';
import { type Bootstrap, bootstrap, createConnectedApp } from '../admin/admin';
import { openGatewayOrm } from '../db';
import { KeyStore, keyRefusal } from '../key-store';
import { parseJson } from '../middlewares/body';
import type { Middleware } from '../middlewares/state';
import { type Served, appOf, json, serve } from '../testing/fakes';
import { keyHandlers } from './keys-routes';
import type { Member, Role } from './types';

/**
 * The dashboard's key routes on real Postgres (the gateway's schema, migrated), in a Koa app of
 * their own: the test header `x-test-role` stands for the session middleware (ctx.state.dashboard).
 */
let db: TestDatabase;
let orm: Orm;
let served: Served;
let org: Bootstrap;
let other: Bootstrap;
let secondAppId: string;
const memberId = randomUUID();

const memberOf = (role: Role): Member => ({ id: memberId, organizationId: org.organization_id, email: `${role}@example.com`, name: role, role, createdAt: new Date() });

/** What the session middleware sets: the member of the role the test names (none without the header). */
const fakeSession: Middleware = async (ctx, next) => {
  const role = ctx.get('x-test-role') as Role;
  if (role) ctx.state.dashboard = { member: memberOf(role), idHash: 'h', csrfToken: 't' };
  await next();
};

type Init = { role?: Role | null; env?: string; json?: unknown };
const call = (method: string, path: string, init: Init = {}) => {
  const headers: Record<string, string> = {};
  if (init.role !== null) headers['x-test-role'] = init.role ?? 'developer';
  if (init.env !== undefined) headers['dashboard-environment'] = init.env;
  return served.call(`/dashboard/api${path}`, { method, headers, ...(init.json !== undefined ? { json: init.json } : {}) });
};
const keysOf = (appId: string) => `/apps/${appId}/keys`;

/** The audit rows of the organization, oldest first. */
const audit = async () =>
  orm.em
    .getConnection()
    .execute<Array<Record<string, string | null>>>(`SELECT actor_member_id, actor_email, action, target, address FROM audit_log WHERE organization_id = ? ORDER BY seq`, [
      org.organization_id,
    ]);

beforeAll(async () => {
  db = await freshDatabase('acct_gw_keys');
  orm = await openGatewayOrm(db.url, 4);
  await migrate(orm);
  org = await bootstrap(orm.em.fork(), 'Keys org');
  other = await bootstrap(orm.em.fork(), 'Other org');
  secondAppId = (await createConnectedApp(orm.em.fork(), org.organization_id, 'Second app')).id;
  const h = keyHandlers({ orm });
  const router = new Router({ prefix: '/dashboard/api' });
  router.get('/apps/:app_id/keys', h.listKeys);
  router.post('/apps/:app_id/keys', parseJson, h.createKey);
  router.post('/apps/:app_id/keys/:id/roll', parseJson, h.rollKey);
  router.delete('/apps/:app_id/keys/:id', h.revokeKey);
  served = await serve(appOf(fakeSession, router.routes() as unknown as Middleware));
});

afterAll(async () => {
  await served?.close();
  await orm?.close(true);
  await db?.drop();
});

describe('dashboard key routes', () => {
  it('creates a key (201, in full once), lists it without the key, and the key authenticates', async () => {
    const r = await call('POST', keysOf(secondAppId), { json: {}, env: 'live' });
    expect(r.status).toBe(201);
    const { data } = await json(r);
    expect(data).toEqual({
      id: expect.any(String),
      environment: 'live',
      prefix: `${data.key.slice(0, 12)}…${data.key.slice(-4)}`,
      created_at: expect.any(String),
      last_used_at: null,
      expires_at: null,
      status: 'active',
      key: expect.stringMatching(/^svc_live_/),
    });
    const listed = await call('GET', keysOf(secondAppId), { env: 'live' });
    expect(listed.status).toBe(200);
    const body = await json(listed);
    const { key: _shownOnce, ...view } = data;
    expect(body).toEqual({ data: [view], pagination: { limit: 25, offset: 0, count: 1, has_more: false } });
    expect(JSON.stringify(body)).not.toContain(data.key.slice(12, -4));

    const principal = await new KeyStore(orm, 0).resolve(data.key);
    expect(principal).toMatchObject({ apiKeyId: data.id, connectedAppId: secondAppId, organizationId: org.organization_id, environment: 'live' });
    // Its use is recorded beside the lookup (not awaited by it).
    const used = await waitFor(async () => (await json(await call('GET', keysOf(secondAppId), { env: 'live' }))).data[0].last_used_at ?? undefined, 5000);
    expect(Date.parse(used)).toBeGreaterThanOrEqual(Date.parse(data.created_at));
    // The test environment of the app has none.
    expect((await json(await call('GET', keysOf(secondAppId)))).data).toEqual([]);

    expect((await audit()).at(-1)).toEqual({ actor_member_id: memberId, actor_email: 'developer@example.com', action: 'api_key.created', target: data.id, address: '127.0.0.1' });
  });

  it('pages the list newest first with limit and starting_after / ending_before', async () => {
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await json(await call('POST', keysOf(secondAppId), { json: {} }))).data.id);
    const first = await json(await call('GET', `${keysOf(secondAppId)}?limit=2`));
    expect(first.data.map((k: { id: string }) => k.id)).toEqual([made[2], made[1]]);
    expect(first.pagination).toMatchObject({ limit: 2, count: 2, has_more: true });
    const next = await json(await call('GET', `${keysOf(secondAppId)}?limit=2&starting_after=${made[1]}`));
    expect(next.data.map((k: { id: string }) => k.id)).toEqual([made[0]]);
    expect(next.pagination.has_more).toBe(false);
    const back = await json(await call('GET', `${keysOf(secondAppId)}?ending_before=${made[0]}`));
    expect(back.data.map((k: { id: string }) => k.id)).toEqual([made[2], made[1]]);
    for (const q of ['limit=0', 'limit=101', 'limit=x', `starting_after=${randomUUID()}`, `starting_after=${made[0]}&ending_before=${made[1]}`]) {
      const r = await call('GET', `${keysOf(secondAppId)}?${q}`);
      expect({ q, status: r.status, code: (await json(r)).error.code }).toEqual({ q, status: 400, code: 'validation_failed' });
    }
  });

  it('rolls a key: a new key in full, the current one expiring then (0: at once), audited', async () => {
    const old = (await json(await call('POST', keysOf(org.connected_app_id), { json: {} }))).data;
    const before = Date.now();
    const r = await call('POST', `${keysOf(org.connected_app_id)}/${old.id}/roll`, { json: { expire_current_in_hours: 24 } });
    expect(r.status).toBe(201);
    const rolled = (await json(r)).data;
    expect(rolled).toMatchObject({ environment: 'test', status: 'active', key: expect.stringMatching(/^svc_test_/) });
    expect(rolled.id).not.toBe(old.id);
    const list = (await json(await call('GET', keysOf(org.connected_app_id)))).data as Array<{ id: string; status: string; expires_at: string }>;
    const was = list.find((k) => k.id === old.id)!;
    expect(was.status).toBe('expiring');
    expect(Date.parse(was.expires_at) - before).toBeGreaterThanOrEqual(24 * 3_600_000 - 1000);
    expect(Date.parse(was.expires_at) - before).toBeLessThanOrEqual(24 * 3_600_000 + 5000);
    expect((await audit()).at(-1)).toMatchObject({ action: 'api_key.rolled', target: old.id, actor_member_id: memberId });

    // Rolled again at 0: the current one is refused at once (cached principals too: keyRefusal).
    const again = await call('POST', `${keysOf(org.connected_app_id)}/${rolled.id}/roll`, { role: 'owner', json: { expire_current_in_hours: 0 } });
    expect(again.status).toBe(201);
    const p = await new KeyStore(orm, 0).resolve(rolled.key);
    expect(keyRefusal(p!)).toBe('expired');
    // An expired or revoked key is not rolled.
    const refused = await call('POST', `${keysOf(org.connected_app_id)}/${rolled.id}/roll`, { json: { expire_current_in_hours: 1 } });
    expect(refused.status).toBe(409);
    expect((await json(refused)).error.code).toBe('conflict');
  });

  it('refuses a bad roll body and bad headers with 400 validation_failed', async () => {
    const k = (await json(await call('POST', keysOf(org.connected_app_id), { json: {} }))).data;
    for (const body of [
      {},
      { expire_current_in_hours: 169 },
      { expire_current_in_hours: -1 },
      { expire_current_in_hours: 1.5 },
      { expire_current_in_hours: '2' },
      { expire_current_in_hours: 1, x: 1 },
    ]) {
      const r = await call('POST', `${keysOf(org.connected_app_id)}/${k.id}/roll`, { json: body });
      expect({ body, status: r.status, code: (await json(r)).error.code }).toEqual({ body, status: 400, code: 'validation_failed' });
    }
    const extra = await call('POST', keysOf(org.connected_app_id), { json: { environment: 'live' } });
    expect(extra.status).toBe(400);
    for (const env of ['prod', 'LIVE', 'test, live']) {
      const r = await call('GET', keysOf(org.connected_app_id), { env });
      expect({ env, status: r.status, code: (await json(r)).error.code }).toEqual({ env, status: 400, code: 'validation_failed' });
    }
  });

  it('revokes a key: 200 with status revoked, audited once, and the key is refused', async () => {
    const k = (await json(await call('POST', keysOf(org.connected_app_id), { json: {} }))).data;
    const r = await call('DELETE', `${keysOf(org.connected_app_id)}/${k.id}`);
    expect(r.status).toBe(200);
    expect((await json(r)).data).toMatchObject({ id: k.id, status: 'revoked' });
    expect(keyRefusal((await new KeyStore(orm, 0).resolve(k.key))!)).toBe('revoked');
    const again = await call('DELETE', `${keysOf(org.connected_app_id)}/${k.id}`);
    expect(again.status).toBe(200);
    expect((await audit()).filter((a) => a.action === 'api_key.revoked' && a.target === k.id)).toHaveLength(1);
  });

  it('answers 404 for an app of another organization, a key of another app or environment, and ids that are not ids', async () => {
    const mine = (await json(await call('POST', keysOf(org.connected_app_id), { json: {} }))).data;
    const cases: Array<[string, string, Init?]> = [
      ['GET', keysOf(other.connected_app_id)],
      ['POST', keysOf(other.connected_app_id), { json: {} }],
      ['GET', keysOf('not-a-uuid')],
      ['DELETE', `${keysOf(secondAppId)}/${mine.id}`],
      ['DELETE', `${keysOf(org.connected_app_id)}/${mine.id}`, { env: 'live' }],
      ['POST', `${keysOf(secondAppId)}/${mine.id}/roll`, { json: { expire_current_in_hours: 1 } }],
      ['DELETE', `${keysOf(org.connected_app_id)}/${randomUUID()}`],
      ['DELETE', `${keysOf(org.connected_app_id)}/42`],
    ];
    for (const [method, path, init] of cases) {
      const r = await call(method, path, init);
      expect({ method, path, status: r.status, code: (await json(r)).error.code }).toEqual({ method, path, status: 404, code: 'not_found' });
    }
    // Still active: nothing was done to it.
    const list = (await json(await call('GET', keysOf(org.connected_app_id)))).data as Array<{ id: string; status: string }>;
    expect(list.find((x) => x.id === mine.id)?.status).toBe('active');
  });

  it('refuses accountants and viewers (403) and requests without a session (401), changing nothing', async () => {
    const k = (await json(await call('POST', keysOf(org.connected_app_id), { json: {} }))).data;
    const rows = (await audit()).length;
    for (const role of ['accountant', 'viewer'] as const) {
      for (const [method, path, body] of [
        ['GET', keysOf(org.connected_app_id)],
        ['POST', keysOf(org.connected_app_id), {}],
        ['POST', `${keysOf(org.connected_app_id)}/${k.id}/roll`, { expire_current_in_hours: 0 }],
        ['DELETE', `${keysOf(org.connected_app_id)}/${k.id}`],
      ] as const) {
        const r = await call(method, path, { role, ...(body ? { json: body } : {}) });
        expect({ role, method, path, status: r.status, code: (await json(r)).error.code }).toEqual({ role, method, path, status: 403, code: 'forbidden' });
      }
    }
    const anonymous = await call('GET', keysOf(org.connected_app_id), { role: null });
    expect(anonymous.status).toBe(401);
    expect((await audit()).length).toBe(rows);
  });
});
