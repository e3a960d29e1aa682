import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { parse } from 'yaml';
import { CHROMIUM_ARGS, chromiumExecutable } from '@acct/testing';
import { createGatewayApp } from '../app';
import { renderOpenApiYaml } from '../openapi';
import { TokenBuckets } from '../rate-limit';
import { fakeIdempotency, fakeKeys, fakeRpc, serve, silentLog, testMetrics, type Served } from '../testing/fakes';
import { DEVELOPERS_CSP } from './developers';

/**
 * GET /developers in the real browser the portal test uses: the gateway of the real route table and
 * document, in this process (the page, its script and the document are the gateway's own: no service,
 * database or NATS behind them), driven by Chromium.
 */
/** The screenshot of the reference page, kept after the run (git-ignored). */
const ARTIFACTS = path.join(__dirname, '..', '..', '..', '..', 'test', 'artifacts');

interface Doc {
  tags?: { name: string }[];
  paths: Record<string, Record<string, { summary?: string; operationId: string; tags?: string[] }>>;
}

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; worker-src blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

describe('GET /developers, the API reference page (API-DECISIONS §11)', () => {
  let gw: Served;

  beforeAll(async () => {
    const { app } = createGatewayApp({
      keys: fakeKeys({}),
      idempotency: fakeIdempotency(),
      rpc: fakeRpc(() => ({ ok: false, status: 503, error: { code: 'service_unavailable', message: 'none' } }) as never),
      log: silentLog(),
      metrics: testMetrics(),
      buckets: new TokenBuckets(1000, 1000),
      clientBuckets: new TokenBuckets(1000, 1000),
      moduleEnforcement: 'soft',
      openapiYaml: renderOpenApiYaml(),
    });
    gw = await serve(app);
  });
  afterAll(async () => gw?.close());

  it('answers under the policy the page is tested with', () => expect(DEVELOPERS_CSP).toBe(CSP));

  it('serves the page and its script with no key, from the gateway, under a same-origin policy', async () => {
    const page = await fetch(`${gw.base}/developers`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(CSP);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await page.text();
    expect(html).toContain('<script src="/developers/redoc.js"></script>');
    expect(html).toContain('spec-url="/developers/openapi.yaml"');
    // Nothing on the page names another origin.
    expect(html).not.toMatch(/https?:\/\//);

    const script = await fetch(`${gw.base}/developers/redoc.js`, { headers: { 'accept-encoding': 'identity' } });
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=604800');
    expect(script.headers.get('x-content-type-options')).toBe('nosniff');
    const etag = script.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    const plain = Buffer.from(await script.arrayBuffer());
    expect(plain.length).toBeGreaterThan(500_000);
    expect(plain.toString('utf8', 0, 2000)).toMatch(/Redoc|redoc/);

    // Gzip when accepted: the raw bytes (fetch would decode them itself) unzip to the same script.
    const gz = await rawGet(`${gw.base}/developers/redoc.js`, { 'accept-encoding': 'gzip, br' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers.vary).toBe('Accept-Encoding');
    expect(gz.headers.etag).toBe(etag);
    expect(gz.body.length).toBeLessThan(plain.length / 2);
    expect(gunzipSync(gz.body).equals(plain)).toBe(true);
    // The logo Redoc would load from its CDN is inline: the script names no image of another origin.
    expect(plain.toString('utf8')).not.toContain('cdn.redoc.ly');
    // (Not fetch: with If-None-Match it adds Cache-Control: no-cache, which asks for the full answer.)
    const revalidated = await rawGet(`${gw.base}/developers/redoc.js`, { 'if-none-match': etag });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body.length).toBe(0);
  });

  it('serves the document gzipped when accepted, with an ETag that makes a current copy a 304', async () => {
    const plain = await rawGet(`${gw.base}/developers/openapi.yaml`, { 'accept-encoding': 'identity' });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['cache-control']).toBe('no-cache');
    const etag = plain.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    const gz = await rawGet(`${gw.base}/developers/openapi.yaml`, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers.vary).toBe('Accept-Encoding');
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    process.stdout.write(`openapi.yaml: ${plain.body.length} bytes, ${gz.body.length} gzipped\n`);
    expect(gz.body.length).toBeLessThan(plain.body.length / 5);
    const revalidated = await rawGet(`${gw.base}/developers/openapi.yaml`, { 'if-none-match': etag });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body.length).toBe(0);
  });

  it('serves the same document as JSON at /developers/openapi.json, gzipped when accepted, with its own ETag', async () => {
    const yaml = parse(await (await fetch(`${gw.base}/developers/openapi.yaml`)).text()) as Doc;
    const plain = await rawGet(`${gw.base}/developers/openapi.json`, { 'accept-encoding': 'identity' });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(plain.body.toString('utf8'))).toEqual(yaml);
    const gz = await rawGet(`${gw.base}/developers/openapi.json`, { 'accept-encoding': 'gzip' });
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    const revalidated = await rawGet(`${gw.base}/developers/openapi.json`, { 'if-none-match': plain.headers.etag as string });
    expect(revalidated.status).toBe(304);
  });

  it('renders every operation and tag in a real browser (Chromium): no console error, no request leaves the origin; keeps a screenshot', async () => {
    const doc = parse(await (await fetch(`${gw.base}/developers/openapi.yaml`)).text()) as Doc;
    const operations = Object.values(doc.paths).flatMap((item) => Object.values(item));
    const summaries = [...new Set(operations.map((o) => o.summary).filter((s): s is string => Boolean(s)))];
    const tags = [...new Set([...(doc.tags ?? []).map((t) => t.name), ...operations.flatMap((o) => o.tags ?? [])])];
    expect(operations.length).toBeGreaterThan(50);
    expect(tags).toContain('Customers');

    const origin = new URL(gw.base).origin;
    const executablePath = await chromiumExecutable();
    const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
    try {
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      // Every request of the page and its worker, whatever its origin; one to another origin is
      // recorded and never sent.
      const requested: string[] = [];
      const foreign: string[] = [];
      await context.route('**/*', async (route) => {
        const url = route.request().url();
        requested.push(url);
        if (url.startsWith('data:') || url.startsWith('blob:') || new URL(url).origin === origin) return route.continue();
        foreign.push(url);
        return route.abort('blockedbyclient');
      });
      const seen: string[] = [];
      context.on('request', (r) => seen.push(r.url()));
      const bytes: Record<string, number> = {};
      context.on('response', async (r) => {
        const size = await r
          .body()
          .then((b) => b.length)
          .catch(() => 0);
        const sizes = await r
          .request()
          .sizes()
          .catch(() => ({ responseBodySize: size }));
        bytes[r.url()] = sizes.responseBodySize || size;
      });

      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' || /Content Security Policy|Refused to/i.test(m.text())) errors.push(`${m.type()}: ${m.text()}`);
      });
      page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));

      const res = await page.goto(`${gw.base}/developers`, { waitUntil: 'networkidle' });
      expect(res!.status()).toBe(200);
      // Redoc has rendered: the document's title, then every operation's summary and every tag.
      await page.locator('.api-content h1').first().waitFor({ timeout: 30_000 });
      const text = (await page.locator('body').textContent()) ?? '';
      const missingSummaries = summaries.filter((s) => !text.includes(s));
      const missingTags = tags.filter((t) => !text.includes(t));
      expect(missingSummaries).toEqual([]);
      expect(missingTags).toEqual([]);
      const createCustomer = operations.find((o) => o.operationId === 'createCustomer')!;
      await expect(page.locator('h2', { hasText: createCustomer.summary! }).count()).resolves.toBeGreaterThan(0);
      await expect(page.locator('[role="menuitem"], li[data-item-id]').count()).resolves.toBeGreaterThan(operations.length);

      // The search (Redoc's blob: worker) answers.
      await page.locator('input[placeholder="Search..."]').fill('customer');
      await page.locator('[data-role="search:results"], [role="search"] li').first().waitFor({ timeout: 15_000 });

      fs.mkdirSync(ARTIFACTS, { recursive: true });
      const shot = path.join(ARTIFACTS, 'developers.png');
      await page.locator('input[placeholder="Search..."]').fill('');
      await page.screenshot({ path: shot });
      expect(fs.statSync(shot).size).toBeGreaterThan(10_000);

      expect(errors).toEqual([]);
      expect(foreign).toEqual([]);
      expect(seen.filter((u) => !(u.startsWith('data:') || u.startsWith('blob:') || new URL(u).origin === origin))).toEqual([]);
      const own = Object.entries(bytes).filter(([u]) => u.startsWith(origin));
      const weight = own.reduce((n, [, b]) => n + b, 0);
      console.log(
        `GET /developers: ${operations.length} operations and ${tags.length} tags rendered (${summaries.length} summaries found), ` +
          `${seen.length} requests (${requested.length} routed, ${foreign.length} foreign, all same-origin/data:/blob:), ${errors.length} console errors; ` +
          `page weight ${weight} bytes transferred: ${own.map(([u, b]) => `${new URL(u).pathname} ${b}`).join(', ')}; screenshot ${shot}`,
      );
      await context.close();
    } finally {
      await browser.close();
    }
  }, 120_000);
});

/** A GET whose body is kept as sent (no decoding). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}
