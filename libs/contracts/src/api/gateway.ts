import { Type } from '@sinclair/typebox';
import { ENVIRONMENTS } from '../envelope';
import { type RouteDef, gatewayRoute } from '../routes';
import { StringEnum, obj, uuid } from '../schemas/common';

/** Routes the gateway answers itself, with no service behind them: the OpenAPI document and the key check. */

const authCheck = obj({
  authenticated: Type.Boolean(),
  environment: StringEnum(ENVIRONMENTS),
  connected_app_id: uuid,
  organization_id: Type.Optional(uuid),
});
/** Auth check answers under data only (SPEC.md §4 names no second member for it). */
export const authCheckResponse = obj({ data: authCheck });

export const gatewayRoutes: RouteDef[] = [
  gatewayRoute({
    operationId: 'getOpenApi',
    method: 'GET',
    path: '/developers/openapi.yaml',
    summary: 'This OpenAPI 3.1 document (no authentication).',
    tag: 'Developers',
    module: null,
    auth: false,
    kind: 'public',
    reply: { type: 'string' },
    statuses: { 200: 'The OpenAPI document as YAML.' },
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
