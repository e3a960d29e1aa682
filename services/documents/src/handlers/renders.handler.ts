import { single } from '@acct/contracts';
import { type RpcServer, scopeOf } from '@acct/kit';
import { renderDto } from '../domain/shares';
import type { DocumentsDeps } from '../flows/deps';
import { downloadRender, mustFindRender } from '../flows/renders';

/** Renders: the PDF snapshots behind shares, read and downloaded (a presigned GET the gateway streams). */
export function registerRenderHandlers(server: RpcServer, deps: DocumentsDeps): void {
  server.handle('document_renders.get', async (req) => ({
    ok: true,
    status: 200,
    body: single('document_render', renderDto(await mustFindRender(deps, scopeOf(req.ctx), req.params.id))),
  }));

  server.handle('document_renders.download', async (req) => {
    const { render, file } = await downloadRender(deps, scopeOf(req.ctx), req.params.id);
    return { ok: true, status: 200, body: single('document_render', renderDto(render)), ...file };
  });
}
