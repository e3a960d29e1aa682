import type { RpcOperation } from './subjects';
import { type JsonSchema, idParams } from './schemas/common';
import * as customers from './schemas/customers';
import * as auth from './schemas/auth';

/** Modules of SPEC.md §1: guidance per route group (warning header, optional hard enforcement). */
export const MODULES = [
  'customers',
  'estimates',
  'invoices',
  'payments',
  'documents',
  'reports',
  'webhooks',
  'embedded_settings',
  'customer_portal',
  'vendors',
  'bills_ap',
  'tax_1099',
] as const;
export type ModuleName = (typeof MODULES)[number];

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface SuccessResponse {
  status: 200 | 201;
  description: string;
  schema: JsonSchema;
}

/**
 * One public route: the gateway builds its router from this table and the OpenAPI document is
 * generated from it, so the two cannot drift. `rpc: null` marks a route the gateway serves itself.
 */
export interface RouteDef {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI-style path, e.g. /api/v1/customers/{id}. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  module: ModuleName | null;
  rpc: RpcOperation | null;
  auth: boolean;
  params?: JsonSchema;
  query?: JsonSchema;
  body?: JsonSchema;
  responses: SuccessResponse[];
  /** Route uses Idempotency-Key as its own dedupe key instead of the gateway's generic replay. */
  ownIdempotency?: boolean;
}

const createResponses = (schema: JsonSchema, what: string): SuccessResponse[] => [
  { status: 201, description: `${what} created.`, schema },
  {
    status: 200,
    description: `Replay: the same external id with the same content returns the existing ${what.toLowerCase()} with header Idempotent-Replayed: true.`,
    schema,
  },
];

export const ROUTES: RouteDef[] = [
  {
    operationId: 'getOpenApi',
    method: 'GET',
    path: '/developers/openapi.yaml',
    summary: 'This OpenAPI 3.1 document (no authentication).',
    tag: 'Developers',
    module: null,
    rpc: null,
    auth: false,
    responses: [{ status: 200, description: 'The OpenAPI document as YAML.', schema: { type: 'string' } }],
  },
  {
    operationId: 'checkAuth',
    method: 'GET',
    path: '/api/v1/auth/check',
    summary: 'Check an API key and see which connected app and environment it belongs to.',
    tag: 'Auth',
    module: null,
    rpc: null,
    auth: true,
    responses: [{ status: 200, description: 'The key is valid.', schema: auth.authCheckResponse }],
  },
  {
    operationId: 'listCustomers',
    method: 'GET',
    path: '/api/v1/customers',
    summary: 'List customers, newest first.',
    tag: 'Customers',
    module: 'customers',
    rpc: 'customers.list',
    auth: true,
    query: customers.customerListQuery,
    responses: [{ status: 200, description: 'A page of customers.', schema: customers.customerListResponse }],
  },
  {
    operationId: 'createCustomer',
    method: 'POST',
    path: '/api/v1/customers',
    summary: 'Create a customer; retry-safe on external_customer_id.',
    description:
      'A repeat with the same external_customer_id and the same name and email returns the existing customer (200, Idempotent-Replayed: true); with different content it is refused with 409 conflict.',
    tag: 'Customers',
    module: 'customers',
    rpc: 'customers.create',
    auth: true,
    body: customers.customerCreateBody,
    responses: createResponses(customers.customerResponse, 'Customer'),
  },
  {
    operationId: 'getCustomer',
    method: 'GET',
    path: '/api/v1/customers/{id}',
    summary: 'Get one customer.',
    tag: 'Customers',
    module: 'customers',
    rpc: 'customers.get',
    auth: true,
    params: idParams,
    responses: [{ status: 200, description: 'The customer.', schema: customers.customerResponse }],
  },
];

export function findRoute(operationId: string): RouteDef {
  const r = ROUTES.find((x) => x.operationId === operationId);
  if (!r) throw new Error(`unknown route ${operationId}`);
  return r;
}
