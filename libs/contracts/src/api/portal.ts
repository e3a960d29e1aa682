import { Type } from '@sinclair/typebox';
import { operations } from '../operations';
import { BYTES, type RouteSpec, gatewayRoute } from '../routes';
import { obj } from '../schemas/common';
import { documentRenderResponse } from './document-renders';

/**
 * The customer portal (no API key): the share token is the only credential. The gateway serves the
 * page and the PDF itself, asking these operations (internal: no route names them).
 */

/** The portal routes' path: the share token (anything else is simply not found). */
export const portalParams = obj({ token: Type.String({ minLength: 1, maxLength: 200 }) });
/** Gateway → documents: a portal page for a token, its styles allowed by this nonce. */
export const portalPageBody = obj({ nonce: Type.String({ pattern: '^[A-Za-z0-9+/=_-]{16,64}$' }) });
export const portalPageReply = obj({ html: Type.String() });

export const portalOperations = operations('documents', {
  'portal.page': { public: true, internal: true, params: portalParams, body: portalPageBody, reply: portalPageReply },
  'portal.pdf': { public: true, internal: true, params: portalParams, reply: documentRenderResponse },
});

const portal = { tag: 'Customer portal', module: null, auth: false, kind: 'public', params: portalParams } as const;
export const portalRoutes: RouteSpec[] = [
  gatewayRoute({
    ...portal,
    operationId: 'getPortalPage',
    method: 'GET',
    path: '/portal/{token}',
    summary: 'The customer portal page of a share (no API key): the invoice or estimate, its status and open balance, and a link to the PDF.',
    description:
      'HTML with a strict Content-Security-Policy (no scripts; styles by nonce; images inline only), every field escaped, no caching, noindex. An unknown or revoked token answers 404 with a page that reveals nothing. Limited per client address.',
    reply: { type: 'string' },
    contentType: 'text/html',
    statuses: { 200: 'The page.' },
  }),
  gatewayRoute({
    ...portal,
    operationId: 'getPortalPdf',
    method: 'GET',
    path: '/portal/{token}/pdf',
    summary: 'The PDF of a share (no API key), streamed; 404 for an unknown or revoked token.',
    reply: BYTES,
    contentType: 'application/pdf',
    statuses: { 200: 'The PDF.' },
  }),
];
