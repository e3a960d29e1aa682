/** One operation of the OpenAPI document: its parameters, request body, responses and their headers. */
import { type RouteSpec, requestMediaType, takesIdempotencyKey } from './routes';
import type { JsonSchema } from './schemas/common';
import { exampleOf } from './openapi-examples';
import { codeSamples } from './openapi-parts';
import recordedJson from './openapi-recorded.json';
import { limits } from './limits';
import { type SchemaNames, pascal, requestSchema } from './openapi-schemas';
import { ERROR_EXAMPLES, ERROR_RESPONSES, PORTAL_NOT_FOUND, RAW_ERROR_RESPONSES, SHARED_NAMES } from './openapi-texts';

/** What a parameter the declarations leave undescribed means. */
function parameterText(name: string, where: 'path' | 'query', route: RouteSpec): string {
  if (where === 'path') {
    if (name === 'id') return `The id of the ${route.tag.toLowerCase().replace(/s$/, '')} record (uuid, of the key's organization and environment).`;
    if (name === 'token') return 'The share token of the link (as the share returned it).';
    return `The id of the ${name.replace(/_id$/, '').replace(/_/g, ' ')} (uuid).`;
  }
  return `Only items whose ${name.replace(/_/g, ' ')} is this value.`;
}

function parameters(route: RouteSpec): unknown[] {
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

const recordedOf = (route: RouteSpec) => (Object.hasOwn(RECORDED_EXAMPLES, route.operationId) ? RECORDED_EXAMPLES[route.operationId] : undefined);

/** The media types of a success: a download's bytes, a public page, the YAML document, or JSON. */
function successContent(route: RouteSpec, r: RouteSpec['responses'][number], names: SchemaNames): Record<string, unknown> {
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
export function responseName(route: RouteSpec): string {
  const id = route.operationId;
  if (/^get[A-Z]/.test(id) && route.params) return `${id.slice(3)}Response`;
  if (/^list[A-Z]/.test(id)) return `${singularName(id.slice(4))}List`;
  return `${pascal(id)}Response`;
}

const singularName = (s: string) => (s.endsWith('ies') ? `${s.slice(0, -3)}y` : s.endsWith('ses') ? s.slice(0, -2) : s.endsWith('s') ? s.slice(0, -1) : s);

const ERROR_REF = { $ref: '#/components/schemas/Error' };

/** The error statuses a route can answer, with what each means there. */
function errorResponses(route: RouteSpec): Record<string, string> {
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

/** What a route takes as its body, as its requestMediaType: its schema, or, for a JSON POST/PUT/PATCH without one, nothing or {}. */
function requestBody(route: RouteSpec, names: SchemaNames): Record<string, unknown> | undefined {
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

/** The name of the shared error response of status c (components.responses), added on first use. */
function sharedResponse(c: string, shared: Record<string, unknown>): string {
  const name = SHARED_NAMES[c]!;
  shared[name] ??= { description: ERROR_RESPONSES[c], headers: responseHeaders({ method: 'GET' } as RouteSpec, Number(c)), content: { 'application/json': { schema: ERROR_REF } } };
  return name;
}

const h = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The headers of one response (API-DECISIONS §2, §6, SPEC.md §1): what the gateway sets on it. */
function responseHeaders(route: RouteSpec, status: number): Record<string, unknown> {
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

export function operation(route: RouteSpec, names: SchemaNames, shared: Record<string, unknown>): Record<string, unknown> {
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
