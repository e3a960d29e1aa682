import { single } from '@acct/contracts';
import { type RpcServer, scopeOf } from '@acct/kit';
import { shareDto } from '../domain/shares';
import type { DocumentsDeps } from '../flows/deps';
import { createShare, mustFindShare, revokeShareOf } from '../flows/shares';

/** Shares: portal links to a PDF render of an invoice or estimate. */
export function registerShareHandlers(server: RpcServer, deps: DocumentsDeps): void {
  const dto = (row: Parameters<typeof shareDto>[0]) => single('document_share', shareDto(row, deps.config.PUBLIC_BASE_URL));

  server.handle('document_shares.create', async (req) => ({ ok: true, status: 201, body: dto(await createShare(deps, req.ctx, req.body.record_type, req.body.record_id)) }));

  server.handle('document_shares.get', async (req) => ({ ok: true, status: 200, body: dto(await mustFindShare(deps, scopeOf(req.ctx), req.params.id)) }));

  server.handle('document_shares.revoke', async (req) => ({ ok: true, status: 200, body: dto(await revokeShareOf(deps, scopeOf(req.ctx), req.params.id)) }));
}
