import { AppError, type TrustedContext } from '@acct/contracts';
import { scopeOf } from '@acct/kit';
import { PORTAL_LOGO_MAX_BYTES } from '../config';
import { portalPage } from '../domain/portal-page';
import { type RenderRow, type ShareRow, isShareToken } from '../domain/shares';
import { findActiveShareByToken } from '../queries';
import type { DocumentsDeps } from './deps';
import { type RenderFile, downloadRender, logoOf, viewOf } from './renders';

/**
 * The active share of a portal token and the context it acts in (its creator's). No API key here:
 * the token is the credential, and unknown, malformed and revoked tokens look alike (404).
 */
async function activeShare({ orm }: DocumentsDeps, token: string, requestId: string): Promise<{ share: ShareRow; ctx: TrustedContext }> {
  const share = isShareToken(token) ? await findActiveShareByToken(orm.em.fork(), token) : undefined;
  if (!share) throw AppError.notFound('Page', 'this link');
  const ctx: TrustedContext = {
    organizationId: share.organization_id,
    connectedAppId: share.connected_app_id,
    environment: share.environment,
    apiKeyId: share.api_key_id,
    requestId,
  };
  return { share, ctx };
}

/** The portal page of a token: the record read live, every field escaped, the logo inlined when small enough. */
export async function portalHtml(deps: DocumentsDeps, token: string, requestId: string, nonce: string): Promise<string> {
  const { share, ctx } = await activeShare(deps, token, requestId);
  const { view, logoId } = await viewOf(deps, ctx, share.record_type, share.record_id);
  const logo = await logoOf(deps, scopeOf(ctx), logoId, PORTAL_LOGO_MAX_BYTES).catch(() => undefined);
  return portalPage({
    view,
    nonce,
    pdfHref: `./${share.token}/pdf`,
    ...(logo ? { logoDataUrl: `data:${logo.type};base64,${logo.bytes.toString('base64')}` } : {}),
  });
}

/** The share's render (the PDF snapshot) and where the gateway streams it from. */
export async function portalPdf(deps: DocumentsDeps, token: string, requestId: string): Promise<{ render: RenderRow; file: RenderFile }> {
  const { share } = await activeShare(deps, token, requestId);
  return downloadRender(deps, { organizationId: share.organization_id, environment: share.environment }, share.render_id);
}
