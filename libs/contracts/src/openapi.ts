import { ROUTES } from './api/index';
import { errorDetail, errorSchema, type JsonSchema, pagination } from './schemas/common';
import { metadataRecord } from './schemas/metadata';
import { ERROR_CODES } from './errors';
import { EVENT_SCHEMAS, OUTBOUND_EVENT_TYPES } from './events';
import { exampleOf } from './openapi-examples';
import { introduction, typedBranches } from './openapi-parts';
import { limits } from './limits';
import { SchemaNames, jsonValueSchema, pascal } from './openapi-schemas';
import { operation, responseName } from './openapi-operation';
import { HEADERS, TAGS, WEBHOOK_HEADERS } from './openapi-texts';
import recordedWebhooksJson from './openapi-recorded-webhooks.json';

export { requestSchema } from './openapi-schemas';
export { RECORDED_EXAMPLES } from './openapi-operation';

/**
 * Delivery bodies the end-to-end tests received, by event type: the example of the type's webhook
 * where there is one (else one made from its schema). Recorded with UPDATE_OPENAPI_EXAMPLES=1 by the
 * test that receives the type (test/e2e/api-key-revoked.e2e.test.ts), which otherwise fails when the
 * body it gets leaves its recorded shape.
 */
export const RECORDED_WEBHOOK_EXAMPLES = recordedWebhooksJson as Record<string, unknown>;

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
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: body,
              example: Object.hasOwn(RECORDED_WEBHOOK_EXAMPLES, type) ? RECORDED_WEBHOOK_EXAMPLES[type] : exampleOf(body, '', true, names.components),
            },
          },
        },
        responses: {
          '200': { description: 'Any 2xx acknowledges the delivery.' },
          '400': { description: 'Any other status (or none within the timeout) fails the attempt: it is retried later.' },
        },
      },
    };
  }
  return out;
}

/** The named schemas every operation refers to: the error envelope, pagination, metadata and each record. */
function namedSchemas(): SchemaNames {
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
  return names;
}

/** The tags of the routes: TAGS' reading order first, then any other, each with its description. */
function tagList(): { name: string; description: string }[] {
  const used = [...new Set(ROUTES.map((r) => r.tag))];
  return [...Object.keys(TAGS).filter((t) => used.includes(t)), ...used.filter((t) => !TAGS[t])].map((name) => ({ name, description: TAGS[name] ?? name }));
}

/** The info object: the title, version, license and the introduction with the rules every operation follows. */
function info(): Record<string, unknown> {
  return {
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
  };
}

/** The OpenAPI 3.1 document of every route in ROUTES. */
export function buildOpenApi(serverUrl = '/'): Record<string, unknown> {
  const names = namedSchemas();
  const shared: Record<string, unknown> = {};
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    const item = (paths[route.path] ??= {});
    item[route.method.toLowerCase()] = operation(route, names, shared);
  }
  const tags = tagList();
  const hooks = webhooks(names);
  return {
    openapi: '3.1.0',
    info: info(),
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
