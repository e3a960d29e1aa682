import fs from 'node:fs';
import path from 'node:path';
import { expect } from '@jest/globals';
import { type Browser, type BrowserContext, type CDPSession, type Page, chromium } from 'playwright-core';
import { runAdminCli } from './admin-cli';
import { CHROMIUM_ARGS, chromiumExecutable } from './chromium';

/**
 * Browser tests of the dashboard (clients/dashboard served by the gateway under /dashboard): a real
 * Chromium driven by playwright-core against a real stack. What a test needs in a few calls:
 *
 *   const browser = await launchDashboardBrowser();
 *   const dash = dashboardUrl(e2e.base);                       // http://localhost:<port>/dashboard
 *   const m = await signedInMember(browser, { base: e2e.base, databaseUrl: e2e.databaseUrl, organizationId, role: 'owner' });
 *   await m.page.goto(`${dash}/keys`);
 *   await m.page.getByRole('button', { name: 'Create a test key' }).waitFor();  // the page has rendered
 *   await checkPage(m.page, 'keys');     // shot (test-artifacts/dashboard/keys.png) then axeCheck
 *   const r = await pageFetch(m.page, 'POST', '/dashboard/api/apps/<id>/keys', {});   // with the CSRF token
 *   const created = apiResponse(m.page, 'POST', '/invites');  // before the click that sends it
 *
 * The pages are rendered by script after `load` (each its own lazy chunk): wait for an element of
 * the page before axeCheck/shot. Contexts from newDashboardContext bound every wait at 10 s.
 * Used by dashboard-identity.e2e.test.ts and dashboard-roles.e2e.test.ts.
 *
 * The dashboard is opened on `localhost`, never 127.0.0.1: WebAuthn refuses an IP address as the
 * relying party id, and the session cookie without `Secure` is set for plain http to localhost.
 */

/** Screenshots of the pages (git-ignored), kept after the run. */
export const DASHBOARD_ARTIFACTS = path.join(__dirname, '..', '..', 'test-artifacts', 'dashboard');

/** A member's password in these tests (12–128 characters). */
export const TEST_PASSWORD = 'correct horse battery staple';

export type DashboardRole = 'owner' | 'developer' | 'accountant' | 'viewer';

/** The stack's address (`http://127.0.0.1:<port>`) as the dashboard is opened: `http://localhost:<port>/dashboard`. */
export function dashboardUrl(base: string): string {
  const u = new URL(base);
  u.hostname = 'localhost';
  return `${u.origin}/dashboard`;
}

/** The origin the dashboard is opened on (`http://localhost:<port>`), for `Origin` checks and the API. */
export function dashboardOrigin(base: string): string {
  return new URL(dashboardUrl(base)).origin;
}

/** Headless Chromium (`chromiumExecutable()`), `localhost` resolved to 127.0.0.1 (the gateway's address). */
export async function launchDashboardBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: await chromiumExecutable(),
    args: [...CHROMIUM_ARGS, '--host-resolver-rules=MAP localhost 127.0.0.1'],
  });
}

/** An invitation link made by the operator CLI (`npm run admin -- invite … --json`), for this stack's dashboard. */
export async function inviteByCli(opts: { base: string; databaseUrl: string; organizationId: string; email: string; role: DashboardRole }): Promise<string> {
  const r = await runAdminCli(
    { DATABASE_URL: opts.databaseUrl, DASHBOARD_URL: dashboardUrl(opts.base) },
    'invite',
    '--org',
    opts.organizationId,
    '--email',
    opts.email,
    '--role',
    opts.role,
    '--json',
  );
  if (r.code !== 0) throw new Error(`admin invite exited ${r.code}: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { invite_url: string }).invite_url;
}

/** Waits for the answer of the dashboard API call `method path` (path under /dashboard/api, e.g. '/session'). */
export function apiResponse(page: Page, method: string, apiPath: string) {
  return page.waitForResponse((r) => r.request().method() === method && new URL(r.url()).pathname === `/dashboard/api${apiPath}`);
}

/** Opens an invitation link, fills name and password, joins: the page ends signed in, on the overview. */
export async function acceptInvite(page: Page, inviteUrl: string, name: string, password = TEST_PASSWORD): Promise<void> {
  await page.goto(inviteUrl);
  await page.getByLabel('Your name').fill(name);
  await page.getByLabel('Choose a password').fill(password);
  const answer = apiResponse(page, 'POST', `/invites/${inviteUrl.split('/').pop()}/accept`);
  await page.getByRole('button', { name: 'Join the organization' }).click();
  const r = await answer;
  if (r.status() !== 201) throw new Error(`accepting the invitation answered ${r.status()}: ${await r.text()}`);
  await page.waitForURL((u) => u.pathname === '/dashboard' || u.pathname === '/dashboard/');
}

/** Signs in through the sign-in form; resolves with the status of `POST /dashboard/api/session`. */
export async function signInWithPassword(page: Page, base: string, email: string, password = TEST_PASSWORD): Promise<number> {
  if (!new URL(page.url()).pathname.startsWith('/dashboard') || !(await page.getByLabel('Password').count())) await page.goto(dashboardUrl(base));
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  const answer = apiResponse(page, 'POST', '/session');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  return (await answer).status();
}

/** Signs out through the app's own control; resolves when `DELETE /dashboard/api/session` answered 204. */
export async function signOut(page: Page): Promise<void> {
  const answer = apiResponse(page, 'DELETE', '/session');
  await page.getByRole('banner').getByRole('button', { name: 'Sign out', exact: true }).click();
  const r = await answer;
  if (r.status() !== 204) throw new Error(`sign-out answered ${r.status()}`);
  await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
}

export interface SignedInMember {
  context: BrowserContext;
  page: Page;
  email: string;
  password: string;
  role: DashboardRole;
}

let memberCount = 0;

/** A fresh browser context (its own cookies), actions and waits bounded at 10 s so a missing element fails fast. */
export async function newDashboardContext(browser: Browser): Promise<BrowserContext> {
  const context = await browser.newContext();
  context.setDefaultTimeout(10_000);
  return context;
}

/** A new member of the organization (invited by the CLI, joined in a new browser context): its page is signed in, on the overview. */
export async function signedInMember(
  browser: Browser,
  opts: { base: string; databaseUrl: string; organizationId: string; role: DashboardRole; email?: string; name?: string },
): Promise<SignedInMember> {
  memberCount += 1;
  const email = opts.email ?? `${opts.role}-${process.pid}-${Date.now()}-${memberCount}@example.com`;
  const url = await inviteByCli({ ...opts, email });
  const context = await newDashboardContext(browser);
  const page = await context.newPage();
  await acceptInvite(page, url, opts.name ?? `Test ${opts.role}`);
  return { context, page, email, password: TEST_PASSWORD, role: opts.role };
}

export interface PageAnswer {
  status: number;
  json: any;
}

/**
 * A dashboard API call from inside the page (its cookie, its origin), with the session's CSRF token
 * (from `GET /dashboard/api/session`) unless `csrf: false`; `headers` are added.
 */
export async function pageFetch(page: Page, method: string, url: string, body?: unknown, opts: { csrf?: boolean; headers?: Record<string, string> } = {}): Promise<PageAnswer> {
  return page.evaluate(
    async ({ method, url, body, csrf, headers }) => {
      const h: Record<string, string> = { ...headers };
      if (csrf) {
        const s = await fetch('/dashboard/api/session');
        if (s.ok) h['CSRF-Token'] = ((await s.json()) as { data: { csrf_token: string } }).data.csrf_token;
      }
      if (body !== undefined) h['content-type'] = 'application/json';
      const r = await fetch(url, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await r.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: r.status, json };
    },
    { method, url, body, csrf: opts.csrf ?? method !== 'GET', headers: opts.headers ?? {} },
  );
}

export interface VirtualAuthenticator {
  cdp: CDPSession;
  authenticatorId: string;
  /** The credentials the authenticator holds (resident keys). */
  credentials(): Promise<unknown[]>;
}

/**
 * A platform authenticator (ctap2, internal, resident keys, user verified, presence simulated) on
 * this page, through CDP: `navigator.credentials` on it create and use passkeys with no prompt.
 */
export async function addVirtualAuthenticator(page: Page): Promise<VirtualAuthenticator> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return {
    cdp,
    authenticatorId,
    credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials,
  };
}

const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/**
 * axe-core on the page as it is: fails (a jest expectation) on any `serious` or `critical`
 * violation, listing each rule, its help and the elements. The dashboard's CSP (`script-src 'self'`)
 * refuses an inline script tag, so axe's source is evaluated through the DevTools protocol
 * (`page.evaluate`), which the page's CSP does not govern: the page's own policy stays as served.
 */
export async function axeCheck(page: Page, label = new URL(page.url()).pathname): Promise<void> {
  await page.waitForLoadState('load');
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const g = globalThis as unknown as { axe: { run(ctx: unknown, o: object): Promise<{ violations: unknown[] }> }; document: unknown };
    const r = await g.axe.run(g.document, { resultTypes: ['violations'] });
    return r.violations as AxeViolation[];
  });
  const bad = violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help}\n${v.nodes.map((n) => `    ${JSON.stringify(n.target)} ${n.failureSummary ?? ''}`.replace(/\n/g, ' ')).join('\n')}`);
  expect({ page: label, violations: bad }).toEqual({ page: label, violations: [] });
}

/** A full-page PNG of the page under test-artifacts/dashboard/<name>.png; resolves with its path. */
export async function shot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(DASHBOARD_ARTIFACTS, { recursive: true });
  const file = path.join(DASHBOARD_ARTIFACTS, `${name.replace(/[^\w.-]+/g, '-')}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** axeCheck then shot: what every visited page gets. */
export async function checkPage(page: Page, name: string): Promise<void> {
  await shot(page, name);
  await axeCheck(page, name);
}
