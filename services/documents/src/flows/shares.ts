import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { AppError, type ShareRecordType, type TrustedContext } from '@acct/contracts';
import { type Scope, scopeOf } from '@acct/kit';
import { Storage, s3 } from '../adapters/storage';
import { LOGO_MAX_BYTES } from '../config';
import { sanitizeFileName } from '../domain/file-name';
import { renderPdf } from '../domain/pdf';
import type { RenderRow, ShareRow } from '../domain/shares';
import { findShare, insertShare, revokeShare } from '../queries';
import type { DocumentsDeps } from './deps';
import { logoOf, viewOf } from './renders';

/**
 * Renders the record (as it is now) to a PDF, stores it, then writes the render and an active share
 * in one transaction: bytes first, rows after, so a failure in between leaves no row pointing at
 * nothing, and the object is removed.
 */
export async function createShare(deps: DocumentsDeps, ctx: TrustedContext, recordType: ShareRecordType, recordId: string): Promise<ShareRow> {
  const { orm, storage } = deps;
  const s = scopeOf(ctx);
  const { view, logoId } = await viewOf(deps, ctx, recordType, recordId);
  const pdf = await renderPdf({ view, logo: (await logoOf(deps, s, logoId, LOGO_MAX_BYTES))?.bytes });
  const now = new Date();
  const renderId = randomUUID();
  const render: RenderRow = {
    id: renderId,
    organization_id: s.organizationId,
    environment: s.environment,
    record_type: recordType,
    record_id: recordId,
    status: 'ready',
    file_name: sanitizeFileName(`${recordType}-${view.number}.pdf`),
    size_bytes: pdf.length,
    sha256: createHash('sha256').update(pdf).digest('hex'),
    storage_key: Storage.key(s.organizationId, s.environment, renderId),
    created_at: now,
  };
  const share: ShareRow = {
    id: randomUUID(),
    organization_id: s.organizationId,
    connected_app_id: ctx.connectedAppId,
    environment: s.environment,
    api_key_id: ctx.apiKeyId,
    record_type: recordType,
    record_id: recordId,
    render_id: render.id,
    token: randomBytes(32).toString('base64url'),
    status: 'active',
    created_at: now,
    revoked_at: null,
  };
  await s3(() => storage.put(render.storage_key, pdf, pdf.length, 'application/pdf'));
  try {
    await insertShare(orm.em.fork(), render, share);
  } catch (e) {
    await storage.delete(render.storage_key).catch(() => undefined);
    throw e;
  }
  return share;
}

/** A share of the scope; 404 otherwise. */
export async function mustFindShare({ orm }: DocumentsDeps, s: Scope, id: string): Promise<ShareRow> {
  const row = await findShare(orm.em.fork(), s, id);
  if (!row) throw AppError.notFound('Document share', id);
  return row;
}

/** Revokes a share of the scope (once: a repeat keeps the first revoked_at); 404 otherwise. */
export async function revokeShareOf({ orm }: DocumentsDeps, s: Scope, id: string): Promise<ShareRow> {
  const row = await revokeShare(orm.em.fork(), s, id);
  if (!row) throw AppError.notFound('Document share', id);
  return row;
}
