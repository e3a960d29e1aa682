/**
 * The dashboard's page weight and time to interactive (issue #44's budget: the first page under
 * 200 KB of compressed JavaScript, interactive in under 1 s on a local stack), measured in a real
 * Chromium (playwright-core) with the cache empty: each load is a new browser context, its cache
 * disabled through the DevTools protocol.
 *
 *   JS bytes        the bytes on the wire (compressed, as the gateway sent them: brotli) of every
 *                   script the page loaded until the network went quiet: the entry, its preloaded
 *                   chunks and the chunks imported later (the overview's page and Chart.js), from
 *                   CDP `Network.loadingFinished` `encodedDataLength` (headers included)
 *   interactive     from the navigation's start to the first frame where the page's main control
 *                   is shown and usable: the sign-in page's enabled "Sign in" button; the overview's
 *                   heading and main navigation (the app's shell and the page's chunk ran)
 *   complete        the overview only: every panel shows its figures (no "Loading …" left) and its
 *                   three charts are drawn (Chart.js loaded and attached to each canvas), on the
 *                   small books seedBooks makes (a posted invoice and a payment)
 *
 * Used by test/e2e/dashboard-load.e2e.test.ts (asserting the budget) and `npm run bench` (the
 * `dashboard` scenario: the median of BENCH_DASHBOARD_LOADS loads, 5 by default).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Browser, type Page, chromium } from 'playwright-core';
import { ROOT, adminCli } from '@acct/stack';

/** One load of one page. */
export interface PageLoad {
  js_bytes: number;
  js_files: number;
  /** The Content-Encoding of the scripts as served (`br` when Chromium asked for brotli). */
  js_encodings: string[];
  /** Every response's bytes on the wire (HTML, CSS, scripts, API answers). */
  total_bytes: number;
  interactive_ms: number;
  /** The overview's data and charts shown; the sign-in page: equal to interactive_ms. */
  complete_ms: number;
}

export type DashboardPage = 'sign-in' | 'overview';

/** The session cookie a load carries (none for the sign-in page). */
export interface SessionCookie {
  name: string;
  value: string;
}

/** Flags for a headless Chromium run as root in a sandbox-less container, without background traffic (as test/support/chromium.ts). */
const ARGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** CHROMIUM_PATH, else the Chromium `npm ci` brings (@sparticuz/chromium, through test/support's CLI). */
export async function dashboardChromium(): Promise<Browser> {
  let executablePath = process.env.CHROMIUM_PATH;
  if (!executablePath) {
    const cli = path.join(ROOT, 'test', 'support', 'chromium-path-cli.mjs');
    executablePath = (await promisify(execFile)(process.execPath, [cli], { cwd: ROOT })).stdout;
  }
  if (!executablePath || !fs.existsSync(executablePath)) throw new Error(`no Chromium to measure the dashboard with (${executablePath || 'empty path'})`);
  return chromium.launch({ executablePath, args: ARGS });
}

/**
 * Books for the overview to draw (its three charts: revenue by month, aging, cash): a customer, a
 * posted invoice of 1,250.00 and a payment of 500.00 today, made with `key`; resolves once the
 * reporting projection shows them (it follows the event stream).
 */
export async function seedBooks(base: string, key: string, timeoutMs = 30_000): Promise<void> {
  const call = async (method: string, p: string, body?: unknown): Promise<{ data: { id: string; [k: string]: unknown } }> => {
    const r = await fetch(`${base}/api/v1${p}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (r.status >= 300) throw new Error(`${method} ${p} answered ${r.status}: ${await r.text()}`);
    return (await r.json()) as { data: { id: string } };
  };
  const run = `${Date.now()}-${process.pid}`;
  const today = new Date().toISOString().slice(0, 10);
  const customer = await call('POST', '/customers', { external_customer_id: `load-${run}`, name: 'Load test customer' });
  const draft = await call('POST', '/invoices', {
    external_invoice_id: `load-${run}`,
    customer_id: customer.data.id,
    invoice_number: `LOAD-${run}`,
    issue_date: today,
    due_date: today,
    line_items: [{ description: 'Work', quantity: 1, unit_amount_cents: 125_000 }],
  });
  await call('POST', `/invoices/${draft.data.id}/post`);
  await call('POST', '/payments', { external_payment_id: `load-${run}`, invoice_id: draft.data.id, amount_cents: 50_000, received_at: today });
  for (const end = Date.now() + timeoutMs; ;) {
    const s = (await call('GET', `/reports/summary?from=${today.slice(0, 8)}01&to=${today}`)).data;
    if (s.revenue_cents === 125_000 && s.accounts_receivable_cents === 75_000) return;
    if (Date.now() > end) throw new Error(`the reports did not show the seeded books: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** An owner of the organization (invited by the admin CLI, the invitation accepted over HTTP): their session cookie. */
export async function ownerSession(base: string, databaseUrl: string, organizationId: string, email = `bench-${Date.now()}@example.com`): Promise<SessionCookie> {
  const { invite_url } = await adminCli<{ invite_url: string }>(databaseUrl, 'invite', '--org', organizationId, '--email', email, '--role', 'owner', '--json');
  const token = invite_url.split('/').pop()!;
  const r = await fetch(`${base}/dashboard/api/invites/${token}/accept`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Bench owner', password: 'a bench password, long enough' }),
  });
  if (r.status !== 201) throw new Error(`accepting the invitation answered ${r.status}: ${await r.text()}`);
  const cookie = /^([^=;]+)=([^;]*)/.exec(r.headers.get('set-cookie') ?? '');
  if (!cookie) throw new Error('accepting the invitation set no cookie');
  return { name: cookie[1]!, value: cookie[2]! };
}

/** The little of the DOM the conditions below read (the bench compiles without the DOM library). */
interface El {
  textContent: string | null;
  disabled?: boolean;
  style: { boxSizing: string };
  getClientRects(): { length: number };
  querySelector(selector: string): El | null;
  querySelectorAll(selector: string): Iterable<El>;
}

/**
 * In the page, run by playwright through the DevTools protocol (a string would be eval'd, which the
 * dashboard's CSP refuses): performance.now() at the first frame where the condition holds, else 0.
 * Each is self-contained (serialized into the page), hence the repeated `document` lookup.
 */
const INTERACTIVE: Record<DashboardPage, () => number> = {
  'sign-in': () => {
    const d = (globalThis as unknown as { document: El }).document;
    const b = [...d.querySelectorAll('main button[type=submit]')].find((x) => x.textContent?.trim() === 'Sign in');
    return b && !b.disabled && b.getClientRects().length > 0 ? performance.now() : 0;
  },
  overview: () => {
    const d = (globalThis as unknown as { document: El }).document;
    const h = d.querySelector('main h1');
    const nav = [...d.querySelectorAll('nav[aria-label="Main"] a')];
    return h && h.textContent?.trim() === 'Overview' && h.getClientRects().length > 0 && nav.length > 0 ? performance.now() : 0;
  },
};
const COMPLETE = (charts: number) => {
  const main = (globalThis as unknown as { document: El }).document.querySelector('main');
  if (!main || main.querySelector('.loading')) return 0;
  const canvases = [...main.querySelectorAll('figure canvas')];
  // Chart.js styles the canvas it draws on (border-box) when it attaches.
  return canvases.length >= charts && canvases.every((c) => c.style.boxSizing === 'border-box') ? performance.now() : 0;
};

/** The overview's charts once seedBooks ran: revenue by month, aging, cash. */
const OVERVIEW_CHARTS = 3;

async function timeOf(page: Page, condition: (arg: number) => number, arg: number, timeoutMs: number): Promise<number> {
  const handle = await page.waitForFunction(condition, arg, { polling: 'raf', timeout: timeoutMs });
  return Math.round(Number(await handle.jsonValue()));
}

/** One load of `/dashboard` in a new context (an empty cache): its script bytes, time to interactive and, for the overview, to complete. */
export async function loadOnce(browser: Browser, base: string, which: DashboardPage, cookie?: SessionCookie, timeoutMs = 15_000): Promise<PageLoad> {
  const context = await browser.newContext();
  try {
    if (cookie) await context.addCookies([{ ...cookie, url: base }]);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    const scripts = new Map<string, string>();
    const bytes = new Map<string, number>();
    cdp.on('Network.responseReceived', (e) => {
      const h = Object.fromEntries(Object.entries(e.response.headers).map(([k, v]) => [k.toLowerCase(), v]));
      if (e.type === 'Script') scripts.set(e.requestId, h['content-encoding'] ?? 'identity');
    });
    cdp.on('Network.loadingFinished', (e) => bytes.set(e.requestId, e.encodedDataLength));
    await page.goto(`${base}/dashboard`);
    const interactive = await timeOf(page, INTERACTIVE[which], 0, timeoutMs);
    const complete = which === 'overview' ? await timeOf(page, COMPLETE, OVERVIEW_CHARTS, timeoutMs) : interactive;
    // Every chunk asked for has arrived once the network is quiet (500 ms without a request).
    await page.waitForLoadState('networkidle');
    const js = [...scripts.keys()].map((id) => bytes.get(id) ?? 0);
    return {
      js_bytes: js.reduce((s, b) => s + b, 0),
      js_files: js.length,
      js_encodings: [...new Set(scripts.values())].sort(),
      total_bytes: [...bytes.values()].reduce((s, b) => s + b, 0),
      interactive_ms: interactive,
      complete_ms: complete,
    };
  } finally {
    await context.close();
  }
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : Math.round((s[m - 1]! + s[m]!) / 2);
};

export type DashboardLoads = Record<DashboardPage, PageLoad>;

/** `loads` loads of each page (sign-in signed out, the overview signed in): the median of each figure. */
export async function measureDashboard(browser: Browser, base: string, cookie: SessionCookie, loads = 5): Promise<DashboardLoads> {
  const out = {} as DashboardLoads;
  for (const which of ['sign-in', 'overview'] as const) {
    const runs: PageLoad[] = [];
    for (let i = 0; i < loads; i++) runs.push(await loadOnce(browser, base, which, which === 'overview' ? cookie : undefined));
    const med = (k: 'js_bytes' | 'js_files' | 'total_bytes' | 'interactive_ms' | 'complete_ms') => median(runs.map((r) => r[k]));
    out[which] = {
      js_bytes: med('js_bytes'),
      js_files: med('js_files'),
      js_encodings: [...new Set(runs.flatMap((r) => r.js_encodings))].sort(),
      total_bytes: med('total_bytes'),
      interactive_ms: med('interactive_ms'),
      complete_ms: med('complete_ms'),
    };
  }
  return out;
}

const kb = (b: number) => `${(b / 1024).toFixed(1)} KB`;

/** The figures as a small table. */
export function dashboardTable(m: DashboardLoads, loads: number): string {
  const rows = (Object.keys(m) as DashboardPage[]).map((p) => {
    const r = m[p];
    const js = `${kb(r.js_bytes)} (${r.js_encodings.join(',')})`;
    return `${p.padEnd(10)} ${js.padStart(16)} ${String(r.js_files).padStart(8)} ${kb(r.total_bytes).padStart(9)} ${`${r.interactive_ms} ms`.padStart(12)} ${`${r.complete_ms} ms`.padStart(9)}`;
  });
  return [`dashboard, cache empty, median of ${loads} loads each`, 'page              JS on the wire JS files all bytes  interactive  complete', ...rows].join('\n');
}

/** `npm run bench`'s dashboard scenario: books to draw, an owner of the organization, then `loads` loads of each page. */
export async function dashboardScenario(base: string, databaseUrl: string, organizationId: string, key: string, loads: number): Promise<DashboardLoads> {
  const served = await fetch(`${base}/dashboard`);
  if (served.status !== 200) throw new Error(`GET /dashboard answered ${served.status}: build the dashboard first (npm run build)`);
  await seedBooks(base, key);
  const cookie = await ownerSession(base, databaseUrl, organizationId);
  const browser = await dashboardChromium();
  try {
    return await measureDashboard(browser, base, cookie, loads);
  } finally {
    await browser.close();
  }
}
