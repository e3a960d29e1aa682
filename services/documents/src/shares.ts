import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { AppError, type CustomerDto, type EstimateDto, type InvoiceDto, type ShareRecordType, type TrustedContext, single } from '@acct/contracts';
import type { Orm, RpcClient, RpcServer } from '@acct/kit';
import { type DocumentsConfig, LOGO_MAX_BYTES } from './config';
import { sanitizeFileName } from './domain/file-name';
import { renderPdf } from './domain/pdf';
import { portalPage } from './domain/portal-page';
import { type RecordView, estimateView, invoiceView } from './domain/view';
import { fetchRecord } from './flows/records';
import { readSettings } from './flows/settings';
import { type RenderRow, type Scope, type ShareRow, findActiveShareByToken, findDocument, findRender, findShare, insertShare, renderDto, revokeShare, shareDto } from './queries';
import { Storage, s3 } from './storage';

/** Largest logo inlined in the portal page (a data: URL); a bigger one is left out of the page. */
const PORTAL_LOGO_MAX_BYTES = 256 * 1024;

/** 32 random bytes, base64url. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

async function readAll(stream: Readable, max: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of stream as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > max) {
      stream.destroy();
      return undefined;
    }
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}

export interface SharesDeps {
  server: RpcServer;
  orm: Orm;
  rpc: Pick<RpcClient, 'call'>;
  storage: Storage;
  config: DocumentsConfig;
}

/** Shares (portal links) and renders (PDFs) of invoices and estimates, and the portal's page and PDF. */
export function registerShareHandlers({ server, orm, rpc, storage, config }: SharesDeps): void {
  const scopeOf = (ctx: TrustedContext): Scope => ({ organizationId: ctx.organizationId, environment: ctx.environment });

  const logoOf = async (s: Scope, id: string | null, max: number): Promise<{ bytes: Buffer; type: string } | undefined> => {
    if (!id) return undefined;
    const doc = await findDocument(orm.em.fork(), s, id);
    if (!doc?.content_type || Number(doc.size_bytes) > max) return undefined;
    const body = await s3(() => storage.get(doc.storage_key));
    const bytes = body ? await s3(() => readAll(body, max)) : undefined;
    return bytes ? { bytes, type: doc.content_type } : undefined;
  };

  /** The record as it is now, with its customer and the settings, as one view. */
  const viewOf = async (ctx: TrustedContext, type: ShareRecordType, id: string): Promise<{ view: RecordView; logoId: string | null }> => {
    const record = await fetchRecord<InvoiceDto | EstimateDto>(rpc, ctx, type, id);
    const [customer, settings] = await Promise.all([fetchRecord<CustomerDto>(rpc, ctx, 'customer', record.customer_id), readSettings(orm, scopeOf(ctx))]);
    const input = { customer, branding: settings.branding, invoiceDefaults: settings.invoice, estimateDefaults: settings.estimate };
    const view = type === 'invoice' ? invoiceView(record as InvoiceDto, input) : estimateView(record as EstimateDto, input);
    return { view, logoId: settings.branding.logo_document_id };
  };

  server.handle('document_shares.create', async (req) => {
    const s = scopeOf(req.ctx);
    const { record_type, record_id } = req.body;
    const { view, logoId } = await viewOf(req.ctx, record_type, record_id);
    const pdf = await renderPdf({ view, logo: (await logoOf(s, logoId, LOGO_MAX_BYTES))?.bytes });
    const now = new Date();
    const render: RenderRow = {
      id: randomUUID(),
      organization_id: s.organizationId,
      environment: s.environment,
      record_type,
      record_id,
      status: 'ready',
      file_name: sanitizeFileName(`${record_type}-${view.number}.pdf`),
      size_bytes: pdf.length,
      sha256: createHash('sha256').update(pdf).digest('hex'),
      storage_key: '',
      created_at: now,
    };
    render.storage_key = Storage.key(s.organizationId, s.environment, render.id);
    const share: ShareRow = {
      id: randomUUID(),
      organization_id: s.organizationId,
      connected_app_id: req.ctx.connectedAppId,
      environment: s.environment,
      api_key_id: req.ctx.apiKeyId,
      record_type,
      record_id,
      render_id: render.id,
      token: randomBytes(32).toString('base64url'),
      status: 'active',
      created_at: now,
      revoked_at: null,
    };
    // Bytes first, rows after: a failure in between leaves no row pointing at nothing, and the object is removed.
    await s3(() => storage.put(render.storage_key, pdf, pdf.length, 'application/pdf'));
    try {
      await insertShare(orm.em.fork(), render, share);
    } catch (e) {
      await storage.delete(render.storage_key).catch(() => undefined);
      throw e;
    }
    return { ok: true, status: 201, body: single('document_share', shareDto(share, config.PUBLIC_BASE_URL)) };
  });

  const mustShare = async (s: Scope, id: string) => {
    const row = await findShare(orm.em.fork(), s, id);
    if (!row) throw AppError.notFound('Document share', id);
    return row;
  };
  const mustRender = async (s: Scope, id: string) => {
    const row = await findRender(orm.em.fork(), s, id);
    if (!row) throw AppError.notFound('Document render', id);
    return row;
  };
  const fileOf = async (r: RenderRow) => ({
    fileUrl: await s3(() => storage.presignGet(r.storage_key, config.PRESIGN_TTL_S)),
    contentType: 'application/pdf',
    filename: r.file_name,
    sha256: r.sha256,
  });

  server.handle('document_shares.get', async (req) => ({
    ok: true,
    status: 200,
    body: single('document_share', shareDto(await mustShare(scopeOf(req.ctx), req.params.id), config.PUBLIC_BASE_URL)),
  }));

  server.handle('document_shares.revoke', async (req) => {
    const row = await revokeShare(orm.em.fork(), scopeOf(req.ctx), req.params.id);
    if (!row) throw AppError.notFound('Document share', req.params.id);
    return { ok: true, status: 200, body: single('document_share', shareDto(row, config.PUBLIC_BASE_URL)) };
  });

  server.handle('document_renders.get', async (req) => ({ ok: true, status: 200, body: single('document_render', renderDto(await mustRender(scopeOf(req.ctx), req.params.id))) }));

  server.handle('document_renders.download', async (req) => {
    const r = await mustRender(scopeOf(req.ctx), req.params.id);
    return { ok: true, status: 200, body: single('document_render', renderDto(r)), ...(await fileOf(r)) };
  });

  // ---------- the portal (no API key: the token is the credential; unknown and revoked look alike) ----------
  const activeShare = async (token: string, requestId: string) => {
    // Only a token of the shape this service issues is looked up (a NUL or a stray byte never reaches SQL).
    const share = TOKEN.test(token) ? await findActiveShareByToken(orm.em.fork(), token) : undefined;
    if (!share) throw AppError.notFound('Page', 'this link');
    const ctx: TrustedContext = {
      organizationId: share.organization_id,
      connectedAppId: share.connected_app_id,
      environment: share.environment,
      apiKeyId: share.api_key_id,
      requestId,
    };
    return { share, ctx };
  };

  server.handle('portal.page', async (req) => {
    const { share, ctx } = await activeShare(req.params.token, req.ctx.requestId);
    const { view, logoId } = await viewOf(ctx, share.record_type, share.record_id);
    const logo = await logoOf(scopeOf(ctx), logoId, PORTAL_LOGO_MAX_BYTES).catch(() => undefined);
    const html = portalPage({
      view,
      nonce: req.body.nonce,
      pdfHref: `./${share.token}/pdf`,
      ...(logo ? { logoDataUrl: `data:${logo.type};base64,${logo.bytes.toString('base64')}` } : {}),
    });
    return { ok: true, status: 200, body: { html } };
  });

  server.handle('portal.pdf', async (req) => {
    const { share } = await activeShare(req.params.token, req.ctx.requestId);
    const r = await mustRender({ organizationId: share.organization_id, environment: share.environment }, share.render_id);
    return { ok: true, status: 200, body: single('document_render', renderDto(r)), ...(await fileOf(r)) };
  });
}
