import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { Ctx, LocalHandler } from '../middlewares/state';

/** Where the page loads its script and document from: the gateway itself, never another origin. */
export const REDOC_SCRIPT_PATH = '/developers/redoc.js';
const DOCUMENT_PATH = '/developers/openapi.yaml';

/**
 * The page's policy: nothing but this origin. Each source beyond `default-src 'none'`, and why:
 * - script-src 'self': the Redoc bundle (/developers/redoc.js); no inline script (Redoc starts from
 *   the <redoc spec-url> element), no eval;
 * - style-src 'self' 'unsafe-inline': styled-components injects its rules in <style> elements it
 *   creates at run time, with no nonce it could be given (a nonce or a hash cannot cover them);
 * - img-src 'self' data:: Redoc's icons are inline SVG data: URLs in its styles (and its logo, below);
 * - connect-src 'self': Redoc fetches the document (/developers/openapi.yaml);
 * - worker-src blob:: Redoc's search index runs in a Worker built from a blob: URL of its own code;
 * - font-src none (default): Redoc's fonts fall back to the system's, no font service is asked;
 * - base-uri, form-action, frame-ancestors 'none': no base rewrite, no form posts, no framing.
 */
export const DEVELOPERS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  'worker-src blob:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The page: Redoc's standalone bundle renders the <redoc> element from the served document. */
export const DEVELOPERS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="Reference of the accounting API, generated from its OpenAPI document.">
<title>API reference</title>
</head>
<body>
<redoc spec-url="${DOCUMENT_PATH}" expand-responses="200,201" path-in-middle-panel="true" sort-tags-alphabetically="false"></redoc>
<script src="${REDOC_SCRIPT_PATH}"></script>
</body>
</html>
`;

/** Headers of both answers: the policy above, no sniffing, no framing, no referrer. */
function developersHeaders(ctx: Ctx): void {
  ctx.set('Content-Security-Policy', DEVELOPERS_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
}

/** A body served as is: its bytes, gzipped once, and an ETag of its bytes. */
export interface Asset {
  plain: Buffer;
  gzip: Buffer;
  etag: string;
}

export function assetOf(text: string): Asset {
  const plain = Buffer.from(text, 'utf8');
  return { plain, gzip: gzipSync(plain, { level: 9 }), etag: `"${createHash('sha256').update(plain).digest('base64url').slice(0, 32)}"` };
}

/**
 * Answers with an asset: 304 when the caller's copy is current (If-None-Match), gzip when accepted
 * (the document and the bundle shrink about 8 times), the bytes as they are otherwise.
 */
export function sendAsset(ctx: Ctx, asset: Asset, type: string, cacheControl: string): void {
  ctx.set('Cache-Control', cacheControl);
  ctx.set('ETag', asset.etag);
  ctx.set('Vary', 'Accept-Encoding');
  ctx.status = 200;
  ctx.type = type;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = asset.gzip;
  } else ctx.body = asset.plain;
}

/**
 * The one address of another origin in Redoc's bundle: the logo beside "API docs by Redocly" at the foot
 * of its menu, loaded from Redocly's CDN (no option turns it off). Served as an inline SVG instead (a
 * mark in Redocly's red), so the page asks nothing of another origin and the policy stays 'self'.
 */
export const REDOC_CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const INLINE_LOGO = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Ccircle cx='8' cy='8' r='7' fill='%23e2493d'/%3E%3C/svg%3E";

/** The standalone bundle of the redoc package (a dependency of the gateway), read once when first asked. */
function loadScript(file: string): () => Asset {
  let script: Asset | undefined;
  return () => (script ??= assetOf(fs.readFileSync(file, 'utf8').split(REDOC_CDN_LOGO).join(INLINE_LOGO)));
}

/** The reference page's gateway handlers: the page and its script (the document is getOpenApi). */
export function developersHandlers(scriptFile = require.resolve('redoc/bundles/redoc.standalone.js')): Record<'getDevelopersPage' | 'getDevelopersScript', LocalHandler> {
  const script = loadScript(scriptFile);
  return {
    getDevelopersPage: (ctx) => {
      developersHeaders(ctx);
      ctx.set('Cache-Control', 'no-cache');
      ctx.status = 200;
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = DEVELOPERS_PAGE;
    },
    getDevelopersScript: (ctx) => {
      developersHeaders(ctx);
      // A week: the bundle is generic (it renders whatever document it is given), so a copy a week
      // older than the gateway is harmless; past it, the ETag makes the check a 304 with no body.
      sendAsset(ctx, script(), 'text/javascript; charset=utf-8', 'public, max-age=604800');
    },
  };
}
