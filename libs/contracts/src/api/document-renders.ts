import { type Static, Type } from '@sinclair/typebox';
import { recordResource } from '../record-resource';
import { StringEnum, dateTime, idParams, obj, uuid } from '../schemas/common';
import { SHARE_RECORD_TYPES } from './document-shares';

/** Renders: the PDF a share made of its invoice or estimate (the documents service). */
const RENDER_STATUSES = ['ready'] as const;

const documentRender = obj({
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

export const {
  response: documentRenderResponse,
  operations: documentRenderOperations,
  routes: documentRenderRoutes,
} = recordResource({
  service: 'documents',
  resource: 'document_renders',
  one: 'document_render',
  record: documentRender,
  http: { name: 'Document render', path: '/api/v1/document-renders', tag: 'Document shares', module: 'customer_portal' },
  more: ({ response }) => ({ 'document_renders.download': { params: idParams, reply: response } }),
  routes: (renders) => [
    renders.get('Get the safe metadata of a render (storage paths are never shown).', 'The render.'),
    renders.route('document_renders.download', {
      operationId: 'downloadDocumentRender',
      method: 'GET',
      path: '/api/v1/document-renders/{id}/download',
      summary: 'Download the PDF of a render, streamed.',
      description: 'Sent as application/pdf with Content-Disposition: attachment, X-Content-Type-Options: nosniff, ETag (hex SHA-256 in quotes) and Digest: sha-256=<base64>.',
      kind: 'download',
      contentType: 'application/pdf',
      statuses: { 200: 'The PDF.' },
    }),
  ],
});
