import { ROUTES } from './api/index';
import { type RouteDef, takesIdempotencyKey } from './routes';
import { errorSchema, type JsonSchema } from './schemas/common';
import { limits } from './limits';

const ERROR_RESPONSES: Record<string, string> = {
  '400':
    'validation_failed (bad JSON, schema violation, unknown body field, unknown or repeated query parameter, bad uuid or date, U+0000 or a lone surrogate in a string or key, ' +
    'a rule of the operation description) or trusted_scope_field_not_allowed.',
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

/** No U+0000 (Postgres cannot store it); a lone surrogate is refused too but is not Unicode, so no pattern names it. */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';
/** YYYY-MM-DD from 1900 on (with format date: a real calendar date, up to 9999-12-31). */
export const DATE_PATTERN = '^(19[0-9]{2}|[2-9][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$';
/** A date-time's own date from 1900 on (its UTC date too, said in its description). */
export const DATE_TIME_PATTERN = '^(19[0-9]{2}|[2-9][0-9]{3})-';

/**
 * A request schema as the document shows it: the rules the gateway checks outside JSON Schema
 * (checkInput, the date range of the date formats) written as patterns, and `x-openapi` (a rule a
 * service checks with its own message, e.g. USD only) merged in. The gateway validates with the
 * schema itself; this only says the same thing in a form every validator reads.
 */
export function requestSchema(schema: JsonSchema): JsonSchema {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== 'object') return node;
    const { 'x-openapi': overlay, ...rest } = node as JsonSchema & { 'x-openapi'?: JsonSchema };
    const out: JsonSchema = { ...rest, ...overlay };
    for (const k of ['properties', 'patternProperties', '$defs']) {
      if (out[k] && typeof out[k] === 'object') out[k] = Object.fromEntries(Object.entries(out[k] as JsonSchema).map(([n, v]) => [n, walk(v)]));
    }
    for (const k of ['items', 'additionalProperties', 'anyOf', 'oneOf', 'allOf', 'prefixItems', 'not']) {
      if (out[k] && typeof out[k] === 'object') out[k] = walk(out[k]);
    }
    const types = ([] as unknown[]).concat(out.type ?? []);
    const isString = types.includes('string') || (out.type === undefined && typeof out.format === 'string');
    if (isString && out.pattern === undefined && out.enum === undefined && out.const === undefined && out.contentEncoding === undefined) {
      if (out.format === 'date') out.pattern = DATE_PATTERN;
      else if (out.format === 'date-time') out.pattern = DATE_TIME_PATTERN;
      else if (out.format === undefined) out.pattern = NO_NUL_PATTERN;
    }
    // A free-form object (an event's payload): no key or string in it may hold U+0000 either.
    if (types.includes('object') && out.properties === undefined && out.additionalProperties === undefined) {
      out.propertyNames = { pattern: NO_NUL_PATTERN };
      out.additionalProperties = { $ref: '#/components/schemas/JsonValue' };
    }
    return out;
  };
  return walk(schema) as JsonSchema;
}

/** Any JSON value with no U+0000 in a string or key (the inside of a free-form object). */
const jsonValueSchema: JsonSchema = {
  description: 'Any JSON value; no string or key in it may hold U+0000 or a lone surrogate.',
  pattern: NO_NUL_PATTERN,
  propertyNames: { pattern: NO_NUL_PATTERN },
  items: { $ref: '#/components/schemas/JsonValue' },
  additionalProperties: { $ref: '#/components/schemas/JsonValue' },
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
  add('path', route.params && requestSchema(route.params));
  add('query', route.query && requestSchema(route.query));
  return out;
}

/** A body field holding a record id (customer_id, invoice_id, ...) can name a record that is not there. */
function referencesRecords(body?: JsonSchema): boolean {
  const props = (body?.properties ?? {}) as Record<string, { format?: string }>;
  return Object.values(props).some((p) => p.format === 'uuid');
}

/** The media types of a success: a download's bytes, a public page, the YAML document, or JSON. */
function successContent(route: RouteDef, r: RouteDef['responses'][number]): Record<string, unknown> {
  if (r.contentType) return Object.fromEntries(([] as string[]).concat(r.contentType).map((t) => [t, { schema: r.schema }]));
  if (route.operationId === 'getOpenApi') return { 'application/yaml': { schema: r.schema } };
  if (route.kind === 'download') return { 'application/octet-stream': { schema: { type: 'string', contentEncoding: 'binary' } } };
  return { 'application/json': { schema: r.schema } };
}

const ERROR_CONTENT = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };

/** The error statuses a route can answer, with what each means there. */
function errorResponses(route: RouteDef): Record<string, string> {
  if (route.operationId === 'getOpenApi') {
    return {
      '400': 'validation_failed: a query parameter (this route takes none) or a path that is not valid percent-encoded UTF-8.',
      '429': ERROR_RESPONSES['429']!.replace('the key', 'the client address'),
      '500': ERROR_RESPONSES['500']!,
    };
  }
  const codes = ['400', '500', '503'];
  if (route.auth) codes.push('401', '403', '429');
  else codes.push('429'); // raw and public routes: limited per client address
  if (route.params || referencesRecords(route.body)) codes.push('404');
  if (route.kind === 'raw') codes.push('413', '415');
  else if (route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH') codes.push('409', '413', '415');
  const out: Record<string, string> = {};
  for (const c of codes) out[c] = (route.kind === 'raw' ? RAW_ERROR_RESPONSES[c] : undefined) ?? ERROR_RESPONSES[c]!;
  if (!route.auth) out['429'] = out['429']!.replace('the key', 'the client address');
  return { ...out, ...route.moreErrors };
}

/** A portal link that is unknown or revoked: a page for a browser, the error envelope for anyone else. */
const PORTAL_NOT_FOUND =
  'not_found: the token is unknown or the share revoked (the two look alike). A request that prefers text/html (a browser) gets a page saying the link is not valid; any other gets the error envelope.';

/** What a route takes as its JSON body: its schema, or, for a POST/PUT/PATCH without one, nothing or {}. */
function requestBody(route: RouteDef): Record<string, unknown> | undefined {
  if (route.kind === 'raw') {
    return route.rawBody ? { required: true, content: { 'application/json': { schema: route.rawBody } } } : undefined;
  }
  if (route.kind === 'upload') return route.body ? { required: true, content: { 'multipart/form-data': { schema: requestSchema(route.body) } } } : undefined;
  if (route.method !== 'POST' && route.method !== 'PUT' && route.method !== 'PATCH') return undefined;
  const schema = route.body ? requestSchema(route.body) : { type: 'object', properties: {}, additionalProperties: false, description: 'No fields: send no body, or {}.' };
  // No body at all is read as {}: the body is required only when {} would be refused.
  const required = ((schema.required as unknown[] | undefined)?.length ?? 0) > 0 || ((schema.minProperties as number | undefined) ?? 0) > 0;
  return { required, content: { 'application/json': { schema } } };
}

function operation(route: RouteDef): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const r of route.responses) responses[String(r.status)] = { description: r.description, content: successContent(route, r) };
  const errors = errorResponses(route);
  for (const c of Object.keys(errors).sort()) {
    const portal = route.kind === 'public' && route.path.startsWith('/portal/') && c === '404';
    const content = portal ? { ...ERROR_CONTENT, 'text/html': { schema: { type: 'string' } } } : ERROR_CONTENT;
    responses[c] = { description: portal ? PORTAL_NOT_FOUND : errors[c], content };
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
  const body = requestBody(route);
  if (body) op.requestBody = body;
  if (route.kind === 'raw' && route.signatureHeader) {
    (op.parameters as unknown[]).push({
      name: route.signatureHeader,
      in: 'header',
      required: true,
      description: 't=<unix seconds>,v1=<hex HMAC-SHA-256 of "<t>.<raw body>" under the signing secret>[,v1=…]; checked over the raw bytes, 5 minutes tolerance.',
      schema: { type: 'string' },
    });
  }
  if (takesIdempotencyKey(route)) {
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
        'Every response carries Request-Id and RateLimit-* headers (authenticated routes).\n\n' +
        'Rules every operation follows, beyond its parameters and schemas: ' +
        '(1) the query string holds only the parameters an operation lists, each at most once: any other, or a repeat, is 400 validation_failed (issue unknown_field or repeated); ' +
        '(2) no string or object key anywhere in the path, query or JSON body may hold U+0000 or a lone UTF-16 surrogate (400, issue invalid_character), and a JSON body nests at most ' +
        `${limits.json_depth_max} levels; ` +
        `(3) dates lie from ${limits.date_min} to ${limits.date_max}, and a date-time's UTC date too; ` +
        '(4) a method a path does not list answers 405 validation_failed with an Allow header naming the methods it has (under /api/v1 only once the key is accepted); a path not in this document answers 404 not_found; ' +
        `(5) a list page holds at most limit items and fewer when its items would pass ${limits.list_page_bytes_max / 1024 / 1024} MiB of JSON (512 KiB for webhook deliveries) (at least one): has_more is then true, and the next page starts at offset + count.`,
    },
    servers: [{ url: serverUrl }],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'svc_test_… or svc_live_… API key.' } },
      schemas: { Error: errorSchema, JsonValue: jsonValueSchema },
    },
  };
}
