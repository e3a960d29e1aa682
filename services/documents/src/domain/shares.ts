import type { DocumentRenderDto, DocumentShareDto, Environment, ShareRecordType, ShareStatus } from '@acct/contracts';

/** A row of `document_renders`: a PDF snapshot of an invoice or estimate (bytes in S3 under storage_key). */
export interface RenderRow {
  id: string;
  organization_id: string;
  environment: Environment;
  record_type: ShareRecordType;
  record_id: string;
  status: 'ready';
  file_name: string;
  size_bytes: string | number;
  sha256: string;
  storage_key: string;
  created_at: Date;
}

/** A row of `document_shares`: a portal link to a render, acting with the creator's context. */
export interface ShareRow {
  id: string;
  organization_id: string;
  connected_app_id: string;
  environment: Environment;
  api_key_id: string;
  record_type: ShareRecordType;
  record_id: string;
  render_id: string;
  token: string;
  status: ShareStatus;
  created_at: Date;
  revoked_at: Date | null;
}

/** The shape of a share token this service issues: 32 random bytes, base64url. */
const SHARE_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** Only a token of the issued shape is looked up (a NUL or a stray byte never reaches SQL). */
export const isShareToken = (token: string): boolean => SHARE_TOKEN.test(token);

export function renderDto(r: RenderRow): DocumentRenderDto {
  return {
    id: r.id,
    status: r.status,
    document_type: r.record_type,
    record_id: r.record_id,
    content_type: 'application/pdf',
    file_name: r.file_name,
    size_bytes: Number(r.size_bytes),
    created_at: new Date(r.created_at).toISOString(),
  };
}

/** The share as the API shows it; its url is the portal page under the gateway's public URL. */
export function shareDto(r: ShareRow, publicBaseUrl: string): DocumentShareDto {
  return {
    id: r.id,
    status: r.status,
    record_type: r.record_type,
    record_id: r.record_id,
    render_id: r.render_id,
    url: `${publicBaseUrl.replace(/\/+$/, '')}/portal/${r.token}`,
    created_at: new Date(r.created_at).toISOString(),
    revoked_at: r.revoked_at ? new Date(r.revoked_at).toISOString() : null,
  };
}
