import type { Browser, Page } from 'playwright-core';
import { type SignedInMember, checkPage, dashboardUrl, launchDashboardBrowser, signedInMember } from '../support/dashboard-browser';
import { type Keys, bootstrapOrg, client, type E2E, startE2E } from './harness';
import { E2E_ENV, createCustomer, createOpenInvoice, expectStatus, paymentBody, uid } from './receivables.helpers';

/**
 * Every page of the dashboard, as an owner sees it, at 1280 px and at 360 px wide (issue #44 "Usable
 * by everyone"): each renders its heading without an error alert, passes axe-core with no serious or
 * critical violation, keeps the page itself within the viewport's width (tables scroll inside their
 * region), starts with the skip link, and is kept as a screenshot (test-artifacts/dashboard/).
 */
describe('e2e: every dashboard page, wide and 360 px', () => {
  let e2e: E2E;
  let keys: Keys;
  let browser: Browser;
  let owner: SignedInMember;
  let dash: string;
  const ids: Record<string, string> = {};

  /** One record of each kind the pages show, through the public API with a key. */
  async function seed(): Promise<void> {
    const api = client(e2e.base, keys.test_key);
    const customerId = await createCustomer(api, 'Pages customer');
    const invoice = await createOpenInvoice(api, customerId, 12_345);
    const payment = await api('POST', '/api/v1/payments', paymentBody(invoice.id, 2_345));
    expectStatus(payment, 201);
    const vendor = await api('POST', '/api/v1/vendors', { external_vendor_id: uid('ven'), display_name: 'Pages vendor' });
    expectStatus(vendor, 201);
    const line_items = [{ description: 'Work', quantity: 1, unit_amount_cents: 5_000 }];
    const bill = await api('POST', '/api/v1/bills', {
      external_bill_id: uid('bill'),
      vendor_id: vendor.json.data.id,
      bill_number: 'B-1',
      issue_date: '2026-03-01',
      due_date: '2026-03-31',
      line_items,
    });
    expectStatus(bill, 201);
    expectStatus(await api('POST', `/api/v1/bills/${bill.json.data.id}/post`), 200);
    const allocations = [{ bill_id: bill.json.data.id, amount_cents: 1_000 }];
    const vp = await api('POST', '/api/v1/vendor-payments', {
      external_vendor_payment_id: uid('vp'),
      vendor_id: vendor.json.data.id,
      amount_cents: 1_000,
      payment_date: '2026-03-10',
      allocations,
    });
    expectStatus(vp, 201);
    const accounts = await api('GET', '/api/v1/accounts?limit=100');
    expectStatus(accounts, 200);
    const cash = (accounts.json.data as { id: string; code: string }[]).find((a) => a.code === '1000')!;
    const endpoint = await api('POST', '/api/v1/webhook-endpoints', { url: 'https://example.com/hooks' });
    expectStatus(endpoint, 201);
    Object.assign(ids, {
      customerId,
      invoiceId: invoice.id,
      paymentId: payment.json.data.id,
      vendorId: vendor.json.data.id,
      billId: bill.json.data.id,
      vendorPaymentId: vp.json.data.id,
      endpointId: endpoint.json.data.id,
      cashAccountId: cash.id,
    });
  }

  beforeAll(async () => {
    [e2e, browser] = await Promise.all([startE2E(E2E_ENV), launchDashboardBrowser()]);
    keys = await bootstrapOrg(e2e.databaseUrl, 'Pages org');
    dash = dashboardUrl(e2e.base);
    await seed();
    owner = await signedInMember(browser, { base: e2e.base, databaseUrl: e2e.databaseUrl, organizationId: keys.organization_id, role: 'owner' });
  });
  afterAll(async () => {
    await browser?.close();
    await e2e?.stop();
  });

  const pages = (): [string, string][] => [
    ['overview', ''],
    ['customers', '/customers'],
    ['customer', `/customers/${ids.customerId}`],
    ['invoices', '/invoices'],
    ['invoice', `/invoices/${ids.invoiceId}`],
    ['estimates', '/estimates'],
    ['payments', '/payments'],
    ['payment', `/payments/${ids.paymentId}`],
    ['processor-payouts', '/processor-payouts'],
    ['vendors', '/vendors'],
    ['vendor', `/vendors/${ids.vendorId}`],
    ['bills', '/bills'],
    ['bill', `/bills/${ids.billId}`],
    ['vendor-payments', '/vendor-payments'],
    ['vendor-payment', `/vendor-payments/${ids.vendorPaymentId}`],
    ['reports', '/reports'],
    ['report-summary', '/reports/summary'],
    ['report-accounts-receivable', '/reports/accounts-receivable'],
    ['report-accounts-payable', '/reports/accounts-payable'],
    ['report-1099-summary', '/reports/1099-summary'],
    ['report-trial-balance', '/reports/trial-balance'],
    ['report-profit-and-loss', '/reports/profit-and-loss'],
    ['report-balance-sheet', '/reports/balance-sheet'],
    ['report-general-ledger', `/reports/general-ledger?account_id=${ids.cashAccountId}`],
    ['journal', '/journal'],
    ['webhooks', '/webhooks'],
    ['webhook-endpoint', `/webhooks/${ids.endpointId}`],
    ['inbound-events', '/events'],
    ['keys', '/keys'],
    ['members', '/members'],
    ['audit-log', '/audit-log'],
    ['settings', '/settings'],
    ['account', '/account'],
  ];

  /** Opens a page and waits until it has rendered: its heading shown and nothing still loading. */
  async function open(page: Page, path: string): Promise<void> {
    await page.goto(`${dash}${path}`);
    await page.waitForLoadState('networkidle');
    await page.locator('main h1').first().waitFor();
  }

  for (const width of [1280, 360]) {
    it(`renders every page at ${width} px: no error, no serious or critical axe violation, no page-wide scroll`, async () => {
      const { page } = owner;
      await page.setViewportSize({ width, height: 900 });
      for (const [name, path] of pages()) {
        await open(page, path);
        expect({ name, alerts: await page.locator('main [role=alert]').allInnerTexts() }).toEqual({ name, alerts: [] });
        await checkPage(page, `${name}-${width}`);
        const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
        expect({ name, overflow }).toEqual({ name, overflow: 0 });
      }
    });
  }

  it('starts every page with the skip link, which moves focus to the main content', async () => {
    const { page } = owner;
    await page.setViewportSize({ width: 1280, height: 900 });
    await open(page, '/invoices');
    await page.keyboard.press('Tab');
    const first = await page.evaluate<{ text?: string }>(`({ text: document.activeElement?.textContent?.trim() })`);
    expect(first.text?.toLowerCase()).toContain('skip');
    await page.keyboard.press('Enter');
    expect(await page.evaluate<boolean>(`Boolean(document.activeElement?.closest('main'))`)).toBe(true);
  });
});
