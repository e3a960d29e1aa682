import { Optional, type Static, Type } from '@sinclair/typebox';
import { operations } from '../operations';
import { type RouteSpec, gatewayRoute, routesOf } from '../routes';
import { Nullable, StringEnum, action, dateTime, idParams, listEnvelope, obj, paginationQuery, singleEnvelope, uuid } from '../schemas/common';

/** Documents: evidence files in S3 and their links to records (the documents service). */

/** Types an upload may have, sniffed from its bytes (API-DECISIONS §6). */
export const DOCUMENT_CONTENT_TYPES = ['application/pdf', 'image/png', 'image/jpeg', 'image/webp', 'image/heic', 'image/gif', 'text/csv', 'text/plain'] as const;
export type DocumentContentType = (typeof DOCUMENT_CONTENT_TYPES)[number];
const DOCUMENT_STATUSES = ['uploaded', 'needs_review'] as const;
const DOCUMENT_TYPES = ['receipt', 'invoice', 'bill', 'contract', 'statement', 'logo', 'other'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];
const LINK_RECORD_TYPES = ['customer', 'invoice', 'estimate', 'vendor', 'bill'] as const;
export type LinkRecordType = (typeof LINK_RECORD_TYPES)[number];
const document_source_length_max = 100;

const documentLink = obj({ record_type: StringEnum(LINK_RECORD_TYPES), record_id: uuid, linked_at: dateTime });

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
const documentUploadBody = obj({
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

export const documentOperations = operations('documents', {
  // Uploads: the gateway reserves a document, PUTs the bytes to the URL it gets, then finalizes (or discards).
  'documents.upload_prepare': { body: documentUploadPrepareBody, reply: documentUploadPrepareReply, internal: true },
  'documents.upload_finalize': { body: documentUploadIdBody, reply: documentResponse, internal: true },
  'documents.upload_discard': { body: documentUploadIdBody, reply: documentDiscardReply, internal: true },
  'documents.list': { query: documentListQuery, reply: documentListResponse },
  'documents.get': { params: idParams, reply: documentResponse },
  'documents.download': { params: idParams, reply: documentResponse },
  'documents.link': { params: idParams, body: documentLinkBody, reply: documentLinkResponse },
});

const route = routesOf(documentOperations, { tag: 'Documents', module: 'documents' });
export const documentRoutes: RouteSpec[] = [
  // The upload streams the request to the gateway's upload handler, which asks the upload_* operations.
  gatewayRoute({
    operationId: 'uploadDocument',
    method: 'POST',
    path: '/api/v1/documents',
    summary: 'Upload an evidence file (multipart/form-data: file, document_type, source, optional record_type + record_id).',
    description:
      'The file is streamed to storage, never held whole in memory. At most 25 MiB by default (413 past it, nothing stored); the type is sniffed from the bytes and must be PDF, PNG, JPEG, WEBP, HEIC, GIF, CSV or plain text (415 otherwise, nothing stored). ' +
      'The file name is kept for display only, sanitized (path parts, control and bidi characters removed). Status is needs_review when document_type is missing or other, or the declared Content-Type of the part disagrees with the sniffed one. ' +
      'Retry-safe with Idempotency-Key: a repeat returns the same document with Idempotent-Replayed: true.',
    tag: 'Documents',
    module: 'documents',
    auth: true,
    kind: 'upload',
    body: documentUploadBody,
    reply: documentResponse,
    statuses: { 201: 'Document stored.', 200: 'Replay of the same Idempotency-Key: the document it made, with Idempotent-Replayed: true.' },
    moreErrors: { '415': 'validation_failed: the Content-Type is not multipart/form-data, or the type sniffed from the file is not one allowed (nothing stored).' },
  }),
  route('documents.list', {
    operationId: 'listDocuments',
    method: 'GET',
    path: '/api/v1/documents',
    summary: 'List documents, newest first (filters document_type, status, linked_record_id).',
    statuses: { 200: 'A page of documents.' },
  }),
  route('documents.get', {
    operationId: 'getDocument',
    method: 'GET',
    path: '/api/v1/documents/{id}',
    summary: 'Get one document with its links (storage paths are never shown).',
    statuses: { 200: 'The document.' },
  }),
  route('documents.download', {
    operationId: 'downloadDocument',
    method: 'GET',
    path: '/api/v1/documents/{id}/download',
    summary: 'Download the bytes of a document, streamed.',
    description:
      'Sent with the stored (sniffed) Content-Type, Content-Disposition: attachment with the RFC 6266-encoded file name, X-Content-Type-Options: nosniff, ETag (hex SHA-256 in quotes) and Digest: sha-256=<base64>.',
    kind: 'download',
    contentType: DOCUMENT_CONTENT_TYPES,
    statuses: { 200: 'The file, as the type sniffed from its bytes when it was uploaded (text types with charset=utf-8).' },
  }),
  route('documents.link', {
    operationId: 'linkDocument',
    method: 'POST',
    path: '/api/v1/documents/{id}/link',
    summary: 'Link a document to a customer, invoice, estimate, vendor or bill of the same organization and environment.',
    description:
      'The record must exist (404 otherwise, also for a record of another organization or environment). Linking again to the same record changes nothing: 200 with the current document and `Idempotent-Replayed: true`.',
    statuses: { 200: 'Linked.' },
  }),
];
