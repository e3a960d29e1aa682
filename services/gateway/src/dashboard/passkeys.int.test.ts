import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import { type Browser, type Page, chromium } from 'playwright-core';
import { type Orm, migrate } from '@acct/kit';
import { CHROMIUM_ARGS, chromiumExecutable, freshDatabase, type TestDatabase } from '@acct/testing';
import { createOrganization } from '../admin/admin';
import { loadGatewayConfig } from '../config';
import { openGatewayOrm } from '../db';
import { parseJson } from '../middlewares/body';
import type { Ctx, Middleware } from '../middlewares/state';
import { appOf, json, serve, type Served } from '../testing/fakes';
import { PASSKEY_ROUTES, SIGN_IN_FAILED_MESSAGE, passkeyHandlers, relyingParty } from './passkeys-routes';
import type { Member, Role } from './types';

/**
 * Passkeys against real Postgres and a real authenticator: Chromium's virtual one (CTAP2, resident
 * keys, user verification) through CDP, on a page served by a small Koa app that mounts the passkey
 * handlers; the page calls navigator.credentials through @simplewebauthn/browser. The session is a
 * test double (sessions.ts makes the real one); so is the signed-in member (header X-Test-Member).
 */

/** The library's browser bundle (its exports map hides the file: found from the package's entry). */
const BUNDLE = path.join(path.dirname(require.resolve('@simplewebauthn/browser')), '..', 'dist', 'bundle', 'index.umd.min.js');
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>passkeys</title>
<script src="/swa.js"></script><script src="/page.js"></script></head><body></body></html>`;
/** The page's helpers, on window.t. */
const SCRIPT = `
const api = async (method, path, body, member) => {
  const headers = { 'content-type': 'application/json' };
  if (member) headers['x-test-member'] = member;
  const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
};
window.t = {
  api,
  async createCredential(member) {
    const o = await api('POST', '/dashboard/api/passkeys/options', {}, member);
    if (o.status !== 200) throw new Error(JSON.stringify(o));
    return SimpleWebAuthnBrowser.startRegistration({ optionsJSON: o.body.data });
  },
  async register(member, name) {
    return api('POST', '/dashboard/api/passkeys', { name, response: await this.createCredential(member) }, member);
  },
  async getAssertion() {
    const o = await api('POST', '/dashboard/api/session/passkey/options', {});
    if (o.status !== 200) throw new Error(JSON.stringify(o));
    return SimpleWebAuthnBrowser.startAuthentication({ optionsJSON: o.body.data });
  },
  signIn: (response) => api('POST', '/dashboard/api/session/passkey', { response }),
};`;

type Reply = { status: number; body: any };
type PageApi = {
  api: (method: string, path: string, body?: unknown, member?: string) => Promise<Reply>;
  createCredential: (member: string) => Promise<any>;
  register: (member: string, name?: string) => Promise<Reply>;
  getAssertion: () => Promise<any>;
  signIn: (response: unknown) => Promise<Reply>;
};
/** Runs one of the page's helpers in the page. */
const inPage = <K extends keyof PageApi>(page: Page, name: K, ...args: Parameters<PageApi[K]>): ReturnType<PageApi[K]> =>
  page.evaluate(([n, a]) => (globalThis as any).t[n](...a), [name, args] as const) as ReturnType<PageApi[K]>;

let db: TestDatabase;
let orm: Orm;
let served: Served;
let browser: Browser;
let origin: string;
let orgId: string;
const started: string[] = [];
const members: Record<'alice' | 'bob' | 'carol', Member> = {} as never;

async function addMember(name: string, role: Role): Promise<Member> {
  const m: Member = { id: randomUUID(), organizationId: orgId, email: `${name}@example.com`, name, role, createdAt: new Date() };
  await orm.em.execute(`INSERT INTO members (id, organization_id, email, name, role, password_hash, created_at) VALUES (?, ?, ?, ?, ?, 'x', ?)`, [
    m.id,
    m.organizationId,
    m.email,
    m.name,
    m.role,
    m.createdAt,
  ]);
  return m;
}

/** The test's sign-in: X-Test-Member names the member (sessions.ts's middleware in the gateway). */
const asMember: Middleware = async (ctx, next) => {
  const id = ctx.get('x-test-member');
  const member = Object.values(members).find((m) => m.id === id);
  if (member) ctx.state.dashboard = { member, idHash: 'test', csrfToken: 'test' };
  await next();
};

const startSession = async (ctx: Ctx, member: Member) => {
  started.push(member.id);
  ctx.cookies.set('dashboard_session', 'test', { httpOnly: true, sameSite: 'strict' });
  return { csrf_token: `csrf-${member.id}` };
};

/** A tab on the test page with its own virtual authenticator. */
async function authenticatorPage(): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  await page.goto(`${origin}/`);
  return page;
}

const auditOf = (action: string) =>
  orm.em.execute<Array<{ actor_member_id: string; target: string }>>(`SELECT actor_member_id, target FROM audit_log WHERE action = ? ORDER BY seq`, [action]);
const expireChallenges = () => orm.em.execute(`UPDATE webauthn_challenges SET expires_at = now() - interval '1 second'`, [], 'run');

beforeAll(async () => {
  db = await freshDatabase('acct_passkeys');
  orm = await openGatewayOrm(db.url, 2);
  await migrate(orm);
  orgId = (await createOrganization(orm.em.fork(), 'Passkeys')).id;
  members.alice = await addMember('alice', 'owner');
  members.bob = await addMember('bob', 'viewer');
  members.carol = await addMember('carol', 'developer');

  const handlers = passkeyHandlers({ orm, startSession });
  const router = new Router();
  for (const r of PASSKEY_ROUTES) router.register(r.path, [r.method], [parseJson as never, handlers[r.handler] as never]);
  router.get('/', (ctx) => void ((ctx.type = 'text/html'), (ctx.body = PAGE)));
  router.get('/page.js', (ctx) => void ((ctx.type = 'text/javascript'), (ctx.body = SCRIPT)));
  router.get('/swa.js', (ctx) => void ((ctx.type = 'text/javascript'), (ctx.body = fs.createReadStream(BUNDLE))));
  served = await serve(appOf(asMember, router.routes() as unknown as Middleware));
  // The page must be on localhost (a secure context, and a valid relying party id).
  origin = served.base.replace('127.0.0.1', 'localhost');
  browser = await chromium.launch({ executablePath: await chromiumExecutable(), args: CHROMIUM_ARGS });
});

afterAll(async () => {
  await browser?.close();
  await served?.close();
  await orm?.close(true);
  await db?.drop();
});

describe('passkeys (WebAuthn) with a real authenticator', () => {
  let alice: Page;
  let aliceKey: string;

  it('registers a passkey for the signed-in member, and lists it', async () => {
    alice = await authenticatorPage();
    const r = await inPage(alice, 'register', members.alice.id, 'Laptop');
    expect(r.status).toBe(201);
    expect(r.body.data).toEqual({ id: expect.stringMatching(/^[A-Za-z0-9_-]+$/), name: 'Laptop', created_at: expect.any(String), last_used_at: null });
    aliceKey = r.body.data.id;
    const list = await inPage(alice, 'api', 'GET', '/dashboard/api/passkeys', undefined, members.alice.id);
    expect(list).toEqual({ status: 200, body: { data: [r.body.data], pagination: { limit: 25, offset: 0, count: 1, has_more: false } } });
    expect(await auditOf('passkey.registered')).toEqual([{ actor_member_id: members.alice.id, target: aliceKey }]);
    // Registration options: the member's passkeys excluded, the relying party the page's host.
    const o = await inPage(alice, 'api', 'POST', '/dashboard/api/passkeys/options', {}, members.alice.id);
    expect(o.body.data).toMatchObject({
      rp: { name: 'Accounting API dashboard', id: 'localhost' },
      user: { id: Buffer.from(members.alice.id.replace(/-/g, ''), 'hex').toString('base64url'), name: 'alice@example.com', displayName: 'alice' },
      excludeCredentials: [{ id: aliceKey, type: 'public-key' }],
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    });
  });

  it('signs in with the passkey: the session starts for its member, the counter and last use move', async () => {
    const options = await inPage(alice, 'api', 'POST', '/dashboard/api/session/passkey/options', {});
    expect(options.body.data).toMatchObject({ rpId: 'localhost', allowCredentials: [], userVerification: 'preferred' });
    const r = await inPage(alice, 'signIn', await inPage(alice, 'getAssertion'));
    expect(r.status).toBe(200);
    const { alice: m } = members;
    expect(r.body).toEqual({
      data: { member: { id: m.id, email: m.email, name: m.name, role: 'owner', organization_id: orgId, created_at: m.createdAt.toISOString() }, csrf_token: `csrf-${m.id}` },
    });
    expect(started).toEqual([m.id]);
    const [row] = await orm.em.execute<[{ counter: string; last_used_at: Date | null }]>(`SELECT counter, last_used_at FROM passkeys WHERE id = ?`, [aliceKey]);
    expect(row.last_used_at).not.toBeNull();
    expect(Number(row.counter)).toBeGreaterThan(0);
    expect(await auditOf('session.created')).toEqual([{ actor_member_id: m.id, target: aliceKey }]);
    expect((await orm.em.execute(`SELECT count(*)::int AS n FROM webauthn_challenges WHERE purpose = 'authentication'`))[0]!.n).toBe(1); // the unused one
  });

  it('refuses a replayed assertion with 401 and the message of a wrong password', async () => {
    const assertion = await inPage(alice, 'getAssertion');
    expect((await inPage(alice, 'signIn', assertion)).status).toBe(200);
    const again = await inPage(alice, 'signIn', assertion);
    expect(again.status).toBe(401);
    expect(again.body.error).toMatchObject({ code: 'unauthorized', message: SIGN_IN_FAILED_MESSAGE });
    expect(started).toHaveLength(2);
    expect(await auditOf('session.failed')).toEqual([{ actor_member_id: members.alice.id, target: aliceKey }]);
  });

  it('refuses a tampered signature with 401', async () => {
    const assertion = await inPage(alice, 'getAssertion');
    const sig = Buffer.from(assertion.response.signature, 'base64url');
    sig[sig.length - 1]! ^= 1;
    const r = await inPage(alice, 'signIn', { ...assertion, response: { ...assertion.response, signature: sig.toString('base64url') } });
    expect(r).toMatchObject({ status: 401, body: { error: { code: 'unauthorized', message: SIGN_IN_FAILED_MESSAGE } } });
  });

  it('refuses a challenge past its 5 minutes, for sign-in (401) and for registration (400)', async () => {
    const assertion = await inPage(alice, 'getAssertion');
    await expireChallenges();
    expect((await inPage(alice, 'signIn', assertion)).status).toBe(401);

    const carol = await authenticatorPage();
    const credential = await inPage(carol, 'createCredential', members.carol.id);
    await expireChallenges();
    const r = await inPage(carol, 'api', 'POST', '/dashboard/api/passkeys', { response: credential }, members.carol.id);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'validation_failed', details: [{ field: '/response', issue: 'verification_failed' }] });
    // The expired challenge is gone with its use: a fresh one works.
    expect((await orm.em.execute(`SELECT count(*)::int AS n FROM webauthn_challenges WHERE member_id = ?`, [members.carol.id]))[0]!.n).toBe(0);
    await carol.context().close();
  });

  it("cannot delete another member's passkey (404); deletes its own (204), which then signs in no one", async () => {
    const bob = await authenticatorPage();
    const reg = await inPage(bob, 'register', members.bob.id);
    expect(reg.status).toBe(201);
    expect(reg.body.data.name).toBe('Passkey');
    const bobKey = reg.body.data.id as string;

    const foreign = await inPage(alice, 'api', 'DELETE', `/dashboard/api/passkeys/${bobKey}`, undefined, members.alice.id);
    expect(foreign).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    expect((await inPage(bob, 'api', 'GET', '/dashboard/api/passkeys', undefined, members.bob.id)).body.data).toHaveLength(1);

    expect((await inPage(bob, 'api', 'DELETE', `/dashboard/api/passkeys/${bobKey}`, undefined, members.bob.id)).status).toBe(204);
    expect((await inPage(bob, 'api', 'GET', '/dashboard/api/passkeys', undefined, members.bob.id)).body.data).toEqual([]);
    expect(await auditOf('passkey.removed')).toEqual([{ actor_member_id: members.bob.id, target: bobKey }]);

    // The authenticator still holds the credential; the dashboard no longer knows it.
    const r = await inPage(bob, 'signIn', await inPage(bob, 'getAssertion'));
    expect(r).toMatchObject({ status: 401, body: { error: { code: 'unauthorized', message: SIGN_IN_FAILED_MESSAGE } } });
    await bob.context().close();
  });
});

describe('passkey bodies and lists', () => {
  const call = (method: string, p: string, body?: unknown, member?: Member) =>
    served.call(p, { method, ...(body !== undefined ? { json: body } : {}), headers: member ? { 'x-test-member': member.id } : {} });
  const credential = (over: Record<string, unknown> = {}) => ({
    id: 'AAAA',
    rawId: 'AAAA',
    type: 'public-key',
    response: { clientDataJSON: 'e30', attestationObject: 'oA', authenticatorData: 'AAAA', signature: 'AAAA' },
    clientExtensionResults: {},
    ...over,
  });

  it.each([
    ['no response', {}],
    ['a response that is not an object', { response: 'x' }],
    ['an id that is not base64url', { response: credential({ id: 'a+b/' }) }],
    ['a type other than public-key', { response: credential({ type: 'password' }) }],
    ['no attestationObject', { response: credential({ response: { clientDataJSON: 'e30' } }) }],
    ['bytes that are no attestation', { response: credential() }],
    ['a name that is not text', { name: 5, response: credential() }],
    ['an empty name', { name: ' ', response: credential() }],
    ['an unknown field', { response: credential(), extra: 1 }],
  ])('registration refuses %s with 400', async (_what, body) => {
    const r = await call('POST', '/dashboard/api/passkeys', body, members.carol);
    expect(r.status).toBe(400);
    expect((await json(r)).error.code).toBe('validation_failed');
  });

  it('refuses a body that is not an object, and options with a body, with 400', async () => {
    expect((await call('POST', '/dashboard/api/session/passkey', [1])).status).toBe(400);
    expect((await call('POST', '/dashboard/api/session/passkey/options', { x: 1 })).status).toBe(400);
    expect((await call('POST', '/dashboard/api/session/passkey', { response: credential({ rawId: 5 }) })).status).toBe(400);
  });

  it('answers 401 to a well-formed assertion of an unknown credential, and to the signed-in routes without a member', async () => {
    const r = await call('POST', '/dashboard/api/session/passkey', { response: credential() });
    expect(r.status).toBe(401);
    expect((await json(r)).error.message).toBe(SIGN_IN_FAILED_MESSAGE);
    expect((await call('GET', '/dashboard/api/passkeys')).status).toBe(401);
    expect((await call('POST', '/dashboard/api/passkeys/options', {})).status).toBe(401);
  });

  it('pages a member’s passkeys with limit, starting_after and ending_before', async () => {
    const carol = members.carol;
    const ids = ['k1', 'k2', 'k3'];
    for (const [i, id] of ids.entries()) {
      await orm.em.execute(`INSERT INTO passkeys (id, member_id, public_key, created_at) VALUES (?, ?, '\\x00', now() + make_interval(secs => ?))`, [id, carol.id, i]);
    }
    const idsOf = async (q: string) => {
      const r = await call('GET', `/dashboard/api/passkeys${q}`, undefined, carol);
      const b = await json(r);
      return { status: r.status, ids: b.data?.map((p: { id: string }) => p.id), has_more: b.pagination?.has_more };
    };
    expect(await idsOf('?limit=2')).toEqual({ status: 200, ids: ['k1', 'k2'], has_more: true });
    expect(await idsOf('?limit=2&starting_after=k2')).toEqual({ status: 200, ids: ['k3'], has_more: false });
    expect(await idsOf('?limit=1&ending_before=k3')).toEqual({ status: 200, ids: ['k2'], has_more: true });
    expect(await idsOf('?ending_before=k2')).toEqual({ status: 200, ids: ['k1'], has_more: false });
    for (const q of ['?limit=0', '?limit=101', '?limit=x', `?starting_after=${'k9'}`, '?starting_after=k1&ending_before=k3', '?other=1']) {
      expect((await idsOf(q)).status).toBe(400);
    }
    // Another member's passkey is no cursor of this list.
    const [alices] = await orm.em.execute<[{ id: string }]>(`SELECT id FROM passkeys WHERE member_id = ?`, [members.alice.id]);
    expect((await idsOf(`?starting_after=${alices.id}`)).status).toBe(400);
  });

  it('binds passkeys to DASHBOARD_ORIGIN when set, else to the request’s own origin', () => {
    // The request's Origin header (Koa 3's ctx.origin) plays no part.
    const ctx = { protocol: 'http', host: 'localhost:3000', hostname: 'localhost', origin: 'https://evil.example' } as Ctx;
    expect(relyingParty(ctx, 'https://dashboard.example.com:8443')).toEqual({ origin: 'https://dashboard.example.com:8443', rpID: 'dashboard.example.com' });
    expect(relyingParty(ctx)).toEqual({ origin: 'http://localhost:3000', rpID: 'localhost' });
    expect(relyingParty(ctx, '')).toEqual({ origin: 'http://localhost:3000', rpID: 'localhost' });
    // The setting is an origin: no path, no other scheme; unset is empty (the request's origin).
    expect(loadGatewayConfig({}).DASHBOARD_ORIGIN).toBe('');
    expect(loadGatewayConfig({ DASHBOARD_ORIGIN: 'https://dashboard.example.com:8443' }).DASHBOARD_ORIGIN).toBe('https://dashboard.example.com:8443');
    for (const bad of ['dashboard.example.com', 'https://dashboard.example.com/', 'ftp://x.example.com', 'https://a.example.com/path']) {
      expect(() => loadGatewayConfig({ DASHBOARD_ORIGIN: bad })).toThrow(/DASHBOARD_ORIGIN/);
    }
  });
});
