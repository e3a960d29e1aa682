import http from 'node:http';
import { json } from '../testing/fakes';
import { PASSWORD, adminInvite, dashboardCalls, sessionCookie } from '../testing/dashboard-identity';
import { gatewayBed } from '../testing/int-gateway';
import { sessionResolver, signedIn } from './sessions';
import { dashboardV1Deps } from './v1';

/** The dashboard's sessions through the real gateway app, on real Postgres (docs/dashboard.md). */
const bed = gatewayBed();

/** A raw request with a Host header of our choosing (fetch does not let a caller set Host). */
function rawPost(base: string, path: string, host: string, body: unknown): Promise<{ status: number; setCookie: string[] }> {
  const u = new URL(base);
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: u.hostname, port: u.port, path, method: 'POST', headers: { host, 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, setCookie: res.headers['set-cookie'] ?? [] }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

describe('dashboard sessions', () => {
  let base: string;
  let d: ReturnType<typeof dashboardCalls>;
  beforeAll(async () => {
    ({ base } = await bed.gateway());
    d = dashboardCalls(bed, base);
  });

  it('accepts an invitation made by the admin function: a member, signed in; the link works once', async () => {
    const token = await adminInvite(bed, bed.org.organization_id, 'First@Example.com', 'owner');
    const shown = await d.api(`/invites/${token}`);
    expect(shown.status).toBe(200);
    expect((await json(shown)).data).toEqual({ email: 'First@Example.com', role: 'owner', organization: { name: 'Org A' }, expires_at: expect.any(String) });
    const r = await d.api(`/invites/${token}/accept`, { method: 'POST', json: { name: 'First', password: PASSWORD } });
    expect(r.status).toBe(201);
    const me = await d.signedFrom(r);
    expect(me.member).toMatchObject({ email: 'First@Example.com', role: 'owner', organization_id: bed.org.organization_id, name: 'First' });
    const session = await d.api('/session', { as: me });
    expect(session.status).toBe(200);
    expect((await json(session)).data).toEqual({ member: me.member, csrf_token: me.csrf, organization: { id: bed.org.organization_id, name: 'Org A' } });
    expect((await d.api(`/invites/${token}`)).status).toBe(404);
    expect((await d.api(`/invites/${token}/accept`, { method: 'POST', json: { name: 'Again', password: PASSWORD } })).status).toBe(404);
  });

  it('signs in (email case-insensitive, trimmed) with a local cookie over plain http to 127.0.0.1', async () => {
    await d.join(bed.org.organization_id, 'cookie@example.com', 'viewer');
    const r = await d.signIn('  COOKIE@example.com ');
    expect(r.status).toBe(200);
    const set = r.headers.getSetCookie().find((c) => c.startsWith('dashboard_session='))!;
    expect(set).toMatch(/^dashboard_session=[A-Za-z0-9_-]{43}; /);
    expect(set.split('; ').slice(1).sort()).toEqual(['HttpOnly', 'Max-Age=604800', 'Path=/', 'SameSite=Strict']);
  });

  it('sets __Host-dashboard_session, Secure, for any other host', async () => {
    const r = await rawPost(base, '/dashboard/api/session', 'dashboard.example.com', { email: 'cookie@example.com', password: PASSWORD });
    expect(r.status).toBe(200);
    const set = r.setCookie.find((c) => c.startsWith('__Host-dashboard_session='))!;
    expect(set.split('; ').slice(1).sort()).toEqual(['HttpOnly', 'Max-Age=604800', 'Path=/', 'SameSite=Strict', 'Secure']);
  });

  it('answers a wrong password and an unknown email alike: 401, one message', async () => {
    await d.join(bed.org.organization_id, 'alike@example.com', 'viewer');
    const wrong = await d.signIn('alike@example.com', 'not the password at all');
    const unknown = await d.signIn('nobody-here@example.com', 'not the password at all');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const [a, b] = [(await json(wrong)).error, (await json(unknown)).error];
    expect(a.code).toBe('unauthorized');
    expect(b.code).toBe('unauthorized');
    expect(a.message).toBe(b.message);
    expect(sessionCookie(wrong)).toBeNull();
  });

  it('refuses an email with 429 and Retry-After after 5 failures within 15 minutes, the right password too', async () => {
    await d.join(bed.org.organization_id, 'limited@example.com', 'viewer');
    for (let i = 0; i < 5; i++) expect((await d.signIn('limited@example.com', `wrong password ${i}`)).status).toBe(401);
    const r = await d.signIn('Limited@Example.com');
    expect(r.status).toBe(429);
    expect((await json(r)).error.code).toBe('rate_limited');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(800);
    // An unknown email is limited the same way (the answer does not tell which emails exist).
    for (let i = 0; i < 5; i++) await d.signIn('ghost@example.com', 'wrong password');
    expect((await d.signIn('ghost@example.com', 'wrong password')).status).toBe(429);
    // Another email is not.
    expect((await d.signIn('alike@example.com')).status).toBe(200);
  });

  it('gives a new session id at every sign-in and ends the one the request carried', async () => {
    const first = await d.signedFrom(await d.signIn('cookie@example.com'));
    const r = await d.api('/session', { method: 'POST', json: { email: 'cookie@example.com', password: PASSWORD }, headers: { cookie: first.cookie } });
    const second = await d.signedFrom(r);
    expect(second.cookie).not.toBe(first.cookie);
    expect(second.csrf).not.toBe(first.csrf);
    expect((await d.api('/session', { as: first })).status).toBe(401);
    expect((await d.api('/session', { as: second })).status).toBe(200);
  });

  it('signs out: 204, the cookie cleared, the old cookie then 401', async () => {
    const me = await d.signedFrom(await d.signIn('cookie@example.com'));
    const r = await d.api('/session', { method: 'DELETE', as: me });
    expect(r.status).toBe(204);
    expect(r.headers.getSetCookie().find((c) => c.startsWith('dashboard_session='))).toMatch(/^dashboard_session=; .*Max-Age=0/);
    const after = await d.api('/session', { as: me });
    expect(after.status).toBe(401);
    expect((await json(after)).error.code).toBe('unauthorized');
    expect((await d.api('/session', { headers: { cookie: 'dashboard_session=not-a-session' } })).status).toBe(401);
  });

  it('ends every session of the member with DELETE /sessions', async () => {
    const a = await d.signedFrom(await d.signIn('cookie@example.com'));
    const b = await d.signedFrom(await d.signIn('cookie@example.com'));
    expect((await d.api('/sessions', { method: 'DELETE', as: a })).status).toBe(204);
    expect((await d.api('/session', { as: a })).status).toBe(401);
    expect((await d.api('/session', { as: b })).status).toBe(401);
  });

  it('refuses a write without the CSRF token, with a wrong one, or from another Origin: 403', async () => {
    const me = await d.join(bed.org.organization_id, 'csrf@example.com', 'viewer');
    for (const init of [{ csrf: null }, { csrf: 'x'.repeat(43) }, { headers: { origin: 'https://evil.example' } }]) {
      const r = await d.api('/session', { method: 'DELETE', as: me, ...init });
      expect([JSON.stringify(init), r.status]).toEqual([JSON.stringify(init), 403]);
      expect((await json(r)).error.code).toBe('forbidden');
    }
    // A sign-in from another origin too (login CSRF).
    expect((await d.api('/session', { method: 'POST', json: { email: 'csrf@example.com', password: PASSWORD }, headers: { origin: 'https://evil.example' } })).status).toBe(403);
    expect((await d.api('/session', { method: 'DELETE', as: me, headers: { origin: base } })).status).toBe(204);
  });

  it('ends a session idle for 12 hours, and any session after 7 days', async () => {
    const me = await d.join(bed.org.organization_id, 'idle@example.com', 'viewer');
    const again = await d.signedFrom(await d.signIn('idle@example.com'));
    const em = bed.orm.em.fork();
    await em.execute(`UPDATE dashboard_sessions SET last_seen_at = now() - interval '11 hours' WHERE member_id = ?`, [me.member.id], 'run');
    expect((await d.api('/session', { as: me })).status).toBe(200); // seen now: the idle clock restarts
    await em.execute(`UPDATE dashboard_sessions SET last_seen_at = now() - interval '12 hours 1 minute' WHERE member_id = ?`, [me.member.id], 'run');
    expect((await d.api('/session', { as: me })).status).toBe(401);
    expect((await d.api('/session', { as: again })).status).toBe(401);
    const third = await d.signedFrom(await d.signIn('idle@example.com'));
    await em.execute(`UPDATE dashboard_sessions SET created_at = now() - interval '7 days 1 minute' WHERE member_id = ? AND ended_at IS NULL`, [me.member.id], 'run');
    expect((await d.api('/session', { as: third })).status).toBe(401);
  });

  it('answers unknown /dashboard/api paths with 404 in the envelope', async () => {
    const r = await d.api('/nothing-here');
    expect(r.status).toBe(404);
    expect((await json(r)).error.code).toBe('not_found');
  });

  it('serves the passkey routes behind the session, and /dashboard/api/v1 with the same session', async () => {
    expect((await d.api('/passkeys')).status).toBe(401);
    const options = await d.api('/session/passkey/options', { method: 'POST', json: {} });
    expect(options.status).toBe(200);
    expect((await json(options)).data.challenge).toEqual(expect.any(String));
    const me = await d.join(bed.org.organization_id, 'v1@example.com', 'developer');
    expect((await json(await d.api('/passkeys', { as: me }))).data).toEqual([]);
    const { base: both } = await bed.gateway({ dashboard: dashboardV1Deps(bed.orm, signedIn(sessionResolver(bed.orm)), 200) });
    const v1 = dashboardCalls(bed, both);
    expect((await v1.api('/v1/customers')).status).toBe(401);
    const r = await v1.api('/v1/customers', { as: me });
    expect(r.status).toBe(200);
    expect(bed.received.at(-1)?.ctx).toMatchObject({ organizationId: bed.org.organization_id, environment: 'test', apiKeyId: me.member.id });
    expect((await v1.api('/members', { as: me })).status).toBe(403); // the identity API beside it
  });
});
