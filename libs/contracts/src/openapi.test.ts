import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { NO_NUL_PATTERN } from './bad-input';
import { DATE_PATTERN } from './dates';
import { RECORDED_EXAMPLES, RECORDED_WEBHOOK_EXAMPLES, buildOpenApi, requestSchema } from './openapi';
import { typedBranches } from './openapi-parts';
import { ROUTES, findRoute } from './api/index';
import type { RouteDef } from './rpc-catalogue';
import { requestMediaType } from './routes';
import { compileBody } from './validate';
import { errorSchema, uuid } from './schemas/common';
import { DOCUMENT_CONTENT_TYPES } from './api/documents';
import { limits } from './limits';
import { ERROR_CODES } from './errors';

type Op = {
  operationId: string;
  security?: unknown[];
  parameters: Array<{ name: string; in: string; required: boolean; schema: Record<string, unknown> }>;
  responses: Record<string, { description: string; content: Record<string, { schema: unknown }> }>;
  requestBody?: { required: boolean; content: Record<string, { schema: unknown }> };
};

const doc = buildOpenApi();
const components = doc.components as { schemas: Record<string, unknown>; responses: Record<string, unknown> };
/** v with every $ref to a named schema or shared response written out (JsonValue, recursive, stays a $ref). */
const deref = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(deref);
  if (!v || typeof v !== 'object') return v;
  const ref = (v as { $ref?: string }).$ref;
  if (ref?.startsWith('#/components/schemas/') && ref !== '#/components/schemas/JsonValue') return deref(components.schemas[ref.slice(21)]);
  if (ref?.startsWith('#/components/responses/')) return deref(components.responses[ref.slice(23)]);
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => k !== 'example')
      .map(([k, x]) => [k, k === 'schema' && (x as { $ref?: string }).$ref === '#/components/schemas/Error' ? x : deref(x)]),
  );
};
/** A schema without TypeBox's symbol keys, as the document holds it. */
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));
const paths = doc.paths as Record<string, Record<string, Op>>;
const opOf = (r: RouteDef): Op => {
  const op = paths[r.path]?.[r.method.toLowerCase()];
  if (!op) throw new Error(`no operation for ${r.method} ${r.path}`);
  return deref(op) as Op;
};

describe('buildOpenApi', () => {
  it('is an OpenAPI 3.1.0 document with bearer auth by default', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    const c = doc.components as { securitySchemes: Record<string, unknown>; schemas: Record<string, { properties: Record<string, { properties: Record<string, unknown> }> }> };
    expect(c.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(c.schemas.Error!.properties.error!.properties.code).toMatchObject({ enum: [...ERROR_CODES] });
  });

  it('uses the given server url', () => {
    expect(buildOpenApi('https://api.example.test').servers).toEqual([
      expect.objectContaining({ url: 'https://api.example.test' }),
      { url: '{baseUrl}', description: expect.any(String), variables: { baseUrl: { default: 'http://127.0.0.1:8080', description: expect.any(String) } } },
    ]);
  });

  it('has every route at paths[path][method] with its operationId', () => {
    expect(ROUTES.length).toBeGreaterThan(0);
    for (const r of ROUTES) {
      expect(paths[r.path]).toBeDefined();
      expect(opOf(r)).toBeDefined();
      expect(opOf(r).operationId).toBe(r.operationId);
    }
    const documented = Object.values(paths).reduce((n, p) => n + Object.keys(p).length, 0);
    expect(documented).toBe(ROUTES.length);
  });

  it('has unique operationIds and no duplicate method+path in ROUTES', () => {
    const ids = ROUTES.map((r) => r.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const keys = ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('documents each success response of each route', () => {
    for (const r of ROUTES) {
      for (const s of r.responses) expect(opOf(r).responses[String(s.status)]).toBeDefined();
    }
  });

  it('authenticated routes document 401, 403 and 429 with the Error schema', () => {
    const authed = ROUTES.filter((r) => r.auth);
    expect(authed.length).toBeGreaterThan(0);
    for (const r of authed) {
      for (const c of ['401', '403', '429', '400', '500', '503']) {
        const res = opOf(r).responses[c];
        expect(res).toBeDefined();
        expect(res?.content['application/json']?.schema).toEqual({ $ref: '#/components/schemas/Error' });
      }
      expect(opOf(r).security).toBeUndefined();
    }
  });

  it('routes with path params document 404 and the params as required path parameters', () => {
    for (const r of ROUTES.filter((x) => x.params)) {
      expect(opOf(r).responses['404']).toBeDefined();
      for (const name of Object.keys(r.params!.properties ?? {})) {
        expect(r.path).toContain(`{${name}}`);
        expect(opOf(r).parameters).toContainEqual(expect.objectContaining({ name, in: 'path', required: true }));
      }
    }
  });

  it('POST routes document the Idempotency-Key header, 409, 413 and 415', () => {
    const posts = ROUTES.filter((r) => r.method === 'POST' && r.kind !== 'raw');
    expect(posts.length).toBeGreaterThan(0);
    for (const r of posts) {
      const op = opOf(r);
      const header = op.parameters.find((p) => p.name === 'Idempotency-Key');
      expect(header).toMatchObject({ in: 'header', required: false });
      expect(header!.schema).toMatchObject({ type: 'string', minLength: 1, maxLength: limits.idempotency_key_length_max });
      for (const c of ['409', '413', '415']) expect(op.responses[c]).toBeDefined();
    }
    for (const r of ROUTES.filter((x) => x.method === 'GET')) {
      expect(opOf(r).parameters.some((p) => p.name === 'Idempotency-Key')).toBe(false);
    }
  });

  it('a raw (signed webhook) route documents its body, its signature header, 404, 413, 415 and 429, and no key', () => {
    const raw = ROUTES.filter((r) => r.kind === 'raw');
    expect(raw.map((r) => r.path)).toEqual(['/hooks/stripe/{source_id}']);
    for (const r of raw) {
      const op = opOf(r);
      expect(op.security).toEqual([]);
      expect(op.requestBody?.content['application/json']?.schema).toEqual(plain(r.rawBody));
      expect(op.parameters.find((p) => p.name === r.signatureHeader)).toMatchObject({ in: 'header', required: true });
      expect(op.parameters.some((p) => p.name === 'Idempotency-Key')).toBe(false);
      for (const c of ['400', '404', '413', '415', '429']) expect(op.responses[c]).toBeDefined();
      expect(op.responses['400']!.description).toMatch(/signature_invalid/);
    }
  });

  it('routes with a body document it, required exactly when the gateway refuses an absent body (read as {})', () => {
    for (const r of ROUTES.filter((x) => x.body)) {
      const type = r.kind === 'upload' ? 'multipart/form-data' : 'application/json';
      const required = r.kind === 'upload' || !compileBody(r.body!)({});
      expect({ op: r.operationId, body: opOf(r).requestBody }).toEqual({
        op: r.operationId,
        body: { required, content: { [type]: { schema: plain(typedBranches(requestSchema(r.body!))) } } },
      });
    }
    expect(opOf(findRoute('convertEstimate')).requestBody?.required).toBe(false);
    expect(opOf(findRoute('putInvoiceDefaults')).requestBody?.required).toBe(false);
    expect(opOf(findRoute('createInvoice')).requestBody?.required).toBe(true);
    expect(opOf(findRoute('updateVendor')).requestBody?.required).toBe(true);
  });

  it('documents a request body only in its requestMediaType, the one type the gateway takes, and a 415 naming that type', () => {
    for (const r of ROUTES) {
      const op = opOf(r);
      const type = requestMediaType(r);
      if (op.requestBody) expect({ op: r.operationId, types: Object.keys(op.requestBody.content) }).toEqual({ op: r.operationId, types: [type] });
      const refused = (deref(op.responses['415']) as { description: string } | undefined)?.description;
      expect({ op: r.operationId, refused: refused?.startsWith(`validation_failed: the Content-Type is not ${type}`) ?? 'none' }).toEqual({
        op: r.operationId,
        refused: type ? true : 'none',
      });
    }
  });

  it('a POST, PUT or PATCH without fields documents an optional empty object (no body, or {})', () => {
    for (const r of ROUTES.filter((x) => !x.body && !x.kind && ['POST', 'PUT', 'PATCH'].includes(x.method))) {
      expect(opOf(r).requestBody).toEqual({
        required: false,
        content: { 'application/json': { schema: expect.objectContaining({ type: 'object', properties: {}, additionalProperties: false }) } },
      });
    }
    expect(opOf(findRoute('postInvoice')).requestBody?.required).toBe(false);
    expect(opOf(findRoute('getInvoice')).requestBody).toBeUndefined();
  });

  it('request strings refuse U+0000 by pattern, dates before 1900 by pattern, currencies other than USD by enum', () => {
    const body = (opOf(findRoute('createInvoice')).requestBody!.content['application/json']!.schema as { properties: Record<string, Record<string, unknown>> }).properties;
    expect(body.invoice_number).toMatchObject({ pattern: NO_NUL_PATTERN });
    expect(body.issue_date).toMatchObject({ format: 'date', pattern: DATE_PATTERN });
    expect(body.currency).toMatchObject({ enum: ['USD'] });
    expect(body.currency!['x-openapi']).toBeUndefined();
    // A uuid keeps its own pattern (hyphenated hex, no urn:uuid:), which cannot hold U+0000 either.
    expect(body.customer_id).toMatchObject({ format: 'uuid', pattern: uuid.pattern });
    expect(new RegExp(body.customer_id!.pattern as string).test(`urn:uuid:${randomUUID()}`)).toBe(false);
    const nul = new RegExp(NO_NUL_PATTERN, 'u');
    expect(nul.test('a\u0000b')).toBe(false);
    expect(nul.test('café 🧾')).toBe(true);
    const day = new RegExp(DATE_PATTERN, 'u');
    expect(['1900-01-01', '2026-03-01', '9999-12-31'].every((d) => day.test(d))).toBe(true);
    expect(['1899-12-31', '0001-01-01', '10000-01-01', '2026-13-01'].some((d) => day.test(d))).toBe(false);
    // The document's schemas are not the gateway's: the route table's own stay untouched.
    expect(findRoute('createInvoice').body!.properties).not.toHaveProperty('invoice_number.pattern');
  });

  it('downloads declare every media type they send; errors the route shape does not imply are declared where they happen', () => {
    const dl = opOf(findRoute('downloadDocument')).responses['200']!.content;
    expect(Object.keys(dl).sort()).toEqual([...DOCUMENT_CONTENT_TYPES].sort());
    expect(Object.keys(opOf(findRoute('downloadDocumentRender')).responses['200']!.content)).toEqual(['application/pdf']);
    for (const id of ['getPaymentProcessor', 'deletePaymentProcessor']) expect(opOf(findRoute(id)).responses['404']).toBeDefined();
    for (const id of ['getPortalPage', 'getPortalPdf']) expect(Object.keys(opOf(findRoute(id)).responses['404']!.content).sort()).toEqual(['application/json', 'text/html']);
    expect(Object.keys(opOf(findRoute('getOpenApi')).responses).sort()).toEqual(['200', '400', '429', '500']);
    expect(Object.keys(opOf(findRoute('getOpenApiJson')).responses).sort()).toEqual(['200', '400', '429', '500']);
  });

  it('query schemas become query parameters', () => {
    const list = opOf(findRoute('listCustomers'));
    expect(list.parameters).toContainEqual(expect.objectContaining({ name: 'limit', in: 'query', required: false }));
    expect(list.parameters).toContainEqual(expect.objectContaining({ name: 'offset', in: 'query', required: false }));
  });

  it('the unauthenticated openapi route has security: [] and a YAML response', () => {
    const unauth = ROUTES.filter((r) => !r.auth);
    expect(unauth.map((r) => r.operationId)).toContain('getOpenApi');
    for (const r of unauth) expect(opOf(r).security).toEqual([]);
    const op = opOf(findRoute('getOpenApi'));
    expect(op.responses['200']?.content['application/yaml']).toBeDefined();
    expect(op.responses['401']).toBeUndefined();
  });
});

describe('ROUTES schemas', () => {
  const cases: Array<[string, string, Record<string, unknown>]> = [];
  for (const r of ROUTES) {
    if (r.params) cases.push([r.operationId, 'params', r.params]);
    if (r.query) cases.push([r.operationId, 'query', r.query]);
    if (r.body) cases.push([r.operationId, 'body', r.body]);
    for (const s of r.responses) cases.push([r.operationId, `response ${s.status}`, s.schema]);
  }

  it.each(cases)('%s %s compiles with ajv', (_id, _what, schema) => {
    expect(() => compileBody(schema)).not.toThrow();
    expect(typeof compileBody(schema)).toBe('function');
  });

  it('the Error schema compiles and accepts an error envelope', () => {
    const v = compileBody(errorSchema);
    expect(v({ error: { code: 'not_found', message: 'x', details: [], request_id: 'r' } })).toBe(true);
    expect(v({ error: { code: 'not_found' } })).toBe(false);
  });

  it('findRoute throws on an unknown operationId', () => {
    expect(() => findRoute('nope')).toThrow('unknown route nope');
  });
});

describe('the document against the OpenAPI 3.1 schema', () => {
  it('is a valid OpenAPI 3.1 document (code generators read it)', () => {
    // The validator is an ES module: run it in a plain node process, the document on stdin.
    const script = `
      import('@seriousme/openapi-schema-validator').then(async ({ Validator }) => {
        const doc = JSON.parse(require('fs').readFileSync(0, 'utf8'));
        const v = new Validator();
        const r = await v.validate(doc);
        process.stdout.write(JSON.stringify({ valid: r.valid, errors: r.errors ?? null, version: v.version }));
      });`;
    const out = execFileSync(process.execPath, ['-e', script], { input: JSON.stringify(buildOpenApi()), cwd: __dirname });
    expect(JSON.parse(out.toString())).toEqual({ valid: true, errors: null, version: '3.1' });
  });
});

describe('404 is documented wherever a record can be missing', () => {
  const doc = buildOpenApi() as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
  it.each([
    ['post', '/api/v1/invoices'],
    ['post', '/api/v1/payments'],
    ['post', '/api/v1/estimates'],
    ['get', '/api/v1/invoices/{id}'],
  ])('%s %s documents 404', (method, path) => {
    expect(doc.paths[path]?.[method]?.responses['404']).toBeDefined();
  });
  it.each([
    ['post', '/api/v1/customers'],
    ['get', '/api/v1/customers'],
  ])('%s %s does not', (method, path) => {
    expect(doc.paths[path]?.[method]).toBeDefined();
    expect(doc.paths[path]?.[method]?.responses['404']).toBeUndefined();
  });
});

describe("the document's examples are the end-to-end tests' own traffic (issue #24)", () => {
  type Media = { example?: unknown };
  const json = (x: unknown) => (x as { content?: Record<string, Media> } | undefined)?.content?.['application/json'];

  it('shows, for every JSON operation the tests recorded, the request they sent, the success and the error they got', () => {
    const jsonOps = ROUTES.filter((r) => Object.hasOwn(RECORDED_EXAMPLES, r.operationId));
    expect(jsonOps.length).toBeGreaterThanOrEqual(70);
    for (const r of jsonOps) {
      const seen = RECORDED_EXAMPLES[r.operationId]!;
      const op = paths[r.path]![r.method.toLowerCase()] as unknown as { requestBody?: unknown; responses: Record<string, unknown> };
      if (seen.request !== undefined) expect([r.operationId, json(op.requestBody)?.example]).toEqual([r.operationId, seen.request]);
      expect([r.operationId, json(op.responses[String(seen.response.status)])?.example]).toEqual([r.operationId, seen.response.body]);
      if (seen.error) expect([r.operationId, json(op.responses[String(seen.error.status)])?.example]).toEqual([r.operationId, seen.error.body]);
    }
  });

  it('shows, for every webhook the tests received, the delivery body they got, valid against its schema', () => {
    const hooks = doc.webhooks as Record<string, { post: { requestBody: { content: Record<string, { schema: unknown; example?: unknown }> } } }>;
    expect(Object.keys(RECORDED_WEBHOOK_EXAMPLES)).toContain('api_key.revoked');
    for (const [type, body] of Object.entries(RECORDED_WEBHOOK_EXAMPLES)) {
      const media = hooks[type]!.post.requestBody.content['application/json']!;
      expect([type, media.example]).toEqual([type, body]);
      const valid = compileBody(deref(media.schema) as Parameters<typeof compileBody>[0]);
      expect([type, valid(body), valid.errors ?? null]).toEqual([type, true, null]);
    }
  });

  it('makes an example from the schema where the tests recorded none (a body of another media type)', () => {
    expect(Object.hasOwn(RECORDED_EXAMPLES, 'uploadDocument')).toBe(true);
    expect(RECORDED_EXAMPLES.uploadDocument!.request).toBeUndefined();
    const r = findRoute('uploadDocument');
    const op = paths[r.path]![r.method.toLowerCase()] as unknown as { requestBody: { content: Record<string, Media> } };
    expect(Object.keys(op.requestBody.content)).toEqual(['multipart/form-data']);
  });
});
