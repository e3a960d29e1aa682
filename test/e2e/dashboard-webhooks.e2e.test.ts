import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { checkPage, dashboardUrl, launchDashboardBrowser, signedInMember } from '../support/dashboard-browser';
import { bootstrapOrg, client, startE2E, type E2E, type Keys } from './harness';
import { type Api, E2E_ENV, expectStatus } from './receivables.helpers';

interface Hit {
  path: string;
  raw: string;
  body: { id: string; type: string; data: Record<string, unknown> };
  headers: http.IncomingHttpHeaders;
}

/** The answers a path's next requests get, in order; once used up, 204. */
type Answer = { status: number; body: string };

/** An attempt's time as the page shows it (format.ts: en-GB, to the minute, with the zone), in the browser's time zone. */
const shown = (page: Page, iso: string) =>
  page.evaluate((t) => new Date(t).toLocaleString('en-GB', { year: 'numeric', month: 'short', day: '2-digit', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' }), iso);

/**
 * The dashboard's Webhooks pages in Chromium against the whole stack (issue #44): an endpoint made
 * on the page receives the test action, signed (Standard Webhooks, checked with `standardwebhooks`);
 * a delivery the receiver fails is retried with the deliveries view's button, and the view then
 * shows both attempts with their status, time and response excerpt.
 */
describe('e2e: dashboard webhooks in Chromium', () => {
  let e2e: E2E;
  let keys: Keys;
  let api: Api;
  let receiver: http.Server;
  let receiverBase: string;
  let browser: Browser;
  let dash: string;
  let page: Page;
  const hits: Hit[] = [];
  const answers = new Map<string, Answer[]>();
  const waiters = new Set<() => void>();

  /** Resolves when `f` gives a value, re-checked at every receiver hit (no fixed sleep). */
  const hitWhere = (f: (h: Hit) => boolean, ms = 20_000): Promise<Hit> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const h = hits.find(f);
        if (!h) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(h);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no webhook matched within ${ms} ms; got ${hits.map((h) => `${h.path} ${h.body.type}`).join(', ')}`));
      }, ms);
      waiters.add(check);
      check();
    });

  /** The delivery as the public API has it, once `ready` holds (the dispatcher records an attempt after the answer). */
  const deliveryWhen = async (endpointId: string, deliveryId: string, ready: (d: any) => boolean, ms = 20_000): Promise<any> => {
    const end = Date.now() + ms;
    for (;;) {
      const r = await api('GET', `/api/v1/webhook-endpoints/${endpointId}/deliveries?limit=100`);
      expectStatus(r, 200);
      const d = (r.json.data as any[]).find((x) => x.id === deliveryId);
      if (d && ready(d)) return d;
      if (Date.now() > end) throw new Error(`delivery ${deliveryId} not ready: ${JSON.stringify(d)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const p = req.url ?? '/';
        const next = answers.get(p)?.shift() ?? { status: 204, body: '' };
        res.writeHead(next.status, { 'content-type': 'text/plain' });
        res.end(next.body, () => {
          hits.push({ path: p, raw, body: JSON.parse(raw), headers: req.headers });
          for (const w of [...waiters]) w();
        });
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    // A failed attempt's automatic retry an hour later: the second attempt below is the dashboard's.
    e2e = await startE2E({ ...E2E_ENV, WEBHOOK_POLL_INTERVAL_MS: '100', WEBHOOK_RETRY_SCHEDULE: '1h' });
    keys = await bootstrapOrg(e2e.databaseUrl, 'Dashboard webhooks org');
    api = client(e2e.base, keys.test_key);
    dash = dashboardUrl(e2e.base);
    browser = await launchDashboardBrowser();
    // An owner invited by the admin CLI, joined through the invitation page: signed in.
    ({ page } = await signedInMember(browser, { base: e2e.base, databaseUrl: e2e.databaseUrl, organizationId: keys.organization_id, role: 'owner' }));
  });
  afterAll(async () => {
    await browser?.close();
    await e2e?.stop();
    receiver?.closeAllConnections();
    await new Promise((r) => receiver?.close(r));
  });

  /** Adds an endpoint on the Webhooks page; returns its id and the secret the page showed once. */
  const addEndpoint = async (p: string): Promise<{ id: string; secret: string }> => {
    await page.goto(`${dash}/webhooks`);
    await page.getByLabel('URL', { exact: true }).fill(`${receiverBase}${p}`);
    const created = page.waitForResponse((r) => r.url().endsWith('/dashboard/api/v1/webhook-endpoints') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Add the endpoint' }).click();
    expect((await created).status()).toBe(201);
    const secret = (await page.getByTestId('secret-value').textContent())!.trim();
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('link', { name: 'Open the endpoint to send a test event' }).click();
    await page.getByRole('heading', { name: 'Webhook endpoint' }).waitFor();
    const id = page.url().split('/').pop()!;
    await page.getByText(`${receiverBase}${p}`).waitFor();
    return { id, secret };
  };

  /** Clicks "Send a test event" and returns the queued delivery's id. */
  const sendTest = async (): Promise<string> => {
    const queued = page.waitForResponse((r) => /\/webhook-endpoints\/[^/]+\/test$/.test(r.url()) && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Send a test event' }).click();
    const res = await queued;
    expect(res.status()).toBe(201);
    await page.getByText('Test event queued').waitFor();
    return ((await res.json()) as { data: { id: string } }).data.id;
  };

  /** Refreshes the deliveries view and waits for the list's answer. */
  const refresh = async () => {
    const listed = page.waitForResponse((r) => /\/deliveries\?/.test(r.url()) && r.request().method() === 'GET');
    await page.getByRole('button', { name: 'Refresh' }).click();
    expect((await listed).status()).toBe(200);
  };

  /** Opens a row's attempts (a <details> stays open across a refresh: click only when closed). */
  const openAttempts = async (summary: string) => {
    const details = deliveryRow().locator('details');
    await details.locator('summary', { hasText: summary }).waitFor();
    if (!(await details.evaluate((d) => (d as unknown as { open: boolean }).open))) await details.locator('summary').click();
  };

  const deliveryRow = () => page.getByRole('region', { name: 'Deliveries' }).getByRole('row').filter({ hasText: 'webhook.test' });

  it('an endpoint added on the Webhooks page receives the test action, signed with the secret the page showed', async () => {
    const { id, secret } = await addEndpoint('/dash');
    const deliveryId = await sendTest();
    const hit = await hitWhere((h) => h.path === '/dash' && h.body.id === deliveryId);
    expect(hit.body).toMatchObject({ id: deliveryId, type: 'webhook.test' });
    const std = {
      'webhook-id': String(hit.headers['webhook-id']),
      'webhook-timestamp': String(hit.headers['webhook-timestamp']),
      'webhook-signature': String(hit.headers['webhook-signature']),
    };
    expect(new Webhook(secret).verify(hit.raw, std)).toEqual(hit.body);
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(hit.raw, std)).toThrow();

    // The page's list of endpoints has it; its deliveries view shows the delivered test event.
    await deliveryWhen(id, deliveryId, (d) => d.status === 'delivered');
    await refresh();
    await deliveryRow().getByText('delivered').waitFor();
    await openAttempts('1 attempt');
    await deliveryRow().getByText('HTTP 204').waitFor();
  });

  it('a delivery the receiver failed is retried from the deliveries view, which then shows both attempts', async () => {
    answers.set('/flaky', [
      { status: 500, body: 'boom: the receiver is down' },
      { status: 200, body: 'ok: got it the second time' },
    ]);
    const { id, secret } = await addEndpoint('/flaky');
    const deliveryId = await sendTest();
    const first = await hitWhere((h) => h.path === '/flaky' && h.body.id === deliveryId);
    expect(new Webhook(secret).verify(first.raw, first.headers as Record<string, string>)).toEqual(first.body);
    const failed = await deliveryWhen(id, deliveryId, (d) => d.attempts.length === 1);
    expect(failed).toMatchObject({ status: 'pending', attempt_count: 1 });
    expect(failed.attempts[0]).toMatchObject({ status_code: 500, response_body: 'boom: the receiver is down' });

    await refresh();
    await deliveryRow().getByText('pending').waitFor();
    await openAttempts('1 attempt');
    await deliveryRow().getByText('HTTP 500').waitFor();

    const retried = page.waitForResponse((r) => r.url().endsWith(`/deliveries/${deliveryId}/retry`) && r.request().method() === 'POST');
    await deliveryRow().getByRole('button', { name: 'Retry' }).click();
    expect((await retried).status()).toBe(202);
    await page.getByText('Another attempt of webhook.test is queued').waitFor();
    const second = await hitWhere((h) => h.path === '/flaky' && h.body.id === deliveryId && h !== first);
    expect(new Webhook(secret).verify(second.raw, second.headers as Record<string, string>)).toEqual(second.body);
    const done = await deliveryWhen(id, deliveryId, (d) => d.status === 'delivered' && d.attempts.length === 2);

    await refresh();
    const row = deliveryRow();
    await row.getByText('delivered').waitFor();
    await openAttempts('2 attempts');
    const attempts = row.getByRole('listitem');
    await attempts.nth(1).waitFor();
    expect(await attempts.count()).toBe(2);
    const [a1, a2] = done.attempts as Array<{ attempted_at: string; status_code: number; duration_ms: number; response_body: string }>;
    for (const [i, a] of [a1!, a2!].entries()) {
      const text = (await attempts.nth(i).innerText()).replace(/\s+/g, ' ');
      expect(text).toContain(`HTTP ${a.status_code}`);
      expect(text).toContain(await shown(page, a.attempted_at));
      expect(text).toContain(`${a.duration_ms} ms`);
      expect(text).toContain(a.response_body);
      // The status shows once: not again as the error text the dispatcher records (`HTTP 500`).
      expect(text.split(`HTTP ${a.status_code}`)).toHaveLength(2);
    }
    expect(a1!.status_code).toBe(500);
    expect(a2!).toMatchObject({ status_code: 200, response_body: 'ok: got it the second time' });

    // The endpoint's page with both attempts open, then the Webhooks list: no serious or critical axe violation.
    await checkPage(page, 'webhook-deliveries');
    await page.goto(`${dash}/webhooks`);
    await page.getByRole('region', { name: 'Webhook endpoints' }).getByText(`${receiverBase}/flaky`).waitFor();
    await checkPage(page, 'webhooks');
  });
});
