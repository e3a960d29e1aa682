import { Optional, type Static, Type } from '@sinclair/typebox';
import { limits } from '../limits';
import { Nullable, StringEnum, action, dateTime, listEnvelope, name, obj, paginationQuery, singleEnvelope, uuid } from './common';

/** Documents (evidence files in S3), their links, and the settings (the documents service). */

/** Types an upload may have, sniffed from its bytes (API-DECISIONS §6). */
export const DOCUMENT_CONTENT_TYPES = ['application/pdf', 'image/png', 'image/jpeg', 'image/webp', 'image/heic', 'image/gif', 'text/csv', 'text/plain'] as const;
export type DocumentContentType = (typeof DOCUMENT_CONTENT_TYPES)[number];
export const DOCUMENT_STATUSES = ['uploaded', 'needs_review'] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];
export const DOCUMENT_TYPES = ['receipt', 'invoice', 'bill', 'contract', 'statement', 'logo', 'other'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];
export const LINK_RECORD_TYPES = ['customer', 'invoice', 'estimate', 'vendor', 'bill'] as const;
export type LinkRecordType = (typeof LINK_RECORD_TYPES)[number];
export const document_file_name_length_max = 255;
export const document_source_length_max = 100;

export const documentLink = obj({ record_type: StringEnum(LINK_RECORD_TYPES), record_id: uuid, linked_at: dateTime });

export const document = obj({
  id: uuid,
  file_name: Type.String({ description: 'The uploaded name, sanitized (no path parts, no control or bidi characters); for display only.' }),
  document_type: StringEnum(DOCUMENT_TYPES),
  source: Nullable(Type.String()),
  status: StringEnum(DOCUMENT_STATUSES, { description: 'needs_review when document_type is other or the declared type disagrees with the sniffed one.' }),
  content_type: StringEnum(DOCUMENT_CONTENT_TYPES, { description: 'Sniffed from the bytes.' }),
  size_bytes: Type.Integer({ minimum: 0 }),
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the bytes, hex.' }),
  linked_record_id: Optional(uuid),
  links: Type.Array(documentLink, { description: 'Records this document is linked to, oldest first.' }),
  created_at: dateTime,
});
export type DocumentDto = Static<typeof document>;

/** The multipart fields beside `file` (checked by the gateway before any byte is stored). */
export const documentUploadFields = obj({
  source: Optional(Type.String({ minLength: 1, maxLength: document_source_length_max, description: 'Where the file came from, e.g. mobile_app.' })),
  document_type: Optional(StringEnum(DOCUMENT_TYPES, { description: 'Missing or other: status needs_review.' })),
  record_type: Optional(StringEnum(LINK_RECORD_TYPES, { description: 'Link the document to this record at once (with record_id).' })),
  record_id: Optional(uuid),
});
export type DocumentUploadFields = Static<typeof documentUploadFields>;

/** The multipart/form-data body of POST /documents (OpenAPI). */
export const documentUploadBody = obj({
  file: Type.String({ contentEncoding: 'binary', description: 'The file (the first file part). At most 25 MiB by default; PDF, PNG, JPEG, WEBP, HEIC, GIF, CSV or plain text.' }),
  ...documentUploadFields.properties,
});

/** Gateway → documents: reserve a document for bytes the gateway holds (size and SHA-256 measured by it). */
export const documentUploadPrepareBody = obj({
  file_name: Type.String({ maxLength: 4096 }),
  declared_content_type: Type.String({ maxLength: 255 }),
  size_bytes: Type.Integer({ minimum: 0 }),
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  fields: documentUploadFields,
});
/** Either where to PUT the bytes (a presigned URL and its headers) or, for a repeated Idempotency-Key, the document it made. */
export const documentUploadPrepareReply = obj({
  upload_id: Optional(uuid),
  put_url: Optional(Type.String()),
  headers: Optional(Type.Record(Type.String(), Type.String())),
  replay: Optional(singleEnvelope('document', document)),
});
export const documentUploadIdBody = obj({ upload_id: uuid });

export const documentListQuery = obj({
  ...paginationQuery,
  document_type: Optional(StringEnum(DOCUMENT_TYPES)),
  status: Optional(StringEnum(DOCUMENT_STATUSES)),
  linked_record_id: Optional(uuid),
});
export const documentResponse = singleEnvelope('document', document);
export const documentListResponse = listEnvelope('documents', document);
export const documentDiscardReply = obj({ discarded: Type.Boolean() });

export const documentLinkBody = obj({ record_type: StringEnum(LINK_RECORD_TYPES), record_id: uuid });
export const documentLinkResponse = obj({
  data: obj({ id: uuid, linked_record_id: uuid }),
  document,
  action: action('linked'),
});

// ---------- settings ----------
const hexColor = Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: 'A colour as #RRGGBB.' });
const text = (max: number, description: string) => Type.String({ maxLength: max, description });

export const capabilities = obj({ document_branding: Type.Boolean(), invoice_defaults: Type.Boolean(), estimate_defaults: Type.Boolean() });
export const capabilitiesResponse = singleEnvelope('capabilities', capabilities);

export const documentBranding = obj({
  business_name: Nullable(name),
  payment_instructions: Nullable(text(limits.description_length_max, 'Shown on invoice renders and the portal page.')),
  primary_color: Nullable(hexColor),
  logo_document_id: Nullable(Type.String({ format: 'uuid', description: 'An uploaded PNG or JPEG document of this organization and environment.' })),
});
export type DocumentBrandingDto = Static<typeof documentBranding>;
export const documentBrandingBody = obj({
  business_name: Optional(Nullable(name)),
  payment_instructions: Optional(Nullable(text(limits.description_length_max, 'Shown on invoice renders and the portal page.'))),
  primary_color: Optional(Nullable(hexColor)),
  logo_document_id: Optional(Nullable(Type.String({ format: 'uuid' }))),
});
export const documentBrandingResponse = singleEnvelope('document_branding', documentBranding);

export const payment_terms_days_max = 365;
export const DEFAULT_PAYMENT_TERMS_DAYS = 30;
export const DEFAULT_ESTIMATE_VALIDITY_DAYS = 30;
const termsDays = Type.Integer({ minimum: 0, maximum: payment_terms_days_max, description: `Days from issue to due date; ${DEFAULT_PAYMENT_TERMS_DAYS} when never set.` });
const validityDays = Type.Integer({ minimum: 1, maximum: payment_terms_days_max, description: `Days an estimate stays valid; ${DEFAULT_ESTIMATE_VALIDITY_DAYS} when never set.` });

export const invoiceDefaults = obj({
  payment_terms_days: termsDays,
  default_terms: Nullable(text(limits.description_length_max, 'Terms text, e.g. Net 30.')),
  default_memo: Nullable(text(limits.description_length_max, 'Memo printed on invoices.')),
  footer: Nullable(text(limits.description_length_max, 'Footer printed on invoices.')),
});
export type InvoiceDefaultsDto = Static<typeof invoiceDefaults>;
export const invoiceDefaultsBody = obj({
  payment_terms_days: Optional(termsDays),
  default_terms: Optional(Nullable(text(limits.description_length_max, 'Terms text, e.g. Net 30.'))),
  default_memo: Optional(Nullable(text(limits.description_length_max, 'Memo printed on invoices.'))),
  footer: Optional(Nullable(text(limits.description_length_max, 'Footer printed on invoices.'))),
});
export const invoiceDefaultsResponse = singleEnvelope('invoice_defaults', invoiceDefaults);

export const estimateDefaults = obj({
  validity_days: validityDays,
  default_terms: Nullable(text(limits.description_length_max, 'Terms text printed on estimates.')),
  default_memo: Nullable(text(limits.description_length_max, 'Memo printed on estimates.')),
});
export type EstimateDefaultsDto = Static<typeof estimateDefaults>;
export const estimateDefaultsBody = obj({
  validity_days: Optional(validityDays),
  default_terms: Optional(Nullable(text(limits.description_length_max, 'Terms text printed on estimates.'))),
  default_memo: Optional(Nullable(text(limits.description_length_max, 'Memo printed on estimates.'))),
});
export const estimateDefaultsResponse = singleEnvelope('estimate_defaults', estimateDefaults);

// ---------- shares, renders and the customer portal ----------
export const SHARE_RECORD_TYPES = ['invoice', 'estimate'] as const;
export type ShareRecordType = (typeof SHARE_RECORD_TYPES)[number];
export const SHARE_STATUSES = ['active', 'revoked'] as const;
export type ShareStatus = (typeof SHARE_STATUSES)[number];
export const RENDER_STATUSES = ['ready'] as const;
/** A share token: 32 random bytes, base64url (43 characters). */
export const share_token_length = 43;

export const documentShareCreateBody = obj({
  record_type: StringEnum(SHARE_RECORD_TYPES, { description: 'What to share with the customer.' }),
  record_id: uuid,
});

export const documentShare = obj({
  id: uuid,
  status: StringEnum(SHARE_STATUSES, { description: 'active until DELETE revokes it; a revoked share’s page and PDF answer 404.' }),
  record_type: StringEnum(SHARE_RECORD_TYPES),
  record_id: uuid,
  render_id: uuid,
  url: Type.String({ description: 'The customer portal page (no API key needed; the token in it is the only credential).' }),
  created_at: dateTime,
  revoked_at: Nullable(dateTime),
});
export type DocumentShareDto = Static<typeof documentShare>;
export const documentShareResponse = singleEnvelope('document_share', documentShare);

export const documentRender = obj({
  id: uuid,
  status: StringEnum(RENDER_STATUSES),
  document_type: StringEnum(SHARE_RECORD_TYPES, { description: 'What the PDF shows.' }),
  record_id: uuid,
  content_type: Type.Literal('application/pdf'),
  file_name: Type.String(),
  size_bytes: Type.Integer({ minimum: 0 }),
  created_at: dateTime,
});
export type DocumentRenderDto = Static<typeof documentRender>;
export const documentRenderResponse = singleEnvelope('document_render', documentRender);

/** The portal routes' path: the share token (anything else is simply not found). */
export const portalParams = obj({ token: Type.String({ minLength: 1, maxLength: 200 }) });
/** Gateway → documents: a portal page for a token, its styles allowed by this nonce. */
export const portalPageBody = obj({ nonce: Type.String({ pattern: '^[A-Za-z0-9+/=_-]{16,64}$' }) });
export const portalPageReply = obj({ html: Type.String() });
