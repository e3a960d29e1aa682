import { ROUTES, type RouteDef } from './routes';
import { errorSchema, type JsonSchema } from './schemas/common';
import { limits } from './limits';

const ERROR_RESPONSES: Record<string, string> = {
  '400': 'validation_failed (bad JSON, schema violation, unknown field, bad uuid or date) or trusted_scope_field_not_allowed.',
  '401': 'unauthorized: the bearer key is missing, malformed, unknown or revoked.',
  '403': 'forbidden (the connected app is disabled) or module_disabled (hard module enforcement only).',
  '404': 'not_found: no such record (the path id, or a record the body refers to) in the organization and environment of the key.',
  '409':
    'conflict: the current state forbids it, the external id or Idempotency-Key was used with other content, or the first request with this Idempotency-Key is still in flight.',
  '413': `validation_failed: the JSON body is over ${limits.json_body_bytes_max} bytes.`,
  '415': 'validation_failed: the Content-Type is not application/json.',
  '429': 'rate_limited: the key used up its token bucket; retry after Retry-After seconds.',
  '500': 'internal_error.',
  '503': 'service_unavailable: a backing service is down or timed out; retry after Retry-After seconds.',
};

/** A signed public webhook input answers these instead (no API key, no JSON Schema of ours on the body). */
const RAW_ERROR_RESPONSES: Record<string, string> = {
  '400':
    'signature_invalid: the signature header is missing or malformed, no v1 signature matches, or its timestamp is outside the tolerance (nothing is stored); validation_failed: a signed body that is not a Stripe event.',
  '404': 'not_found: no payment processor is configured with this source id.',
  '413': `validation_failed: the body is over ${limits.webhook_body_bytes_max} bytes.`,
  '429': 'rate_limited: the client address used up its token bucket; retry after Retry-After seconds.',
};

function parameters(route: RouteDef): unknown[] {
  const out: unknown[] = [];
  const add = (where: 'path' | 'query', schema?: JsonSchema) => {
    if (!schema) return;
    const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((schema.required ?? []) as string[]);
    for (const [name, s] of Object.entries(props)) {
      const { description, ...rest } = s as { description?: string } & JsonSchema;
      out.push({ name, in: where, required: where === 'path' || required.has(name), description, schema: rest });
    }
  };
  add('path', route.params);
  add('query', route.query);
  return out;
}

/** A body field holding a record id (customer_id, invoice_id, ...) can name a record that is not there. */
function referencesRecords(body?: JsonSchema): boolean {
  const props = (body?.properties ?? {}) as Record<string, { format?: string }>;
  return Object.values(props).some((p) => p.format === 'uuid');
}

function operation(route: RouteDef): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const r of route.responses) {
    const content = r.contentType
      ? { [r.contentType]: { schema: r.schema } }
      : route.operationId === 'getOpenApi'
        ? { 'application/yaml': { schema: r.schema } }
        : route.kind === 'download'
          ? { 'application/octet-stream': { schema: { type: 'string', contentEncoding: 'binary' } } }
          : { 'application/json': { schema: r.schema } };
    responses[String(r.status)] = { description: r.description, content };
  }
  if (route.operationId !== 'getOpenApi') {
    const codes = ['400', '500', '503'];
    if (route.auth) codes.push('401', '403', '429');
    else codes.push('429'); // raw and public routes: limited per client address
    if (route.params || referencesRecords(route.body)) codes.push('404');
    if (route.kind === 'raw') codes.push('413', '415');
    else if (route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH') codes.push('409', '413', '415');
    for (const c of codes.sort()) {
      const description = route.kind === 'raw' ? (RAW_ERROR_RESPONSES[c] ?? ERROR_RESPONSES[c]) : ERROR_RESPONSES[c];
      responses[c] = { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
    }
  }
  const op: Record<string, unknown> = {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    parameters: parameters(route),
    responses,
  };
  if (route.description) op.description = route.description;
  if (route.module) op['x-module'] = route.module;
  if (!route.auth) op.security = [];
  if (route.body) {
    op.requestBody = { required: true, content: { [route.kind === 'upload' ? 'multipart/form-data' : 'application/json']: { schema: route.body } } };
  }
  if (route.kind === 'raw' && route.rawBody) {
    op.requestBody = { required: true, content: { 'application/json': { schema: route.rawBody } } };
    if (route.signatureHeader) {
      (op.parameters as unknown[]).push({
        name: route.signatureHeader,
        in: 'header',
        required: true,
        description: 't=<unix seconds>,v1=<hex HMAC-SHA-256 of "<t>.<raw body>" under the signing secret>[,v1=…]; checked over the raw bytes, 5 minutes tolerance.',
        schema: { type: 'string' },
      });
    }
  }
  if (route.method === 'POST' && route.kind !== 'raw') {
    (op.parameters as unknown[]).push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: route.ownIdempotency
        ? 'Second dedupe key of this route (API-DECISIONS §9).'
        : 'Retry key (1–255 chars): the first response is kept for 24 hours and replayed with Idempotent-Replayed: true.',
      schema: { type: 'string', minLength: 1, maxLength: limits.idempotency_key_length_max },
    });
  }
  return op;
}

/** The OpenAPI 3.1 document of every route in ROUTES. */
export function buildOpenApi(serverUrl = '/'): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    const item = (paths[route.path] ??= {});
    item[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Accounting API',
      version: '1.0.0',
      description:
        'Server-side accounting API for connected apps. Every route under /api/v1 needs `Authorization: Bearer svc_test_…` or `svc_live_…`. ' +
        'Errors use the envelope {error: {code, message, details, request_id}}; clients branch on code. ' +
        'Every response carries Request-Id and RateLimit-* headers (authenticated routes).',
    },
    servers: [{ url: serverUrl }],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'svc_test_… or svc_live_… API key.' } },
      schemas: { Error: errorSchema },
    },
  };
}
