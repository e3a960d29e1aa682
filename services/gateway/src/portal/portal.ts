import { randomBytes } from 'node:crypto';
import { AppError } from '@acct/contracts';
import { sendError } from '../middlewares/errors';
import { type RpcCaller, sendRemoteFile } from '../middlewares/forward';
import type { Ctx, LocalHandler } from '../middlewares/state';

/** The page for an unknown or revoked link: the same for both, so it reveals nothing. */
export const PORTAL_NOT_FOUND_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex, nofollow"><title>Not found</title></head>
<body><h1>Not found</h1><p>This link is not valid.</p></body></html>
`;

/**
 * Headers of every portal answer: no scripts at all, styles only by this response's nonce, images
 * only inline (the logo), no framing, no referrer (the URL holds the token), no caching, no indexing.
 */
export function portalHeaders(ctx: Ctx, nonce?: string): void {
  const style = nonce ? `'nonce-${nonce}'` : `'none'`;
  ctx.set('Content-Security-Policy', `default-src 'none'; style-src ${style}; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Robots-Tag', 'noindex, nofollow');
}

/** Unknown and revoked look alike: a page for a browser (Accept: text/html), else the error envelope. */
function notFound(ctx: Ctx): void {
  portalHeaders(ctx);
  if (ctx.accepts('json', 'html') !== 'html') return sendError(ctx, 'not_found', 'This link is not valid.');
  ctx.status = 404;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = PORTAL_NOT_FOUND_PAGE;
}

/** The customer portal's gateway handlers: the page and the PDF of a share, asked of documents by token. */
export function portalHandlers({ rpc, storageTimeoutMs }: { rpc: RpcCaller; storageTimeoutMs?: number }): Record<'getPortalPage' | 'getPortalPdf', LocalHandler> {
  const token = (ctx: Ctx) => String(ctx.params.token ?? '');
  return {
    getPortalPage: async (ctx) => {
      const nonce = randomBytes(16).toString('base64');
      const reply = await rpc.call('portal.page', { ctx: { requestId: ctx.state.requestId }, params: { token: token(ctx) }, query: {}, body: { nonce } });
      if (!reply.ok) {
        if (reply.error.code === 'not_found') return notFound(ctx);
        throw new AppError(reply.error.code, reply.error.message);
      }
      portalHeaders(ctx, nonce);
      ctx.status = 200;
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = reply.body.html;
    },
    getPortalPdf: async (ctx) => {
      const reply = await rpc.call('portal.pdf', { ctx: { requestId: ctx.state.requestId }, params: { token: token(ctx) }, query: {}, body: {} });
      if (!reply.ok) {
        if (reply.error.code === 'not_found') return notFound(ctx);
        throw new AppError(reply.error.code, reply.error.message);
      }
      portalHeaders(ctx);
      await sendRemoteFile(ctx, reply, storageTimeoutMs);
    },
  };
}
