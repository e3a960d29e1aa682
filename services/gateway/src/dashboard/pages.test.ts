import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { createGatewayApp } from '../app';
import { capturedLog, fakeGatewayDeps, json, serve, type Served } from '../testing/fakes';
import { DASHBOARD_CSP, dashboardDistDir } from './pages';

/**
 * The dashboard's pages as the gateway serves them (docs/dashboard.md "Served"), from a build made
 * here in a temporary folder: the SPA fallback, the caching of the page and of the hashed assets,
 * 304s, compression, the security headers, and no way out of the folder.
 */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const INDEX = '<!doctype html><html lang="en"><head><script type="module" src="/dashboard/assets/index-AbC123.js"></script></head><body><div id="app"></div></body></html>';
const SCRIPT = `export const x = ${JSON.stringify('dashboard '.repeat(400))};\n`;

/** A raw GET: the path exactly as written (fetch would resolve `..`), the body as sent (not decoded). */
function rawGet(base: string, pathname: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${pathname}`, { headers, path: pathname }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

function makeBuild(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dashboard-dist-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'index.html'), INDEX);
  fs.writeFileSync(path.join(dir, 'assets', 'index-AbC123.js'), SCRIPT);
  fs.writeFileSync(path.join(dir, 'assets', 'style-Zz9.css'), 'body{margin:0}');
  return dir;
}

describe('GET /dashboard: the built pages', () => {
  let dir: string;
  let gw: Served;

  beforeAll(async () => {
    dir = makeBuild();
    gw = await serve(createGatewayApp(fakeGatewayDeps({ dashboardDist: dir })).app);
  });
  afterAll(async () => {
    await gw?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers under the documented policy', () => expect(DASHBOARD_CSP).toBe(CSP));

  it.each(['/dashboard', '/dashboard/', '/dashboard/keys', '/dashboard/webhooks/we_123', '/dashboard/invite/tok-en'])('%s is index.html, revalidated on each load', async (p) => {
    const res = await gw.call(p);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('content-security-policy')).toBe(CSP);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
    expect(await res.text()).toBe(INDEX);
  });

  it('answers 304 to a current copy of the page (ETag)', async () => {
    const first = await gw.call('/dashboard/members');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    // A raw request: fetch adds `Cache-Control: no-cache` to a conditional request, which asks for the body.
    const again = await rawGet(gw.base, '/dashboard/', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.headers['content-security-policy']).toBe(CSP);
    expect(again.body.length).toBe(0);
  });

  it('serves a hashed asset for a year, brotli or gzip when accepted', async () => {
    const plain = await rawGet(gw.base, '/dashboard/assets/index-AbC123.js', { 'accept-encoding': 'identity' });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['x-content-type-options']).toBe('nosniff');
    expect(plain.body.toString()).toBe(SCRIPT);

    const br = await rawGet(gw.base, '/dashboard/assets/index-AbC123.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('Accept-Encoding');
    expect(br.body.length).toBeLessThan(SCRIPT.length / 10);
    expect(brotliDecompressSync(br.body).toString()).toBe(SCRIPT);

    const gz = await rawGet(gw.base, '/dashboard/assets/index-AbC123.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(SCRIPT);

    const again = await rawGet(gw.base, '/dashboard/assets/index-AbC123.js', { 'if-none-match': plain.headers.etag! });
    expect(again.status).toBe(304);

    const css = await gw.call('/dashboard/assets/style-Zz9.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await css.text()).toBe('body{margin:0}');
  });

  it('answers 404 for an unknown asset, never the page', async () => {
    for (const p of ['/dashboard/assets/nope-123.js', '/dashboard/assets', '/dashboard/assets/']) {
      const res = await gw.call(p);
      expect([p, res.status]).toEqual([p, 404]);
      expect((await json(res)).error.code).toBe('not_found');
    }
  });

  it('cannot be led out of the build folder', async () => {
    const tries = [
      '/dashboard/assets/../../package.json',
      '/dashboard/assets/../index.html',
      '/dashboard/assets/..%2f..%2fpackage.json',
      '/dashboard/assets/%2e%2e/%2e%2e/package.json',
      '/dashboard/assets/..\\..\\package.json',
      `/dashboard/assets/${encodeURIComponent(path.join(dir, 'index.html'))}`,
      '/dashboard/assets//etc/passwd',
    ];
    for (const p of tries) {
      const res = await rawGet(gw.base, p);
      expect([p, res.status]).toEqual([p, 404]);
      expect(res.body.toString()).not.toContain('"name"');
    }
  });

  it('answers only GET and HEAD (405 otherwise), and leaves /dashboard/api to its routes', async () => {
    const head = await gw.call('/dashboard/keys', { method: 'HEAD' });
    expect(head.status).toBe(200);
    const post = await gw.call('/dashboard/keys', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const api = await gw.call('/dashboard/api/session');
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toMatch(/^application\/json/);
    expect(api.headers.get('content-security-policy')).toBeNull();
  });

  it('leaves paths that only start like it alone', async () => {
    const res = await gw.call('/dashboardx');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-security-policy')).toBeNull();
  });
});

describe('GET /dashboard without a build', () => {
  it('starts, logs the reason once, and answers 503', async () => {
    const { log, lines } = capturedLog('warn');
    const missing = path.join(os.tmpdir(), 'no-such-dashboard-build');
    const gw = await serve(createGatewayApp(fakeGatewayDeps({ log, dashboardDist: missing })).app);
    try {
      for (const p of ['/dashboard', '/dashboard/keys', '/dashboard/assets/index-AbC123.js']) {
        const res = await gw.call(p);
        expect([p, res.status]).toEqual([p, 503]);
        expect(res.headers.get('content-security-policy')).toBe(CSP);
        const body = await json(res);
        expect(body.error.code).toBe('service_unavailable');
        expect(body.error.message).toMatch(/not built/);
      }
      expect(lines.filter((l) => String(l.msg).includes('dashboard pages not built'))).toHaveLength(1);
    } finally {
      await gw.close();
    }
  });

  it('finds the build through DASHBOARD_DIST_DIR first, else the dashboard workspace', () => {
    expect(dashboardDistDir({ DASHBOARD_DIST_DIR: '/srv/dashboard' })).toBe('/srv/dashboard');
    expect(dashboardDistDir({})).toBe(path.resolve(__dirname, '..', '..', '..', '..', 'clients', 'dashboard', 'dist'));
  });
});

describe('the real build (clients/dashboard/dist, made by `npm run build`)', () => {
  const dist = path.join(__dirname, '..', '..', '..', '..', 'clients', 'dashboard', 'dist');
  let gw: Served;
  beforeAll(async () => {
    gw = await serve(createGatewayApp(fakeGatewayDeps({ dashboardDist: dist })).app);
  });
  afterAll(async () => gw?.close());

  it('has no inline script or style, and every file it names is served', async () => {
    const html = await (await gw.call('/dashboard/')).text();
    // Every <script> has a src and no body; no <style> element and no style attribute (the policy allows neither).
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
    expect(html).not.toMatch(/<script[^>]*>[^<]+<\/script>/i);
    expect(html).not.toMatch(/<style|\sstyle=/i);
    expect(html).not.toMatch(/https?:\/\//);
    const refs = [...html.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThanOrEqual(2);
    for (const ref of refs) {
      expect(ref).toMatch(/-[A-Za-z0-9_-]{6,}\.(js|css)$/);
      const res = await gw.call(ref);
      expect([ref, res.status]).toEqual([ref, 200]);
    }
  });
});
