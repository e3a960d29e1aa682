import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import type { Logger } from '@acct/kit';
import { sendError } from '../middlewares/errors';
import type { Ctx, Middleware } from '../middlewares/state';

/**
 * The dashboard's pages (docs/dashboard.md "Served"): clients/dashboard's Vite build, served by the
 * gateway under /dashboard. `index.html` answers every page path (the app routes in the browser),
 * revalidated on each load (`no-cache` + ETag: a deploy is seen at once, a current copy costs a 304);
 * `assets/<name>-<hash>.<ext>` are immutable for a year (a new build has new names). Every file is
 * read into memory when the gateway starts, and only a name of that list is ever answered: a path
 * never reaches the file system, so no `..` or encoded separator can read outside the folder.
 */
export const DASHBOARD_PREFIX = '/dashboard';
const ASSETS_PREFIX = `${DASHBOARD_PREFIX}/assets/`;
const API_PREFIX = `${DASHBOARD_PREFIX}/api`;

/** The policy of every dashboard answer: this origin only, no inline script or style, no framing. */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const IMMUTABLE = 'public, max-age=31536000, immutable';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};
/** Text compresses; images and fonts are compressed already. */
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.map', '.svg', '.txt']);
/** Below this, compression saves less than its header costs. */
const MIN_COMPRESS_BYTES = 256;

/** One file as served: its bytes, their gzip and brotli forms (when worth it), and an ETag. */
export interface StaticFile {
  type: string;
  plain: Buffer;
  gzip: Buffer | null;
  br: Buffer | null;
  etag: string;
}

export interface DashboardFiles {
  dir: string;
  index: StaticFile;
  /** By the path under assets/ (`index-Ab12.js`), the only names answered. */
  assets: Map<string, StaticFile>;
}

/** Compressed once, when the gateway starts (brotli at its best quality: the files are small and served a year). */
export function staticFile(plain: Buffer, ext: string): StaticFile {
  const compress = COMPRESSIBLE.has(ext) && plain.length >= MIN_COMPRESS_BYTES;
  const smaller = (b: Buffer) => (b.length < plain.length ? b : null);
  return {
    type: TYPES[ext] ?? 'application/octet-stream',
    plain,
    gzip: compress ? smaller(gzipSync(plain, { level: 9 })) : null,
    br: compress
      ? smaller(
          brotliCompressSync(plain, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT, [zlib.BROTLI_PARAM_SIZE_HINT]: plain.length } }),
        )
      : null,
    etag: `"${createHash('sha256').update(plain).digest('base64url').slice(0, 32)}"`,
  };
}

/** Every regular file under `dir`, as paths relative to it with `/` separators (no symlinks followed). */
function listFiles(dir: string, under = ''): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(dir, under), { withFileTypes: true })) {
    const rel = under ? `${under}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...listFiles(dir, rel));
    else if (e.isFile()) out.push(rel);
  }
  return out;
}

/** Builds already read, by folder and index.html's time: gateways made in one process (tests) share one. */
const loaded = new Map<string, { mtimeMs: number; files: DashboardFiles }>();

/** The build in `dir` (index.html and assets/), or null when there is none. */
export function loadDashboardFiles(dir: string): DashboardFiles | null {
  const indexFile = path.join(dir, 'index.html');
  if (!fs.existsSync(indexFile)) return null;
  const { mtimeMs } = fs.statSync(indexFile);
  const kept = loaded.get(dir);
  if (kept?.mtimeMs === mtimeMs) return kept.files;
  const files = readDashboardFiles(dir, indexFile);
  loaded.set(dir, { mtimeMs, files });
  return files;
}

function readDashboardFiles(dir: string, indexFile: string): DashboardFiles {
  const assetsDir = path.join(dir, 'assets');
  const assets = new Map<string, StaticFile>();
  if (fs.existsSync(assetsDir)) {
    for (const rel of listFiles(assetsDir)) assets.set(rel, staticFile(fs.readFileSync(path.join(assetsDir, rel)), path.extname(rel).toLowerCase()));
  }
  return { dir, index: staticFile(fs.readFileSync(indexFile), '.html'), assets };
}

/**
 * Where the build is: DASHBOARD_DIST_DIR, else the @acct/dashboard workspace's dist (node_modules'
 * link, as in the image), else the workspace beside this one in the source tree (a gateway started
 * in-process by jest, whose resolver maps @acct/* to sources).
 */
export function dashboardDistDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.DASHBOARD_DIST_DIR) return path.resolve(env.DASHBOARD_DIST_DIR);
  try {
    return path.join(path.dirname(require.resolve('@acct/dashboard/package.json')), 'dist');
  } catch {
    // services/gateway/{src,dist}/dashboard → the repository's root.
    return path.resolve(__dirname, '..', '..', '..', '..', 'clients', 'dashboard', 'dist');
  }
}

/** The headers of every dashboard answer (docs/dashboard.md "Served"). */
export function dashboardHeaders(ctx: Ctx): void {
  ctx.set('Content-Security-Policy', DASHBOARD_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
}

/** A file: 304 when the caller's copy is current, else brotli, gzip or the plain bytes as accepted. */
function sendFile(ctx: Ctx, file: StaticFile, cacheControl: string): void {
  ctx.set('Cache-Control', cacheControl);
  ctx.set('ETag', file.etag);
  ctx.set('Vary', 'Accept-Encoding');
  ctx.status = 200;
  ctx.type = file.type;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  // Brotli first whenever accepted (about a fifth smaller than gzip on scripts), whatever order the client listed them in.
  if (file.br && ctx.acceptsEncodings('br') === 'br') {
    ctx.set('Content-Encoding', 'br');
    ctx.body = file.br;
  } else if (file.gzip && ctx.acceptsEncodings('gzip') === 'gzip') {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = file.gzip;
  } else ctx.body = file.plain;
}

export interface DashboardPagesOptions {
  log: Logger;
  /** The build folder; undefined: dashboardDistDir(); null: none (503). */
  distDir?: string | null;
}

const isDashboardPath = (p: string) => p === DASHBOARD_PREFIX || p.startsWith(`${DASHBOARD_PREFIX}/`);
const isApiPath = (p: string) => p === API_PREFIX || p.startsWith(`${API_PREFIX}/`);

/**
 * GET and HEAD of /dashboard and every path under it but /dashboard/api: the built pages. The build
 * is loaded once, here; a gateway without one (the dashboard not built, or DASHBOARD_DIST_DIR wrong)
 * still starts, says so once in its log, and answers the pages 503 with the reason.
 */
export function dashboardPages(options: DashboardPagesOptions): Middleware {
  const dir = options.distDir === undefined ? dashboardDistDir() : options.distDir;
  const files = dir ? loadDashboardFiles(dir) : null;
  if (!files) options.log.warn({ dir }, 'dashboard pages not built: /dashboard answers 503 (run `npm run build`, or set DASHBOARD_DIST_DIR)');
  return async (ctx, next) => {
    if (!isDashboardPath(ctx.path) || isApiPath(ctx.path)) {
      await next();
      return;
    }
    dashboardHeaders(ctx);
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      const message = `${ctx.method} is not allowed on ${ctx.path}; allowed: GET, HEAD.`;
      return sendError(ctx, 'validation_failed', message, [{ field: 'method', issue: 'method_not_allowed', message: 'Use one of GET, HEAD.' }], 405);
    }
    if (!files)
      return sendError(ctx, 'service_unavailable', 'The dashboard is not available: its pages were not built (run `npm run build`) or DASHBOARD_DIST_DIR names no build.');
    if (ctx.path.startsWith(ASSETS_PREFIX) || ctx.path === `${DASHBOARD_PREFIX}/assets`) {
      const asset = files.assets.get(ctx.path.slice(ASSETS_PREFIX.length));
      if (!asset) return sendError(ctx, 'not_found', `There is no dashboard asset ${ctx.path}.`);
      return sendFile(ctx, asset, IMMUTABLE);
    }
    sendFile(ctx, files.index, 'no-cache');
  };
}
