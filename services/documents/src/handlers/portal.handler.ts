import { single } from '@acct/contracts';
import type { RpcServer } from '@acct/kit';
import { renderDto } from '../domain/shares';
import type { DocumentsDeps } from '../flows/deps';
import { portalHtml, portalPdf } from '../flows/portal';

/** The customer portal (asked by the gateway's public /portal/{token} routes): the page's HTML and the share's PDF. */
export function registerPortalHandlers(server: RpcServer, deps: DocumentsDeps): void {
  server.handle('portal.page', async (req) => ({ ok: true, status: 200, body: { html: await portalHtml(deps, req.params.token, req.ctx.requestId, req.body.nonce) } }));

  server.handle('portal.pdf', async (req) => {
    const { render, file } = await portalPdf(deps, req.params.token, req.ctx.requestId);
    return { ok: true, status: 200, body: single('document_render', renderDto(render)), ...file };
  });
}
