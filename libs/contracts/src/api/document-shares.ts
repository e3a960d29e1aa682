import { type Static, Type } from '@sinclair/typebox';
import { recordResource } from '../record-resource';
import { Nullable, StringEnum, dateTime, idParams, obj, uuid } from '../schemas/common';

/** Shares: an invoice or estimate shown to its customer, as a PDF render and a portal page (the documents service). */
export const SHARE_RECORD_TYPES = ['invoice', 'estimate'] as const;
export type ShareRecordType = (typeof SHARE_RECORD_TYPES)[number];
const SHARE_STATUSES = ['active', 'revoked'] as const;
export type ShareStatus = (typeof SHARE_STATUSES)[number];

export const documentShareCreateBody = obj({
  record_type: StringEnum(SHARE_RECORD_TYPES, { description: 'What to share with the customer.' }),
  record_id: uuid,
});

const documentShare = obj({
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

export const {
  response: documentShareResponse,
  operations: documentShareOperations,
  routes: documentShareRoutes,
} = recordResource({
  service: 'documents',
  resource: 'document_shares',
  one: 'document_share',
  record: documentShare,
  create: documentShareCreateBody,
  http: { name: 'Document share', path: '/api/v1/document-shares', tag: 'Document shares', module: 'customer_portal' },
  more: ({ response }) => ({ 'document_shares.revoke': { params: idParams, reply: response } }),
  routes: (shares) => [
    shares.create({
      summary: 'Share an invoice or estimate with its customer: a PDF render and a customer portal page.',
      description:
        'The record must exist in this organization and environment (404 otherwise). Renders a PDF of the record as it is now (number, dates, customer, lines, totals, branding, payment instructions, terms, memo and footer from the settings), ' +
        'stores it, and returns an active share with its render_id and the portal url (no API key needed: the unguessable token in it is the credential). The portal page shows the record live (status, open balance) with a link to the PDF. ' +
        'Retry-safe with Idempotency-Key (a repeat returns the same share).',
      statuses: { 201: 'Share and render created.' },
    }),
    shares.get('Get one share (status, render_id, portal url).', 'The share.'),
    shares.route('document_shares.revoke', {
      operationId: 'revokeDocumentShare',
      method: 'DELETE',
      path: '/api/v1/document-shares/{id}',
      summary: 'Revoke a share: its portal page and PDF link answer 404 from now on. Revoking again changes nothing.',
      statuses: { 200: 'The revoked share.' },
    }),
  ],
});
