import type { Browser } from 'playwright-core';
import { type DashboardLoads, dashboardChromium, dashboardTable, measureDashboard, ownerSession, seedBooks } from '../bench/dashboard-load';
import { bootstrapOrg, startE2E, type E2E } from './harness';
import { E2E_ENV } from './receivables.helpers';

/** Issue #44's budget for the dashboard's first page. */
const JS_BUDGET_BYTES = 200 * 1024;
const LOADS = 5;

/**
 * The dashboard's page weight and time to interactive in Chromium with the cache empty
 * (test/bench/dashboard-load.ts measures; `npm run bench` prints the same): the sign-in page
 * signed out, and the overview signed in, each the median of 5 loads, under 200 KB of compressed
 * JavaScript. Tests never depend on timing: the time to interactive (budget 1 s) is printed here and
 * by `npm run bench`, and recorded in docs/performance.md, not asserted.
 */
describe('e2e: dashboard page weight and time to interactive', () => {
  let e2e: E2E;
  let browser: Browser;
  let figures: DashboardLoads;

  beforeAll(async () => {
    e2e = await startE2E(E2E_ENV);
    const keys = await bootstrapOrg(e2e.databaseUrl, 'Dashboard load org');
    // A posted invoice and a payment: the overview draws its three charts (revenue, aging, cash).
    await seedBooks(e2e.base, keys.test_key);
    const cookie = await ownerSession(e2e.base, e2e.databaseUrl, keys.organization_id);
    browser = await dashboardChromium();
    figures = await measureDashboard(browser, e2e.base, cookie, LOADS);
    process.stdout.write(`${dashboardTable(figures, LOADS)}\n${JSON.stringify(figures)}\n`);
  });
  afterAll(async () => {
    await browser?.close();
    await e2e?.stop();
  });

  it.each(['sign-in', 'overview'] as const)('%s: under 200 KB of compressed JavaScript', (which) => {
    const f = figures[which];
    expect(f.js_files).toBeGreaterThan(0);
    // Compressed on the wire (the gateway's brotli or gzip), never sent as is.
    expect(f.js_encodings).not.toContain('identity');
    expect({ which, js_bytes: f.js_bytes, under: f.js_bytes < JS_BUDGET_BYTES }).toEqual({ which, js_bytes: f.js_bytes, under: true });
    expect(f.complete_ms).toBeGreaterThanOrEqual(f.interactive_ms);
  });

  it('the overview loads Chart.js and its page chunk after the shell: more scripts than the sign-in page', () => {
    expect(figures.overview.js_files).toBeGreaterThan(figures['sign-in'].js_files);
    expect(figures.overview.js_bytes).toBeGreaterThan(figures['sign-in'].js_bytes);
  });
});
