import type { Browser, Page } from 'playwright-core';
import {
  type SignedInMember,
  acceptInvite,
  apiResponse,
  checkPage,
  dashboardOrigin,
  dashboardUrl,
  inviteByCli,
  launchDashboardBrowser,
  newDashboardContext,
  pageFetch,
  signInWithPassword,
  signOut,
  signedInMember,
} from '../support/dashboard-browser';
import { type Keys, bootstrapOrg, client, type E2E, startE2E } from './harness';
import { E2E_ENV, expectStatus } from './receivables.helpers';

/**
 * The dashboard's roles and its security checks in a real Chromium against a real stack (issue #44
 * "Tests", docs/dashboard.md "Roles" and "The JSON API"): what a viewer and an accountant see and are
 * refused, the last owner, the sign-in limit, CSRF and Origin checks, a cookie after sign-out, and the
 * audit log that records it all. Every page visited is checked by axe-core and kept as a screenshot.
 */
describe('e2e: dashboard roles and security', () => {
  let e2e: E2E;
  let keys: Keys;
  let browser: Browser;
  let dash: string;
  let owner: SignedInMember;
  let viewerEmail: string;

  beforeAll(async () => {
    [e2e, browser] = await Promise.all([startE2E(E2E_ENV), launchDashboardBrowser()]);
    keys = await bootstrapOrg(e2e.databaseUrl, 'Roles org');
    dash = dashboardUrl(e2e.base);
    owner = await signedInMember(browser, { base: e2e.base, databaseUrl: e2e.databaseUrl, organizationId: keys.organization_id, role: 'owner' });
  });
  afterAll(async () => {
    await browser?.close();
    await e2e?.stop();
  });

  const appKeys = () => `/dashboard/api/apps/${keys.connected_app_id}/keys`;
  const joined = async (url: string, name: string): Promise<Page> => {
    const page = await (await newDashboardContext(browser)).newPage();
    await acceptInvite(page, url, name);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    return page;
  };

  it('a viewer (invited on the Members page) has no keys and is refused writes; an accountant sets the lock date but not keys', async () => {
    const { page } = owner;
    await page.goto(`${dash}/members`);
    viewerEmail = `viewer-${Date.now()}@example.com`;
    await page.locator('#invite-email').fill(viewerEmail);
    await page.locator('#invite-role').selectOption('viewer');
    const invited = apiResponse(page, 'POST', '/invites');
    await page.getByRole('button', { name: 'Create the invitation' }).click();
    expect((await invited).status()).toBe(201);
    const viewerUrl = (await page.getByTestId('secret-value').textContent())!.trim();
    await checkPage(page, 'members');

    const viewer = await joined(viewerUrl, 'Vera Viewer');
    const nav = viewer.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Settings' }).waitFor();
    expect(await nav.getByRole('link', { name: 'Keys' }).count()).toBe(0);
    await viewer.goto(`${dash}/keys`);
    await viewer.getByRole('heading', { name: 'Page not found' }).waitFor();
    expect(await viewer.getByRole('button', { name: /Create a .* key/ }).count()).toBe(0);
    for (const url of ['/dashboard/api/v1/invoices', appKeys()]) {
      const refused = await pageFetch(viewer, 'POST', url, {});
      expect([url, refused.status, refused.json?.error?.code]).toEqual([url, 403, 'forbidden']);
    }

    const accountantUrl = await inviteByCli({
      base: e2e.base,
      databaseUrl: e2e.databaseUrl,
      organizationId: keys.organization_id,
      email: `accountant-${Date.now()}@example.com`,
      role: 'accountant',
    });
    const accountant = await joined(accountantUrl, 'Ada Accountant');
    // The form takes the current lock date when it has loaded: until then it takes no input (a date
    // typed in before was replaced by the loaded one, and saved as a cleared lock when there was none).
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await accountant.route('**/dashboard/api/v1/settings/books-lock', async (route) => (route.request().method() === 'GET' ? held.then(() => route.continue()) : route.continue()));
    const asked = accountant.waitForRequest((r) => r.method() === 'GET' && r.url().endsWith('/v1/settings/books-lock'));
    await accountant.goto(`${dash}/settings`);
    await asked;
    expect(await accountant.locator('#lock-date').isDisabled()).toBe(true);
    release();
    await accountant.locator('#lock-date').fill('2026-01-31');
    const saved = apiResponse(accountant, 'PUT', '/v1/settings/books-lock');
    await accountant.getByRole('button', { name: 'Save the lock date' }).click();
    expect((await saved).status()).toBe(200);
    await accountant.getByText('The books are locked up to and including 2026-01-31.').waitFor();
    await checkPage(accountant, 'settings');
    const lock = await client(e2e.base, keys.test_key)('GET', '/api/v1/settings/books-lock');
    expectStatus(lock, 200);
    expect(lock.json.data.lock_date).toBe('2026-01-31');
    expect((await pageFetch(accountant, 'POST', appKeys(), {})).status).toBe(403);
    expect((await pageFetch(accountant, 'GET', appKeys())).status).toBe(403);
    await viewer.context().close();
    await accountant.context().close();
  });

  it('the owner changes a role on the Members page; the last owner cannot leave (409, the page says why)', async () => {
    const { page } = owner;
    await page.goto(`${dash}/members`);
    await page.getByLabel(`Role of ${viewerEmail}`).selectOption('accountant');
    const changed = page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().includes('/dashboard/api/members/'));
    await page.getByRole('button', { name: 'Change to accountant' }).click();
    expect((await changed).status()).toBe(200);
    await page.getByText(`${viewerEmail} is now accountant.`).waitFor();

    const me = (await pageFetch(page, 'GET', '/dashboard/api/session')).json.data.member as { id: string };
    await page.getByRole('row').filter({ hasText: owner.email }).getByRole('button', { name: 'Leave' }).click();
    const left = apiResponse(page, 'DELETE', `/members/${me.id}`);
    await page.getByRole('button', { name: `Remove ${owner.email} now` }).click();
    const r = await left;
    expect(r.status()).toBe(409);
    const message = ((await r.json()) as { error: { code: string; message: string } }).error;
    expect(message.code).toBe('conflict');
    await page.getByRole('alert').filter({ hasText: message.message }).waitFor();
    expect((await pageFetch(page, 'DELETE', `/dashboard/api/members/${me.id}`)).status).toBe(409);
  });

  it('the 6th sign-in after 5 wrong passwords for an email is 429, in the page and by the API', async () => {
    const page = await (await newDashboardContext(browser)).newPage();
    for (let i = 0; i < 5; i += 1) expect(await signInWithPassword(page, e2e.base, viewerEmail, 'not the right password')).toBe(401);
    const wrong = (await page.getByRole('alert').textContent())!.replace(/\s*\(request id.*$/, '');
    // One message whether the email is unknown or the password wrong.
    const unknown = await fetch(`${e2e.base}/dashboard/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `nobody-${Date.now()}@example.com`, password: 'not the right password' }),
    });
    expect(unknown.status).toBe(401);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toBe(wrong);
    // The 6th attempt is refused even with the right password: the limit is not an oracle.
    expect(await signInWithPassword(page, e2e.base, viewerEmail)).toBe(429);
    await page
      .getByRole('alert')
      .filter({ hasText: /too many|try again/i })
      .waitFor();
    await checkPage(page, 'sign-in-rate-limited');
    const r = await fetch(`${e2e.base}/dashboard/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: viewerEmail, password: 'x'.repeat(12) }),
    });
    expect(r.status).toBe(429);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    await page.context().close();
  });

  it('refuses a write without the CSRF token or from another origin, and a session cookie after sign-out or a password change', async () => {
    const { page } = owner;
    const invite = { email: `csrf-${Date.now()}@example.com`, role: 'viewer' };
    const noCsrf = await pageFetch(page, 'POST', '/dashboard/api/invites', invite, { csrf: false });
    expect([noCsrf.status, noCsrf.json?.error?.code]).toEqual([403, 'forbidden']);

    const cookieHeader = async (p: Page) => (await p.context().cookies(dashboardOrigin(e2e.base))).map((c) => `${c.name}=${c.value}`).join('; ');
    const csrf = (await pageFetch(page, 'GET', '/dashboard/api/session')).json.data.csrf_token as string;
    const post = async (origin: string) =>
      (
        await fetch(`${dashboardOrigin(e2e.base)}/dashboard/api/invites`, {
          method: 'POST',
          headers: { cookie: await cookieHeader(page), 'csrf-token': csrf, origin, 'content-type': 'application/json' },
          body: JSON.stringify(invite),
        })
      ).status;
    expect(await post('http://evil.example')).toBe(403);
    expect(await post(dashboardOrigin(e2e.base))).toBe(201);

    // A second session of the owner: its cookie, kept, is refused once it signed out.
    const other = await (await newDashboardContext(browser)).newPage();
    expect(await signInWithPassword(other, e2e.base, owner.email)).toBe(200);
    const saved = await cookieHeader(other);
    const session = (cookie: string) => fetch(`${e2e.base}/dashboard/api/session`, { headers: { cookie } }).then((r) => r.status);
    expect(await session(saved)).toBe(200);
    await signOut(other);
    expect(await session(saved)).toBe(401);

    // A password changed on the Account page ends the member's other sessions, not this one.
    expect(await signInWithPassword(other, e2e.base, owner.email)).toBe(200);
    const second = await cookieHeader(other);
    await page.goto(`${dash}/account`);
    await page.getByLabel('Current password').fill(owner.password);
    await page.getByLabel('New password').fill(`${owner.password} 2`);
    const changed = apiResponse(page, 'PUT', '/password');
    await page.getByRole('button', { name: 'Change the password' }).click();
    expect((await changed).status()).toBe(204);
    await page.getByText('Password changed. Your other sessions have ended.').waitFor();
    owner.password = `${owner.password} 2`;
    expect(await session(second)).toBe(401);
    expect(await session(await cookieHeader(page))).toBe(200);
    await other.context().close();
  });

  it('the audit log page lists sign-ins, failed sign-ins, invitations, the role change, keys and the lock date', async () => {
    const { page } = owner;
    const made = await pageFetch(page, 'POST', appKeys(), {});
    expect(made.status).toBe(201);
    const rolled = await pageFetch(page, 'POST', `${appKeys()}/${made.json.data.id}/roll`, { expire_current_in_hours: 1 });
    expect(rolled.status).toBe(201);
    expect((await pageFetch(page, 'DELETE', `${appKeys()}/${rolled.json.data.id}`)).status).toBe(200);

    await page.goto(`${dash}/audit-log`);
    await page.getByRole('table').waitFor();
    await checkPage(page, 'audit-log');
    const seen = new Set<string>();
    for (let n = 2; ; n += 1) {
      for (const a of await page.locator('table tbody tr td:nth-child(3)').allTextContents()) seen.add(a.trim());
      const next = page.getByRole('navigation', { name: 'Audit log pages' }).getByRole('button', { name: 'Next' });
      if (await next.isDisabled()) break;
      const loaded = apiResponse(page, 'GET', '/audit-log');
      await next.click();
      await loaded;
      await page.getByText(`Page ${n}`, { exact: true }).waitFor();
    }
    const wanted = [
      'session.created',
      'session.failed',
      'session.ended',
      'invite.created',
      'invite.accepted',
      'member.role_changed',
      'api_key.created',
      'api_key.rolled',
      'api_key.revoked',
      'books_lock.updated',
    ];
    expect(wanted.filter((a) => !seen.has(a))).toEqual([]);
  });
});
