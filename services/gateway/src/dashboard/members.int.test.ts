import { json } from '../testing/fakes';
import { purgeAudit } from './audit-log';
import { PASSWORD, type Signed, dashboardCalls } from '../testing/dashboard-identity';
import { gatewayBed } from '../testing/int-gateway';

/** Members, roles, invitations, apps and the audit log through the real gateway app, on real Postgres. */
const bed = gatewayBed();

describe('dashboard members, invitations, apps and audit log', () => {
  let d: ReturnType<typeof dashboardCalls>;
  let owner: Signed;
  let viewer: Signed;
  beforeAll(async () => {
    const { base } = await bed.gateway();
    d = dashboardCalls(bed, base);
    owner = await d.join(bed.org.organization_id, 'owner@example.com', 'owner');
    viewer = await d.join(bed.org.organization_id, 'viewer@example.com', 'viewer');
  });

  it('lets only owners list and change members: a viewer gets 403', async () => {
    const list = await d.api('/members', { as: owner });
    expect(list.status).toBe(200);
    const body = await json(list);
    expect(body.data.map((m: { email: string }) => m.email).sort()).toEqual(['owner@example.com', 'viewer@example.com']);
    expect(body.pagination).toMatchObject({ limit: 25, has_more: false });
    expect((await d.api('/members', { as: viewer })).status).toBe(403);
    const r = await d.api(`/members/${owner.member.id}`, { method: 'PATCH', as: viewer, json: { role: 'viewer' } });
    expect(r.status).toBe(403);
    expect((await json(r)).error.code).toBe('forbidden');
    expect((await d.api('/invites', { method: 'POST', as: viewer, json: { email: 'x@example.com', role: 'owner' } })).status).toBe(403);
  });

  it('keeps the last owner: neither demoted nor removed (409); with a second owner, both work', async () => {
    const demote = await d.api(`/members/${owner.member.id}`, { method: 'PATCH', as: owner, json: { role: 'developer' } });
    expect(demote.status).toBe(409);
    expect((await json(demote)).error.code).toBe('conflict');
    expect((await d.api(`/members/${owner.member.id}`, { method: 'DELETE', as: owner })).status).toBe(409);
    const second = await d.join(bed.org.organization_id, 'second-owner@example.com', 'owner');
    const r = await d.api(`/members/${second.member.id}`, { method: 'PATCH', as: owner, json: { role: 'developer' } });
    expect(r.status).toBe(200);
    expect((await json(r)).data).toMatchObject({ id: second.member.id, role: 'developer' });
    // A member removes themself (not an owner): their session ends with them.
    expect((await d.api(`/members/${owner.member.id}`, { method: 'DELETE', as: second })).status).toBe(403);
    expect((await d.api(`/members/${second.member.id}`, { method: 'DELETE', as: second })).status).toBe(204);
    expect((await d.api('/session', { as: second })).status).toBe(401);
    expect((await d.api(`/members/${second.member.id}`, { method: 'DELETE', as: owner })).status).toBe(404);
    expect((await d.api('/members/not-a-uuid', { method: 'PATCH', as: owner, json: { role: 'viewer' } })).status).toBe(404);
  });

  it('ends the other sessions on a password change, and refuses a wrong current password', async () => {
    const me = await d.join(bed.org.organization_id, 'changer@example.com', 'developer');
    const other = await d.signedFrom(await d.signIn('changer@example.com'));
    const wrong = await d.api('/password', { method: 'PUT', as: me, json: { current_password: 'not my password', new_password: 'a brand new password' } });
    expect(wrong.status).toBe(400);
    expect((await json(wrong)).error.details[0].field).toBe('/current_password');
    const short = await d.api('/password', { method: 'PUT', as: me, json: { current_password: PASSWORD, new_password: 'too short' } });
    expect(short.status).toBe(400);
    expect((await d.api('/password', { method: 'PUT', as: me, json: { current_password: PASSWORD, new_password: 'a brand new password' } })).status).toBe(204);
    expect((await d.api('/session', { as: other })).status).toBe(401);
    expect((await d.api('/session', { as: me })).status).toBe(200);
    expect((await d.signIn('changer@example.com')).status).toBe(401);
    expect((await d.signIn('changer@example.com', 'a brand new password')).status).toBe(200);
  });

  it('invites through the API (owner): 201 with the link, which shows the invitation', async () => {
    const r = await d.api('/invites', { method: 'POST', as: owner, json: { email: ' New@Example.com ', role: 'accountant' } });
    expect(r.status).toBe(201);
    const data = (await json(r)).data;
    expect(data).toEqual({ id: expect.any(String), email: 'New@Example.com', role: 'accountant', expires_at: expect.any(String), invite_url: expect.any(String) });
    expect(data.invite_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/dashboard\/invite\/[A-Za-z0-9_-]{43}$/);
    const hours = (Date.parse(data.expires_at) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(71.9);
    expect(hours).toBeLessThanOrEqual(72);
    const token = data.invite_url.slice(data.invite_url.lastIndexOf('/') + 1);
    expect((await json(await d.api(`/invites/${token}`))).data.role).toBe('accountant');
    expect((await d.api('/invites/unknown-token')).status).toBe(404);
    const member = await d.api('/invites', { method: 'POST', as: owner, json: { email: 'VIEWER@example.com', role: 'owner' } });
    expect(member.status).toBe(409);
  });

  it('refuses more than 20 invitations an hour per organization with 429', async () => {
    const boss = await d.join(bed.other.organization_id, 'boss@example.com', 'owner'); // invitation 1 of org B
    for (let i = 2; i <= 20; i++) {
      expect((await d.api('/invites', { method: 'POST', as: boss, json: { email: `n${i}@example.com`, role: 'viewer' } })).status).toBe(201);
    }
    const r = await d.api('/invites', { method: 'POST', as: boss, json: { email: 'n21@example.com', role: 'viewer' } });
    expect(r.status).toBe(429);
    expect((await json(r)).error.code).toBe('rate_limited');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(3000);
  });

  it("lists the organization's apps and lets an owner connect one", async () => {
    const list = await json(await d.api('/apps', { as: viewer }));
    expect(list.data).toEqual([{ id: bed.org.connected_app_id, name: 'Org A app', status: 'active', created_at: expect.any(String) }]);
    expect((await d.api('/apps', { method: 'POST', as: viewer, json: { name: 'Mine' } })).status).toBe(403);
    const r = await d.api('/apps', { method: 'POST', as: owner, json: { name: 'Books sync' } });
    expect(r.status).toBe(201);
    expect((await json(r)).data).toMatchObject({ name: 'Books sync', status: 'active' });
    expect((await json(await d.api('/apps', { as: owner }))).data).toHaveLength(2);
    // The key routes (keys-routes.ts) are mounted behind the same session and roles.
    const keys = `/apps/${bed.org.connected_app_id}/keys`;
    expect((await d.api(keys, { method: 'POST', as: viewer, json: {} })).status).toBe(403);
    const key = await d.api(keys, { method: 'POST', as: owner, json: {} });
    expect(key.status).toBe(201);
    expect((await json(key)).data.key).toMatch(/^svc_test_/);
    expect((await d.api(keys, { method: 'POST', as: owner, json: {}, csrf: null })).status).toBe(403);
  });

  it('lists the audit log newest first, to owners only, a page at a time', async () => {
    await d.signIn('owner@example.com', 'a wrong password');
    expect((await d.api('/audit-log', { as: viewer })).status).toBe(403);
    const all = await json(await d.api('/audit-log?limit=100', { as: owner }));
    const actions: string[] = all.data.map((e: { action: string }) => e.action);
    expect(actions[0]).toBe('session.failed');
    for (const a of ['session.created', 'session.failed', 'invite.created', 'invite.accepted', 'member.role_changed', 'member.removed', 'password.changed', 'app.created']) {
      expect(actions).toContain(a);
    }
    expect(all.data[0]).toMatchObject({ actor: { member_id: null, email: 'owner@example.com' }, target: 'owner@example.com', address: expect.any(String) });
    const invite = all.data.find((e: { action: string; actor: { email: string } }) => e.action === 'invite.created' && e.actor.email === 'admin-cli');
    expect(invite.actor.member_id).toBeNull();
    const first = await json(await d.api('/audit-log?limit=2', { as: owner }));
    expect(first.data.map((e: { id: string }) => e.id)).toEqual(all.data.slice(0, 2).map((e: { id: string }) => e.id));
    expect(first.pagination.has_more).toBe(true);
    const next = await json(await d.api(`/audit-log?limit=2&starting_after=${first.data[1].id}`, { as: owner }));
    expect(next.data.map((e: { id: string }) => e.id)).toEqual(all.data.slice(2, 4).map((e: { id: string }) => e.id));
    const back = await json(await d.api(`/audit-log?limit=2&ending_before=${next.data[0].id}`, { as: owner }));
    expect(back.data.map((e: { id: string }) => e.id)).toEqual(all.data.slice(0, 2).map((e: { id: string }) => e.id));
    expect((await d.api('/audit-log?limit=0', { as: owner })).status).toBe(400);
    expect((await d.api(`/audit-log?starting_after=${bed.org.organization_id}`, { as: owner })).status).toBe(400);
  });
});

describe('audit log retention', () => {
  it('deletes entries older than 365 days in batches, keeps the rest', async () => {
    const em = bed.orm.em.fork();
    const insert = (days: number, n: number) =>
      em.execute(
        `INSERT INTO audit_log (id, organization_id, actor_email, action, created_at)
         SELECT gen_random_uuid(), ?, 'admin-cli', 'app.created', now() - make_interval(days => ?) FROM generate_series(1, ?)`,
        [bed.other.organization_id, days, n],
        'run',
      );
    await insert(366, 25);
    await insert(364, 3);
    const count = async (): Promise<number> => {
      const rows: Array<{ n: number }> = await em.execute(
        `SELECT count(*)::int AS n FROM audit_log WHERE action = 'app.created' AND organization_id = ?`,
        [bed.other.organization_id],
        'all',
      );
      return rows[0]!.n;
    };
    expect(await purgeAudit(em, 10, 2)).toBe(20); // bounded: two batches of ten
    expect(await count()).toBe(8);
    expect(await purgeAudit(em, 10, 2)).toBe(5);
    expect(await count()).toBe(3);
  });
});

describe('dashboard API bodies', () => {
  let d: ReturnType<typeof dashboardCalls>;
  let base: string;
  beforeAll(async () => {
    ({ base } = await bed.gateway());
    d = dashboardCalls(bed, base);
  });

  const raw = (path: string, body: string, type = 'application/json') => bed.call(base, `/dashboard/api${path}`, { method: 'POST', body, headers: { 'content-type': type } });

  it.each([
    ['a NUL in a string', JSON.stringify({ email: 'a\u0000@example.com', password: 'x' })],
    ['a lone surrogate', '{"email":"\\ud800@example.com","password":"x"}'],
    ['a huge string', JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(200_000) })],
    ['a huge email', JSON.stringify({ email: `${'a'.repeat(300)}@example.com`, password: 'x' })],
    ['an email of 255 characters', JSON.stringify({ email: `${'a'.repeat(243)}@example.com`, password: 'x' })],
    ['wrong types', JSON.stringify({ email: 5, password: ['x'] })],
    ['an unknown field', JSON.stringify({ email: 'a@example.com', password: 'x', admin: true })],
    ['a missing field', JSON.stringify({ email: 'a@example.com' })],
    ['an array', '[]'],
    ['not JSON', '{"email":'],
    ['a bare string', '"hello"'],
  ])('refuses a sign-in body with %s: 400 validation_failed', async (_name, body) => {
    const r = await raw('/session', body);
    expect(r.status).toBe(400);
    expect((await json(r)).error.code).toBe('validation_failed');
  });

  it('refuses a body that is not application/json (415) and over 1 MiB (413)', async () => {
    expect((await raw('/session', 'email=a', 'application/x-www-form-urlencoded')).status).toBe(415);
    expect((await raw('/session', JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(1_100_000) }))).status).toBe(413);
  });

  it('refuses a bad acceptance before touching the invitation', async () => {
    const token = 'A'.repeat(43);
    for (const body of [
      { name: ' ', password: PASSWORD },
      { name: 'Ann', password: 'short' },
      { name: 'Ann', password: 'x'.repeat(129) },
      { name: 'Ann' },
      { name: 'Ann', password: PASSWORD, role: 'owner' },
    ]) {
      const r = await raw(`/invites/${token}/accept`, JSON.stringify(body));
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 400]);
    }
    expect((await raw(`/invites/${token}/accept`, JSON.stringify({ name: 'Ann', password: PASSWORD }))).status).toBe(404);
    expect((await d.api('/invites/%00')).status).toBe(400);
  });
});
