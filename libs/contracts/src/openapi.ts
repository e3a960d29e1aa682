import { ROUTES } from './api/index';
import { type RouteDef, requestMediaType, takesIdempotencyKey } from './routes';
import { errorDetail, errorSchema, type JsonSchema, pagination } from './schemas/common';
import { metadataRecord } from './schemas/metadata';
import { ERROR_CODES } from './errors';
import { EVENT_SCHEMAS, OUTBOUND_EVENT_TYPES } from './events';
import { exampleOf } from './openapi-examples';
import { codeSamples, introduction, typedBranches } from './openapi-parts';
import recordedJson from './openapi-recorded.json';
import { limits } from './limits';

const ERROR_RESPONSES: Record<string, string> = {
  '400':
    'validation_failed (bad JSON, schema violation, unknown body field, unknown or repeated query parameter, bad uuid or date, U+0000 or a lone surrogate in a string or key, ' +
    'a rule of the operation description) or trusted_scope_field_not_allowed.',
  '401': 'unauthorized: the bearer key is missing, malformed, unknown or revoked.',
  '403': 'forbidden (the connected app is disabled) or module_disabled (hard module enforcement only).',
  '404': 'not_found: no such record (the path id, or a record the body refers to) in the organization and environment of the key.',
  '409':
    'conflict: the current state forbids it, the external id or Idempotency-Key was used with other content, or the first request with this Idempotency-Key is still in flight; ' +
    'period_locked: the accounting date of a posting write (post, payment, payout, reversal, void) is on or before the lock date (GET /settings/books-lock); nothing was stored.',
  '413': `validation_failed: the JSON body is over ${limits.json_body_bytes_max} bytes.`,
  '415': 'validation_failed: the Content-Type is not application/json, or its charset is not utf-8.',
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

const pascal = (s: string) => s.replace(/(^|[._\s-])(\w)/g, (_m, _p, c: string) => c.toUpperCase());

/**
 * The named schemas of the document (components.schemas): a schema is named once, and every later
 * occurrence of the same content, whole or nested in another named schema, becomes a $ref to it.
 * The TypeBox declarations stay as they are (the gateway compiles them with no $id): naming happens here.
 */
class SchemaNames {
  readonly components: Record<string, JsonSchema> = {};
  private readonly byContent = new Map<string, string>();

  /** A $ref to s, named `name` unless the same content is named already. */
  ref(s: JsonSchema, name: string): JsonSchema {
    const key = JSON.stringify(s);
    let n = this.byContent.get(key);
    if (!n) {
      n = name;
      for (let i = 2; this.components[n]; i++) n = `${name}${i}`;
      this.components[n] = this.inner(s);
      this.byContent.set(key, n);
    }
    return { $ref: `#/components/schemas/${n}` };
  }

  /** Names a schema without a $ref to it (one written by hand). */
  put(name: string, s: JsonSchema): void {
    this.components[name] = s;
  }

  /** s with every named sub-schema as a $ref. */
  inner(s: JsonSchema): JsonSchema {
    const sub = (v: unknown): unknown => {
      if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
      const n = this.byContent.get(JSON.stringify(v));
      return n ? { $ref: `#/components/schemas/${n}` } : this.inner(v as JsonSchema);
    };
    const out: JsonSchema = { ...s };
    for (const k of ['properties', 'patternProperties', '$defs']) {
      if (out[k] && typeof out[k] === 'object') out[k] = Object.fromEntries(Object.entries(out[k] as JsonSchema).map(([n, v]) => [n, sub(v)]));
    }
    for (const k of ['items', 'additionalProperties', 'not']) if (out[k] && typeof out[k] === 'object') out[k] = sub(out[k]);
    for (const k of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) if (Array.isArray(out[k])) out[k] = (out[k] as unknown[]).map(sub);
    return out;
  }
}

/** What a parameter the declarations leave undescribed means. */
function parameterText(name: string, where: 'path' | 'query', route: RouteDef): string {
  if (where === 'path') {
    if (name === 'id') return `The id of the ${route.tag.toLowerCase().replace(/s$/, '')} record (uuid, of the key's organization and environment).`;
    if (name === 'token') return 'The share token of the link (as the share returned it).';
    return `The id of the ${name.replace(/_id$/, '').replace(/_/g, ' ')} (uuid).`;
  }
  return `Only items whose ${name.replace(/_/g, ' ')} is this value.`;
}

function parameters(route: RouteDef): unknown[] {
  const out: unknown[] = [];
  const add = (where: 'path' | 'query', schema?: JsonSchema) => {
    if (!schema) return;
    const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((schema.required ?? []) as string[]);
    for (const [name, s] of Object.entries(props)) {
      const { description, ...rest } = s as { description?: string } & JsonSchema;
      out.push({ name, in: where, required: where === 'path' || required.has(name), description: description ?? parameterText(name, where, route), schema: rest });
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

/** A status and body the tests saw on the wire. */
interface RecordedExchange {
  status: number;
  body?: unknown;
}

/**
 * The examples of each operation as the end-to-end tests sent and received them (issue #24), by
 * operationId: written by test/e2e/openapi-conformance.e2e.test.ts (UPDATE_OPENAPI_EXAMPLES=1), which
 * otherwise fails when the server's shapes leave them behind. An operation without one (or a part
 * missing) gets an example made from its schema.
 */
export const RECORDED_EXAMPLES = recordedJson as unknown as Record<string, { request?: unknown; response: RecordedExchange; error?: RecordedExchange }>;

const recordedOf = (route: RouteDef) => (Object.hasOwn(RECORDED_EXAMPLES, route.operationId) ? RECORDED_EXAMPLES[route.operationId] : undefined);

/** The media types of a success: a download's bytes, a public page, the YAML document, or JSON. */
function successContent(route: RouteDef, r: RouteDef['responses'][number], names: SchemaNames): Record<string, unknown> {
  if (r.contentType) return Object.fromEntries(([] as string[]).concat(r.contentType).map((t) => [t, { schema: r.schema }]));
  if (route.operationId === 'getOpenApi') return { 'application/yaml': { schema: r.schema } };
  if (route.operationId === 'getOpenApiJson')
    return { 'application/json': { schema: r.schema, example: { openapi: '3.1.0', info: { title: 'Accounting API', version: '1.0.0' }, paths: {} } } };
  if (route.kind === 'download') return { 'application/octet-stream': { schema: { type: 'string', contentEncoding: 'binary' } } };
  const schema = names.ref(r.schema, responseName(route));
  const seen = recordedOf(route)?.response;
  const example = seen?.status === r.status && seen.body !== undefined ? seen.body : exampleOf(schema, '', true, names.components);
  return { 'application/json': { schema, example } };
}

/** The name of an operation's success body: <Record>, <Record>List or <OperationId>Response. */
function responseName(route: RouteDef): string {
  const id = route.operationId;
  if (/^get[A-Z]/.test(id) && route.params) return `${id.slice(3)}Response`;
  if (/^list[A-Z]/.test(id)) return `${singularName(id.slice(4))}List`;
  return `${pascal(id)}Response`;
}

const singularName = (s: string) => (s.endsWith('ies') ? `${s.slice(0, -3)}y` : s.endsWith('ses') ? s.slice(0, -2) : s.endsWith('s') ? s.slice(0, -1) : s);

const ERROR_REF = { $ref: '#/components/schemas/Error' };

/** The error statuses a route can answer, with what each means there. */
function errorResponses(route: RouteDef): Record<string, string> {
  if (route.operationId === 'getOpenApi' || route.operationId === 'getOpenApiJson') {
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
  const type = requestMediaType(route);
  if (out['415'] && type !== 'application/json') out['415'] = `validation_failed: the Content-Type is not ${type}.`;
  return { ...out, ...route.moreErrors };
}

/** A portal link that is unknown or revoked: a page for a browser, the error envelope for anyone else. */
const PORTAL_NOT_FOUND =
  'not_found: the token is unknown or the share revoked (the two look alike). A request that prefers text/html (a browser) gets a page saying the link is not valid; any other gets the error envelope.';

/** What a route takes as its body, as its requestMediaType: its schema, or, for a JSON POST/PUT/PATCH without one, nothing or {}. */
function requestBody(route: RouteDef, names: SchemaNames): Record<string, unknown> | undefined {
  const type = requestMediaType(route);
  if (!type) return undefined;
  const name = `${pascal(route.operationId)}Request`;
  if (route.kind === 'raw') {
    if (!route.rawBody) return undefined;
    const raw = names.ref(route.rawBody, name);
    const sent = recordedOf(route)?.request;
    return { required: true, content: { [type]: { schema: raw, example: sent !== undefined ? sent : exampleOf(raw, '', true, names.components) } } };
  }
  if (route.kind === 'upload') return route.body ? { required: true, content: { [type]: { schema: requestSchema(route.body) } } } : undefined;
  const schema = route.body ? requestSchema(route.body) : { type: 'object', properties: {}, additionalProperties: false, description: 'No fields: send no body, or {}.' };
  // No body at all is read as {}: the body is required only when {} would be refused.
  const required = ((schema.required as unknown[] | undefined)?.length ?? 0) > 0 || ((schema.minProperties as number | undefined) ?? 0) > 0;
  const ref = names.ref(schema, route.body ? name : 'EmptyRequest');
  const sent = recordedOf(route)?.request;
  return { required, content: { [type]: { schema: ref, example: sent !== undefined ? sent : exampleOf(ref, '', true, names.components) } } };
}

/** An error body as the gateway sends it. */
function errorExample(code: string, message: string, details: unknown[] = []): Record<string, unknown> {
  return { error: { code, message, details, request_id: 'req_7f3c9a2b41d84e6f' } };
}

const ERROR_EXAMPLES: Record<string, Record<string, unknown>> = {
  '400': errorExample('validation_failed', 'The request is not valid.', [{ field: '/name', issue: 'required', message: 'name is required' }]),
  '404': errorExample('not_found', 'No such record.'),
};

const SHARED_NAMES: Record<string, string> = {
  '400': 'BadRequest',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'NotFound',
  '409': 'Conflict',
  '413': 'PayloadTooLarge',
  '415': 'UnsupportedMediaType',
  '429': 'RateLimited',
  '500': 'InternalError',
  '503': 'ServiceUnavailable',
};

/** The name of the shared error response of status c (components.responses), added on first use. */
function sharedResponse(c: string, shared: Record<string, unknown>): string {
  const name = SHARED_NAMES[c]!;
  shared[name] ??= { description: ERROR_RESPONSES[c], headers: responseHeaders({ method: 'GET' } as RouteDef, Number(c)), content: { 'application/json': { schema: ERROR_REF } } };
  return name;
}

const h = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The headers of one response (API-DECISIONS §2, §6, SPEC.md §1): what the gateway sets on it. */
function responseHeaders(route: RouteDef, status: number): Record<string, unknown> {
  const out: Record<string, unknown> = {
    'Request-Id': h('RequestId'),
    'RateLimit-Limit': h('RateLimitLimit'),
    'RateLimit-Remaining': h('RateLimitRemaining'),
    'RateLimit-Reset': h('RateLimitReset'),
  };
  if (status === 429 || status === 503) out['Retry-After'] = h('RetryAfter');
  if (status < 300 && (takesIdempotencyKey(route) || route.ownIdempotency)) out['Idempotent-Replayed'] = h('IdempotentReplayed');
  if (route.module && status < 300) out['Module-Warning'] = h('ModuleWarning');
  return out;
}

function operation(route: RouteDef, names: SchemaNames, shared: Record<string, unknown>): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const r of route.responses)
    responses[String(r.status)] = { description: r.description, headers: responseHeaders(route, r.status), content: successContent(route, r, names) };
  const errors = errorResponses(route);
  const seenError = recordedOf(route)?.error;
  const seen = seenError && errors[String(seenError.status)] ? seenError : undefined;
  const exampleStatus = seen ? String(seen.status) : errors['404'] ? '404' : '400';
  const exampleBody = seen ? seen.body : ERROR_EXAMPLES[exampleStatus];
  for (const c of Object.keys(errors).sort()) {
    const portal = route.kind === 'public' && route.path.startsWith('/portal/') && c === '404';
    const json: Record<string, unknown> = { schema: ERROR_REF, ...(c === exampleStatus && exampleBody !== undefined && { example: exampleBody }) };
    if (!portal && !json.example && errors[c] === ERROR_RESPONSES[c]) {
      responses[c] = { $ref: `#/components/responses/${sharedResponse(c, shared)}` };
      continue;
    }
    const content = portal ? { 'application/json': json, 'text/html': { schema: { type: 'string' } } } : { 'application/json': json };
    responses[c] = { description: portal ? PORTAL_NOT_FOUND : errors[c], headers: responseHeaders(route, Number(c)), content };
  }
  const op: Record<string, unknown> = {
    operationId: route.operationId,
    summary: route.summary,
    description: route.description ?? route.summary,
    tags: [route.tag],
    parameters: parameters(route),
    responses,
  };
  if (route.module) op['x-module'] = route.module;
  if (!route.auth) op.security = [];
  const body = requestBody(route, names);
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
  op['x-codeSamples'] = codeSamples(route.method, route.path, op, route.auth);
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

/** The response headers the gateway sets (components.headers). */
const HEADERS: Record<string, unknown> = {
  RequestId: {
    description:
      "The id of this request (the caller's X-Request-Id when it is tame, else one the gateway makes); quote it to support. The error envelope repeats it as request_id.",
    schema: { type: 'string' },
  },
  RateLimitLimit: { description: 'The size of the token bucket of the key (or, on a public route, of the client address).', schema: { type: 'integer', minimum: 0 } },
  RateLimitRemaining: { description: 'Tokens left in the bucket after this request.', schema: { type: 'integer', minimum: 0 } },
  RateLimitReset: { description: 'Seconds until the bucket is full again.', schema: { type: 'integer', minimum: 0 } },
  RetryAfter: { description: 'Seconds to wait before retrying (429 rate_limited, 503 service_unavailable).', schema: { type: 'integer', minimum: 0 } },
  IdempotentReplayed: {
    description: 'true when this answer is the replay of an earlier request (same Idempotency-Key, or the same external id with the same content); absent otherwise.',
    schema: { type: 'string', enum: ['true'] },
  },
  ModuleWarning: {
    description:
      'Set when the route belongs to a module the organization has not enabled (soft module enforcement): the request is served, the header says which module to enable.',
    schema: { type: 'string' },
  },
};

/** The tags in reading order, with what each groups. */
const TAGS: Record<string, string> = {
  Customers: 'The customers invoices and estimates are made out to; looked up by external_customer_id.',
  Estimates: 'Quotes to a customer: drafted, sent, accepted and turned into an invoice.',
  Invoices: 'Invoices to customers: drafted, posted to the ledger (A/R and revenue), paid, voided or reversed.',
  Payments: 'Payments received against invoices, posted to the ledger.',
  'Payment processor': 'Payments from a card processor (Stripe): its signed webhook input and the processor settings.',
  'Processor payouts': 'Payouts of a payment processor to the bank, with their fees, posted to the ledger.',
  Vendors: 'The vendors bills are received from (accounts payable).',
  Bills: 'Bills from vendors: drafted, posted (A/P and expense), paid or reversed.',
  'Vendor payments': 'Payments made to vendors against bills.',
  Ledger: 'The chart of accounts and journal entries: the books every posting writes to.',
  Reports: 'Financial reports computed from the ledger: balance sheet, profit and loss, aging, 1099 and more.',
  Documents: 'Uploaded files (receipts, contracts) attached to records, with their downloads.',
  'Document renders': 'PDF renders of invoices, estimates and other records.',
  'Document shares': 'Public links to a rendered document, for a customer without an account.',
  'Customer portal': 'The public pages a share link opens (no API key).',
  Webhooks: 'Endpoints that receive the outbound events (see the webhooks section), their deliveries and secrets.',
  Events: 'The events of the organization, as delivered to webhook endpoints.',
  Settings: 'Organization settings: modules, branding and embedded-settings options.',
  Auth: 'The API key in use: who it belongs to.',
  Developers: 'This document and the developer reference.',
};

/** The headers of an outbound webhook delivery (SPEC.md §6, API-DECISIONS §11: Standard Webhooks). */
const WEBHOOK_HEADERS: Record<string, { description: string; schema: JsonSchema }> = {
  'Service-Signature': {
    description: 'Hex HMAC-SHA-256, keyed by the whole endpoint secret string, of "<Service-Timestamp>.<raw body>".',
    schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  },
  'Service-Timestamp': { description: 'Unix time in seconds of this attempt (part of the signed string).', schema: { type: 'string', pattern: '^[0-9]+$' } },
  'Service-Event-Id': { description: 'The delivery id: the same value as the body id, the same across retries; deduplicate on it.', schema: { type: 'string', format: 'uuid' } },
  'webhook-id': { description: 'Standard Webhooks: the delivery id (the same as Service-Event-Id).', schema: { type: 'string', format: 'uuid' } },
  'webhook-timestamp': { description: 'Standard Webhooks: Unix time in seconds of this attempt.', schema: { type: 'string', pattern: '^[0-9]+$' } },
  'webhook-signature': {
    description:
      'Standard Webhooks: space-separated "v1,<base64 HMAC-SHA-256 of "<webhook-id>.<webhook-timestamp>.<raw body>">", keyed by the base64-decoded part of the secret after whsec_. ' +
      'While a rotated secret is still valid there are two entries (the new secret first).',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
  },
};

/** The webhooks section: one POST per outbound event type, its delivery body and signature headers. */
function webhooks(names: SchemaNames): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const type of OUTBOUND_EVENT_TYPES) {
    const name = pascal(type);
    const data = names.ref(EVENT_SCHEMAS[type], `${name}Data`);
    const body = names.ref(
      {
        type: 'object',
        description: `The delivery body of a ${type} event.`,
        required: ['id', 'type', 'created_at', 'environment', 'organization_id', 'connected_app_id', 'data'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', format: 'uuid', description: 'The delivery id: the same across retries of this delivery (and the same as webhook-id).' },
          type: { type: 'string', const: type },
          created_at: { type: 'string', format: 'date-time', description: 'When the event happened.' },
          environment: { type: 'string', enum: ['test', 'live'], description: 'The environment of the key the event came from.' },
          organization_id: { type: 'string', format: 'uuid' },
          connected_app_id: { type: 'string', format: 'uuid' },
          data: data,
        },
      },
      `${name}Event`,
    );
    out[type] = {
      post: {
        operationId: `${name.charAt(0).toLowerCase()}${name.slice(1)}Webhook`,
        summary: `The ${type} event, delivered to every enabled endpoint subscribed to it.`,
        description:
          'A POST of the JSON body below to the endpoint url, signed twice (Service-Signature and Standard Webhooks webhook-signature). Verify a signature over the raw bytes before parsing, ' +
          'answer 2xx quickly and deduplicate on the body id: a delivery that does not get a 2xx within the timeout is retried with backoff.',
        tags: ['Webhooks'],
        security: [],
        parameters: Object.keys(WEBHOOK_HEADERS).map((n) => ({ $ref: `#/components/parameters/${pascal(n)}` })),
        requestBody: { required: true, content: { 'application/json': { schema: body, example: exampleOf(body, '', true, names.components) } } },
        responses: {
          '200': { description: 'Any 2xx acknowledges the delivery.' },
          '400': { description: 'Any other status (or none within the timeout) fails the attempt: it is retried later.' },
        },
      },
    };
  }
  return out;
}

/** The OpenAPI 3.1 document of every route in ROUTES. */
export function buildOpenApi(serverUrl = '/'): Record<string, unknown> {
  const names = new SchemaNames();
  names.put('JsonValue', jsonValueSchema);
  const error = JSON.parse(JSON.stringify(errorSchema)) as JsonSchema & { properties: { error: { properties: Record<string, JsonSchema> } } };
  error.properties.error.properties.code = { type: 'string', enum: [...ERROR_CODES], description: 'What went wrong; clients branch on it (API-DECISIONS §1).' };
  names.ref(errorDetail, 'ErrorDetail');
  names.ref(error, 'Error');
  names.ref(pagination, 'Pagination');
  names.ref(metadataRecord, 'Metadata');
  // The records first, by their get route, so every envelope, list and action reply refers to them.
  for (const route of ROUTES) {
    const data = (route.responses[0]?.schema.properties as Record<string, JsonSchema> | undefined)?.data;
    if (/^get[A-Z]/.test(route.operationId) && route.params && data?.type === 'object') {
      names.ref(data, route.operationId.slice(3));
      names.ref(route.responses[0]!.schema, responseName(route));
    }
  }
  const shared: Record<string, unknown> = {};
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    const item = (paths[route.path] ??= {});
    item[route.method.toLowerCase()] = operation(route, names, shared);
  }
  const used = [...new Set(ROUTES.map((r) => r.tag))];
  const tags = [...Object.keys(TAGS).filter((t) => used.includes(t)), ...used.filter((t) => !TAGS[t])].map((name) => ({ name, description: TAGS[name] ?? name }));
  const hooks = webhooks(names);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Accounting API',
      version: '1.0.0',
      license: { name: 'MIT', identifier: 'MIT' },
      description: introduction(
        'Every route under /api/v1 needs `Authorization: Bearer svc_test_…` or `svc_live_…`. ' +
          'Errors use the envelope {error: {code, message, details, request_id}}; clients branch on code. ' +
          'Every response carries Request-Id and RateLimit-* headers (authenticated routes).\n\n' +
          'Rules every operation follows, beyond its parameters and schemas: ' +
          '(1) the query string holds only the parameters an operation lists, each at most once: any other, or a repeat, is 400 validation_failed (issue unknown_field or repeated); ' +
          '(2) no string or object key anywhere in the path, query or JSON body may hold U+0000 or a lone UTF-16 surrogate (400, issue invalid_character), and a JSON body nests at most ' +
          `${limits.json_depth_max} levels; ` +
          `(3) dates lie from ${limits.date_min} to ${limits.date_max}, and a date-time's UTC date too; ` +
          '(4) a method a path does not list answers 405 validation_failed with an Allow header naming the methods it has (under /api/v1 only once the key is accepted); a path not in this document answers 404 not_found; ' +
          `(5) a list page holds at most limit items and fewer when its items would pass ${limits.list_page_bytes_max / 1024 / 1024} MiB of JSON (512 KiB for webhook deliveries) (at least one): has_more is then true, and the next page starts at offset + count.`,
      ),
    },
    servers: [
      { url: serverUrl, description: 'This gateway (the origin the document is served from).' },
      {
        url: '{baseUrl}',
        description: 'Any deployment of the API: its base URL.',
        variables: {
          baseUrl: { default: 'http://127.0.0.1:8080', description: 'The origin of the gateway: http://127.0.0.1:8080 for `npm start`, https://<host> for a deployment.' },
        },
      },
    ],
    security: [{ bearerAuth: [] }],
    tags,
    paths: typedBranches(paths),
    webhooks: typedBranches(hooks),
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'svc_test_… or svc_live_… API key.' } },
      schemas: typedBranches(names.components),
      responses: shared,
      headers: HEADERS,
      parameters: Object.fromEntries(Object.entries(WEBHOOK_HEADERS).map(([n, p]) => [pascal(n), { name: n, in: 'header', required: true, ...p }])),
    },
  };
}
