import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { chromium } from 'playwright-core';
import { compileBody, limits, schemas } from '@acct/contracts';
import { CHROMIUM_ARGS, chromiumExecutable, pdfTextOf } from '@acct/testing';
import { TINY_PNG, multipart } from './documents.helpers';
import { type Keys, bootstrapOrg, client, type E2E, startE2E } from './harness';
import { type Api, E2E_ENV, createOpenInvoice, expectError, expectSchema, expectStatus, paymentBody, uid } from './receivables.helpers';

const validShare = compileBody(schemas.documents.documentShareResponse);
const validRender = compileBody(schemas.documents.documentRenderResponse);
/** Screenshots of the portal, kept after the run (git-ignored). */
const ARTIFACTS = path.join(__dirname, '..', 'artifacts');

/** A name that would run a script or reorder text if any page or PDF took it as markup. */
const HOSTILE = `Evil <img src=x onerror="document.title='pwned'"> & "Co" \u202eRTL\u0007`;

describe('e2e: document shares, PDF renders and the customer portal', () => {
  let e2e: E2E;
  let keys: Keys;
  let api: Api;
  let otherApi: Api;
  let customerId: string;
  let invoice: any;
  let db: pg.Client;

  beforeAll(async () => {
    // A 500-line invoice's PDF takes seconds of CPU to render; on a loaded CI machine (the cluster
    // suite runs 2 replicas of every service beside 3 NATS nodes) the default 5 s RPC bound gave 503.
    e2e = await startE2E({ ...E2E_ENV, RPC_TIMEOUT_MS: '20000' });
    keys = await bootstrapOrg(e2e.databaseUrl, 'Portal org');
    api = client(e2e.base, keys.test_key);
    otherApi = client(e2e.base, (await bootstrapOrg(e2e.databaseUrl, 'Other portal org')).test_key);
    db = new pg.Client({ connectionString: e2e.databaseUrl });
    await db.connect();

    // Branding with a logo, invoice defaults, and an invoice partly paid by a customer with a hostile name.
    const { body, contentType } = multipart({ name: 'logo.png', type: 'image/png', bytes: TINY_PNG }, { document_type: 'logo' });
    const logo = await fetch(`${e2e.base}/api/v1/documents`, { method: 'POST', headers: { authorization: `Bearer ${keys.test_key}`, 'content-type': contentType }, body });
    expect(logo.status).toBe(201);
    const logoId = ((await logo.json()) as any).data.id;
    expectStatus(
      await api('PUT', '/api/v1/settings/document-branding', {
        business_name: 'Acme Books',
        primary_color: '#aa3300',
        payment_instructions: 'Wire to ACME-123',
        logo_document_id: logoId,
      }),
      200,
    );
    expectStatus(
      await api('PUT', '/api/v1/settings/invoice-defaults', { default_terms: 'Net 15, thank you', default_memo: 'Default memo text', footer: 'Acme Inc. 1 Main St' }),
      200,
    );
    const c = await api('POST', '/api/v1/customers', { external_customer_id: uid('cus'), name: HOSTILE, email: 'ap@example.com' });
    expectStatus(c, 201);
    customerId = c.json.data.id;
    invoice = await createOpenInvoice(api, customerId, 123456, { invoice_number: 'INV-PORTAL-1' });
    expectStatus(await api('POST', '/api/v1/payments', paymentBody(invoice.id, 23456)), 201);
  });
  afterAll(async () => {
    await db?.end();
    await e2e?.stop();
  });

  const counts = async () =>
    (
      await db.query<{ shares: string; renders: string }>(
        'SELECT (SELECT count(*) FROM documents.document_shares) AS shares, (SELECT count(*) FROM documents.document_renders) AS renders',
      )
    ).rows[0];
  const pdfOf = async (url: string, key?: string) => {
    const r = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {} });
    return { status: r.status, headers: r.headers, bytes: Buffer.from(await r.arrayBuffer()) };
  };

  it('shares an invoice: an active share, a ready render whose PDF holds the invoice, and the portal url', async () => {
    const r = await api('POST', '/api/v1/document-shares', { record_type: 'invoice', record_id: invoice.id });
    expectStatus(r, 201);
    expectSchema(validShare, r.json);
    const share = r.json.data;
    expect(r.json.document_share).toEqual(share);
    expect(share).toMatchObject({ status: 'active', record_type: 'invoice', record_id: invoice.id, revoked_at: null });
    expect(share.url).toMatch(new RegExp(`^${e2e.base.replace(/[.]/g, '\\.')}/portal/[A-Za-z0-9_-]{43}$`));
    expect((await api('GET', `/api/v1/document-shares/${share.id}`)).json.data).toEqual(share);

    const render = await api('GET', `/api/v1/document-renders/${share.render_id}`);
    expectStatus(render, 200);
    expectSchema(validRender, render.json);
    expect(render.json.data).toMatchObject({ id: share.render_id, status: 'ready', document_type: 'invoice', record_id: invoice.id, content_type: 'application/pdf' });
    expect(JSON.stringify(render.json)).not.toMatch(/storage|key|\/test\//i);

    const pdf = await pdfOf(`${e2e.base}/api/v1/document-renders/${share.render_id}/download`, keys.test_key);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toBe('attachment; filename="invoice-INV-PORTAL-1.pdf"');
    expect(pdf.headers.get('x-content-type-options')).toBe('nosniff');
    expect(pdf.bytes.length).toBe(render.json.data.size_bytes);
    expect(pdf.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await pdfTextOf(pdf.bytes);
    for (const s of [
      'Acme Books',
      'Invoice INV-PORTAL-1',
      '2026-03-01',
      '2026-03-31',
      'ap@example.com',
      '$1,234.56',
      '$234.56',
      '$1,000.00',
      'Wire to ACME-123',
      'Net 15, thank you',
      'Default memo text',
      'Acme Inc. 1 Main St',
    ]) {
      expect({ s, found: text.includes(s) }).toEqual({ s, found: true });
    }
    // The hostile name is printed as text, without its control and bidi characters.
    expect(text).toContain('Evil <img src=x');
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/[\u0007\u202e]/);
  });

  it('serves the portal page without a key: live status and balance, a PDF link, a strict CSP, every field escaped', async () => {
    const share = (await api('POST', '/api/v1/document-shares', { record_type: 'invoice', record_id: invoice.id })).json.data;
    const page = await fetch(share.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/style-src 'nonce-[A-Za-z0-9+/=]+'/);
    expect(csp).not.toMatch(/script-src|unsafe/);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-store');
    const html = await page.text();
    expect(html).toContain('INV-PORTAL-1');
    expect(html).toContain('Partially paid');
    expect(html).toContain('$1,000.00');
    expect(html).toContain('data:image/png;base64,');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('Evil &#60;img src=x onerror=&#34;document.title=&#39;pwned&#39;&#34;&#62;');

    // The PDF link of the page, without a key, is the render's PDF.
    const href = /href="([^"]+\/pdf)"/.exec(html)![1]!;
    const viaPortal = await pdfOf(new URL(href, share.url).toString());
    expect(viaPortal.status).toBe(200);
    const viaApi = await pdfOf(`${e2e.base}/api/v1/document-renders/${share.render_id}/download`, keys.test_key);
    expect(viaPortal.bytes.equals(viaApi.bytes)).toBe(true);

    // Live: a payment after sharing shows on the page (the PDF stays the snapshot it was).
    expectStatus(await api('POST', '/api/v1/payments', paymentBody(invoice.id, 100000)), 201);
    const after = await (await fetch(share.url)).text();
    expect(after).toContain('>Paid<');
    expect(after).toContain('Balance due: <strong data-field="balance_due">$0.00</strong>');
  });

  it('shows the portal in a real browser (Chromium): the invoice renders, no script runs, the CSP is not violated; keeps a screenshot', async () => {
    // The browser comes with npm ci (@sparticuz/chromium); CHROMIUM_PATH overrides. Never skipped.
    const executablePath = await chromiumExecutable();
    const inv = await createOpenInvoice(api, customerId, 98765, { invoice_number: 'INV-BROWSER-1' });
    const share = (await api('POST', '/api/v1/document-shares', { record_type: 'invoice', record_id: inv.id })).json.data;
    const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      const violations: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
      });
      const res = await page.goto(share.url);
      expect(res!.status()).toBe(200);
      await expect(page.locator('h1').innerText()).resolves.toBe('Invoice INV-BROWSER-1');
      await expect(page.locator('[data-field="balance_due"]').innerText()).resolves.toBe('$987.65');
      await expect(page.locator('.status').innerText()).resolves.toBe('Open');
      await expect(page.locator('dd', { hasText: 'Evil <img' }).count()).resolves.toBe(1);
      await expect(page.locator('img[src="x"]').count()).resolves.toBe(0);
      await expect(page.title()).resolves.toBe('Invoice INV-BROWSER-1 · Acme Books');
      // Styles applied (by nonce): the header has the brand colour.
      await expect(
        page.locator('header').evaluate((e) => (globalThis as unknown as { getComputedStyle(el: unknown): { backgroundColor: string } }).getComputedStyle(e).backgroundColor),
      ).resolves.toBe('rgb(170, 51, 0)');
      expect(violations).toEqual([]);
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      const shot = path.join(ARTIFACTS, 'portal-invoice.png');
      await page.screenshot({ path: shot, fullPage: true });
      expect(fs.statSync(shot).size).toBeGreaterThan(1000);
    } finally {
      await browser.close();
    }
  });

  it('shares an estimate: the PDF says Estimate and how long it is valid', async () => {
    expectStatus(await api('PUT', '/api/v1/settings/estimate-defaults', { validity_days: 20, default_terms: 'Estimate terms here' }), 200);
    const est = await api('POST', '/api/v1/estimates', {
      external_estimate_id: 'EST-PORTAL-1',
      customer_id: customerId,
      issue_date: '2026-05-01',
      line_items: [{ description: 'Design work', quantity: 2, unit_amount_cents: 5000 }],
    });
    expectStatus(est, 201);
    const share = await api('POST', '/api/v1/document-shares', { record_type: 'estimate', record_id: est.json.data.id });
    expectStatus(share, 201);
    const render = (await api('GET', `/api/v1/document-renders/${share.json.data.render_id}`)).json.data;
    expect(render).toMatchObject({ document_type: 'estimate', file_name: 'estimate-EST-PORTAL-1.pdf' });
    const text = await pdfTextOf((await pdfOf(`${e2e.base}/api/v1/document-renders/${render.id}/download`, keys.test_key)).bytes);
    for (const s of ['Estimate EST-PORTAL-1', 'Valid until: 2026-05-21', 'Design work', '$100.00', 'Estimate terms here'])
      expect({ s, found: text.includes(s) }).toEqual({ s, found: true });
    const html = await (await fetch(share.json.data.url)).text();
    expect(html).toContain('Estimate EST-PORTAL-1');
    expect(html).not.toContain('Balance due');
  });

  it('is scoped: unknown records and other organizations’ records and shares are 404; bad input is 400', async () => {
    expectError(await api('POST', '/api/v1/document-shares', { record_type: 'invoice', record_id: randomUUID() }), 404, 'not_found');
    expectError(await api('POST', '/api/v1/document-shares', { record_type: 'estimate', record_id: invoice.id }), 404, 'not_found');
    expectError(await otherApi('POST', '/api/v1/document-shares', { record_type: 'invoice', record_id: invoice.id }), 404, 'not_found');
    expectError(await api('POST', '/api/v1/document-shares', { record_type: 'bill', record_id: invoice.id }), 400, 'validation_failed');
    expectError(await api('POST', '/api/v1/document-shares', { record_type: 'invoice', record_id: 'not-a-uuid' }), 400, 'validation_failed');
    const share = (await api('POST', '/api/v1/document-shares', { record_type: 'invoice', record_id: invoice.id })).json.data;
    expectError(await otherApi('GET', `/api/v1/document-shares/${share.id}`), 404, 'not_found');
    expectError(await otherApi('DELETE', `/api/v1/document-shares/${share.id}`), 404, 'not_found');
    expectError(await otherApi('GET', `/api/v1/document-renders/${share.render_id}`), 404, 'not_found');
    expectError(await otherApi('GET', `/api/v1/document-renders/${share.render_id}/download`), 404, 'not_found');
    expectError(await client(e2e.base, keys.live_key)('GET', `/api/v1/document-shares/${share.id}`), 404, 'not_found');
    expectError(await client(e2e.base)('GET', `/api/v1/document-shares/${share.id}`), 401, 'unauthorized');
    expect((await api('GET', `/api/v1/document-shares/${share.id}`)).json.data.status).toBe('active');
  });

  it('replays a share created with the same Idempotency-Key', async () => {
    const key = randomUUID();
    const first = await api('POST', '/api/v1/document-shares', { record_type: 'invoice', record_id: invoice.id }, { 'idempotency-key': key });
    const again = await api('POST', '/api/v1/document-shares', { record_type: 'invoice', record_id: invoice.id }, { 'idempotency-key': key });
    expectStatus(first, 201);
    expect(again.json.data.id).toBe(first.json.data.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('revokes a share: its page and PDF answer the same 404 as an unknown token; revoking again changes nothing', async () => {
    const share = (await api('POST', '/api/v1/document-shares', { record_type: 'invoice', record_id: invoice.id })).json.data;
    const pdfUrl = `${share.url}/pdf`;
    expect((await fetch(pdfUrl)).status).toBe(200);
    const revoked = await api('DELETE', `/api/v1/document-shares/${share.id}`);
    expectStatus(revoked, 200);
    expectSchema(validShare, revoked.json);
    expect(revoked.json.data).toMatchObject({ id: share.id, status: 'revoked', revoked_at: expect.any(String) });
    const again = await api('DELETE', `/api/v1/document-shares/${share.id}`);
    expect(again.json.data.revoked_at).toBe(revoked.json.data.revoked_at);

    // A browser gets a page, an API client the error envelope; either way a revoked link and an unknown one look alike.
    for (const accept of ['text/html,application/xhtml+xml,*/*;q=0.8', 'application/json']) {
      const gone = await fetch(share.url, { headers: { accept } });
      const unknown = await fetch(`${e2e.base}/portal/${'A'.repeat(43)}`, { headers: { accept } });
      expect([gone.status, unknown.status]).toEqual([404, 404]);
      const [goneText, unknownText] = [await gone.text(), await unknown.text()];
      expect(goneText.replace(/"request_id":"[^"]+"/, '')).toBe(unknownText.replace(/"request_id":"[^"]+"/, ''));
      expect(goneText).not.toMatch(/INV-|Acme|revoked/i);
      expect(gone.headers.get('content-type')).toContain(accept.startsWith('text/html') ? 'text/html' : 'application/json');
      expect(gone.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    }
    expect((await fetch(pdfUrl)).status).toBe(404);
    // A NUL anywhere in a request is refused by the gateway first (400 in the envelope); the rest is just not found.
    expect((await fetch(`${e2e.base}/portal/%00`)).status).toBe(400);
    for (const bad of ['..%2F..%2Fetc%2Fpasswd', 'x'.repeat(200), '%E2%80%AE', "'%3Cscript%3E"]) {
      const r = await fetch(`${e2e.base}/portal/${bad}`);
      expect({ bad, status: r.status }).toEqual({ bad, status: 404 });
    }
  });

  it('refuses hostile input to every share, render and portal route with a 4xx in the envelope, and keeps serving', async () => {
    const share = (await api('POST', '/api/v1/document-shares', { record_type: 'invoice', record_id: invoice.id })).json.data;
    const refused = async (r: Awaited<ReturnType<Api>>, status: number) => {
      expect({ status: r.status, code: typeof r.json?.error?.code }).toEqual({ status, code: 'string' });
    };
    const post = (body: unknown, headers: Record<string, string> = {}) => api('POST', '/api/v1/document-shares', body, headers);
    await refused(await post({ record_type: 'invoice', record_id: `${invoice.id}\u0000` }), 400);
    await refused(await post({ record_type: 'invoice\u0000', record_id: invoice.id }), 400);
    await refused(await post('{"record_type":"invoice","record_id":"\\ud800"}'), 400);
    await refused(await post({ record_type: 'invoice', record_id: 2 ** 53 + 1 }), 400);
    await refused(await post('{"record_type":"invoice","record_id":9007199254740993}'), 400);
    await refused(await post({ record_type: 'invoice', record_id: invoice.id, organization_id: randomUUID() }), 400);
    const deep = `${'{"x":'.repeat(5000)}{}${'}'.repeat(5000)}`;
    await refused(await post(`{"record_type":"invoice","record_id":"${invoice.id}","deep":${deep}}`), 400);
    await refused(await post({ record_type: 'invoice', record_id: invoice.id, pad: 'x'.repeat(limits.json_body_bytes_max) }), 413);
    await refused(await post('record_type=invoice', { 'content-type': 'text/plain' }), 415);
    for (const path of [`/api/v1/document-shares/%00`, `/api/v1/document-shares/%ED%A0%80`, `/api/v1/document-renders/${'9'.repeat(400)}`, `/api/v1/document-renders/x/download`]) {
      const r = await api('GET', path);
      expect({ path, status: r.status, code: typeof r.json?.error?.code }).toEqual({ path, status: 400, code: 'string' });
    }
    await refused(await api('DELETE', '/api/v1/document-shares/%00'), 400);
    for (const token of ['%ED%A0%80', 'x'.repeat(5000), `${share.url.split('/').pop()}%00`]) {
      const r = await fetch(`${e2e.base}/portal/${token}`, { headers: { accept: 'application/json' } });
      expect({ token: token.slice(0, 20), status: r.status, code: typeof ((await r.json()) as any).error?.code }).toEqual({
        token: token.slice(0, 20),
        status: 400,
        code: 'string',
      });
    }
    // The extremes of what a share shows: the last calendar date, the largest line amounts, 500 lines.
    const big = await api('POST', '/api/v1/invoices', {
      external_invoice_id: uid('inv'),
      customer_id: customerId,
      invoice_number: 'INV-EXTREME',
      issue_date: limits.date_min,
      due_date: limits.date_max,
      // The total may not pass the amount limit either: one line takes all of it but the other 499 cents.
      line_items: Array.from({ length: 500 }, (_, i) => ({
        description: `Line ${i} ${'<&>'.repeat(300)}`,
        quantity: 1,
        unit_amount_cents: i === 0 ? limits.amount_cents_max - 499 : 1,
      })),
    });
    expectStatus(big, 201);
    const bigShare = await api('POST', '/api/v1/document-shares', { record_type: 'invoice', record_id: big.json.data.id });
    expectStatus(bigShare, 201);
    const text = await pdfTextOf((await pdfOf(`${e2e.base}/api/v1/document-renders/${bigShare.json.data.render_id}/download`, keys.test_key)).bytes);
    expect(text).toContain('$999,999,995.01');
    expect(text).toContain('$1,000,000,000.00');
    expect(text).toContain(limits.date_max);
    const page = await fetch(bigShare.json.data.url);
    expect(page.status).toBe(200);
    expect((await page.text()).length).toBeGreaterThan(500 * 900);
    // Still serving.
    expect((await fetch(share.url)).status).toBe(200);
    expectStatus(await post({ record_type: 'invoice', record_id: invoice.id }), 201);
  });

  it('answers 503 while S3 is down and keeps nothing half-written; shares again once it is back', async () => {
    const before = await counts();
    await e2e.stack.s3!.stop();
    try {
      const r = await api('POST', '/api/v1/document-shares', { record_type: 'invoice', record_id: invoice.id });
      expectError(r, 503, 'service_unavailable');
    } finally {
      await e2e.stack.s3!.start();
    }
    expect(await counts()).toEqual(before);
    expectStatus(await api('POST', '/api/v1/document-shares', { record_type: 'invoice', record_id: invoice.id }), 201);
  });
});
