import { single } from '@acct/contracts';
import type { RpcServer } from '@acct/kit';
import type { DocumentsDeps } from '../flows/deps';
import { abandonUpload, finalizeUpload, prepareUpload } from '../flows/uploads';

/** The gateway-only upload steps: reserve (a presigned PUT), finalize (measure and sniff the bytes), discard. */
export function registerUploadHandlers(server: RpcServer, deps: DocumentsDeps): void {
  server.handle('documents.upload_prepare', async (req) => {
    const r = await prepareUpload(deps, req.ctx, req.body);
    return 'replay' in r ? { ok: true, status: 200, body: { replay: single('document', r.replay) } } : { ok: true, status: 201, body: r.reservation };
  });

  server.handle('documents.upload_finalize', async (req) => {
    const { document, replayed } = await finalizeUpload(deps, req.ctx, req.body.upload_id);
    return replayed ? { ok: true, status: 200, body: single('document', document), replayed: true } : { ok: true, status: 201, body: single('document', document) };
  });

  server.handle('documents.upload_discard', async (req) => ({ ok: true, status: 200, body: { discarded: await abandonUpload(deps, req.ctx, req.body.upload_id) } }));
}
