import { Type } from '@sinclair/typebox';
import { ENVIRONMENTS } from '../envelope';
import { type RouteFacts, type RouteSpec, gatewayRoute } from '../routes';
import { type JsonSchema, StringEnum, obj, uuid } from '../schemas/common';

/** Routes the gateway answers itself, with no service behind them: the OpenAPI document, its reference page and the key check. */

const authCheck = obj({
  authenticated: Type.Boolean(),
  environment: StringEnum(ENVIRONMENTS),
  connected_app_id: uuid,
  organization_id: Type.Optional(uuid),
});
/** Auth check answers under data only (SPEC.md §4 names no second member for it). */
export const authCheckResponse = obj({ data: authCheck });

/** A page of the developers' corner: GET, public (no key, limited per client address), under the Developers tag. */
function developersRoute(r: Pick<RouteFacts, 'operationId' | 'path' | 'summary' | 'description' | 'contentType' | 'statuses'> & { reply: JsonSchema }): RouteSpec {
  const { operationId, path, summary, description, ...rest } = r;
  return gatewayRoute({ operationId, method: 'GET', path, summary, description, tag: 'Developers', module: null, auth: false, kind: 'public', ...rest });
}

export const gatewayRoutes: RouteSpec[] = [
  developersRoute({
    operationId: 'getOpenApi',
    path: '/developers/openapi.yaml',
    summary: 'This OpenAPI 3.1 document (no authentication).',
    description:
      'The document of this server, served with a strong ETag (send If-None-Match to get 304 while it is current) and gzipped when the client accepts it (about a tenth of its size). Limited per client address.',
    reply: { type: 'string' },
    statuses: { 200: 'The OpenAPI document as YAML.' },
  }),
  developersRoute({
    operationId: 'getOpenApiJson',
    path: '/developers/openapi.json',
    summary: 'This OpenAPI 3.1 document as JSON (no authentication).',
    description:
      'The same document as /developers/openapi.yaml, as JSON (for code generators and tools that read JSON only), with its own strong ETag and gzip. Limited per client address.',
    reply: { type: 'object' },
    statuses: { 200: 'The OpenAPI document as JSON.' },
  }),
  developersRoute({
    operationId: 'getDevelopersPage',
    path: '/developers',
    summary: 'The API reference page: this document rendered with Redoc (no authentication).',
    description:
      'HTML that loads the Redoc script from /developers/redoc.js and this document from /developers/openapi.yaml, both from the gateway itself: no CDN, no font or other request to another origin. A Content-Security-Policy allows only the same origin (plus inline styles and a blob: worker, which Redoc needs). Limited per client address.',
    reply: { type: 'string' },
    contentType: 'text/html',
    statuses: { 200: 'The reference page.' },
  }),
  developersRoute({
    operationId: 'getDevelopersScript',
    path: '/developers/redoc.js',
    summary: 'The Redoc script of the reference page (no authentication).',
    description: 'The standalone Redoc bundle, served by the gateway with a strong ETag and a week of caching (gzip when the client accepts it).',
    reply: { type: 'string' },
    contentType: 'text/javascript',
    statuses: { 200: 'The script.' },
  }),
  gatewayRoute({
    operationId: 'checkAuth',
    method: 'GET',
    path: '/api/v1/auth/check',
    summary: 'Check an API key and see which connected app and environment it belongs to.',
    tag: 'Auth',
    module: null,
    auth: true,
    reply: authCheckResponse,
    statuses: { 200: 'The key is valid.' },
  }),
];
