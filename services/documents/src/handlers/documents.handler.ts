import { actionReply, limits, list, single } from '@acct/contracts';
import { type RpcServer, cursorPage, listQuery, scopeOf } from '@acct/kit';
import type { DocumentsDeps } from '../flows/deps';
import { downloadDocument, linkDocument, listDocumentDtos, mustFindDocument, withLinks } from '../flows/documents';

/** Reads of finalized documents, their downloads (a presigned GET the gateway streams) and links. */
export function registerDocumentHandlers(server: RpcServer, deps: DocumentsDeps): void {
  const { orm } = deps;

  server.handle('documents.list', async (req) => {
    const q = listQuery(req.query);
    const { document_type, status, linked_record_id } = req.query;
    const { items, pagination } = cursorPage(await listDocumentDtos(orm, scopeOf(req.ctx), { document_type, status, linked_record_id }, q), q, limits.list_page_bytes_max);
    return { ok: true, status: 200, body: list('documents', items, pagination) };
  });

  server.handle('documents.get', async (req) => ({
    ok: true,
    status: 200,
    body: single('document', await withLinks(orm, await mustFindDocument(orm, scopeOf(req.ctx), req.params.id))),
  }));

  server.handle('documents.download', async (req) => {
    const { document, url, sha256 } = await downloadDocument(deps, scopeOf(req.ctx), req.params.id);
    return { ok: true, status: 200, body: single('document', document), fileUrl: url, contentType: document.content_type, filename: document.file_name, sha256 };
  });

  server.handle('documents.link', async (req) => {
    const { record_type, record_id } = req.body;
    const { document, linked } = await linkDocument(deps, req.ctx, req.params.id, record_type, record_id);
    const body = { ...actionReply('document', document, 'linked'), data: { id: document.id, linked_record_id: record_id } };
    // API-DECISIONS §1: linking again to the same record is a repeated action (Idempotent-Replayed: true).
    return { ok: true, status: 200, body, ...(linked ? {} : { replayed: true as const }) };
  });
}
